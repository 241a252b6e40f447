// Number lists: list literals holding nothing but number literals and
// nested lists of them ([1.5, -2, [3e4, 0x10]]). The front end recognizes
// them in one pass over the bytes, before ANTLR would make a token and a
// dozen parse-tree nodes per element, and passes each on as one NUMBER_LIST
// token (see NumberListLexer in interp/language/parser_lexer.h) that the AST
// builder packs into one ast::NumberList.
//
// The walk accepts exactly what the grammar would read as such a list, token
// for token (INT, FLOAT, an optional '-' or '+' right before a number,
// commas, a trailing comma, blanks, newlines and comments); anything else
// (a name, `- 1` with a space, a malformed number) stops it, and the text is
// then lexed and parsed the ordinary way, so syntax errors read as before.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tfg::parse {

// What the walk reports, in order, for the contents of the outermost list.
struct NumberListPiece {
  enum Kind { kOpen, kClose, kInt, kFloat } kind;
  char sign = 0;           // '-', '+' or 0; written just before `begin`
  size_t begin = 0, end = 0;  // the number's bytes, without the sign
};

namespace number_list_detail {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Skips what the lexer skips inside brackets: blanks, newlines, comments.
inline size_t SkipBlanks(std::string_view s, size_t i) {
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n') {
      ++i;
    } else if (c == '#') {
      while (i < s.size() && s[i] != '\n' && s[i] != '\r') ++i;
    } else {
      break;
    }
  }
  return i;
}

inline size_t SkipDigits(std::string_view s, size_t i) {
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i;
}

// The end of EXPONENT : [eE] [+-]? DIGIT+ at s[i], or i when there is none.
inline size_t SkipExponent(std::string_view s, size_t i) {
  if (i >= s.size() || (s[i] != 'e' && s[i] != 'E')) return i;
  size_t j = i + 1;
  if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
  if (j >= s.size() || !IsDigit(s[j])) return i;
  return SkipDigits(s, j);
}

// Reads one INT or FLOAT token (the grammar's longest match) at s[i] into
// `piece`; false when no number starts there.
inline bool ReadNumber(std::string_view s, size_t i, NumberListPiece& piece) {
  piece.begin = i;
  auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
  if (at(i) == '0' && (at(i + 1) == 'x' || at(i + 1) == 'X') && IsHexDigit(at(i + 2))) {
    i += 2;
    while (IsHexDigit(at(i))) ++i;
    piece.kind = NumberListPiece::kInt;
  } else if (IsDigit(at(i))) {
    i = SkipDigits(s, i);
    piece.kind = NumberListPiece::kInt;
    if (at(i) == '.') {
      i = SkipExponent(s, SkipDigits(s, i + 1));
      piece.kind = NumberListPiece::kFloat;
    } else if (size_t e = SkipExponent(s, i); e != i) {
      i = e;
      piece.kind = NumberListPiece::kFloat;
    }
  } else if (at(i) == '.' && IsDigit(at(i + 1))) {
    i = SkipExponent(s, SkipDigits(s, i + 1));
    piece.kind = NumberListPiece::kFloat;
  } else {
    return false;
  }
  piece.end = i;
  return true;
}

}  // namespace number_list_detail

// Walks the number list whose '[' is s[open], calling visit(piece) for each
// number and each nested bracket. Returns the offset just past its closing
// ']', or nullopt when the text there is not a number list or nests more
// than `max_depth` brackets (the outermost one included).
template <typename Visit>
std::optional<size_t> WalkNumberList(std::string_view s, size_t open, size_t max_depth, Visit&& visit) {
  using namespace number_list_detail;
  if (open >= s.size() || s[open] != '[' || max_depth == 0) return std::nullopt;
  size_t depth = 1;
  bool want_value = true;  // else a ',' or a ']'
  for (size_t i = SkipBlanks(s, open + 1); i < s.size(); i = SkipBlanks(s, i)) {
    char c = s[i];
    if (c == ']') {
      if (--depth == 0) return i + 1;
      visit(NumberListPiece{NumberListPiece::kClose});
      want_value = false;
      ++i;
    } else if (!want_value) {
      if (c != ',') return std::nullopt;
      want_value = true;
      ++i;
    } else if (c == '[') {
      if (++depth > max_depth) return std::nullopt;
      visit(NumberListPiece{NumberListPiece::kOpen});
      ++i;
    } else {
      NumberListPiece piece{NumberListPiece::kInt};
      if (c == '-' || c == '+') piece.sign = c;
      if (!ReadNumber(s, piece.sign ? i + 1 : i, piece)) return std::nullopt;
      visit(piece);
      want_value = false;
      i = piece.end;
    }
  }
  return std::nullopt;  // the list is not closed
}

}  // namespace tfg::parse
