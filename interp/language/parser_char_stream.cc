// AsciiCharStream: the same answers ANTLRInputStream gives, over bytes.
#include "interp/language/parser_char_stream.h"

namespace tfg::parse {

void AsciiCharStream::consume() {
  if (position_ >= text_.size()) throw antlr4::IllegalStateException("cannot consume EOF");
  ++position_;
}

// i = 1 is the next character, i = -1 the one before; 0 is undefined.
size_t AsciiCharStream::LA(ssize_t i) {
  if (i == 0) return 0;
  ssize_t at = static_cast<ssize_t>(position_) + (i > 0 ? i - 1 : i);
  if (at < 0 || at >= static_cast<ssize_t>(text_.size())) return antlr4::Token::EOF;
  return static_cast<unsigned char>(text_[static_cast<size_t>(at)]);
}

std::string AsciiCharStream::getText(const antlr4::misc::Interval& interval) {
  if (interval.a < 0 || interval.b < 0) return {};
  size_t start = static_cast<size_t>(interval.a);
  size_t stop = std::min(static_cast<size_t>(interval.b), text_.size() - 1);
  if (start >= text_.size() || stop < start) return {};
  return std::string(text_.substr(start, stop - start + 1));
}

}  // namespace tfg::parse
