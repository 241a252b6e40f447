// BuildNumberList: a NUMBER_LIST token into one packed ast::NumberList.
#include "interp/language/parser_number_list.h"

#include <charconv>
#include <limits>

#include "interp/language/parser_support.h"

namespace tfg::parse {
namespace {

using Item = ast::NumberList::Item;

class Packer {
 public:
  Packer(const TextMap& text, ast::NumberList& list) : text_(text), list_(list) {}

  void Add(const NumberListPiece& piece) {
    if (!status_.ok()) return;
    switch (piece.kind) {
      case NumberListPiece::kOpen: list_.items.push_back(Item::kOpen); break;
      case NumberListPiece::kClose: list_.items.push_back(Item::kClose); break;
      case NumberListPiece::kInt: status_ = AddInt(piece); break;
      case NumberListPiece::kFloat: status_ = AddFloat(piece); break;
    }
  }
  const Status& status() const { return status_; }

 private:
  std::string_view Digits(const NumberListPiece& piece) const {
    return std::string_view(text_.text()).substr(piece.begin, piece.end - piece.begin);
  }
  SourceSpan DigitsSpan(const NumberListPiece& piece) const { return text_.Span(piece.begin, piece.end - 1); }

  // As AstBuilder::BuildInt and BuildFactor: the digits alone must fit,
  // except for -9223372036854775808, read whole as Python reads it.
  Status AddInt(const NumberListPiece& piece) {
    std::string_view digits = Digits(piece);
    int64_t value = 0;
    if (piece.sign == '-' && digits == "9223372036854775808") {
      value = std::numeric_limits<int64_t>::min();
    } else {
      int base = 10;
      std::string_view body = digits;
      if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
        base = 16;
        body.remove_prefix(2);
      }
      auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value, base);
      if (error != std::errc() || end != body.data() + body.size()) {
        return SyntaxError(fmt::format("integer {} does not fit in 64 bits", digits), DigitsSpan(piece));
      }
      if (piece.sign == '-') value = -value;
    }
    list_.items.push_back(Item::kInt);
    list_.numbers.push_back(ast::NumberList::Number{value});
    return Status::OK();
  }

  Status AddFloat(const NumberListPiece& piece) {
    std::string_view digits = Digits(piece);
    double value = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size()) {
      return SyntaxError(fmt::format("number {} is out of range for a 64-bit float", digits), DigitsSpan(piece));
    }
    ast::NumberList::Number number;
    number.f = piece.sign == '-' ? -value : value;
    list_.items.push_back(Item::kFloat);
    list_.numbers.push_back(number);
    return Status::OK();
  }

  const TextMap& text_;
  ast::NumberList& list_;
  Status status_;
};

}  // namespace

Result<ast::ExprPtr> BuildNumberList(const TextMap& text, const Token* token) {
  auto list = std::make_unique<ast::NumberList>(text.TokenSpan(token));
  size_t begin = text.Offset(token->getStartIndex());
  size_t end = text.Offset(token->getStopIndex() + 1);
  std::string_view bytes = std::string_view(text.text()).substr(0, end);
  // Sized once: a comma per number at most, plus one.
  size_t numbers = static_cast<size_t>(std::count(bytes.begin() + begin, bytes.end(), ',')) + 1;
  list->numbers.reserve(numbers);
  list->items.reserve(numbers);
  Packer packer(text, *list);
  std::optional<size_t> walked = WalkNumberList(bytes, begin, std::numeric_limits<size_t>::max(),
                                                [&](const NumberListPiece& piece) { packer.Add(piece); });
  TFG_RETURN_IF_ERROR(packer.status());
  if (walked != end) return Internal("parser: a number list token that is not a number list");
  return ast::ExprPtr(std::move(list));
}

}  // namespace tfg::parse
