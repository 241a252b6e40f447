// ANTLR's view of an ASCII script without a copy. ANTLRInputStream converts
// the whole text to UTF-32 first: 4 bytes per byte of script, and twice that
// while converting, more than anything else the parser keeps of a big
// literal. Where every byte is ASCII, code points are bytes, and the lexer
// can read the script's own text.
#pragma once

#include <antlr4-runtime.h>

#include <string>
#include <string_view>

namespace tfg::parse {

class AsciiCharStream : public antlr4::CharStream {
 public:
  // `text` must stay alive and unchanged while the stream is used.
  AsciiCharStream(std::string_view text, std::string name) : text_(text), name_(std::move(name)) {}

  void consume() override;
  size_t LA(ssize_t i) override;
  ssize_t mark() override { return -1; }
  void release(ssize_t) override {}
  size_t index() override { return position_; }
  void seek(size_t index) override { position_ = std::min(index, text_.size()); }
  size_t size() override { return text_.size(); }
  std::string getSourceName() const override { return name_; }
  std::string getText(const antlr4::misc::Interval& interval) override;
  std::string toString() const override { return std::string(text_); }

 private:
  std::string_view text_;
  std::string name_;
  size_t position_ = 0;
};

}  // namespace tfg::parse
