#include "net/remote_rendezvous.h"

#include <vector>

namespace tfg::net {

std::string_view TaskOf(std::string_view device) { return device.substr(0, device.find("/device:")); }

Status NetRendezvous::Send(const RendezvousKey& key, Tensor value, bool is_dead) {
  const std::string task(TaskOf(key.dst_device));
  if (task == local_task_) return local_.Send(key, std::move(value), is_dead);
  TensorTransfer t;
  t.run_id = run_id_;
  t.src_device = key.src_device;
  t.dst_device = key.dst_device;
  t.tensor_name = key.tensor_name;
  t.frame_id = key.frame_id;
  t.iteration = key.iteration;
  t.is_dead = is_dead;
  t.compress = compress_;
  if (!is_dead) t.value = std::move(value);
  return push_(task, t);
}

void NetRendezvous::RecvAsync(const RendezvousKey& key, DoneCallback done) { local_.RecvAsync(key, std::move(done)); }

void NetRendezvous::StartAbort(Status status) { local_.StartAbort(std::move(status)); }

// Every transfer a task receives comes through here: the names are moved,
// not copied (the device names are too long to be stored inline).
Status NetRendezvous::Deliver(TensorTransfer&& t) {
  if (TaskOf(t.dst_device) != local_task_) {
    return InvalidArgument("a tensor for {} arrived at {}", t.dst_device, local_task_);
  }
  if (!t.is_dead && !t.value.IsInitialized()) return InvalidArgument("a live tensor arrived without a value");
  RendezvousKey key{run_id_, std::move(t.src_device), std::move(t.dst_device), std::move(t.tensor_name), t.frame_id,
                    t.iteration};
  return local_.Send(key, std::move(t.value), t.is_dead);
}

Result<std::shared_ptr<NetRendezvous>> RunRendezvousTable::Open(int64_t run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = open_.find(run_id);
  if (it != open_.end()) return it->second;
  if (closed_.count(run_id) != 0) return FailedPrecondition("run {} has ended", run_id);
  if (open_.size() >= kMaxOpenRuns) return Error(Code::kResourceExhausted, "more than {} runs open", kMaxOpenRuns);
  auto r = std::make_shared<NetRendezvous>(local_task_, run_id, push_, compress_.load());
  open_.emplace(run_id, r);
  return r;
}

void RunRendezvousTable::Close(int64_t run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  open_.erase(run_id);
  if (closed_.insert(run_id).second) closed_order_.push_back(run_id);
  while (closed_order_.size() > kRememberClosed) {
    closed_.erase(closed_order_.front());
    closed_order_.pop_front();
  }
}

Status RunRendezvousTable::Deliver(TensorTransfer&& t) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_.count(t.run_id) != 0) return Status::OK();  // a straggler of an ended run
  }
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<NetRendezvous> r, Open(t.run_id));
  return r->Deliver(std::move(t));
}

void RunRendezvousTable::AbortAll(const Status& status) {
  std::vector<std::shared_ptr<NetRendezvous>> runs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, r] : open_) runs.push_back(r);
  }
  for (auto& r : runs) r->StartAbort(status);
}

}  // namespace tfg::net
