// Every differentiable op in the registry, checked the same way: its
// symbolic gradient against central differences in f64, and the same
// gradient built on placeholders of unknown dims and of unknown rank (so
// gradients never rely on static shapes). A registry walk fails for any op
// with float inputs that has neither a gradient nor a NoGradient reason,
// or a gradient this table does not exercise — a new op cannot silently
// lack one. Stateful ops (random, variables, dropout) are exempt, and so
// are test-only ops ("test_" prefix, registered by other tests) and cond's
// switch and merge (see below).
//
// Adding an op: add its cases to the family's list below (inputs chosen
// away from kinks and ties; `wrt` limits the check to the inputs that are
// differentiated, e.g. dy of a gradient helper whose x only lends a shape).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "ops/core/op_registry.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::gradient_coverage_test {
namespace {

using test::MakeTensor;
using test::MakeTensorOf;
using test::RandomF64;
using Ints = std::vector<int64_t>;

enum class Expect {
  kMatches,      // matches finite differences
  kUnsupported,  // a second derivative not written yet: a clear Unimplemented error, never a silent zero
};

struct GradCase {
  std::string op;
  std::vector<Tensor> inputs;
  AttrMap attrs = {};
  std::vector<int> wrt = {};  // empty: every float input
  Expect expect = Expect::kMatches;
  // Set while an op's gradient still needs static shapes: building it on
  // unknown shapes must then fail with this Unimplemented message (never
  // compute wrong numbers). Remove it when the gradient is fixed.
  const char* static_shapes_only = nullptr;
};

Tensor R(TensorShape shape, double lo = -1, double hi = 1, uint32_t seed = 1) {
  return RandomF64(std::move(shape), lo, hi, seed);
}
Tensor Positive(TensorShape shape, uint32_t seed = 1) { return R(std::move(shape), 0.5, 2, seed); }

void Add(std::vector<GradCase>& cases, std::vector<GradCase> more) {
  cases.insert(cases.end(), more.begin(), more.end());
}

std::vector<GradCase> UnaryCases() {
  std::vector<GradCase> cases;
  for (const char* op : {"neg", "abs", "square", "relu", "exp", "tanh", "sigmoid", "sin", "cos"}) {
    Add(cases, {{op, {R({2, 3}, -2, 2)}}, {op, {R({}, -2, 2, 2)}}});
  }
  for (const char* op : {"log", "sqrt", "rsqrt", "log1p", "reciprocal"}) Add(cases, {{op, {Positive({2, 3})}}});
  Add(cases, {{"expm1", {R({2, 3}, -2, 2)}}});
  // sign's zero gradient, away from its step at 0.
  Add(cases, {{"sign", {Positive({2, 3})}}});
  return cases;
}

std::vector<GradCase> BinaryCases() {
  std::vector<GradCase> cases;
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum", "pow"}) {
    // pow's base and div's divisor stay positive; maximum/minimum never tie.
    Add(cases, {{op, {Positive({2, 3}, 1), R({3}, -2, 2, 2)}},
                {op, {Positive({2, 1}, 3), R({1, 3}, -2, 2, 4)}},
                {op, {Positive({}, 5), R({2, 3}, -2, 2, 6)}}});
    const std::string name = op;
    if (name != "pow" && name != "div") Add(cases, {{op, {R({2, 3}, -2, 2, 7), Positive({2, 3}, 8)}}});
  }
  // mod away from its jumps: no x / y within 0.05 of an integer.
  Add(cases, {{"mod", {MakeTensorOf(DType::kF64, {0.3, 1.7, -0.6, 2.4, -1.3, 0.9}, {2, 3}),
                       MakeTensorOf(DType::kF64, {0.7, 1.1, 1.9}, {3})}}});
  return cases;
}

