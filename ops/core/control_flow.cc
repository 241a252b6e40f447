#include "ops/core/control_flow.h"

namespace tfg {

bool IsControlFlow(const Node& n) {
  return IsSwitch(n) || IsMerge(n) || IsEnter(n) || IsExit(n) || IsNextIteration(n) || IsLoopCond(n);
}

bool IsConstantEnter(const Node& n) {
  if (!IsEnter(n)) return false;
  const bool* constant = n.attr<bool>(while_loop::kIsConstantAttr);
  return constant && *constant;
}

}  // namespace tfg
