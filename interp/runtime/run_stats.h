// --stats: where a script's time went (kernel time per op type, over every
// run() and eager op) and how much memory the devices handed out, printed
// as a table when the script ends.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfg {

class Allocator;

class RunStats {
 public:
  RunStats();

  struct Row {
    std::string op;
    int64_t count = 0;
    int64_t total_ns = 0;
  };

  // One kernel execution of `op` that took `nanos`. Thread-safe.
  void Record(const std::string& op, int64_t nanos);
  // By total time, largest first (ties by name).
  std::vector<Row> Rows() const;

  // The table: op, count, total ms, mean µs, share of all kernel time; then
  // for each allocator the bytes it handed out in all and its peak in use
  // (and, for the host's, what its block cache holds for reuse); then the
  // page faults since these stats began and the outputs written in place
  // of an input.
  std::string Format(const std::vector<const Allocator*>& allocators) const;

  // Page faults of the process so far (getrusage): minor ones map a page
  // the process touches for the first time, major ones read it from disk.
  struct PageFaults {
    int64_t minor = 0;
    int64_t major = 0;
  };
  static PageFaults ProcessPageFaults();

 private:
  const PageFaults faults_at_start_ = ProcessPageFaults();
  const int64_t forwarded_at_start_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Row> rows_;  // guarded by mu_
};

}  // namespace tfg
