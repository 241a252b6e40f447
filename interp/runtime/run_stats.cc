#include "interp/runtime/run_stats.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>

#include "ops/core/allocator.h"
#include "ops/core/forward_input.h"
#include "ops/core/host_bfc_allocator.h"

namespace tfg {

RunStats::RunStats() : forwarded_at_start_(ForwardedInputCount()) {}

RunStats::PageFaults RunStats::ProcessPageFaults() {
  struct rusage u {};
  if (getrusage(RUSAGE_SELF, &u) != 0) return {};
  return {static_cast<int64_t>(u.ru_minflt), static_cast<int64_t>(u.ru_majflt)};
}

void RunStats::Record(const std::string& op, int64_t nanos) {
  std::lock_guard<std::mutex> lock(mu_);
  Row& row = rows_[op];
  if (row.count == 0) row.op = op;
  ++row.count;
  row.total_ns += nanos;
}

std::vector<RunStats::Row> RunStats::Rows() const {
  std::vector<Row> rows;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [op, row] : rows_) rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.op < b.op;
  });
  return rows;
}

namespace {

std::string Mebibytes(int64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

}  // namespace

std::string RunStats::Format(const std::vector<const Allocator*>& allocators) const {
  std::vector<Row> rows = Rows();
  const std::string all = "all kernels";
  int64_t all_ns = 0;
  size_t width = all.size();
  for (const Row& r : rows) {
    all_ns += r.total_ns;
    width = std::max(width, r.op.size());
  }
  std::string out = fmt::format("{:<{}}  {:>9}  {:>11}  {:>10}  {:>6}\n", "op", width, "count", "total ms", "mean us",
                                "share");
  for (const Row& r : rows) {
    double share = all_ns > 0 ? 100.0 * static_cast<double>(r.total_ns) / static_cast<double>(all_ns) : 0.0;
    out += fmt::format("{:<{}}  {:>9}  {:>11.3f}  {:>10.2f}  {:>5.1f}%\n", r.op, width, r.count, r.total_ns / 1e6,
                       static_cast<double>(r.total_ns) / 1e3 / static_cast<double>(r.count), share);
  }
  out += fmt::format("{:<{}}  {:>9}  {:>11.3f}\n", all, width, "", all_ns / 1e6);
  for (const Allocator* a : allocators) {
    out += fmt::format("memory {}: {} allocated in all, peak {} in use", a->name(), Mebibytes(a->total_allocated()),
                       Mebibytes(a->peak_bytes_in_use()));
    if (a == HostAllocator() && HostBlockCacheEnabled()) {
      out += fmt::format(", {} cached for reuse", Mebibytes(HostBlockCache().GetStats().bytes_cached));
    }
    out += "\n";
  }
  const PageFaults now = ProcessPageFaults();
  out += fmt::format("page faults: {} minor, {} major; outputs written in place of an input: {}\n",
                     now.minor - faults_at_start_.minor, now.major - faults_at_start_.major,
                     ForwardedInputCount() - forwarded_at_start_);
  return out;
}

}  // namespace tfg
