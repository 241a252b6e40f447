// Line numbers of piped REPL input (`tfg < file`, `cat file | tfg`) as the
// file numbers them. The REPL hands the interpreter one chunk (statement)
// at a time, each parsed as its own "<stdin>" source counting lines from 1;
// this moves an error's spans by the line the chunk began at, so "line 3"
// of the fifth statement reads as line 12 of the input.
#pragma once

#include <string>
#include <unordered_map>

#include "ops/core/status.h"

namespace tfg {

class InputLines {
 public:
  // `chunk` (the text given to EvalInteractive) began at input line
  // `first_line`. The same text seen again counts from its latest place.
  void Record(const std::string& chunk, int first_line);
  // `error` with every span into a recorded chunk moved to the input's
  // numbering; the source excerpt still shows the right line.
  Status Renumber(const Status& error);

 private:
  SourceSpan Moved(const SourceSpan& span) const;

  std::unordered_map<std::string, int> first_line_;
};

}  // namespace tfg
