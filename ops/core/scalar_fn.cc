#include "ops/core/scalar_fn.h"

#include <map>
#include <utility>

namespace tfg {
namespace {

// Written only while static initializers run (one thread), read after.
std::map<std::pair<std::string, DType>, ScalarFn>& Registry() {
  static auto* registry = new std::map<std::pair<std::string, DType>, ScalarFn>();
  return *registry;
}

}  // namespace

void RegisterScalarFn(const std::string& op, DType dtype, ScalarFn fn) { Registry()[{op, dtype}] = fn; }

ScalarFn FindScalarFn(const std::string& op, DType dtype) {
  auto it = Registry().find({op, dtype});
  return it == Registry().end() ? nullptr : it->second;
}

std::string CastScalarOp(DType to) { return "cast:" + std::string(DTypeName(to)); }

}  // namespace tfg
