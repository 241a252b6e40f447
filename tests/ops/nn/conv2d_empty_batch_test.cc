// conv2d on an empty batch whose other dims are huge: found by op_fuzz
// (scripts/fuzz), where sizing the im2col chunks multiplied the output
// row's length by the element size and overflowed int64 (undefined
// behaviour) although no element is ever computed.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace tfg::conv2d_empty_batch_test {
namespace {

TEST(Conv2DEmptyBatch, AHugeWidthWithNoImagesGivesTheEmptyOutput) {
  constexpr int64_t kWidth = 3327871670770800587;  // the fuzzer's: times 8 bytes is past 2^63
  const Tensor x = test::MakeTensor<double>({}, {0, 1, kWidth, 1});
  const Tensor filter = test::MakeTensor<double>({2.0}, {1, 1, 1, 1});
  for (const char* padding : {"VALID", "SAME"}) {
    Result<Tensor> y = test::RunOp1("conv2d", {x, filter}, {{"strides", std::vector<int64_t>{1, 1}},
                                                           {"padding", std::string(padding)}});
    ASSERT_TRUE(y.ok()) << padding << ": " << y.status().ToString();
    // A 1x1 filter with stride 1 keeps the input's shape.
    EXPECT_EQ(y->shape().dims(), (std::vector<int64_t>{0, 1, kWidth, 1})) << padding;
    EXPECT_EQ(y->num_elements(), 0) << padding;
  }
}

// Rows x columns of output pixels past int64 as well. tfg refuses a shape
// whose dims other than the zero multiply past int64 (ops/core/checked_size.h),
// so conv2d and d input are clean errors naming the shape; d filter has the
// filter's small shape and is zero (a sum over no image), computed without
// multiplying the output's dims.
TEST(Conv2DEmptyBatch, OutputPixelsPastInt64) {
  constexpr int64_t kSide = int64_t{1} << 32;
  const Tensor x = test::MakeTensor<float>({}, {0, kSide, kSide, 1});
  const Tensor filter = test::MakeTensor<float>({1, 2, 3, 4}, {2, 2, 1, 1});
  const Tensor dy = test::MakeTensor<float>({}, {0, kSide - 1, kSide - 1, 1});
  for (const auto& [op, inputs] : std::vector<std::pair<std::string, std::vector<Tensor>>>{
           {"conv2d", {x, filter}}, {"conv2d_backprop_input", {x, filter, dy}}}) {
    Result<Tensor> out = test::RunOp1(op, inputs);
    ASSERT_FALSE(out.ok()) << op;
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << op;
    EXPECT_NE(out.status().message().find("overflows int64"), std::string::npos) << op << ": " << out.status().message();
  }
  Result<Tensor> df = test::RunOp1("conv2d_backprop_filter", {x, filter, dy});
  ASSERT_TRUE(df.ok()) << df.status().ToString();
  test::ExpectTensorNear(*df, {0, 0, 0, 0}, {2, 2, 1, 1});
}

}  // namespace
}  // namespace tfg::conv2d_empty_batch_test
