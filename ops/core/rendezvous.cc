#include "ops/core/rendezvous.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace tfg {

namespace {
constexpr const char* kRendezvousName = "rendezvous";
}  // namespace

std::string RendezvousKey::ToString() const {
  return fmt::format("{};{};{};{};{}:{}", step_id, src_device, dst_device, tensor_name, frame_id, iteration);
}

Status LocalRendezvous::Send(const RendezvousKey& key, Tensor value, bool is_dead) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!aborted_.ok()) return aborted_;
  Item& item = table_[key.ToString()];
  if (item.sent) return Internal("tensor '{}' was sent twice to {}", key.tensor_name, key.dst_device);
  if (!item.waiter) {
    item.sent = true;
    item.value = std::move(value);
    item.is_dead = is_dead;
    return Status::OK();
  }
  DoneCallback waiter = std::move(item.waiter);
  table_.erase(key.ToString());
  lock.unlock();
  waiter(Status::OK(), std::move(value), is_dead);
  return Status::OK();
}

void LocalRendezvous::RecvAsync(const RendezvousKey& key, DoneCallback done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!aborted_.ok()) {
    Status s = aborted_;
    lock.unlock();
    return done(std::move(s), Tensor(), false);
  }
  const std::string k = key.ToString();
  Item& item = table_[k];
  if (item.waiter) {
    lock.unlock();
    return done(Internal("tensor '{}' was received twice on {}", key.tensor_name, key.dst_device), Tensor(), false);
  }
  if (!item.sent) {
    item.waiter = std::move(done);
    return;
  }
  Tensor value = std::move(item.value);
  const bool is_dead = item.is_dead;
  table_.erase(k);
  lock.unlock();
  done(Status::OK(), std::move(value), is_dead);
}

void LocalRendezvous::StartAbort(Status status) {
  std::vector<DoneCallback> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.ok()) return;
    aborted_ = status.ok() ? Error(Code::kCancelled, "the run was cancelled") : status;
    status = aborted_;
    for (auto& [key, item] : table_) {
      if (item.waiter) waiters.push_back(std::move(item.waiter));
    }
    table_.clear();
  }
  for (DoneCallback& w : waiters) w(status, Tensor(), false);
}

Status RegisterStepRendezvous(ResourceMgr* resources, int64_t step_id, std::shared_ptr<StepRendezvous> r) {
  return resources
      ->LookupOrCreate<StepRendezvous>(resources->StepContainer(step_id, kRendezvousName), kRendezvousName,
                                       [&r] { return r; })
      .status();
}

Result<std::shared_ptr<StepRendezvous>> LookupStepRendezvous(ResourceMgr* resources, int64_t step_id) {
  auto r = resources->Lookup<StepRendezvous>(resources->StepContainer(step_id, kRendezvousName), kRendezvousName);
  if (!r) return FailedPrecondition("no rendezvous for this step: _send and _recv run only in a partitioned run");
  return r;
}

}  // namespace tfg
