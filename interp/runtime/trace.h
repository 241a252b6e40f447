// --trace FILE: a timeline of a script's runs in Chrome's trace-event JSON
// format (opens in Perfetto or chrome://tracing): a track per device and
// per thread, one span per kernel (op, node name, script line, step), one
// per run() step, and the waits of asynchronous kernels (_recv, queue ops)
// as async slices of their device, since a wait holds no thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ops/core/source.h"
#include "ops/core/status.h"

namespace tfg {

class Node;

class Tracer {
 public:
  // The calling thread is named "main" in the trace; others are pool threads.
  Tracer() : main_thread_(std::this_thread::get_id()) {}

  // Kernel `node` ran on the calling thread from start_ns to end_ns
  // (steady-clock nanoseconds) in step `step_id`. Thread-safe.
  void Kernel(const Node& node, int64_t step_id, int64_t start_ns, int64_t end_ns);
  // Asynchronous kernel `node` waited from start_ns to end_ns (it was
  // started, then completed by whichever thread delivered its value).
  void Wait(const Node& node, int64_t step_id, int64_t start_ns, int64_t end_ns);
  // An op run at once on host values (no node), called at `span`.
  void Eager(const std::string& op, const SourceSpan& span, int64_t start_ns, int64_t end_ns);
  // run() step `step_id` took from start_ns to end_ns.
  void Step(int64_t step_id, int64_t start_ns, int64_t end_ns);

  // The trace as JSON: {"traceEvents": [...], "displayTimeUnit": "ms"}.
  std::string ToJson() const;
  // Writes ToJson() to `path` (through a temporary file, renamed; only a
  // regular file is replaced: WriteFileReplacing, ops/core/safe_file.h).
  Status Write(const std::string& path) const;

 private:
  struct Event {
    const char* category;  // "kernel", "wait", "eager" or "step"
    std::string name;      // op, or "step N"
    std::string node;      // node name ("" for steps and eager ops)
    std::string location;  // "file.tfg:12" or ""
    int64_t step_id;       // -1: none (eager ops)
    int64_t start_ns, end_ns;
    int lane;              // thread lane; -1: no thread (steps, waits)
    std::string device;    // the track's device ("" for steps)
  };
  int LaneOfThisThread();  // needs mu_ held
  void Add(Event e);
  std::string Threads(const std::map<std::string, int>& pids) const;  // needs mu_ held
  static std::string Item(const Event& e, int pid, int64_t origin, int64_t wait_id);

  const std::thread::id main_thread_;
  mutable std::mutex mu_;
  std::vector<Event> events_;                      // guarded by mu_
  std::unordered_map<std::thread::id, int> lanes_;  // guarded by mu_
};

}  // namespace tfg
