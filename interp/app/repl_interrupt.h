// Ctrl-C at the REPL's prompt. Python's prompt drops the line being typed
// (and the statement begun on earlier lines), prints KeyboardInterrupt and
// prompts again; only Ctrl-D ends the session. tfg does the same.
//
// A signal handler that only sets a flag cannot end a blocking read: the
// kernel may hand SIGINT to any of tfg's threads (thread pools, watchers),
// and one that comes just before the read starts is missed altogether. So
// libedit reads its keys through PromptGetc, which waits with poll() on
// the terminal and on a pipe the handler writes to (the self-pipe trick),
// and reports Ctrl-C as the end of input, which readline turns into null;
// Interrupted() tells that apart from Ctrl-D.
#pragma once

#include <csignal>
#include <cstdio>

namespace tfg {

// Installs the handler for its lifetime (the statements evaluated in
// between install their own and put this one back).
class PromptInterrupts {
 public:
  PromptInterrupts();
  ~PromptInterrupts();
  PromptInterrupts(const PromptInterrupts&) = delete;
  PromptInterrupts& operator=(const PromptInterrupts&) = delete;

  // Forgets a Ctrl-C pressed before this line's prompt.
  void BeginLine();
  // Whether Ctrl-C was pressed since BeginLine.
  bool Interrupted() const;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

// For rl_getc_function: the next character typed (a Unicode code point,
// decoded from UTF-8, which libedit stores as one wide character), or -1
// at the end of input or on Ctrl-C.
int PromptGetc(std::FILE* in);

}  // namespace tfg
