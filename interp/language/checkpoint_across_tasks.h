// save() and restore() when the variables live on cluster tasks: the
// save_variables / restore_variables kernels read a ResourceMgr of one
// process, so with a cluster the master fetches the variables' values and
// writes the file itself, and restores by reading and verifying the file,
// then feeding each value to an assign on the variable's task. The file is
// the same format, on the master's file system, and a restore is still all
// or nothing: nothing is assigned before the whole file and every variable
// is checked.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "interp/language/builtin_context.h"

namespace tfg {

struct NamedVariable {
  std::string name;  // in the file
  std::shared_ptr<VariableInfo> var;
};

Status SaveAcrossTasks(BuiltinContext& ev, const std::vector<NamedVariable>& vars, const std::string& path);
Status RestoreAcrossTasks(BuiltinContext& ev, const std::vector<NamedVariable>& vars, const std::string& path,
                          bool allow_unused);

}  // namespace tfg
