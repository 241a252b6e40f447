// FormatTensor prints like NumPy's str(array) with default print options
// (precision 8, threshold 1000, edgeitems 3, linewidth 75): a port of
// numpy/_core/arrayprint.py (FloatingFormat, IntegerFormat, _formatArray).
// Floats use the shortest digits that round-trip in their own dtype
// (Dragon4 "unique" mode), cut at 8 digits after the point.
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "ops/core/dtype_traits.h"
#include "ops/core/tensor.h"

namespace tfg {
namespace {

constexpr int kPrecision = 8;
constexpr int kEdgeItems = 3;
constexpr int kLineWidth = 75;
// The most axes laid out: NumPy's own limit (numpy.MAXDIMS in NumPy 2). The
// layout takes a stack frame and a column of indentation per axis, so a
// tensor of more (reshape to a 100,000-long shape, a crafted .npy) is named
// rather than laid out.
constexpr int kMaxLaidOutRank = 64;

// value = digits[0].digits[1..] x 10^exp; digits has no trailing zeros.
struct Decimal {
  bool negative = false;
  std::string digits;
  int exp = 0;
};

// Parses to_chars' scientific output ("-1.25e-05").
Decimal ParseScientific(const char* begin, const char* end) {
  Decimal d;
  const char* p = begin;
  if (*p == '-') {
    d.negative = true;
    ++p;
  }
  for (; p < end && *p != 'e'; ++p) {
    if (*p != '.') d.digits += *p;
  }
  if (p < end) {
    ++p;  // 'e'
    bool neg = *p == '-';
    if (*p == '+' || *p == '-') ++p;
    std::from_chars(p, end, d.exp);
    if (neg) d.exp = -d.exp;
  }
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

uint16_t HalfBits(half h) {
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}

// The shortest digits that read back as the same value of `dtype`.
Decimal Shortest(double v, DType dtype) {
  char buf[64];
  std::to_chars_result r{};
  if (dtype == DType::kF64) {
    r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  } else if (dtype == DType::kF32) {
    r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v), std::chars_format::scientific);
  } else {  // f16: no to_chars overload; try 1..5 significant digits
    const uint16_t want = HalfBits(half(static_cast<float>(v)));
    for (int p = 0; p < 5; ++p) {
      r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v), std::chars_format::scientific, p);
      float back = 0;
      std::from_chars(buf, r.ptr, back);
      if (HalfBits(half(back)) == want) break;
    }
  }
  return ParseScientific(buf, r.ptr);
}

std::string ExponentText(int exp, int min_digits) {
  std::string digits = std::to_string(exp < 0 ? -exp : exp);
  if (static_cast<int>(digits.size()) < min_digits) digits.insert(0, min_digits - digits.size(), '0');
  return (exp < 0 ? "-" : "+") + digits;
}

struct SciParts {
  std::string int_part;  // sign and one digit
  std::string frac;
  int exp = 0;
};

// Scientific digits, at most `max_frac` after the point (-1: all needed)
// and at least `min_frac`. Past the digits that identify the value, the
// value's own next digits (v holds it exactly), as NumPy's min_digits.
SciParts Scientific(double v, DType dtype, int max_frac, int min_frac = 0) {
  Decimal d = Shortest(v, dtype);
  const int frac = static_cast<int>(d.digits.size()) - 1;
  if ((max_frac >= 0 && frac > max_frac) || frac < min_frac) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific, frac < min_frac ? min_frac : max_frac);
    d = ParseScientific(buf, r.ptr);
  }
  SciParts p;
  if (d.negative) p.int_part.push_back('-');
  p.int_part.push_back(d.digits[0]);
  p.frac = d.digits.substr(1);
  p.frac.append(std::max<int>(0, min_frac - static_cast<int>(p.frac.size())), '0');  // zeros of the value
  p.exp = d.exp;
  return p;
}

struct PosParts {
  std::string int_part;  // with sign
  std::string frac;      // trailing zeros trimmed
};

