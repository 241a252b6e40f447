// Tab completion for the REPL (Interpreter::Completions): what the word
// under the cursor may become, given the line before it.
#pragma once

#include <string>
#include <vector>

namespace tfg {

class Evaluator;

// See Interpreter::Completions.
std::vector<std::string> CompleteWord(Evaluator& ev, const std::string& prefix, const std::string& line_before);

}  // namespace tfg
