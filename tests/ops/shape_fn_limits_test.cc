// Every op in the registry, its signature resolved and its shape function
// called the way Graph::AddNode calls them, with extreme dims (0, 1, 2**31,
// 2**32, 2**62, 2**63-1, unknown, -2), extreme int and int-list attrs and
// extreme constant values of integer inputs. Each call must come back as a
// Status: no exception, no crash, and (run under UBSan, as CI does) no
// signed overflow. An output shape a shape function accepts must not hold
// a wrapped (negative) dim. A new op is walked without being listed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/core/tensor.h"
#include "tests/ops/op_limits_util.h"

namespace tfg::shape_fn_limits_test {
namespace {

using test::ExtremeDims;
using test::ExtremeInts;
using test::Ints;
using test::ListsAround;
using test::OpProbe;
using test::ShapesAround;

// Ordinary shapes, for varying attrs and values instead.
std::vector<PartialShape> OrdinaryShapes() {
  return {PartialShape::Unknown(), PartialShape::Scalar(), PartialShape{3}, PartialShape{2, 3},
          PartialShape{1, 8, 8, 1}, PartialShape{2, 3, 4, 5}};
}

// Resolves the signature and runs the shape function; returns a failure
// description, or "" when the call came back as a Status with sane shapes.
std::string Call(const OpProbe& p, const std::vector<PartialShape>& shapes, AttrMap attrs,
                 const std::vector<const Tensor*>& values) {
  // A -2 dim in an input or a shape attr may be passed through as it is;
  // graph building refuses it (checked::CheckPartialShape) after the call.
  auto valid = [](const PartialShape& s) {
    return !s.known_rank() || std::all_of(s.dims().begin(), s.dims().end(), [](int64_t d) { return d >= -1; });
  };
  bool valid_inputs = std::all_of(shapes.begin(), shapes.end(), valid);
  for (const auto& [name, value] : attrs) {
    if (const auto* s = std::get_if<PartialShape>(&value)) valid_inputs = valid_inputs && valid(*s);
  }
  try {
    auto sig = ResolveSignature(*p.op, p.dtypes, attrs);
    if (!sig.ok() || !p.op->shape_fn) return "";
    ShapeContext c(p.op, &attrs, shapes, sig->input_types, values, static_cast<int>(sig->output_types.size()));
    if (!p.op->shape_fn(c).ok() || !valid_inputs) return "";
    for (const PartialShape& s : c.output_shapes()) {
      if (!s.known_rank()) continue;
      for (int64_t d : s.dims()) {
        if (d < -1) return "an output shape has the wrapped dim " + std::to_string(d) + ": " + s.ToString();
      }
    }
  } catch (const std::exception& e) {
    return std::string("threw ") + e.what();
  }
  return "";
}

std::string Describe(const std::vector<PartialShape>& shapes, const AttrMap& attrs) {
  std::string out = "inputs";
  for (const PartialShape& s : shapes) out += " " + s.ToString();
  for (const auto& [name, value] : attrs) out += ", " + name + "=" + AttrValueToString(value);
  return out;
}

// One op's walk. The ops are walked in three tests (not one test per op:
// each CTest test is a process of its own, and a thousand sanitized
// start-ups would cost CI minutes).
class ShapeFnWalk {
 public:
  explicit ShapeFnWalk(const OpDef& op) : op_(op), probe_(test::MakeOpProbe(op)) {}
  void ExtremeInputDims();
  void ExtremeIntAttrs();
  void ExtremeConstantValues();

 private:
  void Check(const std::vector<PartialShape>& shapes, const AttrMap& attrs,
             const std::vector<const Tensor*>& values = {}) {
    std::vector<const Tensor*> v = values;
    v.resize(shapes.size(), nullptr);
    std::string failure = Call(probe_, shapes, attrs, v);
    EXPECT_EQ(failure, "") << op_.name << " with " << Describe(shapes, attrs);
  }
  std::vector<PartialShape> AllInputs(const PartialShape& s) const {
    return std::vector<PartialShape>(probe_.dtypes.size(), s);
  }
  // The first input `s`, the others ordinary.
  std::vector<PartialShape> FirstInput(const PartialShape& s) const {
    std::vector<PartialShape> shapes(probe_.dtypes.size(), PartialShape{2, 3});
    if (!shapes.empty()) shapes[0] = s;
    return shapes;
  }
  const OpDef& op_;
  OpProbe probe_;
};

void ShapeFnWalk::ExtremeInputDims() {
  for (int64_t v : ExtremeDims()) {
    for (const PartialShape& s : ShapesAround(v)) {
      Check(AllInputs(s), probe_.base_attrs);
      Check(FirstInput(s), probe_.base_attrs);
    }
  }
}

void ShapeFnWalk::ExtremeIntAttrs() {
  for (const AttrDef& a : op_.attrs) {
    for (const AttrValue& value : test::ExtremeAttrValues(a)) {
      AttrMap attrs = probe_.base_attrs;
      attrs[a.name] = value;
      for (const PartialShape& s : OrdinaryShapes()) Check(AllInputs(s), attrs);
      Check(AllInputs(PartialShape{int64_t{1} << 32, 3}), attrs);
    }
  }
}

// Shape functions read constant integer inputs (reshape's shape, tile's
// multiples, range's limits): extreme values there, as vectors and scalars.
void ShapeFnWalk::ExtremeConstantValues() {
  std::vector<int> int_inputs;
  for (size_t i = 0; i < probe_.dtypes.size(); ++i) {
    if (probe_.dtypes[i] == DType::kI64 || probe_.dtypes[i] == DType::kI32) int_inputs.push_back(static_cast<int>(i));
  }
  for (int i : int_inputs) {
    for (int64_t v : ExtremeInts()) {
      std::vector<Tensor> tensors;
      const bool i32 = probe_.dtypes[i] == DType::kI32;
      const auto as_i32 = static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
      for (const Ints& list : ListsAround(v)) {
        std::vector<int32_t> narrow(list.size(), as_i32);
        tensors.push_back(i32 ? Tensor::Vector<int32_t>(narrow) : Tensor::Vector<int64_t>(list));
      }
      tensors.push_back(i32 ? Tensor::Scalar<int32_t>(as_i32) : Tensor::Scalar<int64_t>(v));
      for (const Tensor& t : tensors) {
        for (const PartialShape& s : OrdinaryShapes()) {
          std::vector<PartialShape> shapes = AllInputs(s);
          shapes[i] = t.shape();
          std::vector<const Tensor*> values(shapes.size(), nullptr);
          values[i] = &t;
          Check(shapes, probe_.base_attrs, values);
        }
      }
    }
  }
}

std::vector<const OpDef*> AllOps() {
  std::vector<const OpDef*> ops;
  for (const OpDef* op : OpRegistry::Global().ListOps()) {
    if (op->name.rfind("test_", 0) != 0) ops.push_back(op);
  }
  return ops;
}

TEST(RegistryShapeFnLimits, ExtremeInputDims) {
  for (const OpDef* op : AllOps()) ShapeFnWalk(*op).ExtremeInputDims();
}

TEST(RegistryShapeFnLimits, ExtremeIntAttrs) {
  for (const OpDef* op : AllOps()) ShapeFnWalk(*op).ExtremeIntAttrs();
}

TEST(RegistryShapeFnLimits, ExtremeConstantValues) {
  for (const OpDef* op : AllOps()) ShapeFnWalk(*op).ExtremeConstantValues();
}

}  // namespace
}  // namespace tfg::shape_fn_limits_test