std::vector<GradCase> MathCases() {
  std::vector<GradCase> cases = UnaryCases();
  Add(cases, BinaryCases());
  const Tensor cond = MakeTensor<bool>({true, false, false, true, true, false}, {2, 3});
  Add(cases, {
      {"cast", {R({2, 3})}, {{"DstT", DType::kF64}}},
      {"erf", {R({2, 3})}},
      {"erfc", {R({2, 3})}},
      {"asin", {R({2, 3}, -0.9, 0.9)}},
      {"acos", {R({2, 3}, -0.9, 0.9)}},
      {"atan", {R({2, 3})}},
      {"sinh", {R({2, 3})}},
      {"cosh", {R({2, 3})}},
      {"tan", {R({2, 3})}},
      {"lgamma", {Positive({2, 3})}},
      {"digamma", {Positive({2, 3})}, {}, {}, Expect::kUnsupported},
      {"atan2", {R({2, 3}), R({3}, 0.5, 2, 2)}},
      {"einsum", {R({2, 3}), R({3, 4}, -1, 1, 2)}, {{"equation", std::string("ij,jk->ik")}}},
      {"einsum", {R({3, 3})}, {{"equation", std::string("ii->i")}}},
      {"einsum", {R({2, 1, 2, 3}, -1, 1, 3), R({3, 3, 2}, -1, 1, 4)}, {{"equation", std::string("...ij,...jk->...ik")}}},
      // Every segment has a row in the max/min cases: an empty segment's
      // lowest-float value would make the finite differences NaN.
      {"segment_sum", {R({4, 2}), MakeTensor<int32_t>({0, 0, 2, 2}, {4})}, {}, {0}},
      {"segment_mean", {R({4, 2}), MakeTensor<int32_t>({0, 0, 2, 2}, {4})}, {}, {0}},
      {"segment_max", {R({4, 2}), MakeTensor<int32_t>({0, 0, 2, 2}, {4})}, {}, {0}},
      {"segment_min", {R({4, 2}), MakeTensor<int32_t>({0, 0, 2, 2}, {4})}, {}, {0}},
      {"segment_prod", {Positive({4, 2}), MakeTensor<int64_t>({0, 0, 2, 2}, {4})}, {}, {0}},
      {"unsorted_segment_sum", {R({4, 2}), MakeTensor<int32_t>({2, -1, 0, 2}, {4}), MakeTensor<int32_t>({3}, {})}, {}, {0}},
      {"unsorted_segment_mean", {R({4, 2}), MakeTensor<int32_t>({2, -1, 0, 2}, {4}), MakeTensor<int32_t>({3}, {})}, {}, {0}},
      {"unsorted_segment_max", {R({4, 2}), MakeTensor<int32_t>({1, -1, 0, 1}, {4}), MakeTensor<int32_t>({2}, {})}, {}, {0}},
      {"unsorted_segment_min", {R({4, 2}), MakeTensor<int32_t>({1, -1, 0, 1}, {4}), MakeTensor<int32_t>({2}, {})}, {}, {0}},
      {"unsorted_segment_prod", {Positive({2, 2, 2}), MakeTensor<int64_t>({1, -1, 0, 1}, {2, 2}), MakeTensor<int64_t>({3}, {})}, {}, {0}},
      {"segment_gather", {R({3, 2}), MakeTensor<int32_t>({2, -1, 0, 2}, {4})}, {}, {0}},
      {"where", {cond, R({2, 3}), R({3}, -1, 1, 2)}},
      {"where", {cond, R({}), R({2, 1}, -1, 1, 2)}},
      {"matmul", {R({2, 3}), R({3, 4}, -1, 1, 2)}},
      {"matmul", {R({3, 2}), R({4, 3}, -1, 1, 2)}, {{"transpose_a", true}, {"transpose_b", true}}},
      {"matmul", {R({2, 2, 3}), R({3, 4}, -1, 1, 2)}},
      {"matmul", {R({2, 1, 2, 3}), R({3, 4, 3}, -1, 1, 2)}, {{"transpose_b", true}}},
      {"softmax", {R({2, 3}, -3, 3)}},
      {"softmax", {R({2, 3, 2}, -3, 3)}, {{"axis", int64_t{1}}}},
      {"log_softmax", {R({2, 3}, -3, 3)}},
      {"log_softmax", {R({3, 2}, -3, 3)}, {{"axis", int64_t{0}}}},
  });
  for (const char* op : {"sum", "mean", "max", "min", "prod"}) {
    Add(cases, {{op, {R({2, 3, 4}, -2, 2)}},
                {op, {R({2, 3, 4}, -2, 2)}, {{"axis", Ints{1}}}},
                {op, {R({2, 3, 4}, -2, 2)}, {{"axis", Ints{0, 2}}, {"keepdims", true}}},
                {op, {R({3}, -2, 2)}, {{"axis", Ints{-1}}, {"keepdims", true}}}});
  }
  // cumprod's gradient divides by x (as TensorFlow's): inputs away from 0.
  Add(cases, {
      {"cumsum", {R({2, 3, 4}, -2, 2)}, {{"axis", int64_t{1}}}},
      {"cumsum", {R({3, 4}, -2, 2)}, {{"axis", int64_t{-1}}, {"exclusive", true}, {"reverse", true}}},
      {"cumprod", {Positive({2, 3, 4})}, {{"axis", int64_t{1}}}},
      {"cumprod", {R({3, 4}, -1.5, -0.5)}, {{"axis", int64_t{0}}, {"exclusive", true}, {"reverse", true}}},
  });
  return cases;
}

