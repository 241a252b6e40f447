#include "interp/app/repl.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

// libedit's readline-compatible API (BSD licensed; GNU readline is GPL).
#include <editline/readline.h>

#include "interp/app/input_lines.h"
#include "interp/app/repl_history.h"
#include "interp/app/repl_interrupt.h"
#include "interp/language/parser.h"
#include "interp/runtime/interrupt.h"

namespace tfg {
namespace {

bool IsBlank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

// ---------------------------------------------------------------- completion

// libedit's completion hooks are plain C functions, so the interpreter
// they ask is reached through this pointer (one REPL per process).
Interpreter* g_completion_interp = nullptr;
std::vector<std::string> g_matches;
size_t g_next_match = 0;
std::string g_line_before;  // the line up to the word being completed

// Called with state 0 for a new word, then until it returns null.
char* NextCompletion(const char* text, int state) {
  if (state == 0) {
    g_matches = g_completion_interp->Completions(text, g_line_before);
    g_next_match = 0;
  }
  if (g_next_match >= g_matches.size()) return nullptr;
  return strdup(g_matches[g_next_match++].c_str());
}

char** Complete(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  // Keyword arguments depend on the call the word is in: `run(loss, fe`.
  const size_t line_length = rl_line_buffer ? std::strlen(rl_line_buffer) : 0;
  g_line_before.assign(rl_line_buffer ? rl_line_buffer : "", std::min(line_length, static_cast<size_t>(std::max(start, 0))));
  return rl_completion_matches(text, NextCompletion);
}

// Words are identifiers with dots (`nn.dense`): '.' is not a break.
char kWordBreaks[] = " \t\n\"'`@$><=;|&{(}[],+-*/%!:^~";

void InstallCompletion(Interpreter& interp) {
  g_completion_interp = &interp;
  rl_readline_name = "tfg";
  rl_attempted_completion_function = Complete;
  rl_basic_word_break_characters = kWordBreaks;
  rl_completer_word_break_characters = kWordBreaks;
  rl_completion_append_character = '\0';
}

// --------------------------------------------------------------- line editor

class EditLineReader : public LineReader {
 public:
  EditLineReader(Interpreter& interp, std::string history_path, std::ostream& err)
      : history_(std::move(history_path), err) {
    // The name first: libedit reads ~/.editrc when using_history() starts
    // it, and applies `tfg:` lines only under this name.
    InstallCompletion(interp);
    // libedit turns keys into text through the C library's multibyte
    // conversions: in the "C" locale every non-ASCII character typed would
    // be dropped. Scripts are UTF-8 whatever the locale, so the prompt is.
    if (std::setlocale(LC_CTYPE, "") == nullptr || MB_CUR_MAX == 1) std::setlocale(LC_CTYPE, "C.UTF-8");
    rl_getc_function = PromptGetc;  // before libedit starts: it reads the hook once
    using_history();
    stifle_history(static_cast<int>(kHistoryKeep));
    for (const std::string& line : history_.Load()) add_history(line.c_str());
  }

  std::optional<std::string> ReadLine(bool continuation) override {
    std::fflush(stdout);
    interrupts_.BeginLine();
    char* raw = readline(continuation ? kReplContinuationPrompt : kReplPrompt);
    interrupted_ = raw == nullptr && interrupts_.Interrupted();
    if (raw == nullptr) {
      std::fputs("\n", stdout);  // leave the next output on a fresh line
      return std::nullopt;
    }
    std::string line(raw);
    std::free(raw);
    if (history_.Add(line)) add_history(line.c_str());
    return line;
  }

  bool TakeInterrupt() override { return std::exchange(interrupted_, false); }