// Positional digits, at most `max_frac` after the point (-1: all needed).
PosParts Positional(double v, DType dtype, int max_frac) {
  Decimal d = Shortest(v, dtype);
  const int ndigits = static_cast<int>(d.digits.size());
  PosParts out;
  if (max_frac >= 0 && ndigits - 1 - d.exp > max_frac) {
    char buf[400];
    auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, max_frac);
    std::string s(buf, r.ptr);
    size_t dot = s.find('.');
    out.int_part = s.substr(0, dot);
    out.frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    while (!out.frac.empty() && out.frac.back() == '0') out.frac.pop_back();
    return out;
  }
  if (d.exp >= 0) {
    out.int_part = d.digits.substr(0, d.exp + 1);
    out.int_part.append(std::max(0, d.exp + 1 - ndigits), '0');
    if (ndigits > d.exp + 1) out.frac = d.digits.substr(d.exp + 1);
  } else {
    out.int_part.assign(1, '0');
    out.frac.assign(-d.exp - 1, '0');
    out.frac += d.digits;
  }
  if (d.negative) out.int_part.insert(out.int_part.begin(), '-');
  return out;
}

std::string LeftPad(const std::string& s, int width) {
  return static_cast<int>(s.size()) >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string NonFiniteText(double v) { return std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"); }

// NumPy's FloatingFormat for mode 'maxprec' (precision 8, sign '-').
class FloatFormatter {
 public:
  FloatFormatter(const std::vector<double>& shown, DType dtype) : dtype_(dtype) { Fill(shown); }

  std::string operator()(double v) const {
    if (!std::isfinite(v)) return LeftPad(NonFiniteText(v), pad_left_ + pad_right_ + 1);
    if (exp_format_) {
      SciParts p = Scientific(v, dtype_, precision_, precision_);
      return LeftPad(p.int_part, pad_left_) + "." + p.frac + "e" + ExponentText(p.exp, exp_size_);
    }
    PosParts p = Positional(v, dtype_, kPrecision);
    std::string right(std::max<int>(0, pad_right_ - static_cast<int>(p.frac.size())), ' ');
    return LeftPad(p.int_part, pad_left_) + "." + p.frac + right;
  }

 private:
  void Fill(const std::vector<double>& shown);
  void FillExp(const std::vector<double>& finite);
  void FillPositional(const std::vector<double>& finite);

  DType dtype_;
  bool exp_format_ = false;
  int pad_left_ = 0;
  int pad_right_ = 0;
  int precision_ = kPrecision;
  int exp_size_ = 2;
};

void FloatFormatter::Fill(const std::vector<double>& shown) {
  std::vector<double> finite;
  bool neg_inf = false, any_nonfinite = false;
  for (double v : shown) {
    if (std::isfinite(v)) {
      finite.push_back(v);
    } else {
      any_nonfinite = true;
      neg_inf |= std::isinf(v) && v < 0;
    }
  }
  // Exponent notation when magnitudes are huge, tiny, or far apart; the
  // upper cutoff is 10^min(8, decimal digits of the dtype).
  const double cutoff = dtype_ == DType::kF16 ? 1e3 : dtype_ == DType::kF32 ? 1e6 : 1e8;
  double max_abs = 0, min_abs = INFINITY;
  for (double v : finite) {
    if (v == 0) continue;
    max_abs = std::max(max_abs, std::fabs(v));
    min_abs = std::min(min_abs, std::fabs(v));
  }
  if (max_abs > 0) exp_format_ = max_abs >= cutoff || min_abs < 1e-4 || max_abs / min_abs > 1000.0;
  if (!finite.empty()) {
    if (exp_format_) {
      FillExp(finite);
    } else {
      FillPositional(finite);
    }
  }
  if (any_nonfinite) {
    const int offset = pad_right_ + 1;
    pad_left_ = std::max({pad_left_, 3 - offset, 3 + (neg_inf ? 1 : 0) - offset});
  }
}

void FloatFormatter::FillExp(const std::vector<double>& finite) {
  int max_frac = 0, max_int = 0, max_exp = 0;
  for (double v : finite) {
    SciParts p = Scientific(v, dtype_, kPrecision);
    max_frac = std::max(max_frac, static_cast<int>(p.frac.size()));
    max_int = std::max(max_int, static_cast<int>(p.int_part.size()));
    max_exp = std::max(max_exp, static_cast<int>(ExponentText(p.exp, 2).size()) - 1);
  }
  precision_ = max_frac;
  exp_size_ = max_exp;
  pad_left_ = max_int;
  pad_right_ = exp_size_ + 2 + precision_;
}

void FloatFormatter::FillPositional(const std::vector<double>& finite) {
  for (double v : finite) {
    PosParts p = Positional(v, dtype_, kPrecision);
    pad_left_ = std::max(pad_left_, static_cast<int>(p.int_part.size()));
    pad_right_ = std::max(pad_right_, static_cast<int>(p.frac.size()));
  }
}

// str() of a NumPy float scalar: positional when 1e-4 <= |v| < cutoff (or
// zero), with at least one fraction digit ("1.0"); else scientific
// without trailing zeros or point ("1e+20").
std::string FloatScalarText(double v, DType dtype) {
  if (!std::isfinite(v)) return NonFiniteText(v);
  const double cutoff = dtype == DType::kF16 ? 1e3 : dtype == DType::kF32 ? 1e6 : 1e16;
  const double a = std::fabs(v);
  if (a == 0 || (a >= 1e-4 && a < cutoff)) {
    PosParts p = Positional(v, dtype, -1);
    return p.int_part + "." + (p.frac.empty() ? "0" : p.frac);
  }
  SciParts p = Scientific(v, dtype, -1);
  return p.int_part + (p.frac.empty() ? "" : "." + p.frac) + "e" + ExponentText(p.exp, 2);
}

// Python's repr of a str: single quotes unless the text has ' and no ".
std::string PyRepr(const std::string& s) {
  const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char quote = dq ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + quote;
}

double ElementAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kF16: return static_cast<float>(t.data<half>()[i]);
    case DType::kF32: return t.data<float>()[i];
    case DType::kF64: return t.data<double>()[i];
    default: return 0;
  }
}

