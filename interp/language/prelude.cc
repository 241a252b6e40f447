// The prelude: stdlib/prelude.tfg names the standard-library functions every
// script sees without an import (minimize, sgd, adam, glorot_uniform, ...),
// as TensorFlow puts tf.train and tf.initializers at hand. It is loaded the
// first time a script reads a name that nothing else defines, so scripts
// that never use it pay nothing, and a script's own definitions win.
#include "interp/language/evaluator.h"
#include "interp/language/modules.h"

namespace tfg {

Result<std::optional<Value>> Evaluator::LookupPrelude(const std::string& name, const SourceSpan& span) {
  // A name the stdlib itself lacks while the prelude loads is an ordinary
  // unknown name, not a reason to load the prelude again.
  if (prelude_loading_) return std::optional<Value>();
  if (!prelude_) {
    ast::Import stmt(span);
    stmt.module = "prelude";
    stmt.alias = "prelude";
    prelude_loading_ = true;
    auto module = modules_->Load(*this, stmt);
    prelude_loading_ = false;
    if (!module.ok()) {
      return Status(module.status()).AddNote(span, "while loading the standard prelude for '" + name + "'");
    }
    prelude_ = *module;
  }
  auto it = prelude_->globals->vars.find(name);
  if (it != prelude_->globals->vars.end()) return std::optional<Value>(it->second);
  return std::optional<Value>();
}

std::vector<std::string> Evaluator::PreludeNames() {
  if (!prelude_ && !LookupPrelude("", SourceSpan()).ok()) return {};
  std::vector<std::string> names;
  if (!prelude_) return names;
  for (const auto& [name, value] : prelude_->globals->vars) {
    if (!name.empty() && name[0] != '_') names.push_back(name);
  }
  return names;
}

}  // namespace tfg
