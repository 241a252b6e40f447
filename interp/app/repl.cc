#include "interp/app/repl.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

// libedit's readline-compatible API (BSD licensed; GNU readline is GPL).
#include <editline/readline.h>

#include "interp/app/input_lines.h"
#include "interp/language/parser.h"
#include "interp/runtime/interrupt.h"

namespace tfg {
namespace {

// History kept between sessions; older entries are dropped when the file
// grows past twice this, so it stays small.
constexpr size_t kHistoryKeep = 1000;

bool IsBlank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

// ------------------------------------------------------------------- history

// One entry per line, plain text: the file stays readable and greppable
// (libedit's own format escapes every space).
class History {
 public:
  explicit History(std::string path) : path_(std::move(path)) {}

  // Loads the saved entries into libedit, trimming the file if it is long.
  void Load() {
    stifle_history(static_cast<int>(kHistoryKeep));
    if (path_.empty()) return;
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);) {
      if (IsBlank(line)) continue;
      lines_.push_back(line);
      if (lines_.size() > kHistoryKeep) lines_.pop_front();
      ++in_file_;
    }
    if (in_file_ > kHistoryKeep) Rewrite();
    for (const std::string& line : lines_) add_history(line.c_str());
    last_ = lines_.empty() ? "" : lines_.back();
  }

  // Records an entered line: appended at once, so a crash loses nothing,
  // and the file rewritten with the last kHistoryKeep once it has more.
  void Add(const std::string& line) {
    if (IsBlank(line) || line == last_) return;
    last_ = line;
    add_history(line.c_str());
    if (path_.empty()) return;
    lines_.push_back(line);
    if (lines_.size() > kHistoryKeep) lines_.pop_front();
    if (++in_file_ > kHistoryKeep) return Rewrite();
    std::ofstream out(path_, std::ios::app);
    out << line << "\n";
  }

 private:
  void Rewrite() {
    std::string tmp = path_ + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      for (const std::string& line : lines_) out << line << "\n";
      if (!out) return;
    }
    if (std::rename(tmp.c_str(), path_.c_str()) == 0) in_file_ = lines_.size();
  }

  std::string path_;
  std::string last_;
  std::deque<std::string> lines_;  // the last kHistoryKeep entries
  size_t in_file_ = 0;             // entries the file holds
};

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
  EditLineReader(Interpreter& interp, std::string history_path) : history_(std::move(history_path)) {
    // The name first: libedit reads ~/.editrc when using_history() starts
    // it, and applies `tfg:` lines only under this name.
    InstallCompletion(interp);
    using_history();
    history_.Load();
  }

  std::optional<std::string> ReadLine(bool continuation) override {
    std::fflush(stdout);
    char* raw = readline(continuation ? kReplContinuationPrompt : kReplPrompt);
    if (raw == nullptr) {
      std::fputs("\n", stdout);  // leave the shell's prompt on a fresh line
      return std::nullopt;
    }
    std::string line(raw);
    std::free(raw);
    history_.Add(line);
    return line;
  }

 private:
  History history_;
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
  auto read = [&](bool continuation, int& number) {
    std::optional<std::string> line = reader.ReadLine(continuation);
    if (line) number = ++lines_read;
    return line;
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
    EditLineReader reader(interp, HistoryPath());
    code = ReplLoop(interp, reader, out, err);
  }
  if (at_exit) at_exit(interp);
  return code;
}

}  // namespace tfg
