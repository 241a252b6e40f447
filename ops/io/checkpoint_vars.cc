#include "ops/io/checkpoint_vars.h"

#include "ops/core/op_registry.h"

namespace tfg::checkpoint {

Status VariableList::Init(const KernelConstruction& c) {
  const auto* n = c.attr<std::vector<std::string>>("tensor_names");
  const auto* s = c.attr<std::vector<std::string>>("shared_names");
  const auto* k = c.attr<std::vector<std::string>>("containers");
  if (!n || !s || !k) return InvalidArgument("{}: tensor_names, shared_names and containers are required", c.op->name);
  if (s->size() != n->size() || k->size() != n->size()) {
    return InvalidArgument("{}: tensor_names, shared_names and containers must have one entry per variable, got {}, "
                           "{} and {}",
                           c.op->name, n->size(), s->size(), k->size());
  }
  names = *n;
  shared_names = *s;
  containers = *k;
  return Status::OK();
}

Result<std::string> FileNameInput(const OpKernelContext& ctx, const char* op) {
  const Tensor& t = ctx.input(0);
  if (t.dtype() != DType::kString || t.num_elements() != 1) {
    return InvalidArgument("{}: the file name must be one string, got {}", op, t.DebugString());
  }
  const std::string& path = t.data<std::string>()[0];
  if (path.empty()) return InvalidArgument("{}: the file name is empty", op);
  return path;
}

Status FileNameShapeFn(ShapeContext& c) {
  const PartialShape& s = c.input(0);
  if (s.known_rank() && s.rank() != 0) {
    return InvalidArgument("{}: the file name must be a scalar string, got shape {}", c.op().name, s.ToString());
  }
  return Status::OK();
}

std::string NameList(const std::vector<std::string>& names, size_t shown) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < shown; ++i) {
    if (i) out += ", ";
    out += "'" + names[i] + "'";
  }
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

}  // namespace tfg::checkpoint
