#include "interp/language/value_walk.h"

namespace tfg {
namespace {

const void* ContainerId(const Value& v, bool dict_values) {
  if (v.is(ValueKind::kList)) return &v.as_list();
  if (dict_values && v.is(ValueKind::kDict)) return &v.as_dict();
  return nullptr;
}

}  // namespace

NestedWalk::NestedWalk(const Value& root, bool dict_values) : root_(&root), dict_values_(dict_values) {}

const Value* NestedWalk::Next() {
  if (!started_) {
    started_ = true;
    return Enter(root_);
  }
  while (!stack_.empty()) {
    Frame& top = stack_.back();
    if (const Value* item = ItemAt(top)) {
      ++top.next;
      return Enter(item);  // may grow stack_: `top` is not used after this
    }
    on_path_.erase(ContainerId(*top.container, dict_values_));
    stack_.pop_back();
  }
  return nullptr;
}

const Value* NestedWalk::Enter(const Value* v) {
  cycle_ = false;
  if (const void* id = ContainerId(*v, dict_values_)) {
    if (!on_path_.insert(id).second) {
      cycle_ = true;
    } else {
      stack_.push_back(Frame{v});
    }
  }
  return v;
}

const Value* NestedWalk::ItemAt(Frame& f) const {
  const Value& c = *f.container;
  if (c.is(ValueKind::kList)) {
    const std::vector<Value>& items = c.as_list().items;
    return f.next < items.size() ? &items[f.next] : nullptr;
  }
  const auto& entries = c.as_dict().entries();
  return f.next < entries.size() ? &entries[f.next].second : nullptr;
}

}  // namespace tfg
