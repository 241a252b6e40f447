#include "tests/ops/op_limits_util.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ops/core/tensor.h"

namespace tfg::test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// One dtype for each input: its fixed dtype, or the first of a preferred
// order that its type attr allows (integers first for index-like inputs).
DType PickDType(const OpDef& op, const ArgDef& arg, bool prefer_int) {
  if (auto fixed = DTypeFromName(arg.type)) return *fixed;
  const AttrDef* a = op.FindAttr(arg.type);
  const DTypeSet* allowed = a ? &a->allowed_types : nullptr;
  const std::vector<DType> order = prefer_int ? std::vector<DType>{DType::kI64, DType::kI32, DType::kF32}
                                              : std::vector<DType>{DType::kF32, DType::kI64, DType::kI32};
  for (DType d : order) {
    if (!allowed || allowed->empty() || std::find(allowed->begin(), allowed->end(), d) != allowed->end()) return d;
  }
  return allowed->front();
}

// A value for each required attr, so the op gets past its reading of attrs.
AttrValue SampleAttr(const AttrDef& a) {
  const bool f32_allowed = a.allowed_types.empty() ||
                           std::find(a.allowed_types.begin(), a.allowed_types.end(), DType::kF32) !=
                               a.allowed_types.end();
  switch (a.type) {
    case AttrType::kInt: return int64_t{1};
    case AttrType::kFloat: return 0.5;
    case AttrType::kBool: return false;
    case AttrType::kString: return std::string("SAME");
    case AttrType::kType: return f32_allowed ? DType::kF32 : a.allowed_types.front();
    case AttrType::kShape: return PartialShape{2, 3};
    case AttrType::kIntList: return Ints{1, 1};
    case AttrType::kFloatList: return std::vector<double>{1.0};
    case AttrType::kTypeList: return std::vector<DType>{DType::kF32};
    case AttrType::kShapeList: return std::vector<PartialShape>{PartialShape{2, 3}};
    case AttrType::kStringList: return std::vector<std::string>{"a"};
    case AttrType::kTensor: return Tensor::Scalar<float>(1.0f);
  }
  return std::monostate{};
}

}  // namespace

const Ints& ExtremeDims() {
  static const Ints dims = {0, 1, int64_t{1} << 31, int64_t{1} << 32, int64_t{1} << 62, kMax, -1, -2};
  return dims;
}

const Ints& ExtremeInts() {
  static const Ints ints = {0,  1,  int64_t{1} << 31, int64_t{1} << 32, int64_t{1} << 62, kMax, -1, -2,
                            -(int64_t{1} << 31), -(int64_t{1} << 62), std::numeric_limits<int64_t>::min()};
  return ints;
}

std::vector<Ints> ListsAround(int64_t v) {
  return {{v}, {v, v}, {1, v}, {v, 1}, {1, v, v, 1}, {0, v, 0, v}, {v, 2, 3, 4}, {2, v, 4, 5}};
}

std::vector<PartialShape> ShapesAround(int64_t v) {
  return {PartialShape{v}, PartialShape{v, v}, PartialShape{2, v}, PartialShape{v, 3}, PartialShape{1, v, v, 1},
          PartialShape{v, 3, 4, 2}, PartialShape{2, 3, v}};
}

OpProbe MakeOpProbe(const OpDef& op) {
  OpProbe p;
  p.op = &op;
  for (const ArgDef& arg : op.inputs) {
    const bool index_like = arg.type == "Tindices" || arg.type == "Tlabels" || arg.type == "Tshape";
    const int count = arg.is_list ? 2 : 1;
    for (int k = 0; k < count; ++k) p.dtypes.push_back(PickDType(op, arg, index_like));
  }
  for (const AttrDef& a : op.attrs) {
    if (!a.default_value && !a.inferred) p.base_attrs[a.name] = SampleAttr(a);
  }
  return p;
}

std::vector<AttrValue> ExtremeAttrValues(const AttrDef& a) {
  std::vector<AttrValue> values;
  for (int64_t v : ExtremeInts()) {
    if (a.type == AttrType::kInt) values.emplace_back(v);
    if (a.type == AttrType::kIntList) {
      for (const Ints& list : ListsAround(v)) values.emplace_back(list);
    }
    if (a.type == AttrType::kShape && v >= -2) {
      for (const PartialShape& s : ShapesAround(v)) values.emplace_back(s);
    }
  }
  return values;
}

}  // namespace tfg::test
