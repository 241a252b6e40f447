#include "ops/core/attr.h"

#include <fmt/format.h>

namespace tfg {

std::string_view AttrTypeName(AttrType t) {
  switch (t) {
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kBool: return "bool";
    case AttrType::kString: return "string";
    case AttrType::kType: return "dtype";
    case AttrType::kShape: return "shape";
    case AttrType::kIntList: return "list of int";
    case AttrType::kFloatList: return "list of float";
    case AttrType::kTypeList: return "list of dtype";
    case AttrType::kShapeList: return "list of shape";
    case AttrType::kStringList: return "list of string";
    case AttrType::kTensor: return "tensor";
  }
  return "?";
}

bool AttrHasType(const AttrValue& v, AttrType t) {
  if (std::holds_alternative<std::monostate>(v)) return true;
  switch (t) {
    case AttrType::kInt: return std::holds_alternative<int64_t>(v);
    case AttrType::kFloat: return std::holds_alternative<double>(v);
    case AttrType::kBool: return std::holds_alternative<bool>(v);
    case AttrType::kString: return std::holds_alternative<std::string>(v);
    case AttrType::kType: return std::holds_alternative<DType>(v);
    case AttrType::kShape: return std::holds_alternative<PartialShape>(v);
    case AttrType::kIntList: return std::holds_alternative<std::vector<int64_t>>(v);
    case AttrType::kFloatList: return std::holds_alternative<std::vector<double>>(v);
    case AttrType::kTypeList: return std::holds_alternative<std::vector<DType>>(v);
    case AttrType::kShapeList: return std::holds_alternative<std::vector<PartialShape>>(v);
    case AttrType::kStringList: return std::holds_alternative<std::vector<std::string>>(v);
    case AttrType::kTensor: return std::holds_alternative<Tensor>(v);
  }
  return false;
}

namespace {

template <typename T, typename F>
std::string JoinList(const std::vector<T>& items, F&& item) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += item(items[i]);
  }
  return out + "]";
}

struct AttrPrinter {
  std::string operator()(std::monostate) const { return "none"; }
  std::string operator()(int64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const { return fmt::format("{}", v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(const std::string& v) const { return fmt::format("\"{}\"", v); }
  std::string operator()(DType v) const { return std::string(DTypeName(v)); }
  std::string operator()(const PartialShape& v) const { return v.ToString(); }
  std::string operator()(const std::vector<int64_t>& v) const {
    return JoinList(v, [](int64_t x) { return std::to_string(x); });
  }
  std::string operator()(const std::vector<double>& v) const {
    return JoinList(v, [](double x) { return fmt::format("{}", x); });
  }
  std::string operator()(const std::vector<DType>& v) const {
    return JoinList(v, [](DType x) { return std::string(DTypeName(x)); });
  }
  std::string operator()(const std::vector<PartialShape>& v) const {
    return JoinList(v, [](const PartialShape& x) { return x.ToString(); });
  }
  std::string operator()(const std::vector<std::string>& v) const {
    return JoinList(v, [](const std::string& x) { return fmt::format("\"{}\"", x); });
  }
  std::string operator()(const Tensor& v) const {
    return v.num_elements() <= 8 ? FormatTensor(v) : v.DebugString();
  }
};

}  // namespace

std::string AttrValueToString(const AttrValue& v) { return std::visit(AttrPrinter{}, v); }

bool AttrValuesEqual(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, Tensor>) {
          return TensorsEqual(x, y);
        } else if constexpr (std::is_same_v<T, std::monostate>) {
          return true;
        } else {
          return x == y;
        }
      },
      a);
}

}  // namespace tfg
