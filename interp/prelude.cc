// The prelude: stdlib/prelude.tfg names the standard-library functions every
// script sees without an import (minimize, sgd, adam, glorot_uniform, ...),
// as TensorFlow puts tf.train and tf.initializers at hand. It is loaded the
// first time a script reads a name that nothing else defines, so scripts
// that never use it pay nothing, and a script's own definitions win. Names
// of features not built yet give a "not supported yet" error instead of
// "unknown name".
#include <unordered_map>

#include "interp/evaluator.h"
#include "interp/modules.h"

namespace tfg {

namespace {

// Names of the design (docs/language.md, the TensorFlow papers) that tfg
// does not implement yet, with the feature they belong to: a script using
// one learns that, not that the name is unknown.
const char* PlannedFeature(const std::string& name) {
  static const std::unordered_map<std::string, const char*> kPlanned = {
      {"cluster", "distributed execution"},
  };
  auto it = kPlanned.find(name);
  return it == kPlanned.end() ? nullptr : it->second;
}

}  // namespace

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
  if (const char* feature = PlannedFeature(name)) {
    return Status(Code::kUnimplemented,
                  fmt::format("'{}' is not supported yet: it is part of {}, which is planned", name, feature), span);
  }
  return std::optional<Value>();
}

}  // namespace tfg