int64_t ElementAsInt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kI32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

// Code points, as Python's len() counts them for line wrapping.
int DisplayLen(const std::string& s) {
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

using ElementFn = std::function<std::string(int64_t flat_index)>;

// NumPy's _formatArray (legacy=False): nested brackets, rows wrapped at
// the line width, "..." in place of the middle of long axes.
class Layout {
 public:
  Layout(const TensorShape& shape, bool summarize, ElementFn element)
      : dims_(shape.dims()), strides_(dims_.size(), 1), summarize_(summarize), element_(std::move(element)) {
    for (int i = static_cast<int>(dims_.size()) - 2; i >= 0; --i) strides_[i] = strides_[i + 1] * dims_[i + 1];
  }

  std::string Format() { return Recurse(0, 0, " ", kLineWidth); }

 private:
  std::string Recurse(size_t axis, int64_t offset, const std::string& hanging, int width);
  std::string Row(size_t axis, int64_t offset, const std::string& hanging, int width, bool summary);
  std::string Block(size_t axis, int64_t offset, const std::string& hanging, int width, bool summary);

  void Extend(std::string& s, std::string& line, const std::string& word, int width,
              const std::string& prefix) const {
    bool wrap = DisplayLen(line) + DisplayLen(word) > width && DisplayLen(line) > DisplayLen(prefix);
    if (wrap) {
      size_t end = line.find_last_not_of(' ');
      s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
      line = prefix;
    }
    line += word;
  }

  std::vector<int64_t> dims_;
  std::vector<int64_t> strides_;
  bool summarize_;
  ElementFn element_;
};

std::string Layout::Recurse(size_t axis, int64_t offset, const std::string& hanging, int width) {
  if (axis == dims_.size()) return element_(offset);
  const bool summary = summarize_ && 2 * kEdgeItems < dims_[axis];
  std::string s = dims_.size() - axis == 1 ? Row(axis, offset, hanging, width, summary)
                                           : Block(axis, offset, hanging, width, summary);
  std::string out(1, '[');
  out.append(s, hanging.size());
  out.push_back(']');
  return out;
}

// The last axis: elements separated by spaces, wrapped at `width`.
std::string Layout::Row(size_t axis, int64_t offset, const std::string& hanging, int width, bool summary) {
  const int64_t n = dims_[axis];
  const int elem_width = width - 1;  // room for the closing "]"
  const std::string next_hanging = hanging + " ";
  std::string s, line = hanging;
  auto word = [&](int64_t i) { return Recurse(axis + 1, offset + i * strides_[axis], next_hanging, width - 1); };
  const int64_t leading = summary ? kEdgeItems : 0;
  const int64_t trailing = summary ? kEdgeItems : n;
  for (int64_t i = 0; i < leading; ++i) {
    Extend(s, line, word(i), elem_width, hanging);
    line += " ";
  }
  if (summary) {
    Extend(s, line, "...", elem_width, hanging);
    line += " ";
  }
  for (int64_t i = trailing; i > 1; --i) {
    Extend(s, line, word(n - i), elem_width, hanging);
    line += " ";
  }
  Extend(s, line, word(n - 1), elem_width, hanging);
  return s + line;
}

// Outer axes: sub-arrays on their own lines, blank lines between blocks.
std::string Layout::Block(size_t axis, int64_t offset, const std::string& hanging, int width, bool summary) {
  const int64_t n = dims_[axis];
  const std::string line_sep(dims_.size() - axis - 1, '\n');
  const std::string next_hanging = hanging + " ";
  auto nested = [&](int64_t i) { return Recurse(axis + 1, offset + i * strides_[axis], next_hanging, width - 1); };
  const int64_t leading = summary ? kEdgeItems : 0;
  const int64_t trailing = summary ? kEdgeItems : n;
  std::string s;
  for (int64_t i = 0; i < leading; ++i) s += hanging + nested(i) + line_sep;
  if (summary) s += hanging + "..." + line_sep;
  for (int64_t i = trailing; i > 1; --i) s += hanging + nested(n - i) + line_sep;
  s += hanging + nested(n - 1);
  return s;
}

// Flat indices of the elements printed (all, or the corners when
// summarising), which alone decide the column widths.
void ShownIndices(const TensorShape& shape, bool summarize, size_t axis, int64_t offset,
                  std::vector<int64_t>& out) {
  if (axis == static_cast<size_t>(shape.rank())) {
    out.push_back(offset);
    return;
  }
  int64_t stride = 1;
  for (int i = shape.rank() - 1; i > static_cast<int>(axis); --i) stride *= shape.dim(i);
  const int64_t n = shape.dim(axis);
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    ShownIndices(shape, summarize, axis + 1, offset + i * stride, out);
  }
}

