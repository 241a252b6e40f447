#include "ops/core/resource_mgr.h"

#include <vector>

namespace tfg {

std::string Variable::DebugString() const {
  std::lock_guard<std::mutex> lock(const_cast<std::mutex&>(mu));
  return value.IsInitialized() ? "variable " + value.DebugString() : "uninitialized variable";
}

void ResourceMgr::Reset(const std::string& container) {
  std::map<std::string, std::shared_ptr<Resource>> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.find(container);
  if (it == containers_.end()) return;
  dropped.swap(it->second);
  containers_.erase(it);
}

namespace {

std::string StepPrefix(int64_t step_id) { return "__step/" + std::to_string(step_id) + "/"; }

}  // namespace

std::string ResourceMgr::StepContainer(int64_t step_id, const std::string& name) {
  step_containers_used_.store(true, std::memory_order_relaxed);
  return StepPrefix(step_id) + name;
}

void ResourceMgr::DropStepContainers(int64_t step_id) {
  if (!step_containers_used_.load(std::memory_order_relaxed)) return;
  const std::string prefix = StepPrefix(step_id);
  std::vector<std::map<std::string, std::shared_ptr<Resource>>> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.lower_bound(prefix);
  while (it != containers_.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    dropped.push_back(std::move(it->second));
    it = containers_.erase(it);
  }
}

void ResourceMgr::ResetAll() {
  decltype(containers_) dropped;
  std::lock_guard<std::mutex> lock(mu_);
  dropped.swap(containers_);
}

}  // namespace tfg