// The fused gradient helper ops (the <op>_grad ops beside their forward
// ops), differentiated again (second derivatives).
std::vector<GradCase> GradHelperCases() {
  const Tensor x = R({3, 4}, -2, 2, 3);
  const Tensor dy = R({3, 4}, -1, 1, 4);
  const AttrMap axis1{{"axis", Ints{1}}};
  const Tensor max1 = test::Eval("max", {x}, axis1), min1 = test::Eval("min", {x}, axis1);
  return {
      {"relu_grad", {dy, x}, {}, {0}},
      {"sigmoid_grad", {dy, R({3, 4}, 0.05, 0.95)}},
      {"tanh_grad", {dy, R({3, 4}, -0.95, 0.95)}},
      {"sqrt_grad", {dy, Positive({3, 4})}},
      {"rsqrt_grad", {dy, Positive({3, 4})}},
      {"softmax_grad", {dy, test::Eval("softmax", {x})}},
      {"log_softmax_grad", {dy, test::Eval("log_softmax", {x}, {{"axis", int64_t{0}}})}, {{"axis", int64_t{0}}}},
      {"sum_grad", {R({3}), x}, axis1, {0}},
      {"mean_grad", {R({1, 4}), x}, {{"axis", Ints{0}}, {"keepdims", true}}, {0}},
      {"max_grad", {R({3}), x, max1}, axis1, {0}},
      {"min_grad", {R({3}), x, min1}, axis1, {0}},
      {"prod_grad", {R({3}), x}, axis1, {0}, Expect::kUnsupported},
      {"unbroadcast", {dy, R({4})}, {}, {0}},
      {"broadcast_like", {R({4}), dy}, {}, {0}},
  };
}

