// Every op's CPU kernel, run alone (as an eager call or a kernel whose
// shapes were unknown at build time runs) on small valid inputs with one
// int, int-list or shape attr set to an extreme value (op_limits_util.h).
// Each run must come back as a Status: no exception, no crash, no huge
// loop or allocation, and (under UBSan, as CI runs it) no signed overflow.
// Stateful ops (variables, queues, readers: they block or keep state) and
// the executor's own ops ("_send", "_recv") are left out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/core/memory_budget.h"
#include "ops/core/op_registry.h"
#include "ops/core/tensor.h"
#include "tests/ops/op_limits_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::kernel_limits_test {
namespace {

// Ones of `dtype` ("1" for strings): valid as data, as an index and as a
// count, so the extreme attr is what a kernel trips on, if anything.
Tensor Ones(DType dtype, const TensorShape& shape) {
  const auto n = static_cast<size_t>(shape.num_elements());
  if (dtype == DType::kString) return test::MakeStrings(std::vector<std::string>(n, "1"), shape);
  return test::MakeTensorOf(dtype, std::vector<double>(n, 1.0), shape);
}

std::string RunOnce(const test::OpProbe& p, const TensorShape& shape, const AttrMap& attrs) {
  std::vector<Tensor> inputs;
  for (DType d : p.dtypes) inputs.push_back(Ones(d, shape));
  try {
    (void)test::RunKernel(p.op->name, std::move(inputs), attrs);
  } catch (const std::exception& e) {
    return std::string("threw ") + e.what();
  }
  return "";
}

// Sizes that fit in int64 but not in memory (ones([2**31]) is 8 GiB) are
// not what this test is about: a small memory budget makes them a quick
// ResourceExhausted instead of a long fill (or, under ASan, an abort for
// asking malloc for more than it supports): see the test below.
void WalkExtremeIntAttrs(const OpDef& op) {
  const test::OpProbe probe = test::MakeOpProbe(op);
  for (const AttrDef& a : op.attrs) {
    for (const AttrValue& value : test::ExtremeAttrValues(a)) {
      AttrMap attrs = probe.base_attrs;
      attrs[a.name] = value;
      for (const TensorShape& shape : {TensorShape{2, 3}, TensorShape{1, 4, 4, 1}}) {
        EXPECT_EQ(RunOnce(probe, shape, attrs), "")
            << op.name << " on " << shape.ToString() << " with " << a.name << "=" << AttrValueToString(value);
      }
    }
  }
}

std::vector<const OpDef*> KernelOps() {
  std::vector<const OpDef*> ops;
  for (const OpDef* op : OpRegistry::Global().ListOps()) {
    if (op->stateful || op->name.rfind("test_", 0) == 0 || op->name.rfind('_', 0) == 0) continue;
    if (OpRegistry::Global().KernelsFor(op->name).empty()) continue;
    ops.push_back(op);
  }
  return ops;
}

// Every op in one test, not a test per op: each CTest test is a process
// of its own, and hundreds of sanitized start-ups would cost CI minutes.
TEST(RegistryKernelLimits, ExtremeIntAttrs) {
  SetMemoryLimit(int64_t{256} << 20);
  for (const OpDef* op : KernelOps()) WalkExtremeIntAttrs(*op);
  SetMemoryLimit(0);
}

}  // namespace
}  // namespace tfg::kernel_limits_test
