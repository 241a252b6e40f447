// Source files and spans: every AST node, graph node and error points back
// at the script text that made it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tfg {

// The column a reader sees at byte column `col` of `line` (both from 1):
// a character of several UTF-8 bytes counts once. Spans keep byte columns.
int CharacterColumn(std::string_view line, int col);
// A UTF-8 continuation byte: the rest of the character before it.
inline bool ContinuesCharacter(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);
  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  // 1-based line number; empty view when out of range.
  std::string_view Line(int line) const;
  int num_lines() const { return static_cast<int>(line_starts_.size()); }

 private:
  std::string path_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

// 1-based line and column, end inclusive on the same or a later line.
// A default-constructed span points nowhere (valid() is false).
struct SourceSpan {
  std::shared_ptr<const SourceFile> file;
  int line = 0;
  int col = 0;
  int end_line = 0;
  int end_col = 0;

  bool valid() const { return file != nullptr && line > 0; }
  // "train.tfg:12:7", or "<unknown>" when !valid().
  std::string ToString() const;
};

}  // namespace tfg
