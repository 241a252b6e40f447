#include "interp/language/format_spec.h"

#include <cctype>
#include <cmath>
#include <optional>

#include "interp/language/string_format.h"
#include "interp/language/value_convert.h"

namespace tfg {
namespace {

struct FormatSpec {
  char fill = ' ';
  char align = 0;  // '<', '>', '^', '=' or 0 (the type's default)
  char sign = 0;   // '+', '-', ' ' or 0
  bool alternate = false;
  int width = 0;
  char grouping = 0;  // ',' or '_' or 0
  std::optional<int> precision;
  char type = 0;
};

bool IsAlign(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

Result<int> ReadCount(std::string_view spec, size_t& i) {
  int n = 0;
  while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) {
    n = n * 10 + (spec[i++] - '0');
    if (n > 10000) return InvalidArgument("format spec '{}': width or precision too large", spec);
  }
  return n;
}

Result<FormatSpec> ParseSpec(std::string_view spec) {
  FormatSpec s;
  size_t i = 0;
  if (spec.size() >= 2 && IsAlign(spec[1])) {
    s.fill = spec[0];
    s.align = spec[1];
    i = 2;
  } else if (!spec.empty() && IsAlign(spec[0])) {
    s.align = spec[0];
    i = 1;
  }
  if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) s.sign = spec[i++];
  if (i < spec.size() && spec[i] == '#') s.alternate = (++i, true);
  if (i < spec.size() && spec[i] == '0') {
    if (s.align == 0) s.fill = '0', s.align = '=';
    ++i;
  }
  TFG_ASSIGN_OR_RETURN(s.width, ReadCount(spec, i));
  if (i < spec.size() && (spec[i] == ',' || spec[i] == '_')) s.grouping = spec[i++];
  if (i < spec.size() && spec[i] == '.') {
    ++i;
    if (i >= spec.size() || !std::isdigit(static_cast<unsigned char>(spec[i]))) {
      return InvalidArgument("format spec '{}': '.' must be followed by a precision", spec);
    }
    TFG_ASSIGN_OR_RETURN(int precision, ReadCount(spec, i));
    s.precision = precision;
  }
  if (i < spec.size()) s.type = spec[i++];
  if (i != spec.size() || (s.type != 0 && std::string_view("bcdeEfFgGnosxX%").find(s.type) == std::string_view::npos)) {
    return InvalidArgument("invalid format spec '{}' (Python's [[fill]align][sign][#][0][width][,][.precision][type])",
                           spec);
  }
  return s;
}

// Puts `sep` between each group of three digits of the integer part.
std::string Group(const std::string& body, char sep) {
  size_t digits_end = body.find_first_not_of("0123456789");
  if (digits_end == std::string::npos) digits_end = body.size();
  std::string out;
  for (size_t i = 0; i < digits_end; ++i) {
    if (i > 0 && (digits_end - i) % 3 == 0) out += sep;
    out += body[i];
  }
  return out + body.substr(digits_end);
}

// Pads `sign` + `body` to the width; '=' puts the padding after the sign.
std::string Pad(const std::string& sign, const std::string& body, const FormatSpec& s, char default_align) {
  const size_t length = Characters(sign + body).size();
  if (static_cast<size_t>(s.width) <= length) return sign + body;
  const size_t fill = static_cast<size_t>(s.width) - length;
  switch (s.align ? s.align : default_align) {
    case '<': return sign + body + std::string(fill, s.fill);
    case '^': return std::string(fill / 2, s.fill) + sign + body + std::string(fill - fill / 2, s.fill);
    case '=': return sign + std::string(fill, s.fill) + body;
    default: return std::string(fill, s.fill) + sign + body;
  }
}

// The digits of an integer in the spec's type (no sign), with 0b/0o/0x
// after '#' as Python writes them.
std::string IntegerBody(uint64_t magnitude, const FormatSpec& s) {
  const char type = s.type == 0 || s.type == 'n' ? 'd' : s.type;
  if (type == 'd') return std::to_string(magnitude);
  const unsigned base = type == 'b' ? 2 : type == 'o' ? 8 : 16;
  const char* digit_chars = type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), digit_chars[magnitude % base]);
    magnitude /= base;
  } while (magnitude != 0);
  return s.alternate ? std::string("0") + type + digits : digits;
}

