#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

TEST(NoOpTest, HasNoInputsOrOutputs) {
  auto out = test::RunOp("no_op", {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->empty());
  test::ExpectError(test::RunOp("no_op", {Tensor::Scalar<float>(1)}), Code::kInvalidArgument, "no_op takes 0 inputs");
}

}  // namespace
}  // namespace tfg
