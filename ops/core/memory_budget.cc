#include "ops/core/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <limits>

namespace tfg {
namespace {

std::atomic<int64_t> g_limit{0};  // 0: not set yet, DefaultMemoryLimit()
std::atomic<int64_t> g_in_use{0};

}  // namespace

int64_t DefaultMemoryLimit() {
  int64_t limit = std::numeric_limits<int64_t>::max();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0 && pages <= limit / page_size) limit = static_cast<int64_t>(pages) * page_size;
  struct rlimit rl {};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur < static_cast<rlim_t>(limit)) {
    limit = static_cast<int64_t>(rl.rlim_cur);
  }
  return std::max<int64_t>(limit, 1);
}

int64_t MemoryLimit() {
  int64_t limit = g_limit.load(std::memory_order_relaxed);
  if (limit > 0) return limit;
  // Computed once; a race only computes the same value twice.
  limit = DefaultMemoryLimit();
  int64_t unset = 0;
  g_limit.compare_exchange_strong(unset, limit, std::memory_order_relaxed);
  return g_limit.load(std::memory_order_relaxed);
}

void SetMemoryLimit(int64_t bytes) { g_limit.store(bytes > 0 ? bytes : DefaultMemoryLimit(), std::memory_order_relaxed); }

int64_t MemoryInUse() { return g_in_use.load(std::memory_order_relaxed); }

bool ReserveMemory(size_t bytes) {
  const int64_t limit = MemoryLimit();
  if (bytes > static_cast<uint64_t>(limit)) return false;
  const int64_t want = static_cast<int64_t>(bytes);
  int64_t used = g_in_use.load(std::memory_order_relaxed);
  do {
    if (used > limit - want) return false;
  } while (!g_in_use.compare_exchange_weak(used, used + want, std::memory_order_relaxed));
  return true;
}

void ReleaseMemory(size_t bytes) { g_in_use.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed); }

Result<int64_t> ParseByteSize(std::string_view text) {
  const std::string_view original = text;
  auto bad = [&] {
    return InvalidArgument("'{}' is not a size: give bytes, or a number with K, M, G or T (e.g. 512M, 4G)", original);
  };
  uint64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) return bad();
  std::string suffix(end, text.data() + text.size());
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.ends_with("IB")) suffix.resize(suffix.size() - 2);
  else if (suffix.size() == 2 && suffix.back() == 'B') suffix.pop_back();
  int shift = 0;
  if (suffix == "K") shift = 10;
  else if (suffix == "M") shift = 20;
  else if (suffix == "G") shift = 30;
  else if (suffix == "T") shift = 40;
  else if (!suffix.empty() && suffix != "B") return bad();
  if (number == 0) return InvalidArgument("'{}' is not a usable size: it must be more than 0", original);
  if (number > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) >> shift)) {
    return InvalidArgument("'{}' is too large a size", original);
  }
  return static_cast<int64_t>(number << shift);
}

std::string FormatByteSize(int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  int unit = -1;
  int64_t value = bytes;
  while (unit < 3 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  if (unit >= 0) return fmt::format("{} {}", value, kUnits[unit]);
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  return fmt::format("{} bytes", bytes);
}

Status OutOfMemoryError() {
  return Error(Code::kResourceExhausted, "out of memory (the memory limit is {}; see --memory-limit)",
               FormatByteSize(MemoryLimit()));
}

}  // namespace tfg
