// Which nodes an export writes (interp/interop/exporter.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "interp/interop/exporter.h"

namespace tfg::interop {

// Everything, or what opts.roots reach: inputs and control inputs, the
// variables an update op names by attr (apply_adam's var, m, v: its
// TensorFlow inputs), and each kept variable's initializer.
std::vector<const Node*> SelectedForExport(const Graph& g, const ExportOptions& opts);

// Several variable nodes may share one variable (shared_name), some of them
// reads with control inputs (an optimizer's beta powers, read after the
// update); update ops and initializers are wired to one without control
// inputs, the first such, so that initializing never waits on a step.
// Keeps in by_name[shared_name] the plainest of those seen so far.
void KeepPlainest(std::map<std::string, const Node*>& by_name, const Node* var);

}  // namespace tfg::interop
