// Builtin functions: the table every builtin is declared in (name,
// parameters with defaults, doc, implementation), the binding of call
// arguments to those parameters, and the registry completion and the
// language reference read from.
//
// A builtin shadows a registry op of the same name (`variable`, `assign`,
// `range`, `abs`, ...); some fall back to the op when given tensors.
// Other parts of tfg add builtins with
//   static BuiltinRegistrar reg(BuiltinDef{"minimize", {{"loss"}, {"optimizer"}}, ...});
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "interp/language/builtin_context.h"
#include "interp/language/value.h"

namespace tfg {

struct BuiltinParam {
  std::string name;
  std::optional<Value> default_value;  // nullopt: required
  bool keyword_only = false;           // after the values of a variadic builtin: print(a, b, sep="")
};

// A call's arguments bound to a builtin's parameters.
struct BoundArgs {
  std::vector<Value> values;        // one per parameter, defaults filled in
  std::vector<bool> given;          // whether the caller passed each one
  std::vector<SourceSpan> spans;    // of each argument (the call's when defaulted)
  std::vector<Value> rest;          // extra positional arguments (variadic builtins)
  std::vector<SourceSpan> rest_spans;
  CallArgs original;                // as called, for builtins that defer to an op
  SourceSpan span;                  // of the whole call
  const struct BuiltinDef* def = nullptr;

  const Value& operator[](size_t i) const { return values[i]; }
};

using BuiltinFn = std::function<Result<Value>(BuiltinContext&, BoundArgs&)>;

struct BuiltinDef {
  std::string name;
  std::vector<BuiltinParam> params;
  std::string doc;
  BuiltinFn fn;
  bool variadic = false;       // extra positional arguments go to BoundArgs::rest
  bool open_keywords = false;  // unknown keywords are allowed (left in `original`)
};

class BuiltinRegistry {
 public:
  static BuiltinRegistry& Global();
  void Register(BuiltinDef def);  // a second definition of a name replaces the first
  const BuiltinDef* Find(const std::string& name) const;
  std::vector<const BuiltinDef*> List() const;  // sorted by name

 private:
  std::vector<std::unique_ptr<BuiltinDef>> defs_;
};

struct BuiltinRegistrar {
  explicit BuiltinRegistrar(std::vector<BuiltinDef> defs) {
    for (BuiltinDef& d : defs) BuiltinRegistry::Global().Register(std::move(d));
  }
};

// "assert_close(a, b, tol=1e-06)", "print(values...)".
std::string BuiltinSignature(const BuiltinDef& def);

// The builtins as a Markdown table (signature and doc of each), for the
// language reference and `tfg doc`: the docs derive from this table.
std::string BuiltinReference();

// Binds positional then keyword arguments; errors name the builtin and the
// parameter.
Result<BoundArgs> BindBuiltinArgs(const BuiltinDef& def, CallArgs args, const SourceSpan& span);

// Helpers for builtin implementations: a typed argument or an error naming
// the builtin, the parameter and what was found.
Result<int64_t> IntArg(const BoundArgs& args, size_t i);
Result<double> NumberArg(const BoundArgs& args, size_t i);
Result<std::string> StringArg(const BoundArgs& args, size_t i);
Result<bool> BoolArg(const BoundArgs& args, size_t i);

// run(fetches, feed, timeout): fetches a graph tensor, op, variable or a
// nested list/dict of them; returns the same structure with host tensors
// (none for ops). In check-only mode runs nothing and returns zeros of the
// fetches' static shapes. Also prints the leak warning when a loop keeps
// growing the graph between runs.
Result<Value> RunFetches(BuiltinContext& ev, const Value& fetches, const Value& feed, double timeout,
                         const SourceSpan& span);

// Ends a progress line drawn in place on the terminal, so that print()
// output or an error starts on a line of its own.
void CloseProgressLine(BuiltinContext& ev);

// Names the language binds before any script runs besides the builtins:
// the dtypes (f16 f32 f64 i32 i64 bool string).
std::vector<std::pair<std::string, Value>> PredefinedNames();

}  // namespace tfg
