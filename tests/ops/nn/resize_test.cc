// resize_bilinear, resize_nearest_neighbor and their gradients. Expected
// values recorded from TensorFlow 2 (tf.compat.v1.image.resize_bilinear /
// resize_nearest_neighbor, gradients by tf.GradientTape of sum(w * y)) for
// x = (np.arange(24).reshape(1, 3, 4, 2) % 5) * 1.5 - 2 in f32 and
// w = np.arange(n) % 4 - 1.5, for each align_corners / half_pixel_centers
// setting and two sizes (one larger, one mixed).
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

struct ResizeCase {
  bool align_corners, half_pixel_centers;
  int64_t h, w;
  std::vector<double> bilinear, bilinear_grad, nearest, nearest_grad;
};

const std::vector<ResizeCase>& ResizeCases() {
  static const std::vector<ResizeCase> cases = {
    {false, false, 5, 3,
     {-2, -0.5, 2, 0.999999762, 0.999999523, 2.38418579e-07, 0.700000048, 2.20000005, 0.199999928, 0.699999928, 2.20000005, -0.300000191, 1.89999986, 3.39999986, -0.599999845, 0.900000155, 2.4000001, -0.100000232, 0.0999999046, 1.5999999, 0.600000024, 2.0999999, 0.600000143, 1.10000026, -0.5, 1, 0.999999762, 2.49999976, 2.38418579e-07, 1.50000024},
     {-1.29999995, 0.0999999642, -0.0666666329, 0.866666615, -0.46666652, 0.466666698, -0.866666794, 0.0666666627, -0.799999952, 0.799999952, -0.533333242, 0.533333242, -0.533333302, 0.533333302, -0.533333361, 0.533333361, -1.4000001, 0.600000024, -0.400000066, 0.933333278, -0.666666627, 0.666666627, -0.933333457, 0.400000095},
     {-2, -0.5, 1, 2.5, 4, -2, -2, -0.5, 1, 2.5, 4, -2, 2.5, 4, -2, -0.5, 1, 2.5, 2.5, 4, -2, -0.5, 1, 2.5, -0.5, 1, 2.5, 4, -2, -0.5},
     {-1, 1, -1, 1, -1, 1, 0, 0, -1, 1, -1, 1, -1, 1, 0, 0, -1.5, -0.5, 0.5, 1.5, -1.5, -0.5, 0, 0}},
    {false, false, 2, 6,
     {-2, -0.5, 0, 1.5, 2, 0.999999762, 4, -2, 0.999999523, 2.38418579e-07, -0.5, 1, 1, 2.5, 0.5, 2, -5.96046448e-08, 1.5, -0.5, 1, 1.50000024, 0.499999881, 2.5, 0.25},
     {-1.33333337, -2.98023224e-08, -0.666666627, 0.666666687, -0.49999994, 1.16666663, -0.500000119, 1.16666663, -0.666666687, -1.49011612e-08, -0.333333313, 0.333333343, -0.24999997, 0.583333313, -0.25000006, 0.583333313, -0.666666687, -1.49011612e-08, -0.333333313, 0.333333343, -0.24999997, 0.583333313, -0.25000006, 0.583333313},
     {-2, -0.5, -2, -0.5, 1, 2.5, 4, -2, 4, -2, -0.5, 1, 2.5, 4, 2.5, 4, -2, -0.5, 1, 2.5, 1, 2.5, 4, -2},
     {-1, 1, -1.5, -0.5, -1, 1, 0.5, 1.5, -1, 1, -1.5, -0.5, -1, 1, 0.5, 1.5, 0, 0, 0, 0, 0, 0, 0, 0}},
    {true, false, 5, 3,
     {-2, -0.5, 2.5, 0.25, -0.5, 1, 0.25, 1.75, 1, 0.625, 1.75, -0.5, 2.5, 4, -0.5, 1, 4, -2, 1, 2.5, -0.125, 1.375, 2.5, 0.25, -0.5, 1, 0.25, 1.75, 1, 2.5},
     {-1.25, 0.25, -0.125, 0.625, -0.125, 0.625, -1.25, 0.25, -1, 1, -0.5, 0.5, -0.5, 0.5, -1, 1, -1.25, 0.25, -0.125, 0.625, -0.125, 0.625, -1.25, 0.25},
     {-2, -0.5, 4, -2, -0.5, 1, 2.5, 4, 1, 2.5, 4, -2, 2.5, 4, 1, 2.5, 4, -2, -0.5, 1, -2, -0.5, 1, 2.5, -0.5, 1, -2, -0.5, 1, 2.5},
     {-1.5, -0.5, 0, 0, 0.5, 1.5, -1.5, -0.5, -1, 1, 0, 0, -1, 1, -1, 1, -1, 1, 0, 0, -1, 1, -1, 1}},
    {true, false, 2, 6,
     {-2, -0.5, -0.199999928, 1.30000007, 1.60000014, 1.59999979, 3.4000001, -1.10000038, 2.19999957, -0.799999714, -0.5, 1, -0.5, 1, 1.30000007, 2.80000019, 1.59999979, 3.0999999, -1.10000038, 0.399999619, -0.799999714, 0.700000286, 1, 2.5},
     {-1.29999995, 0.0999999642, -0.799999952, 0.799999952, -0.799999893, 0.800000072, -0.100000143, 1.29999995, 0, 0, 0, 0, 0, 0, 0, 0, -1.29999995, 0.0999999642, -0.799999952, 0.799999952, -0.799999893, 0.800000072, -0.100000143, 1.29999995},
     {-2, -0.5, 1, 2.5, 1, 2.5, 4, -2, 4, -2, -0.5, 1, -0.5, 1, 2.5, 4, 2.5, 4, -2, -0.5, -2, -0.5, 1, 2.5},
     {-1.5, -0.5, -1, 1, -1, 1, 0.5, 1.5, 0, 0, 0, 0, 0, 0, 0, 0, -1.5, -0.5, -1, 1, -1, 1, 0.5, 1.5}},
    {false, true, 5, 3,
     {-1.5, 5.96046448e-08, 2.5, 0.25, 0.249999285, 0.500000477, -0.199999928, 1.30000019, 1.29999995, 0.550000012, 1.54999983, -0.200000048, 1.74999988, 3.25, -0.5, 1, 3.50000048, -1.25000072, 0.699999809, 2.19999981, -0.0499998927, 1.45000005, 1.70000005, 0.700000525, 5.96046448e-08, 1.5, 0.25, 1.75, 0.500000477, 2.00000048},
     {-1, 0.333333254, -0.400000006, 0.666666746, -0.399999797, 0.666666627, -1.00000024, 0.333333373, -0.916666746, 0.583333135, -0.533333302, 0.666666687, -0.533333063, 0.666666508, -0.916666865, 0.583333254, -0.99999994, 0.333333522, -0.400000155, 0.666666687, -0.399999917, 0.666666567, -1.00000012, 0.333333552},
     {-2, -0.5, 4, -2, -0.5, 1, -2, -0.5, 4, -2, -0.5, 1, 2.5, 4, 1, 2.5, 4, -2, -0.5, 1, -2, -0.5, 1, 2.5, -0.5, 1, -2, -0.5, 1, 2.5},
     {-1, 1, 0, 0, -1, 1, -1, 1, -1.5, -0.5, 0, 0, 0.5, 1.5, -1.5, -0.5, -1, 1, 0, 0, -1, 1, -1, 1}},
    {false, true, 2, 6,
     {-0.875, 0.625, -0.3125, 1.1875, 0.750000238, 1.31249976, 2.75000048, -0.437500417, 1.9375, -0.3125, 0.625, 0.25, 0.25, 1.75, 0.8125, 2.3125, 0.937499762, 2.43749976, -0.812500477, 0.687499523, 0.25, 0.8125, 1.75, 1.375},
     {-0.9375, 0.1875, -0.68749994, 0.437499851, -0.43750003, 0.687500119, -0.1875, 0.9375, -0.625, 0.125, -0.458333313, 0.291666567, -0.291666687, 0.458333433, -0.125, 0.625, -0.9375, 0.1875, -0.68749994, 0.437499851, -0.43750003, 0.687500119, -0.1875, 0.9375},
     {-2, -0.5, 1, 2.5, 1, 2.5, 4, -2, -0.5, 1, -0.5, 1, -0.5, 1, 2.5, 4, 2.5, 4, -2, -0.5, 1, 2.5, 1, 2.5},
     {-1.5, -0.5, -1, 1, 0.5, 1.5, -1, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1.5, -0.5, -1, 1, 0.5, 1.5, -1, 1}},
  };
  return cases;
}

