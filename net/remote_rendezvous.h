// The rendezvous of a run that spans processes (push model): a _send to a
// device of this process goes into the run's local table, as in one
// process; a _send to a device of another task is pushed to that task at
// once, and its receiving side files it in its own table, where the
// _recv finds it (waiting first or not). So a Recv never asks the network
// for anything, and a tensor goes straight from producer to consumer task,
// never through the master.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "net/protocol.h"
#include "ops/core/rendezvous.h"

namespace tfg::net {

// "/job:worker/replica:0/task:1" of a full device name (the part before
// "/device:"); the name itself when it has no device part. A view into
// `device`: every received transfer asks, and the name is too long to copy
// without a heap allocation.
std::string_view TaskOf(std::string_view device);

class NetRendezvous final : public Rendezvous {
 public:
  // Sends one transfer to the task named (false: no such task).
  using Push = std::function<Status(const std::string& task, const TensorTransfer& transfer)>;
  // `compress`: f32 tensors pushed to other tasks go as 16 bits (TensorTransfer::compress).
  NetRendezvous(std::string local_task, int64_t run_id, Push push, bool compress = false)
      : local_task_(std::move(local_task)), run_id_(run_id), push_(std::move(push)), compress_(compress) {}

  Status Send(const RendezvousKey& key, Tensor value, bool is_dead) override;
  void RecvAsync(const RendezvousKey& key, DoneCallback done) override;
  void StartAbort(Status status) override;
  // A transfer that arrived from another task for one of ours (its names
  // and value are moved into the rendezvous).
  Status Deliver(TensorTransfer&& transfer);

 private:
  std::string local_task_;
  int64_t run_id_;
  Push push_;
  bool compress_;
  LocalRendezvous local_;
};

// The runs of one session that tensors may arrive for, by run id. A
// tensor can arrive before its step starts here (another task got going
// sooner), so the rendezvous is made by whichever comes first; tensors
// for a run that has ended (an aborted run's stragglers) are dropped.
class RunRendezvousTable {
 public:
  RunRendezvousTable(std::string local_task, NetRendezvous::Push push)
      : local_task_(std::move(local_task)), push_(std::move(push)) {}
  // Error when too many runs are open (a peer inventing run ids).
  Result<std::shared_ptr<NetRendezvous>> Open(int64_t run_id);
  void Close(int64_t run_id);
  Status Deliver(TensorTransfer&& transfer);
  // Aborts every open run (a peer died, the session ends).
  void AbortAll(const Status& status);
  const std::string& local_task() const { return local_task_; }
  // Runs opened from now on compress f32 transfers (the session's Hello says).
  void set_compress(bool compress) { compress_.store(compress); }

 private:
  static constexpr size_t kMaxOpenRuns = 4096;
  static constexpr size_t kRememberClosed = 4096;
  std::string local_task_;
  NetRendezvous::Push push_;
  std::atomic<bool> compress_{false};
  std::mutex mu_;
  std::unordered_map<int64_t, std::shared_ptr<NetRendezvous>> open_;  // guarded by mu_
  std::unordered_set<int64_t> closed_;                                 // guarded by mu_
  std::deque<int64_t> closed_order_;                                   // guarded by mu_
};

}  // namespace tfg::net
