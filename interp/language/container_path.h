// The lists and dicts a recursive walk over a value is inside. A list can
// hold itself (`append(l, l)`), so a walk that follows items must notice
// when it comes back to a container it is already in, or it recurses
// forever; and a very deep nest must stop before the stack runs out.
#pragma once

#include <cstddef>
#include <unordered_set>

#include "interp/language/value.h"

namespace tfg {

class ContainerPath {
 public:
  static constexpr size_t kMaxDepth = 10000;

  // Enters `v` when it is a list or dict: false when it is already on the
  // path (a cycle) or the path is kMaxDepth deep; the caller then must not
  // walk into it. Other values are always entered (nothing to track).
  bool Enter(const Value& v) {
    const void* id = Identity(v);
    if (id == nullptr) return true;
    if (on_path_.size() >= kMaxDepth) return false;
    return on_path_.insert(id).second;
  }
  // How many containers the walk is inside.
  size_t depth() const { return on_path_.size(); }
  // Leaves `v`, entered by a successful Enter.
  void Leave(const Value& v) {
    if (const void* id = Identity(v)) on_path_.erase(id);
  }

 private:
  static const void* Identity(const Value& v) {
    if (v.is(ValueKind::kList)) return &v.as_list();
    if (v.is(ValueKind::kDict)) return &v.as_dict();
    return nullptr;
  }

  std::unordered_set<const void*> on_path_;
};

}  // namespace tfg