std::vector<double> ResizeInput() {
  std::vector<double> x;
  for (int i = 0; i < 24; ++i) x.push_back((i % 5) * 1.5 - 2);
  return x;
}

std::vector<double> ResizeWeights(int64_t n) {
  std::vector<double> w;
  for (int64_t i = 0; i < n; ++i) w.push_back(static_cast<double>(i % 4) - 1.5);
  return w;
}

AttrMap ResizeFlags(const ResizeCase& c) {
  return {{"align_corners", c.align_corners}, {"half_pixel_centers", c.half_pixel_centers}};
}

TEST(ResizeOps, MatchTensorFlow) {
  const Tensor x = MakeTensorOf(DType::kF32, ResizeInput(), {1, 3, 4, 2});
  for (const ResizeCase& c : ResizeCases()) {
    SCOPED_TRACE(testing::Message() << "align_corners " << c.align_corners << " half_pixel_centers "
                                    << c.half_pixel_centers << " size " << c.h << "x" << c.w);
    const Tensor size = MakeTensor<int32_t>({static_cast<int32_t>(c.h), static_cast<int32_t>(c.w)}, {2});
    const TensorShape out({1, c.h, c.w, 2});
    ExpectTensorNear(Eval("resize_bilinear", {x, size}, ResizeFlags(c)), c.bilinear, out, 1e-5);
    ExpectTensorNear(Eval("resize_nearest_neighbor", {x, size}, ResizeFlags(c)), c.nearest, out, 0);
    const Tensor w = MakeTensorOf(DType::kF32, ResizeWeights(c.h * c.w * 2), out);
    ExpectTensorNear(Eval("resize_bilinear_grad", {w, x}, ResizeFlags(c)), c.bilinear_grad, {1, 3, 4, 2}, 1e-5);
    ExpectTensorNear(Eval("resize_nearest_neighbor_grad", {w, x}, ResizeFlags(c)), c.nearest_grad, {1, 3, 4, 2}, 1e-6);
  }
}

