#include "interp/language/builtins/path_arg.h"

namespace tfg {

Result<std::string> PathArg(const BoundArgs& args, size_t i) {
  TFG_ASSIGN_OR_RETURN(std::string path, StringArg(args, i));
  if (path.empty()) return Status(Code::kInvalidArgument, args.def->name + ": the path is empty", args.spans[i]);
  return path;
}

}  // namespace tfg
