// `tfg --worker --listen ADDR`: a process that keeps partitions a master
// registers and runs them as steps when asked (white paper §3.3). State is
// per master session: registered graphs, and a ResourceMgr holding the
// variables, queues and other resources of the partitions, which outlives
// steps. A session whose master stops sending heartbeats for
// `master_timeout_seconds` is dropped with all its state. What peers can
// make a worker hold is capped (docs/distributed.md, "Limits").
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "ops/core/status.h"

namespace tfg {

struct WorkerOptions {
  std::string listen = "tcp://127.0.0.1:7001";
  int threads = 0;  // inter- and intra-op threads; 0: one per core
  double master_timeout_seconds = 10;
  // File-touching kernels stay under this directory ("": the working
  // directory); see ops/core/file_root.h.
  std::string data_dir;
  bool stats = false;  // print the bytes sent and received at exit
  // Masters served at once: a Hello beyond this is refused (a session
  // ends when its master closes it or goes silent).
  int max_sessions = 64;
  // Partitions one master may register (each keeps a graph and its plan).
  int max_partitions_per_session = 1000;
};

class WorkerService {
 public:
  static Result<std::unique_ptr<WorkerService>> Start(const WorkerOptions& options);
  ~WorkerService();
  // The bound address (with the port, when a free one was picked).
  const std::string& address() const;
  // Serves until `stop` becomes true; checks it (and reaps sessions whose
  // master went silent) several times a second.
  void Serve(const std::atomic<bool>& stop);

 private:
  struct Impl;
  WorkerService() = default;
  std::unique_ptr<Impl> impl_;
};

// The whole `--worker` command: prints "tfg worker listening on ADDR"
// on stdout once bound (tests wait for that line), serves until SIGINT or
// SIGTERM, and returns the exit code.
int RunWorker(const WorkerOptions& options);

}  // namespace tfg