ElementFn MakeElementFn(const Tensor& t, const std::vector<int64_t>& shown) {
  const DType dtype = t.dtype();
  if (IsFloat(dtype)) {
    std::vector<double> values;
    for (int64_t i : shown) values.push_back(ElementAsDouble(t, i));
    FloatFormatter f(values, dtype);
    return [&t, f](int64_t i) { return f(ElementAsDouble(t, i)); };
  }
  if (IsInteger(dtype)) {
    int width = 0;
    for (int64_t i : shown) width = std::max(width, static_cast<int>(std::to_string(ElementAsInt(t, i)).size()));
    return [&t, width](int64_t i) { return LeftPad(std::to_string(ElementAsInt(t, i)), width); };
  }
  if (dtype == DType::kBool) {
    return [&t](int64_t i) { return std::string(t.data<bool>()[i] ? " True" : "False"); };
  }
  return [&t](int64_t i) { return PyRepr(t.data<std::string>()[i]); };
}

std::string ScalarText(const Tensor& t) {
  const DType dtype = t.dtype();
  if (IsFloat(dtype)) return FloatScalarText(ElementAsDouble(t, 0), dtype);
  if (IsInteger(dtype)) return std::to_string(ElementAsInt(t, 0));
  if (dtype == DType::kBool) return t.data<bool>()[0] ? "True" : "False";
  return t.data<std::string>()[0];
}

template <typename T>
bool ElementsEqual(const Tensor& a, const Tensor& b) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (!(x[i] == y[i])) return false;
  }
  return true;
}

}  // namespace

std::string FormatTensor(const Tensor& t, int64_t threshold) {
  if (!t.IsInitialized()) return "<uninitialized " + t.DebugString() + ">";
  if (t.rank() == 0) return ScalarText(t);
  if (t.rank() > kMaxLaidOutRank) {
    return fmt::format("<{} tensor of rank {}, too many axes to print (at most {})>", DTypeName(t.dtype()), t.rank(),
                       kMaxLaidOutRank);
  }
  if (t.num_elements() == 0) return "[]";
  const bool summarize = t.num_elements() > threshold;
  std::vector<int64_t> shown;
  ShownIndices(t.shape(), summarize, 0, 0, shown);
  return Layout(t.shape(), summarize, MakeElementFn(t, shown)).Format();
}

bool TensorsEqual(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.IsInitialized() != b.IsInitialized()) return false;
  if (!a.IsInitialized() || a.num_elements() == 0) return true;
  bool equal = false;
  bool handled = TFG_DISPATCH_ALL(a.dtype(), T, { equal = ElementsEqual<T>(a, b); });
  return handled && equal;
}

}  // namespace tfg