// The digits of a float in the spec's type (no sign).
Result<std::string> FloatBody(double magnitude, const FormatSpec& s) {
  if (!std::isfinite(magnitude)) return std::string(std::isnan(magnitude) ? "nan" : "inf");
  char type = s.type;
  if (type == 0 && !s.precision) return FormatFloat(magnitude);
  if (type == 0 || type == 'n') type = 'g';
  const bool percent = type == '%';
  if (percent) {
    magnitude *= 100;
    type = 'f';
  }
  std::string format = "%";
  if (s.alternate) format += '#';
  format += "." + std::to_string(s.precision.value_or(6)) + type;
  TFG_ASSIGN_OR_RETURN(std::string body, PercentFormat(format, Value::NewList({Value::Float(magnitude)})));
  return percent ? body + "%" : body;
}

Result<std::string> FormatNumber(const Value& n, const FormatSpec& s) {
  const bool integral = n.is(ValueKind::kInt);
  const bool float_type = s.type != 0 && std::string_view("eEfFgG%").find(s.type) != std::string_view::npos;
  if (s.type == 'c') {
    if (!integral || n.as_int() < 0 || n.as_int() > 0x7F) return InvalidArgument("format 'c' needs an int below 128");
    return Pad("", std::string(1, static_cast<char>(n.as_int())), s, '>');
  }
  if (!integral && s.type != 0 && !float_type && s.type != 'n') {
    return InvalidArgument("unknown format code '{}' for a float", s.type);
  }
  const bool negative = integral ? n.as_int() < 0 : std::signbit(n.as_float());
  std::string sign = negative ? "-" : s.sign == '+' ? "+" : s.sign == ' ' ? " " : "";
  std::string body;
  if (integral && !float_type) {
    const int64_t i = n.as_int();
    const uint64_t magnitude = i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    body = IntegerBody(magnitude, s);
  } else {
    const double d = integral ? static_cast<double>(n.as_int()) : n.as_float();
    TFG_ASSIGN_OR_RETURN(body, FloatBody(std::fabs(d), s));
  }
  if (s.grouping) body = Group(body, s.grouping);
  return Pad(sign, body, s, '>');
}

}  // namespace

Result<std::string> FormatWithSpec(const Value& v, std::string_view spec) {
  if (spec.empty()) return ToDisplayString(v);
  TFG_ASSIGN_OR_RETURN(FormatSpec s, ParseSpec(spec));
  std::optional<Value> number;
  if (v.is(ValueKind::kBool)) {
    if (s.type != 0) number = Value::Int(v.as_bool() ? 1 : 0);
  } else if (v.is_number()) {
    number = v;
  } else if (v.is(ValueKind::kTensor) && v.as_tensor().num_elements() == 1 &&
             v.as_tensor().dtype() != DType::kString) {
    number = TensorElement(v.as_tensor(), 0);
    if (number->is(ValueKind::kBool)) number = Value::Int(number->as_bool() ? 1 : 0);
  }
  if (number && number->is_number()) return FormatNumber(*number, s);
  if (s.type != 0 && s.type != 's') {
    return InvalidArgument("format code '{}' needs a number, got {}", s.type, Describe(v));
  }
  std::string text = ToDisplayString(v);
  if (v.is(ValueKind::kTensor) && v.as_tensor().num_elements() == 1 && v.as_tensor().dtype() == DType::kString) {
    text = ToDisplayString(TensorElement(v.as_tensor(), 0));
  }
  if (s.precision) {
    std::vector<std::string_view> chars = Characters(text);
    if (static_cast<size_t>(*s.precision) < chars.size()) {
      text = std::string(text.data(), chars[static_cast<size_t>(*s.precision)].data() - text.data());
    }
  }
  return Pad("", text, s, '<');
}

}  // namespace tfg
