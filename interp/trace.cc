#include "interp/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "ops/framework/graph.h"

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
// tid per thread that ran its kernels. Kernels of a node placed nowhere in
// particular (a one-device session) run on the CPU device.
constexpr int kStepsPid = 0;
constexpr const char* kDefaultDevice = "/device:cpu:0";

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

void Tracer::Kernel(const Node& node, int64_t start_ns, int64_t end_ns) {
  const std::string& device = node.assigned_device();
  Add({"kernel", node.op_name(), node.name(), Location(node.span()), start_ns, end_ns, 0,
       device.empty() ? kDefaultDevice : device});
}

void Tracer::Eager(const std::string& op, const SourceSpan& span, int64_t start_ns, int64_t end_ns) {
  Add({"eager", op, "", Location(span), start_ns, end_ns, 0, kDefaultDevice});
}

void Tracer::Step(int64_t step_id, int64_t start_ns, int64_t end_ns) {
  Add({"step", fmt::format("step {}", step_id), "", "", start_ns, end_ns, -1, ""});
}

std::string Tracer::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t origin = 0;
  if (!events_.empty()) {
    origin = std::min_element(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
               return a.start_ns < b.start_ns;
             })->start_ns;
  }
  std::vector<std::string> items;
  items.push_back(fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":"steps"}}}})", kStepsPid));
  // A pid per device, and a named thread track per (device, thread) used.
  std::map<std::string, int> pids{{kDefaultDevice, 1}};
  for (const Event& e : events_) {
    if (e.lane >= 0) pids.emplace(e.device, 0);
  }
  int next_pid = 1;
  for (auto& [device, pid] : pids) {
    pid = next_pid++;
    items.push_back(
        fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":"{}"}}}})", pid, Escape(device)));
  }
  std::set<std::pair<int, int>> threads;
  for (const Event& e : events_) {
    const bool step = e.lane < 0;
    const int pid = step ? kStepsPid : pids[e.device];
    if (!step && threads.emplace(pid, e.lane).second) {
      items.push_back(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"thread {}"}}}})",
                                  pid, e.lane, e.lane));
    }
    std::string args = step ? "{}" : fmt::format(R"({{"node":"{}","line":"{}"}})", Escape(e.node), Escape(e.location));
    items.push_back(fmt::format(R"({{"ph":"X","cat":"{}","name":"{}","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{}}})",
                                e.category, Escape(e.name), pid, step ? 0 : e.lane, Micros(e.start_ns - origin),
                                Micros(e.end_ns - e.start_ns), args));
  }
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  for (size_t i = 0; i < items.size(); ++i) out += items[i] + (i + 1 < items.size() ? ",\n" : "\n");
  return out + "]}\n";
}

Status Tracer::Write(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Error(Code::kNotFound, "--trace: cannot write '{}'", path);
    f << ToJson();
    if (!f.flush()) return Error(Code::kDataLoss, "--trace: error while writing '{}'", path);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error(Code::kNotFound, "--trace: cannot write '{}'", path);
  }
  return Status::OK();
}

}  // namespace tfg
