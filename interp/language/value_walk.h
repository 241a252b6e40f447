// Walks a value and everything its lists (and, when asked, its dicts'
// values) hold, depth first and in order, with a stack of its own rather
// than recursion: a list nested 150,000 deep is walked as easily as a flat
// one. A container met again inside itself (`append(l, l)`) is reported as
// a cycle and not entered again.
#pragma once

#include <cstddef>
#include <unordered_set>
#include <vector>

#include "interp/language/value.h"

namespace tfg {

class NestedWalk {
 public:
  // Dict keys are never visited (they are scalars, dtypes or graph tensors
  // used as names, not data the dict holds).
  NestedWalk(const Value& root, bool dict_values);

  // The next value, or nullptr when the walk is over. A list or dict comes
  // before its items. The walked values must not change during the walk.
  const Value* Next();
  // Whether the value Next returned last is a container already being
  // walked (so its items are not visited again).
  bool cycle() const { return cycle_; }

 private:
  struct Frame {
    const Value* container;
    size_t next = 0;
  };
  const Value* Enter(const Value* v);
  const Value* ItemAt(Frame& f) const;

  const Value* root_;
  bool dict_values_;
  bool started_ = false;
  bool cycle_ = false;
  std::vector<Frame> stack_;
  std::unordered_set<const void*> on_path_;
};

}  // namespace tfg
