// A TensorBoard event file: a new file events.out.tfevents.<secs>.<host>
// in a log directory, holding records in the TFRecord framing of
// ops/io/record_format.h, each a serialized Event. The first record says
// "brain.Event:2"; every record is written through to the file at once, so
// a run that stops early leaves a readable file. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "ops/core/status.h"

// The protobuf messages stay out of this header, so the interpreter's
// builtins do not depend on generated code.
namespace tfg {
class Graph;
namespace pb {
class Event;
}  // namespace pb
}  // namespace tfg

namespace tfg::summary {

inline constexpr char kEventFileVersion[] = "brain.Event:2";

class EventWriter {
 public:
  // Creates `dir` (with its parents) and a new event file in it. The error
  // names the directory and why it cannot be written.
  static Result<std::unique_ptr<EventWriter>> Create(const std::string& dir);
  ~EventWriter();
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

  // Appends `event`, first setting its wall_time to now when it has none.
  Status Write(pb::Event& event);
  // A serialized Summary (a summary op's output) at `step`; error when the
  // bytes are not a Summary.
  Status WriteSummary(const std::string& serialized_summary, int64_t step);
  // The graph as a GraphDef (graph_def.h), for TensorBoard's Graphs tab.
  Status WriteGraph(const Graph& graph);

 private:
  EventWriter(std::string dir, std::string path, int fd) : dir_(std::move(dir)), path_(std::move(path)), fd_(fd) {}

  std::string dir_;
  std::string path_;
  int fd_;
  std::mutex mu_;
};

// Seconds since the epoch, as Event.wall_time holds them.
double WallTime();

}  // namespace tfg::summary
