// What save_variables and restore_variables share: the variables a node
// covers (parallel string-list attrs: the name each has in the file, its
// shared name and its container) and the file name input.
#pragma once

#include <string>
#include <vector>

#include "ops/core/kernel.h"

namespace tfg::checkpoint {

struct VariableList {
  std::vector<std::string> names;         // the tensors' names in the file
  std::vector<std::string> shared_names;  // where the variables live in the ResourceMgr
  std::vector<std::string> containers;

  // Reads the three attrs; error unless they have one entry per variable.
  Status Init(const KernelConstruction& c);
  size_t size() const { return names.size(); }
};

// The file name a node was given (a string scalar input).
Result<std::string> FileNameInput(const OpKernelContext& ctx, const char* op);

// Shape function of both ops: the file name must be a scalar; no outputs.
Status FileNameShapeFn(ShapeContext& c);

// "'a', 'b', 'c' and 4 more": a few names of a long list, for messages.
std::string NameList(const std::vector<std::string>& names, size_t shown = 5);

}  // namespace tfg::checkpoint
