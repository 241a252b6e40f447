#include "interp/data/npy_header.h"

#include <fmt/ranges.h>

#include <cctype>

#include "interp/data/byte_order.h"

namespace tfg::data {
namespace {

constexpr size_t kArrayAlign = 64;          // NumPy's ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;  // NumPy's spare room to grow the shape in place
// The most axes a shape may have: NumPy's own limit (NPY_MAXDIMS in NumPy 2)
// and that of checkpoints. A crafted header with 100,000 axes would
// otherwise make a tensor that nothing downstream expects.
constexpr size_t kMaxRank = 64;

// The header text for messages: printable, and cut short when long.
std::string Excerpt(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::string out;
  for (char c : text.substr(0, 100)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return text.size() > 100 ? out + "..." : out;
}

// dict  := '{' (string ':' value (',' string ':' value)* ','?)? '}'
// value := string | True | False | '(' (int (',' int)* ','?)? ')'
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Result<NpyHeader> Parse() {
    NpyHeader h;
    bool seen[3] = {false, false, false};
    if (!Eat('{')) return Expected("'{'");
    while (!Eat('}')) {
      TFG_ASSIGN_OR_RETURN(std::string key, String());
      if (!Eat(':')) return Expected("':' after '" + key + "'");
      TFG_RETURN_IF_ERROR(Field(key, h, seen));
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return Expected("',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Expected("the end of the header");
    const char* names[3] = {"descr", "fortran_order", "shape"};
    for (int i = 0; i < 3; ++i) {
      if (!seen[i]) return Error(Code::kDataLoss, "'{}' has a malformed header: it has no '{}'", file_, names[i]);
    }
    return h;
  }

 private:
  Status Field(const std::string& key, NpyHeader& h, bool* seen) {
    int i = key == "descr" ? 0 : key == "fortran_order" ? 1 : key == "shape" ? 2 : -1;
    if (i < 0) {
      return Error(Code::kDataLoss,
                   "'{}' has a malformed header: unexpected key '{}' (expected 'descr', 'fortran_order' and 'shape')",
                   file_, key);
    }
    if (seen[i]) return Error(Code::kDataLoss, "'{}' has a malformed header: '{}' appears twice", file_, key);
    seen[i] = true;
    if (i == 0) {
      if (Peek('[')) {
        return Unimplemented("'{}' holds a structured array (a list of fields): not supported yet", file_);
      }
      TFG_ASSIGN_OR_RETURN(h.descr, String());
    } else if (i == 1) {
      TFG_ASSIGN_OR_RETURN(h.fortran_order, Bool());
    } else {
      TFG_ASSIGN_OR_RETURN(h.shape, Tuple());
    }
    return Status::OK();
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool EatWord(std::string_view w) {
    SkipSpace();
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  Status Expected(const std::string& what) const {
    return Error(Code::kDataLoss, "'{}' has a malformed header: expected {} (at byte {} of \"{}\")", file_, what,
                 pos_, Excerpt(text_));
  }

  Result<std::string> String() {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return Expected("a quoted string");
    char quote = text_[pos_];
    size_t end = text_.find(quote, pos_ + 1);
    std::string_view body = text_.substr(pos_ + 1, end == std::string_view::npos ? 0 : end - pos_ - 1);
    if (end == std::string_view::npos || body.find('\\') != std::string_view::npos) {
      return Expected("a simple quoted string");
    }
    pos_ = end + 1;
    return std::string(body);
  }

  Result<bool> Bool() {
    if (EatWord("True")) return true;
    if (EatWord("False")) return false;
    return Expected("True or False");
  }

  Result<int64_t> Int() {
    SkipSpace();
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      if (v > (INT64_MAX - digit) / 10) return Expected("a dimension that fits in 64 bits");
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Expected("a non-negative integer");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2's long literals
    return v;
  }

  Result<std::vector<int64_t>> Tuple() {
    if (!Eat('(')) return Expected("a tuple like (2, 3)");
    std::vector<int64_t> dims;
    while (!Eat(')')) {
      TFG_ASSIGN_OR_RETURN(int64_t d, Int());
      if (dims.size() == kMaxRank) {
        return Error(Code::kInvalidArgument, "'{}' has a shape of more than {} axes; .npy files hold at most {}",
                     file_, kMaxRank, kMaxRank);
      }
      dims.push_back(d);
      if (Eat(',')) continue;
      if (Eat(')')) break;
      return Expected("',' or ')' in the shape");
    }
    return dims;
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
};

std::string ShapeRepr(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

}  // namespace

Result<NpyHeader> ParseNpyHeader(std::string_view text, const std::string& file) {
  return HeaderParser(text, file).Parse();
}

std::string FormatNpyHeader(const NpyHeader& header) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", header.descr,
                                 header.fortran_order ? "True" : "False", ShapeRepr(header.shape));
  if (!header.shape.empty()) {
    int64_t axis = header.fortran_order ? header.shape.back() : header.shape.front();
    size_t digits = std::to_string(axis).size();
    dict.append(kGrowthAxisMaxDigits > digits ? kGrowthAxisMaxDigits - digits : 0, ' ');
  }
  const size_t hlen = dict.size() + 1;  // with the final '\n'
  bool v1 = true;
  size_t prefix = kNpyMagic.size() + 2 + 2;
  size_t pad = kArrayAlign - (prefix + hlen) % kArrayAlign;
  if (hlen + pad > 0xFFFF) {
    v1 = false;
    prefix = kNpyMagic.size() + 2 + 4;
    pad = kArrayAlign - (prefix + hlen) % kArrayAlign;
  }
  std::string out(kNpyMagic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  unsigned char len[4];
  StoreLittleEndian<uint32_t>(static_cast<uint32_t>(hlen + pad), len);
  out.append(reinterpret_cast<const char*>(len), v1 ? 2 : 4);
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  return out;
}

}  // namespace tfg::data
