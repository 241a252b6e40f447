// Where a _send leaves a tensor for the _recv on another device (white
// paper §3.2.2). A key names one transfer of one step; the first of Send
// and Recv to arrive waits for the other. LocalRendezvous serves devices of
// one process; a network rendezvous (worker mode) implements the same
// interface for devices of other processes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ops/core/resource_mgr.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {

struct RendezvousKey {
  int64_t step_id = 0;     // the run's id, shared by every device's part
  std::string src_device;  // full device names
  std::string dst_device;
  std::string tensor_name;  // "node:output", unique in the run's graph
  int64_t frame_id = 0;     // 0: the root frame
  int64_t iteration = 0;
  // "step;src;dst;tensor;frame:iteration", the table key.
  std::string ToString() const;
};

class Rendezvous {
 public:
  // `value` arrives; `is_dead`: the tensor is dead (an untaken cond
  // branch), and so is what the receiver makes of it.
  using DoneCallback = std::function<void(Status, Tensor value, bool is_dead)>;

  virtual ~Rendezvous() = default;
  // Never blocks. Error: the key was sent already, or the rendezvous was
  // aborted.
  virtual Status Send(const RendezvousKey& key, Tensor value, bool is_dead) = 0;
  // Calls `done` exactly once: when the key's value is there (perhaps at
  // once, perhaps on the sender's thread), or with the abort status.
  virtual void RecvAsync(const RendezvousKey& key, DoneCallback done) = 0;
  // Fails every waiting and later Recv (and later Send) with `status`;
  // the first abort's status wins.
  virtual void StartAbort(Status status) = 0;
};

class LocalRendezvous final : public Rendezvous {
 public:
  Status Send(const RendezvousKey& key, Tensor value, bool is_dead) override;
  void RecvAsync(const RendezvousKey& key, DoneCallback done) override;
  void StartAbort(Status status) override;

 private:
  struct Item {
    bool sent = false;
    Tensor value;
    bool is_dead = false;
    DoneCallback waiter;  // set when Recv came first
  };
  std::mutex mu_;
  std::unordered_map<std::string, Item> table_;  // guarded by mu_
  Status aborted_;                               // guarded by mu_
};

// The rendezvous of one step of one device's part of a run, kept in the
// step's container of the ResourceMgr (the session puts it there before
// the step starts; the executor drops it when the step ends).
class StepRendezvous : public Resource {
 public:
  StepRendezvous(std::shared_ptr<Rendezvous> r, int64_t run_id) : rendezvous(std::move(r)), run_id(run_id) {}
  std::string DebugString() const override { return "rendezvous"; }
  std::shared_ptr<Rendezvous> rendezvous;
  int64_t run_id;  // RendezvousKey::step_id of every transfer of the run
};

Status RegisterStepRendezvous(ResourceMgr* resources, int64_t step_id, std::shared_ptr<StepRendezvous> r);
// Error when the step has none (a _send or _recv run outside a partitioned run).
Result<std::shared_ptr<StepRendezvous>> LookupStepRendezvous(ResourceMgr* resources, int64_t step_id);

}  // namespace tfg
