#include "ops/summary/event_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "ops/core/file_root.h"
#include "ops/io/record_format.h"
#include "ops/summary/graph_def.h"
#include "proto/event.pb.h"

namespace tfg::summary {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// A file name no other writer in `dir` has: TensorFlow's name, with ".1",
// ".2", ... added when two writers start in the same second.
Result<std::pair<std::string, int>> CreateEventFile(const std::string& dir) {
  const std::string base = fmt::format("{}/events.out.tfevents.{}.{}", dir, static_cast<int64_t>(WallTime()),
                                       HostName());
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::string path = attempt == 0 ? base : fmt::format("{}.{}", base, attempt);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return std::make_pair(path, fd);
    if (errno != EEXIST) {
      return Error(Code::kFailedPrecondition, "cannot write to log directory '{}': {}", dir, std::strerror(errno));
    }
  }
  return Error(Code::kFailedPrecondition, "cannot create an event file in '{}': too many files named {}.*", dir,
               base);
}

Status WriteAll(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(Code::kDataLoss, "cannot write event file '{}': {}", path, std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

}  // namespace

double WallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Result<std::unique_ptr<EventWriter>> EventWriter::Create(const std::string& asked) {
  if (asked.empty()) return InvalidArgument("the log directory name is empty");
  TFG_ASSIGN_OR_RETURN(const std::string dir, ResolveFilePath(asked));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(Code::kFailedPrecondition, "cannot create log directory '{}': {}", dir, ec.message());
  TFG_ASSIGN_OR_RETURN(auto file, CreateEventFile(dir));
  std::unique_ptr<EventWriter> writer(new EventWriter(dir, file.first, file.second));
  pb::Event version;
  version.set_file_version(kEventFileVersion);
  TFG_RETURN_IF_ERROR(writer->Write(version));
  return writer;
}

EventWriter::~EventWriter() { close(fd_); }

Status EventWriter::Write(pb::Event& event) {
  if (event.wall_time() == 0) event.set_wall_time(WallTime());
  std::string payload;
  if (!event.SerializeToString(&payload)) return Internal("cannot serialize an event for '{}'", path_);
  std::string record;
  io::AppendRecord(record, payload);
  std::lock_guard<std::mutex> lock(mu_);
  return WriteAll(fd_, record, path_);
}

Status EventWriter::WriteSummary(const std::string& serialized_summary, int64_t step) {
  pb::Event event;
  event.set_step(step);
  if (!event.mutable_summary()->ParseFromString(serialized_summary)) {
    return InvalidArgument("the value is not a serialized Summary (pass what run() of a summary op returns)");
  }
  return Write(event);
}

Status EventWriter::WriteGraph(const Graph& graph) {
  pb::Event event;
  if (!ToGraphDef(graph).SerializeToString(event.mutable_graph_def())) {
    return Internal("cannot serialize the graph");
  }
  return Write(event);
}

}  // namespace tfg::summary