std::vector<GradCase> NnCases() {
  const Tensor x = MakeTensor<double>({-2.5, -0.7, -0.1, 0.3, 1.5, 5.5, 6.5, 9.0}, {2, 4});
  const Tensor dy = R({2, 4}, -1, 1, 91);
  const AttrMap pool = {{"ksize", Ints{2, 2}}, {"strides", Ints{1, 1}}};
  const AttrMap conv = {{"strides", Ints{2, 2}}, {"padding", std::string("SAME")}};
  const Tensor img = R({1, 4, 5, 2}, -1, 1, 21), filter = R({2, 3, 2, 2}, -1, 1, 22);
  const Tensor conv_dy = R({1, 2, 3, 2}, -1, 1, 23);
  const std::vector<Tensor> bn = {R({3, 2, 3}, -2, 2, 111), R({3}, 0.5, 1.5, 112), R({3}, -1, 1, 113),
                                  R({3}, -1, 1, 114), R({3}, 0.5, 1.5, 115)};
  return {
      {"bias_add", {R({2, 3, 4}), R({4}, -1, 1, 2)}},
      {"bias_add_grad", {R({3, 2, 5})}},
      {"leaky_relu", {x}, {{"alpha", 0.3}}},
      {"elu", {x}},
      {"softplus", {x}},
      {"relu6", {x}},
      {"leaky_relu_grad", {dy, x}, {{"alpha", 0.3}}, {0}},
      {"relu6_grad", {dy, x}, {}, {0}},
      {"elu_grad", {dy, x}, {}, {}, Expect::kUnsupported},
      {"softplus_grad", {dy, x}, {}, {}, Expect::kUnsupported},
      {"l2_loss", {R({3, 5}, -2, 2)}},
      {"clip_by_value", {R({2, 3}, -3, 3, 101), R({3}, -1, 0, 102), R({2, 1}, 0.5, 1.5, 103)}},
      {"clip_by_value_grad", {dy, x, R({}, -1, 0), R({}, 0.5, 1.5)}, {}, {}, Expect::kUnsupported},
      {"lstm_block_cell", {R({2, 12}, -2, 2, 121), R({2, 3}, -1, 1, 122)}, {{"forget_bias", 0.5}}},
      {"lstm_block_cell_grad", {R({2, 12}), R({2, 3}), R({2, 3}), R({2, 3})}, {}, {}, Expect::kUnsupported},
      {"conv2d", {img, filter}, conv},
      {"conv2d_backprop_input", {img, filter, conv_dy}, conv, {1, 2}},
      {"conv2d_backprop_filter", {img, filter, conv_dy}, conv, {0, 2}},
      {"max_pool", {R({2, 5, 6, 2}, -1, 1, 31)},
       {{"ksize", Ints{3, 2}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
      {"max_pool_grad", {R({2, 5, 6, 2}, -1, 1, 31), R({2, 4, 5, 2}, -1, 1, 32)}, pool, {1}},
      {"max_pool_grad_grad", {R({2, 5, 6, 2}, -1, 1, 31), R({2, 5, 6, 2}, -1, 1, 33)}, pool, {1}},
      {"avg_pool", {R({2, 5, 5, 2})},
       {{"ksize", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"padding", std::string("SAME")}}},
      {"avg_pool_grad", {R({2, 5, 5, 2}), R({2, 4, 4, 2}, -1, 1, 42)}, pool, {1}},
      {"batch_norm", bn, {{"epsilon", 0.01}}, {0, 1, 2}},
      {"batch_norm", bn, {{"training", false}}},
      {"batch_norm_grad", {R({3, 2, 3}), bn[0], bn[1], bn[3], bn[4], R({3}), R({3})}, {}, {}, Expect::kUnsupported},
      {"softmax_cross_entropy_with_logits", {R({3, 5}, -3, 3, 51), R({3, 5}, 0, 1, 52)}},
      {"softmax_cross_entropy_grad", {R({3, 5}), R({3, 5}, 0, 1), R({3})}, {}, {}, Expect::kUnsupported},
      {"sparse_softmax_cross_entropy", {R({4, 5}, -3, 3, 61), MakeTensor<int32_t>({4, 0, 2, 2}, {4})}},
      {"sparse_softmax_cross_entropy_grad", {R({4, 5}), MakeTensor<int32_t>({4, 0, 2, 2}, {4}), R({4})}, {}, {},
       Expect::kUnsupported},
      {"depthwise_conv2d", {img, filter}, conv},
      {"depthwise_conv2d_backprop_input", {img, filter, R({1, 2, 3, 4}, -1, 1, 24)}, conv, {1, 2}},
      {"depthwise_conv2d_backprop_filter", {img, filter, R({1, 2, 3, 4}, -1, 1, 24)}, conv, {0, 2}},
      {"resize_bilinear", {img, MakeTensor<int32_t>({3, 7}, {2})}},
      {"resize_bilinear", {img, MakeTensor<int32_t>({7, 3}, {2})}, {{"half_pixel_centers", true}}},
      {"resize_bilinear_grad", {R({1, 3, 7, 2}, -1, 1, 25), img}, {}, {0}},
      {"resize_nearest_neighbor", {img, MakeTensor<int32_t>({3, 7}, {2})}, {{"align_corners", true}}},
      {"resize_nearest_neighbor_grad", {R({1, 3, 7, 2}, -1, 1, 26), img}, {}, {0}},
      {"selu", {R({2, 3})}},
      {"gelu", {R({2, 3})}},
      {"gelu", {R({2, 3})}, {{"approximate", true}}},
      {"gather_grad", {R({4, 3}, -1, 1, 141), MakeTensor<int32_t>({2, 0, 2, 1}, {4}), R({3, 3}, -1, 1, 142)}, {}, {0}},
      // Distinct values, so the selection is stable under the finite-difference step.
      {"top_k", {R({3, 5}, -2, 2, 151)}, {{"k", int64_t{2}}}},
      {"top_k", {R({2, 3, 4}, -2, 2, 152)}, {{"k", int64_t{3}}, {"sorted", false}}},
      {"top_k_grad", {R({3, 2}), MakeTensor<int32_t>({4, 1, 0, 2, 3, 0}, {3, 2}), R({3, 5})}, {}, {},
       Expect::kUnsupported},
  };
}

std::vector<GradCase> ArrayCases() {
  const AttrMap reversed = {{"begin", Ints{0, 1}}, {"end", Ints{0, 3}}, {"strides", Ints{-1, 1}},
                            {"begin_mask", int64_t{1}}, {"end_mask", int64_t{1}}};
  const AttrMap pad = {{"paddings", Ints{1, 1, 2, 2}}, {"mode", std::string("SYMMETRIC")}};
  return {
      {"identity", {R({2, 3})}},
      {"placeholder_with_default", {R({2, 3})}, {{"shape", PartialShape({2, 3})}}},
      {"concat", {R({2, 3}), R({2, 1}, -1, 1, 2), R({2, 2}, -1, 1, 3)}, {{"axis", int64_t{1}}}},
      {"expand_dims", {R({2, 3})}, {{"axis", int64_t{1}}}},
      {"fill", {R({})}, {{"dims", Ints{2, 3}}}},
      {"gather", {R({5, 3}), MakeTensor<int64_t>({2, 0, 1, 1}, {2, 2})}, {{"axis", int64_t{1}}}, {0}},
      {"gather_nd", {R({3, 2, 2}), MakeTensor<int32_t>({1, 0, 2, 1, 1, 0}, {3, 2})}, {}, {0}},
      {"reverse_sequence", {R({3, 4, 2}), MakeTensor<int64_t>({4, 0, 2}, {3})},
       {{"seq_axis", int64_t{1}}, {"batch_axis", int64_t{0}}}, {0}},
      {"reverse_sequence", {R({2, 3}), MakeTensor<int32_t>({1, 2, 0}, {3})},
       {{"seq_axis", int64_t{0}}, {"batch_axis", int64_t{-1}}}, {0}},
      {"pad", {R({2, 3})}, pad},
      {"pad_grad", {R({4, 7}), R({2, 3})}, pad, {0}},
      {"reshape", {R({2, 3})}, {{"shape", Ints{3, -1}}}},
      {"scatter_nd", {MakeTensor<int64_t>({0, 2, 0}, {3, 1}), R({3, 2}), Tensor::Vector<int64_t>({4, 2})}, {}, {1}},
      {"reshape_like", {R({2, 3}), R({6, 1})}, {}, {0}},
      {"slice", {R({2, 3, 4})}, {{"begin", Ints{1, 0, 1}}, {"size", Ints{1, -1, 2}}}},
      {"split", {R({2, 6})}, {{"num", int64_t{3}}, {"axis", int64_t{1}}}},
      {"squeeze", {R({1, 3, 1})}},
      {"stack", {R({2, 3}), R({2, 3}, -1, 1, 2)}, {{"axis", int64_t{1}}}},
      {"strided_slice", {R({3, 4})}, reversed},
      {"strided_slice_grad", {R({3, 2}), R({3, 4})}, reversed, {0}},
      {"tile", {R({2, 3})}, {{"multiples", Ints{2, 3}}}},
      {"transpose", {R({2, 3, 4})}, {{"perm", Ints{2, 0, 1}}}},
      {"space_to_depth", {R({2, 4, 6, 3})}, {{"block_size", int64_t{2}}}},
      {"depth_to_space", {R({2, 2, 3, 8})}, {{"block_size", int64_t{2}}}},
      {"unique", {R({5})}},
      {"matrix_band_part", {R({2, 3, 3}), MakeTensor<int64_t>({1}, {}), MakeTensor<int64_t>({0}, {})}, {}, {0}},
  };
}

const std::vector<GradCase>& AllCases() {
  static const std::vector<GradCase> cases = [] {
    std::vector<GradCase> all = MathCases();
    Add(all, GradHelperCases());
    Add(all, NnCases());
    Add(all, ArrayCases());
    return all;
  }();
  return cases;
}

class GradientCoverage : public ::testing::TestWithParam<size_t> {
 protected:
  const GradCase& Case() const { return AllCases()[GetParam()]; }
};

TEST_P(GradientCoverage, MatchesFiniteDifferences) {
  const GradCase& c = Case();
  test::GradCheckOptions options;
  options.wrt = c.wrt;
  auto r = test::CheckGradient(c.op, c.inputs, c.attrs, options);
  if (c.expect == Expect::kUnsupported) {
    test::ExpectError(r, Code::kUnimplemented, "not supported yet");
  } else {
    EXPECT_TRUE(r.ok()) << r.status().ToString();
  }
}

// The gradient graph built on [?, ...] placeholders, and on placeholders of
// unknown rank, computes what the statically shaped one does.
TEST_P(GradientCoverage, SameGradientWhenShapesAreKnownOnlyAtRunTime) {
  const GradCase& c = Case();
  if (c.expect == Expect::kUnsupported) GTEST_SKIP() << "no second derivative";
  auto outputs = test::RunGraphOp(c.op, c.inputs, c.attrs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  const Tensor dy = R((*outputs)[0].shape(), -1, 1, 77);
  auto want = test::SymbolicGradients(c.op, c.inputs, c.attrs, dy, {c.wrt, test::FeedShapes::kStatic});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (auto shapes : {test::FeedShapes::kUnknownDims, test::FeedShapes::kUnknownRank}) {
    SCOPED_TRACE(shapes == test::FeedShapes::kUnknownDims ? "unknown dims" : "unknown rank");
    auto got = test::SymbolicGradients(c.op, c.inputs, c.attrs, dy, {c.wrt, shapes});
    if (c.static_shapes_only != nullptr) {
      test::ExpectError(got, Code::kUnimplemented, c.static_shapes_only);
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < want->size(); ++i) {
      test::ExpectTensorNear((*got)[i], test::ToDoubles((*want)[i]), (*want)[i].shape(), 1e-12);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GradientCoverage, ::testing::Range<size_t>(0, AllCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return AllCases()[info.param].op + "_" + std::to_string(info.param);
                         });

bool HasFloatInput(const OpDef& op) {
  for (const ArgDef& in : op.inputs) {
    if (auto fixed = DTypeFromName(in.type)) {
      if (IsFloat(*fixed)) return true;
      continue;
    }
    const AttrDef* attr = op.FindAttr(in.type);
    if (attr == nullptr || attr->allowed_types.empty()) return true;
    for (DType d : attr->allowed_types) {
      if (IsFloat(d)) return true;
    }
  }
  return false;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += "\n  " + s;
  return out;
}

TEST(GradientCoverageRegistry, EveryDifferentiableOpHasAGradientAndACase) {
  std::set<std::string> covered;
  for (const GradCase& c : AllCases()) covered.insert(c.op);
  std::vector<std::string> missing, untested;
  for (const OpDef* op : OpRegistry::Global().ListOps()) {
    if (op->name.rfind("test_", 0) == 0 || op->stateful || !HasFloatInput(*op)) continue;
    if (!op->no_gradient_reason.empty()) continue;
    // A switch's untaken output is dead, which only the executor models:
    // cond's gradients (switch <-> merge) are checked against hand-computed
    // values in tests/scripts/control/cond_grad.tfg.
    if (op->name == "switch" || op->name == "merge") continue;
    if (!op->grad_fn) {
      missing.push_back(op->name);
    } else if (covered.count(op->name) == 0) {
      untested.push_back(op->name);
    }
  }
  EXPECT_TRUE(missing.empty()) << "ops with float inputs but neither a gradient (SetGradFn) nor a reason for "
                                  "having none (NoGradient):"
                               << Join(missing);
  EXPECT_TRUE(untested.empty()) << "ops with a gradient but no case in tests/ops/gradient_coverage_test.cc:"
                                << Join(untested);
}

TEST(GradientCoverageRegistry, EveryCaseNamesADifferentiableOp) {
  for (const GradCase& c : AllCases()) {
    const OpDef* op = OpRegistry::Global().Find(c.op);
    ASSERT_NE(op, nullptr) << "no op named '" << c.op << "' is registered";
    EXPECT_TRUE(op->grad_fn) << c.op << " has a coverage case but no gradient";
  }
}

}  // namespace
}  // namespace tfg::gradient_coverage_test
