#include "interp/runtime/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "interp/runtime/fuse_elementwise.h"
#include "ops/core/graph.h"
#include "ops/core/safe_file.h"

namespace tfg {

namespace {

std::string Location(const SourceSpan& span) {
  if (!span.valid()) return "";
  return fmt::format("{}:{}", span.file->path(), span.line);
}

// JSON string contents: quotes, backslashes and control characters escaped.
std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out;
}

// Trace-event times are microseconds.
double Micros(int64_t ns) { return static_cast<double>(ns) / 1e3; }

// Tracks: pid 0 holds the steps; each device is a pid from 1 on, with a
// tid per thread that ran its kernels, and its waits as async slices.
// Kernels of a node placed nowhere in particular (a one-device session)
// run on the CPU device; ops run at once on host values have a track of
// their own.
constexpr int kStepsPid = 0;
constexpr const char* kDefaultDevice = "/device:cpu:0";
constexpr const char* kEagerTrack = "eager ops (host values)";

std::string Metadata(const char* what, int pid, int tid, const std::string& name) {
  return fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{{"name":"{}"}}}})", pid, tid, what,
                     Escape(name));
}

}  // namespace

int Tracer::LaneOfThisThread() {
  auto [it, inserted] = lanes_.emplace(std::this_thread::get_id(), static_cast<int>(lanes_.size()));
  return it->second;
}

void Tracer::Add(Event e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (e.lane >= 0) e.lane = LaneOfThisThread();
  events_.push_back(std::move(e));
}

void Tracer::Kernel(const Node& node, int64_t step_id, int64_t start_ns, int64_t end_ns) {
  const std::string& device = node.assigned_device();
  Add({"kernel", KernelLabel(node), node.name(), Location(node.span()), step_id, start_ns, end_ns, 0,
       device.empty() ? kDefaultDevice : device});
}

void Tracer::Wait(const Node& node, int64_t step_id, int64_t start_ns, int64_t end_ns) {
  const std::string& device = node.assigned_device();
  Add({"wait", node.op_name(), node.name(), Location(node.span()), step_id, start_ns, end_ns, -1,
       device.empty() ? kDefaultDevice : device});
}

void Tracer::Eager(const std::string& op, const SourceSpan& span, int64_t start_ns, int64_t end_ns) {
  Add({"eager", op, "", Location(span), -1, start_ns, end_ns, 0, kEagerTrack});
}

void Tracer::Step(int64_t step_id, int64_t start_ns, int64_t end_ns) {
  Add({"step", fmt::format("step {}", step_id), "", "", step_id, start_ns, end_ns, -1, ""});
}

// The thread_name records: "main" for the thread that made the tracer (the
// interpreter's), "pool thread N" for the rest, per device track used.
std::string Tracer::Threads(const std::map<std::string, int>& pids) const {
  std::map<int, std::string> names;
  for (const auto& [id, lane] : lanes_) {
    names[lane] = id == main_thread_ ? std::string("main") : fmt::format("pool thread {}", lane);
  }
  std::set<std::pair<int, int>> seen;
  std::string out;
  for (const Event& e : events_) {
    if (e.lane < 0) continue;
    const int pid = pids.at(e.device);
    if (seen.emplace(pid, e.lane).second) out += Metadata("thread_name", pid, e.lane, names[e.lane]) + ",\n";
  }
  return out;
}

// One event as trace-event JSON: a complete span ("X"), or for a wait a
// begin/end pair of async events with id `wait_id`.
std::string Tracer::Item(const Event& e, int pid, int64_t origin, int64_t wait_id) {
  const bool step = e.device.empty();
  std::string args = "{}";
  if (!step) {
    args = fmt::format(R"({{"node":"{}","line":"{}")", Escape(e.node), Escape(e.location));
    if (e.step_id >= 0) args += fmt::format(R"(,"step":{})", e.step_id);
    args += "}";
  }
  const std::string head = fmt::format(R"("cat":"{}","name":"{}","pid":{},"tid":{})", e.category, Escape(e.name), pid,
                                       e.lane < 0 ? 0 : e.lane);
  if (std::string_view(e.category) != "wait") {
    return fmt::format(R"({{"ph":"X",{},"ts":{:.3f},"dur":{:.3f},"args":{}}})", head, Micros(e.start_ns - origin),
                       Micros(e.end_ns - e.start_ns), args);
  }
  return fmt::format(R"({{"ph":"b",{},"id":{},"ts":{:.3f},"args":{}}},)"
                     "\n"
                     R"({{"ph":"e",{},"id":{},"ts":{:.3f}}})",
                     head, wait_id, Micros(e.start_ns - origin), args, head, wait_id, Micros(e.end_ns - origin));
}

std::string Tracer::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t origin = 0;
  if (!events_.empty()) {
    origin = std::min_element(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
               return a.start_ns < b.start_ns;
             })->start_ns;
  }
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  out += Metadata("process_name", kStepsPid, 0, "steps") + ",\n";
  out += Metadata("thread_name", kStepsPid, 0, "run() steps") + ",\n";
  // A pid per device track, in name order.
  std::map<std::string, int> pids{{kDefaultDevice, 0}};
  for (const Event& e : events_) {
    if (!e.device.empty()) pids.emplace(e.device, 0);
  }
  int next_pid = 1;
  for (auto& [device, pid] : pids) {
    pid = next_pid++;
    out += Metadata("process_name", pid, 0, device) + ",\n";
  }
  out += Threads(pids);
  int64_t wait_id = 0;
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    const int pid = e.device.empty() ? kStepsPid : pids.at(e.device);
    const bool wait = std::string_view(e.category) == "wait";
    out += Item(e, pid, origin, wait ? ++wait_id : 0) + (i + 1 < events_.size() ? ",\n" : "\n");
  }
  // A trailing comma after the metadata when there are no events.
  if (events_.empty()) out.erase(out.size() - 2, 1);
  return out + "]}\n";
}

Status Tracer::Write(const std::string& path) const {
  Status s = WriteFileReplacing(path, ToJson());
  if (!s.ok()) s.Prepend("--trace: ");
  return s;
}

}  // namespace tfg
