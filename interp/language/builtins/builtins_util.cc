// type(x) and error(message, kind), which library code written in .tfg
// needs to check its arguments and report misuse the way builtins do, and
// clock() for timing a script's own loops.
#include <chrono>

#include "interp/language/builtins/builtins.h"

namespace tfg {
namespace {

Result<Value> RaiseError(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string message, StringArg(args, 0));
  TFG_ASSIGN_OR_RETURN(std::string kind, StringArg(args, 1));
  std::optional<Code> code = CodeFromName(kind);
  if (!code || *code == Code::kOk) {
    return Status(Code::kInvalidArgument, fmt::format("error: unknown error kind '{}'", kind), args.spans[1]);
  }
  return Status(*code, message, args.span);
}

const BuiltinRegistrar kUtilBuiltins({
    {"type",
     {BuiltinParam{"x", std::nullopt}},
     "The kind of x as a string: \"none\", \"bool\", \"int\", \"float\", \"string\", \"list\", \"dict\", "
     "\"host tensor\", \"graph tensor\", \"variable\", \"op\", \"function\", ... (as error messages name them).",
     [](BuiltinContext&, BoundArgs& a) -> Result<Value> { return Value::Str(KindName(a[0].kind())); }},
    {"error",
     {BuiltinParam{"message", std::nullopt}, BuiltinParam{"kind", Value::Str("InvalidArgument")}},
     "Stops with an error of the given kind (one `try ... except` names) and message, pointing at this call.",
     RaiseError},
    {"clock", {},
     "Seconds since an arbitrary start, from a monotonic clock: the difference of two calls times what ran "
     "between them.",
     [](BuiltinContext&, BoundArgs&) -> Result<Value> {
       auto since = std::chrono::steady_clock::now().time_since_epoch();
       return Value::Float(std::chrono::duration<double>(since).count());
     }},
});

}  // namespace
}  // namespace tfg
