// TensorFlow's TF_CONFIG, as Kubernetes' training operator (TFJob) sets it
// in every pod: {"cluster": {"chief": ["host:port"], "ps": [...],
// "worker": [...]}, "task": {"type": "worker", "index": 1}}. A task of
// type chief (or master) runs the script: the cluster is every other job,
// and the master listens at its own entry. Any other type is a
// `tfg --worker` that listens at its entry. Flags given on the command
// line take precedence (docs/distributed.md, "Kubernetes").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "interp/app/cli.h"
#include "ops/core/status.h"

namespace tfg::cli {

struct TfConfig {
  std::vector<std::pair<std::string, std::vector<std::string>>> cluster;  // job -> host:port, in order
  std::string type;  // the task's job, lower case
  int index = 0;
};

// Errors name the field: "TF_CONFIG: task.index is 3, but job 'worker' has 2 tasks".
Result<TfConfig> ParseTfConfig(const std::string& text);

// Fills what the flags left empty from `tf_config` (the variable's text;
// null or blank: nothing to do): --listen of a --worker, or --cluster and
// --master-listen of the chief. A usage error when TF_CONFIG and the
// command disagree (a worker task asked to run a script).
Status ApplyTfConfig(const char* tf_config, CliOptions& opts);

}  // namespace tfg::cli
