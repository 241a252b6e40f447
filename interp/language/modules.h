// `import nn` and `import "lib/util.tfg" as util`: finding the file, running
// it once per interpreter in its own global scope, and detecting cycles.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "interp/language/ast.h"
#include "interp/language/value.h"

namespace tfg {

class Evaluator;

// Reads a whole source file (a regular file of at most 64 MiB); NotFound
// naming the path when it is absent, InvalidArgument for a FIFO, device or
// directory (ops/core/safe_file.h).
Result<std::string> ReadTextFile(const std::string& path);

class ModuleLoader {
 public:
  // `stdlib_dir` empty: DefaultStdlibDir() (stdlib_location.h), next to
  // the installed binary or, for one in its build folder, the source tree's.
  explicit ModuleLoader(std::string stdlib_dir);

  // Returns the module `stmt` names, running its file the first time.
  // Errors: the files it looked for, an import cycle (naming the chain), or
  // the module's own error (with a note at the import).
  Result<std::shared_ptr<Module>> Load(Evaluator& ev, const ast::Import& stmt);

  // The files `stmt` may refer to, in the order they are tried: for
  // `import nn` the standard library then the importing file's directory;
  // for a path, the path relative to the importing file.
  std::vector<std::string> Candidates(const ast::Import& stmt) const;

  const std::string& stdlib_dir() const { return stdlib_dir_; }
  // Drops every module (breaks reference cycles at exit).
  void Clear();

 private:
  std::string stdlib_dir_;
  std::map<std::string, std::shared_ptr<Module>> cache_;  // by canonical path
  std::vector<std::string> loading_;                      // the import chain being run
};

}  // namespace tfg
