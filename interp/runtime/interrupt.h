// Ctrl-C while a script (or one REPL statement) runs. The SIGINT handler
// only writes a byte to a pipe (all a signal handler may safely do); a
// watcher thread reads it, marks the request Pending (the evaluator polls
// that before each statement and loop iteration, so host loops stop at
// once, at their line) and cancels the scope's CancellationManager, so the
// run in progress fails with Cancelled and later runs fail at once. A
// script then ends with "interrupted" (exit code 130, see main.cc); the
// REPL drops the statement and prompts again. Should the scope not end
// within the grace period (a kernel that never looks at cancellation), or
// on a second Ctrl-C, the process ends at once with code 130.
#pragma once

#include <memory>

#include "ops/core/cancellation.h"

namespace tfg::interrupt {

// Installs the handler for its lifetime (restoring the previous one after)
// with a fresh manager. Scopes do not nest: an inner one changes nothing.
class ScriptScope {
 public:
  explicit ScriptScope(double grace_seconds = 3.0);
  ~ScriptScope();
  ScriptScope(const ScriptScope&) = delete;
  ScriptScope& operator=(const ScriptScope&) = delete;

 private:
  bool outermost_ = false;
};

// The manager Ctrl-C cancels while a scope lives; null outside scopes.
std::shared_ptr<CancellationManager> Current();
// Whether Ctrl-C arrived while the current (or the last) scope lived.
bool Requested();
// Whether Ctrl-C arrived while the live scope lives; false outside scopes.
// Lock-free: cheap enough to poll before every statement.
bool Pending();
// Whether Ctrl-C ever arrived in this process.
bool EverRequested();
// Acts as if Ctrl-C were pressed (through the same pipe and thread).
void Simulate();

}  // namespace tfg::interrupt