TEST(ResizeOps, DtypesAndIdentity) {
  const Tensor size = MakeTensor<int32_t>({3, 4}, {2});
  const std::vector<double> x = ResizeInput();
  for (DType t : {DType::kF16, DType::kF64}) {
    // Resizing to the same size copies the image, in every mode.
    ExpectTensorNear(Eval("resize_bilinear", {MakeTensorOf(t, x, {1, 3, 4, 2}), size}), x, {1, 3, 4, 2});
  }
  for (DType t : {DType::kI32, DType::kI64, DType::kF64}) {
    const Tensor y = Eval("resize_nearest_neighbor", {MakeTensorOf(t, {1, 2, 3, 4}, {1, 2, 2, 1}),
                                                      MakeTensor<int32_t>({4, 4}, {2})});
    EXPECT_EQ(y.dtype(), t);
    ExpectTensorNear(y, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, {1, 4, 4, 1});
  }
}

// Found by op_fuzz: the f16 gradient read its widened copy after the copy
// was gone. Every pixel of the 2x2 output came from the one input pixel,
// so its gradient is the sum 1 + 2 + 3 + 4.
TEST(ResizeOps, NearestGradientInHalfPrecision) {
  const Tensor dy = MakeTensorOf(DType::kF16, {1, 2, 3, 4}, {1, 2, 2, 1});
  const Tensor original = MakeTensorOf(DType::kF16, {0}, {1, 1, 1, 1});
  const Tensor dx = Eval("resize_nearest_neighbor_grad", {dy, original});
  EXPECT_EQ(dx.dtype(), DType::kF16);
  ExpectTensorNear(dx, {10}, {1, 1, 1, 1});
}

