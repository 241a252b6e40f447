#include "interp/app/input_lines.h"

#include <memory>

namespace tfg {

void InputLines::Record(const std::string& chunk, int first_line) { first_line_[chunk] = first_line; }

// The chunk's text padded with newlines to its place in the input, so the
// excerpt under the message shows the right line: made only for errors.
SourceSpan InputLines::Moved(const SourceSpan& span) const {
  if (!span.valid() || span.file->path() != "<stdin>") return span;
  auto it = first_line_.find(span.file->text());
  if (it == first_line_.end() || it->second <= 1) return span;
  const int offset = it->second - 1;
  SourceSpan moved = span;
  moved.file = std::make_shared<SourceFile>("<stdin>", std::string(offset, '\n') + span.file->text());
  moved.line += offset;
  if (moved.end_line > 0) moved.end_line += offset;
  return moved;
}

Status InputLines::Renumber(const Status& error) {
  if (error.ok()) return error;
  Status out(error.code(), error.message(), Moved(error.span()));
  for (const Note& note : error.notes()) out.AddNote(Moved(note.span), note.message);
  return out;
}

}  // namespace tfg
