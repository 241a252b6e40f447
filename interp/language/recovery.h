// Recovery from a dead cluster task, after TensorFlow's
// MonitoredTrainingSession: when a run() fails while a task of the cluster
// is dead and the script keeps checkpoints (checkpoint_every), the master
// waits for the task to come back at its address (restarted, or a
// replacement), registers its partitions again, restores every variable
// from the newest checkpoint, so the model is one consistent snapshot,
// and runs the failed run() again. What the steps since that checkpoint
// did is lost. docs/distributed.md, "Failures and recovery".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/language/checkpoint_across_tasks.h"
#include "interp/language/builtin_context.h"

namespace tfg {

struct RecoveryPoint {
  std::string dir;                  // the checkpoints dir/model-<step>
  std::vector<NamedVariable> vars;  // empty: every variable of the graph
  bool subset = false;              // vars were chosen: the file may hold others
  int64_t steps_done = 0;           // the training loop's steps so far
};

// After a run failed with `failure`: false when recovery does not apply
// (no dead task, no cluster, or no checkpoints kept); true when every dead
// task is back and the variables restored, so the run is to be retried;
// an error when a task did not come back in time (the failure, saying
// so) or the restore failed. Prints one line to ev.err() when it starts
// waiting and one when the task is back.
Result<bool> RecoverFromDeadTasks(BuiltinContext& ev, const Status& failure);

}  // namespace tfg
