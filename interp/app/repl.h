// The interactive loop: `tfg` with no FILE. On a terminal it reads lines
// with libedit (line editing, history in ~/.tfg_history, tab completion of
// names and ops); otherwise it reads stdin plainly, so it can be scripted.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "interp/language/interpreter.h"

namespace tfg {

inline constexpr const char* kReplPrompt = "tfg> ";
inline constexpr const char* kReplContinuationPrompt = "...> ";

// A source of input lines for the REPL.
class LineReader {
 public:
  virtual ~LineReader() = default;
  // The next line without its newline; nullopt at end of input.
  // `continuation` is true while the statement so far is incomplete.
  virtual std::optional<std::string> ReadLine(bool continuation) = 0;
  // Lines can be read ahead: no one waits at a prompt for the statement
  // read so far to run (a file or pipe).
  virtual bool CanReadAhead() const { return false; }
  // Whether the last ReadLine returned nullopt because Ctrl-C was pressed
  // at the prompt (not end of input); asking clears it.
  virtual bool TakeInterrupt() { return false; }
};

// Lines from a stream, without prompts or editing (stdin not a terminal).
class StreamLineReader : public LineReader {
 public:
  explicit StreamLineReader(std::istream& in) : in_(in) {}
  std::optional<std::string> ReadLine(bool continuation) override;
  bool CanReadAhead() const override { return true; }

 private:
  std::istream& in_;
};

// Gathers lines while NeedsMoreInput says a statement is still open, then
// evaluates the chunk: its value (if any) goes to `out`, an error's
// diagnostic to `err`, and the loop carries on. When the reader can read
// ahead, an `if` chunk waits for its next line, which joins it when it
// starts with `else` or `elif` (as in a script). Returns the exit code (0)
// when the reader runs dry (Ctrl-D). Ctrl-C drops the statement running;
// when the reader reads ahead (a file or pipe), it also ends the loop with
// 130. Ctrl-C at a prompt drops the statement typed so far and prints
// KeyboardInterrupt, as Python does. Errors in read-ahead input give its
// own line numbers.
int ReplLoop(Interpreter& interp, LineReader& reader, std::ostream& out, std::ostream& err);

// Where history is kept: $TFG_HISTORY when set (empty: no history), else
// ~/.tfg_history; "" when there is nowhere to keep it.
std::string HistoryPath();

// `tfg` with no FILE: libedit when stdin is a terminal, else plain stdin.
// `at_exit` gets the session's interpreter when the loop ends (for the
// reports --stats and --trace write).
int RunRepl(const InterpreterOptions& options, const std::function<void(const Interpreter&)>& at_exit = {});

}  // namespace tfg
