// Ctrl-C while a script runs. The SIGINT handler only writes a byte to a
// pipe (all a signal handler may safely do); a watcher thread reads it and
// cancels the script's CancellationManager, so the run in progress fails
// with Cancelled, later runs fail at once, and the script ends with
// "interrupted" (exit code 130, see main.cc). Should the script not end
// within the grace period (a host loop that never calls run()), or on a
// second Ctrl-C, the process ends at once with code 130.
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
// Whether Ctrl-C ever arrived in this process.
bool EverRequested();
// Acts as if Ctrl-C were pressed (through the same pipe and thread).
void Simulate();

}  // namespace tfg::interrupt
