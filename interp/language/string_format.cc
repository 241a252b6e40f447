#include "interp/language/string_format.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "interp/language/value_convert.h"

namespace tfg {
namespace {

// One %-conversion: its flags, width and precision as written, and its letter.
struct Spec {
  std::string flags;
  std::string width;
  std::optional<std::string> precision;
  char conversion = 0;
};

// A number for a numeric conversion: host numbers, bools (as 0 and 1), and
// one-element host tensors (a loss fetched by run()).
std::optional<Value> NumberOf(const Value& v) {
  if (v.is(ValueKind::kBool)) return Value::Int(v.as_bool() ? 1 : 0);
  if (v.is_number()) return v;
  if (v.is(ValueKind::kTensor) && v.as_tensor().num_elements() == 1) return NumberOf(TensorElement(v.as_tensor(), 0));
  return std::nullopt;
}

// `spec` is built by CSpec from checked parts, one conversion for `value`'s
// type, so the non-literal format is safe.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
std::string Printf(const std::string& spec, auto value) {
  int n = std::snprintf(nullptr, 0, spec.c_str(), value);
  if (n <= 0) return {};
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), spec.c_str(), value);
  out.resize(static_cast<size_t>(n));
  return out;
}
#pragma GCC diagnostic pop

std::string CSpec(const Spec& s, const char* length, char conversion) {
  std::string out = "%" + s.flags + s.width;
  if (s.precision) out += "." + *s.precision;
  return out + length + conversion;
}

// %s and %r: the text, cut to the precision and padded to the width.
std::string Pad(std::string text, const Spec& s) {
  if (s.precision) {
    std::vector<std::string_view> chars = Characters(text);
    size_t keep = std::stoul(*s.precision);
    if (keep < chars.size()) text = std::string(text.data(), chars[keep].data() - text.data());
  }
  size_t width = s.width.empty() ? 0 : std::stoul(s.width);
  size_t length = Characters(text).size();
  if (length >= width) return text;
  std::string fill(width - length, ' ');
  return s.flags.find('-') != std::string::npos ? text + fill : fill + text;
}

Result<std::string> Convert(const Spec& s, const Value& v) {
  if (s.conversion == 's') return Pad(ToDisplayString(v), s);
  if (s.conversion == 'r') return Pad(Repr(v), s);
  if (s.conversion == 'c') {
    if (v.is(ValueKind::kString) && Characters(v.as_string()).size() == 1) return Pad(v.as_string(), s);
    return InvalidArgument("%c needs a one-character string, got {}", Describe(v));
  }
  std::optional<Value> n = NumberOf(v);
  if (!n) return InvalidArgument("%{} needs a number, got {}", s.conversion, Describe(v));
  const bool integral = !n->is(ValueKind::kFloat);
  const double d = integral ? 0.0 : n->as_float();
  switch (s.conversion) {
    case 'd':
    case 'i':
    case 'u': {
      if (!integral && !std::isfinite(d)) return InvalidArgument("%{} cannot show {}", s.conversion, FormatFloat(d));
      if (!integral && std::fabs(d) >= 9.2e18) return InvalidArgument("%{}: {} is out of range", s.conversion, d);
      const long long i = integral ? *AsHostInt(*n) : static_cast<long long>(d);  // truncates, as Python
      return Printf(CSpec(s, "ll", 'd'), i);
    }
    case 'x':
    case 'X':
    case 'o':
      if (!integral) return InvalidArgument("%{} needs an int, got {}", s.conversion, Describe(*n));
      {
        const long long i = *AsHostInt(*n);
        // As Python: a negative number shows its sign, not two's complement.
        std::string digits = Printf(CSpec(Spec{"", "", s.precision, 0}, "ll", s.conversion),
                                    static_cast<unsigned long long>(i < 0 ? -static_cast<unsigned long long>(i) : i));
        if (s.flags.find('#') != std::string::npos) {
          digits = (s.conversion == 'o' ? "0o" : s.conversion == 'x' ? "0x" : "0X") + digits;
        }
        std::string sign = i < 0 ? "-" : s.flags.find('+') != std::string::npos ? "+" : "";
        Spec text = s;
        text.precision.reset();
        if (s.flags.find('0') != std::string::npos && s.flags.find('-') == std::string::npos && !s.width.empty()) {
          size_t width = std::stoul(s.width);
          if (sign.size() + digits.size() < width) digits.insert(0, width - sign.size() - digits.size(), '0');
        }
        return Pad(sign + digits, text);
      }
    default: {
      const double x = integral ? static_cast<double>(*AsHostInt(*n)) : d;
      return Printf(CSpec(s, "", s.conversion), x);
    }
  }
}

// The conversions of `format`, in order; text between them is copied by
// the caller. Each entry is the spec and the [begin, end) of its text.
struct Piece {
  Spec spec;
  size_t begin, end;
};

Result<std::vector<Piece>> Parse(const std::string& f) {
  std::vector<Piece> pieces;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    Piece p{{}, i, i + 1};
    size_t j = i + 1;
    while (j < f.size() && std::string_view("-+ 0#").find(f[j]) != std::string_view::npos) p.spec.flags += f[j++];
    while (j < f.size() && std::isdigit(static_cast<unsigned char>(f[j]))) p.spec.width += f[j++];
    if (j < f.size() && f[j] == '.') {
      std::string precision;
      ++j;
      while (j < f.size() && std::isdigit(static_cast<unsigned char>(f[j]))) precision += f[j++];
      p.spec.precision = precision.empty() ? "0" : precision;
    }
    if (p.spec.width.size() > 4 || (p.spec.precision && p.spec.precision->size() > 4)) {
      return InvalidArgument("a width or precision of more than 4 digits in the format string");
    }
    if (j >= f.size()) return InvalidArgument("the format string ends inside a '%' conversion");
    const char c = f[j];
    if (std::string_view("diufFeEgGxXocsr%").find(c) == std::string_view::npos) {
      return InvalidArgument("unsupported format character '{}' at position {}", std::string(1, c), j);
    }
    p.spec.conversion = c;
    p.end = j + 1;
    pieces.push_back(std::move(p));
    i = j;
  }
  return pieces;
}

}  // namespace

Result<std::string> PercentFormat(const std::string& format, const Value& args) {
  TFG_ASSIGN_OR_RETURN(std::vector<Piece> pieces, Parse(format));
  size_t wanted = 0;
  for (const Piece& p : pieces) wanted += p.spec.conversion != '%';
  // A list gives one value per conversion; anything else (a list too, when
  // there is one conversion for it) is the single value.
  std::vector<Value> values;
  if (args.is(ValueKind::kList) && (wanted != 1 || args.as_list().items.size() == 1)) {
    values = args.as_list().items;
  } else {
    values.push_back(args);
  }
  if (values.size() < wanted) {
    return InvalidArgument("not enough values for the format string ({} for {})", values.size(), wanted);
  }
  if (values.size() > wanted) {
    return InvalidArgument("not all values converted by the format string ({} for {})", values.size(), wanted);
  }
  std::string out;
  size_t at = 0, next = 0;
  for (const Piece& p : pieces) {
    out.append(format, at, p.begin - at);
    at = p.end;
    if (p.spec.conversion == '%') {
      out += '%';
      continue;
    }
    TFG_ASSIGN_OR_RETURN(std::string text, Convert(p.spec, values[next++]));
    out += text;
  }
  out.append(format, at, std::string::npos);
  return out;
}

}  // namespace tfg
