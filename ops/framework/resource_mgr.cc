#include "ops/framework/resource_mgr.h"

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

void ResourceMgr::ResetAll() {
  decltype(containers_) dropped;
  std::lock_guard<std::mutex> lock(mu_);
  dropped.swap(containers_);
}

}  // namespace tfg