TEST(ResizeOps, ShapesAndErrors) {
  using test::InferShapesString;
  EXPECT_EQ(InferShapesString("resize_bilinear", {PartialShape({-1, 3, 4, 2}), PartialShape({2})},
                              {DType::kF32, DType::kI32}),
            "[?, ?, ?, 2]");
  const Tensor x = MakeTensor<float>(std::vector<float>(24, 1), {1, 3, 4, 2});
  for (const char* op : {"resize_bilinear", "resize_nearest_neighbor"}) {
    const std::string name = op;
    ExpectError(test::RunOp1(op, {x, MakeTensor<int32_t>({2, 2}, {2})},
                             {{"align_corners", true}, {"half_pixel_centers", true}}),
                Code::kInvalidArgument, name + ": half_pixel_centers=true needs align_corners=false");
    ExpectError(test::RunOp1(op, {x, MakeTensor<int32_t>({0, 2}, {2})}), Code::kInvalidArgument,
                name + ": size must be positive, got [0, 2]");
    ExpectError(test::RunOp1(op, {x, MakeTensor<int32_t>({2, 2, 2}, {3})}), Code::kInvalidArgument,
                name + ": size must be an i32 [2]");
    ExpectError(test::RunOp1(op, {MakeTensor<float>({1, 2}, {2}), MakeTensor<int32_t>({2, 2}, {2})}),
                Code::kInvalidArgument, name + ": images must be 4-D [batch, height, width, channels], got [2]");
    ExpectError(test::RunKernel(op, {MakeTensor<float>({}, {1, 0, 2, 1}), MakeTensor<int32_t>({2, 2}, {2})}),
                Code::kInvalidArgument, name + ": cannot resize images [1, 0, 2, 1] with no pixels");
  }
  ExpectError(test::RunKernel("resize_bilinear_grad", {MakeTensor<float>({1, 2, 3}, {1, 1, 1, 3}), x}),
              Code::kInvalidArgument,
              "resize_bilinear_grad: grads [1, 1, 1, 3] and original_image [1, 3, 4, 2] differ in batch or channels");
}

TEST(ResizeOps, Gradients) {
  const Tensor x = test::RandomF64({2, 3, 4, 2}, -1, 1, 1);
  for (const ResizeCase& c : ResizeCases()) {
    const Tensor size = MakeTensor<int32_t>({static_cast<int32_t>(c.h), static_cast<int32_t>(c.w)}, {2});
    EXPECT_GRADIENT_OK("resize_bilinear", {x, size}, ResizeFlags(c));
    EXPECT_GRADIENT_OK("resize_nearest_neighbor", {x, size}, ResizeFlags(c));
    const Tensor dy = test::RandomF64({2, c.h, c.w, 2}, -1, 1, 2);
    test::GradCheckOptions wrt_grads;
    wrt_grads.wrt = {0};
    EXPECT_GRADIENT_OK("resize_bilinear_grad", {dy, x}, ResizeFlags(c), wrt_grads);
    EXPECT_GRADIENT_OK("resize_nearest_neighbor_grad", {dy, x}, ResizeFlags(c), wrt_grads);
  }
}

}  // namespace
}  // namespace tfg
