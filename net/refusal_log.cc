#include "net/refusal_log.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "net/transport.h"

namespace tfg::net {
namespace {

using Clock = std::chrono::steady_clock;

struct Bucket {
  double lines = kRefusalBurst;  // lines that may be logged now
  Clock::time_point refilled = Clock::now();
  int64_t left_out = 0;  // refusals not logged since the last line
};

// Kinds may be made from what a peer sent (a malformed message's reason):
// past this many, they share one bucket.
constexpr size_t kMaxKinds = 64;
constexpr std::string_view kOtherKind = "other refusals";

std::mutex g_mu;
// Refusals left out and not yet summed up: FlushRefusalLog, called on every
// turn of each I/O loop, takes no lock while there are none.
std::atomic<int64_t> g_pending{0};
std::map<std::string, Bucket, std::less<>>& Buckets() {
  static auto* buckets = new std::map<std::string, Bucket, std::less<>>();
  return *buckets;
}

// One line a second, up to the burst.
void Refill(Bucket& b, Clock::time_point now) {
  const double seconds = std::chrono::duration<double>(now - b.refilled).count();
  b.lines = std::min<double>(kRefusalBurst, b.lines + seconds);
  b.refilled = now;
}

std::string LeftOutNote(int64_t n) {
  return " (" + std::to_string(n) + " more of this kind not logged)";
}

}  // namespace

void LogRefusal(std::string_view kind, const std::string& line) {
  std::string out;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = Buckets().find(kind);
    if (it == Buckets().end() && Buckets().size() >= kMaxKinds) kind = kOtherKind;
    if (it == Buckets().end()) it = Buckets().try_emplace(std::string(kind)).first;
    Bucket& b = it->second;
    Refill(b, Clock::now());
    if (b.lines < 1) {
      ++b.left_out;
      g_pending.fetch_add(1);
      return;
    }
    b.lines -= 1;
    out = line;
    if (b.left_out > 0) out += LeftOutNote(b.left_out);
    g_pending.fetch_sub(b.left_out);
    b.left_out = 0;
  }
  LogNet(out);
}

std::string MalformedMessageKind(std::string_view message) {
  constexpr std::string_view kPrefix = "malformed message: ";
  if (message.substr(0, kPrefix.size()) == kPrefix) message.remove_prefix(kPrefix.size());
  message = message.substr(0, std::min<size_t>(message.find_first_of("0123456789'\"("), 60));
  while (!message.empty() && message.back() == ' ') message.remove_suffix(1);
  return "a malformed message (" + std::string(message) + ")";
}

void FlushRefusalLog() {
  if (g_pending.load() == 0) return;
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    const Clock::time_point now = Clock::now();
    for (auto& [kind, b] : Buckets()) {
      if (b.left_out == 0) continue;
      Refill(b, now);
      if (b.lines < 1) continue;
      b.lines -= 1;
      lines.push_back(std::to_string(b.left_out) + (b.left_out == 1 ? " more refusal" : " more refusals") + " like '" +
                      kind + "' not logged one by one");
      g_pending.fetch_sub(b.left_out);
      b.left_out = 0;
    }
  }
  for (const std::string& line : lines) LogNet(line);
}

}  // namespace tfg::net
