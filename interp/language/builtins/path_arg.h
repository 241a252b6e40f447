// The one rule for the paths builtins take (load_*, save_npy, save,
// summary_writer, write_records, read_tokens, import_graph_def, ...):
// relative paths are relative to the working directory, as in Python and
// TensorFlow. Only `import` resolves against the importing file.
#pragma once

#include <string>

#include "interp/language/builtins/builtins.h"

namespace tfg {

// Argument i as a path: a non-empty string, used as it is.
Result<std::string> PathArg(const BoundArgs& args, size_t i);

}  // namespace tfg