 private:
  HistoryFile history_;
  PromptInterrupts interrupts_;
  bool interrupted_ = false;
};

// Prints `text` followed by a newline unless it already ends with one.
void PrintBlock(std::ostream& os, const std::string& text) {
  if (text.empty()) return;
  os << text;
  if (text.back() != '\n') os << '\n';
  os.flush();
}

std::string_view FirstWord(std::string_view line) {
  const size_t start = line.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  size_t end = 0;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
  return line.substr(0, end);
}

// Whether `line` goes on the statement `chunk` has so far, as a script
// reads it: an else or elif after an if, an except after a try (or after
// one of its excepts).
bool ContinuesChunk(const std::string& chunk, const std::string& line) {
  const std::string_view first = FirstWord(chunk), word = FirstWord(line);
  if (first == "if") return word == "else" || word == "elif";
  if (first == "try") return word == "except";
  return false;
}

}  // namespace

std::optional<std::string> StreamLineReader::ReadLine(bool /*continuation*/) {
  std::string line;
  if (!std::getline(in_, line)) return std::nullopt;
  return line;
}

namespace {

constexpr int kExitInterrupted = 130;  // the shell's code for SIGINT, as main.cc's

// Memory running out outside any statement (parsing a huge chunk, printing
// a huge value) drops that chunk, not the session.
Result<std::string> EvalChunk(Interpreter& interp, const std::string& chunk) {
  try {
    return interp.EvalInteractive(chunk);
  } catch (const std::bad_alloc&) {
    return Status(Code::kResourceExhausted, "out of memory while evaluating this input");
  }
}

}  // namespace

int ReplLoop(Interpreter& interp, LineReader& reader, std::ostream& out, std::ostream& err) {
  std::string chunk;
  std::optional<std::string> ahead;  // a line read to see whether an if goes on
  bool ended = false;
  // Piped input's errors give its own line numbers; at a terminal each
  // statement counts from 1, as Python's does.
  const bool renumber = reader.CanReadAhead();
  InputLines input_lines;
  int lines_read = 0, ahead_number = 0, chunk_first = 0;
  bool interrupted = false;  // Ctrl-C at a prompt: what was typed goes
  auto read = [&](bool continuation, int& number) {
    std::optional<std::string> line = reader.ReadLine(continuation);
    if (line) number = ++lines_read;
    interrupted = !line && reader.TakeInterrupt();
    return line;
  };
  auto drop_statement = [&] {
    chunk.clear();
    ahead.reset();
    err << "KeyboardInterrupt\n";
    err.flush();
  };
  for (;;) {
    std::optional<std::string> line;
    int number = 0;
    if (ahead) {
      line = std::exchange(ahead, std::nullopt);
      number = ahead_number;
    } else if (!ended) {
      line = read(!chunk.empty(), number);
    }
    if (std::exchange(interrupted, false)) {
      drop_statement();
      continue;
    }
    ended = ended || !line;
    if (line) {
      if (chunk.empty() && IsBlank(*line)) continue;
      if (chunk.empty()) chunk_first = number;
      chunk += *line;
      chunk += '\n';
      if (NeedsMoreInput(chunk)) continue;
      if (FirstWord(chunk) == "if" || FirstWord(chunk) == "try") {
        // The next line may go on with an else, elif or except, as in a
        // script: at a prompt it is asked for, and a blank one ends the
        // statement, as in Python.
        ahead = read(true, ahead_number);
        if (std::exchange(interrupted, false)) {
          drop_statement();
          continue;
        }
        ended = !ahead;
        if (reader.CanReadAhead()) {
          // Blank lines may come between the brace and the else, as in a script.
          while (ahead && IsBlank(*ahead)) {
            chunk += *ahead + '\n';
            ahead = read(true, ahead_number);
          }
          ended = !ahead;
        } else if (ahead && IsBlank(*ahead)) {
          ahead.reset();
        }
        if (ahead && ContinuesChunk(chunk, *ahead)) continue;
      }
    } else if (chunk.empty()) {
      return 0;
    }
    // A chunk cut short by end of input is still evaluated, so its syntax
    // error ("expected '}' ...") is shown rather than silently dropped.
    if (renumber) input_lines.Record(chunk, chunk_first);
    Result<std::string> value = EvalChunk(interp, chunk);
    chunk.clear();
    out.flush();  // print() output of the chunk comes before its value or error
    if (value.ok()) {
      PrintBlock(out, *value);
    } else {
      // The terminal echoed ^C where the cursor was: the error starts below.
      if (!renumber && interrupt::Requested()) err << '\n';
      PrintBlock(err, FormatDiagnostic(renumber ? input_lines.Renumber(value.status()) : value.status()));
      // Piped input is a script fed line by line: Ctrl-C ends it, as it
      // ends a script. At a terminal the prompt comes back instead.
      if (renumber && interrupt::Requested()) return kExitInterrupted;
    }
    if (ended && !ahead) return 0;
  }
}

std::string HistoryPath() {
  if (const char* path = std::getenv("TFG_HISTORY")) return path;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.tfg_history";
}

int RunRepl(const InterpreterOptions& options, const std::function<void(const Interpreter&)>& at_exit) {
  Interpreter interp(options);
  std::ostream& out = options.out ? *options.out : std::cout;
  std::ostream& err = options.err ? *options.err : std::cerr;
  int code = 0;
  if (!isatty(STDIN_FILENO)) {
    StreamLineReader reader(std::cin);
    code = ReplLoop(interp, reader, out, err);
  } else {
    out << "tfg " << TFG_VERSION << " — Ctrl-D exits, Tab completes names and ops\n";
    EditLineReader reader(interp, HistoryPath(), err);
    code = ReplLoop(interp, reader, out, err);
  }
  if (at_exit) at_exit(interp);
  return code;
}

}  // namespace tfg
