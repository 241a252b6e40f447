// How long the master and the workers wait on a network that stopped
// carrying their bytes, as functions of the heartbeat interval (the
// master's --heartbeat, told to each worker in its Hello). The master
// takes a task silent for 3 intervals as dead (checked every quarter
// interval) and recovers from it; these bounds lie beyond that, so whatever
// they give up on is already covered by recovery.
#pragma once

#include <algorithm>
#include <string>

#include "ops/core/status.h"

namespace tfg {

// A connection whose bytes go unacknowledged this long is closed and made
// again (net::Transport::SetStalledConnectionSeconds): traffic resumes
// within about a second of the network healing, not after TCP's backoff.
inline double StalledConnectionSeconds(double heartbeat_seconds) { return 3.25 * heartbeat_seconds + 1.0; }

// A worker that cannot connect to another task of a session for this
// long fails that session's running steps, naming the task: a partition
// between two tasks the master can still reach (the master's heartbeats
// find nothing wrong) ends in an error instead of a hang.
inline double UnreachablePeerSeconds(double heartbeat_seconds) { return 6 * heartbeat_seconds + 2.0; }

// How long a worker waits, after a connection to another task ended
// under a running step, before failing the step: past the master's death
// bound, so that a task that died is found by the master (which aborts
// the step itself) and only a connection that broke under a live peer is
// reported as such.
inline double LostConnectionGraceSeconds(double heartbeat_seconds) { return 3.25 * heartbeat_seconds + 0.5; }

// A connection between two tasks that ends while a step runs (its peer
// died, or it stalled and was closed) has lost what it carried, and the
// step would wait for it forever: the worker fails the step with this
// error, and the master takes `peer` as dead and recovers from it.
constexpr char kConnectionBrokeMidStep[] = " broke mid-step, and the tensors it carried are lost";

inline Status ConnectionBrokeMidStep(const std::string& peer, const std::string& address, const std::string& self) {
  return Error(Code::kUnavailable, "task {} at {}: the connection from task {}{}", peer, address, self,
               kConnectionBrokeMidStep);
}

// The peer such an error names ("" for any other error); the op that
// waited may have put its own words in front ("_recv 'x': task ...").
inline std::string TaskWhoseConnectionBroke(const Status& s) {
  const std::string& m = s.message();
  if (s.code() != Code::kUnavailable || m.find(kConnectionBrokeMidStep) == std::string::npos) return "";
  const size_t from = m.find(": the connection from task ");
  const size_t at = from == std::string::npos ? from : m.rfind(" at ", from);
  const size_t task = at == std::string::npos ? at : m.rfind("task ", at);
  return task == std::string::npos ? "" : m.substr(task + 5, at - task - 5);
}

}  // namespace tfg
