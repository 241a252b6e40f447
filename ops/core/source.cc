#include "ops/core/source.h"

#include <algorithm>

#include <fmt/format.h>

namespace tfg {

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n' && i + 1 < text_.size()) line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > num_lines()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

int CharacterColumn(std::string_view line, int col) {
  int column = 1;
  for (int i = 0; i + 1 < col && i < static_cast<int>(line.size()); ++i) {
    if (!ContinuesCharacter(line[i])) ++column;
  }
  return column + std::max(0, col - 1 - static_cast<int>(line.size()));
}

std::string SourceSpan::ToString() const {
  if (!valid()) return "<unknown>";
  return fmt::format("{}:{}:{}", file->path(), line, CharacterColumn(file->Line(line), col));
}

}  // namespace tfg
