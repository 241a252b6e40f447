// strided_slice against NumPy: each case is a Python index expression, its
// lowering the way the interpreter does it, and NumPy's result (recorded
// with numpy 2.4 on a = arange(10), m = arange(12).reshape(3, 4),
// t = arange(24).reshape(2, 3, 4)).
#include <optional>

#include "tests/ops/array/array_test_util.h"

namespace tfg::test {
namespace {

constexpr std::nullopt_t N = std::nullopt;

struct Item {
  enum Kind { kSlice, kIndex, kNewAxis, kEllipsis } kind = kSlice;
  std::optional<int64_t> start, stop, step;
};
Item Sl(std::optional<int64_t> a, std::optional<int64_t> b, std::optional<int64_t> c = N) {
  return {Item::kSlice, a, b, c};
}
Item Ix(int64_t i) { return {Item::kIndex, i, N, N}; }
Item NewAxis() { return {Item::kNewAxis, N, N, N}; }
Item Dots() { return {Item::kEllipsis, N, N, N}; }

// The interpreter's lowering: an omitted start/stop sets the begin/end mask
// bit, a plain index i is begin=i, end=i+1 plus the shrink bit.
AttrMap Lower(const std::vector<Item>& items) {
  Ints begin, end, strides;
  int64_t bm = 0, em = 0, sm = 0, nm = 0, ellipsis = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    const int64_t bit = int64_t{1} << i;
    begin.push_back(it.kind == Item::kSlice || it.kind == Item::kIndex ? it.start.value_or(0) : 0);
    end.push_back(it.kind == Item::kIndex ? *it.start + 1 : it.stop.value_or(0));
    strides.push_back(it.step.value_or(1));
    if (it.kind == Item::kSlice && !it.start) bm |= bit;
    if (it.kind == Item::kSlice && !it.stop) em |= bit;
    if (it.kind == Item::kIndex) sm |= bit;
    if (it.kind == Item::kNewAxis) nm |= bit;
    if (it.kind == Item::kEllipsis) ellipsis |= bit;
  }
  return {{"begin", begin}, {"end", end}, {"strides", strides}, {"begin_mask", bm}, {"end_mask", em},
          {"shrink_axis_mask", sm}, {"new_axis_mask", nm}, {"ellipsis_mask", ellipsis}};
}

struct Case {
  const char* expr;
  TensorShape input;
  std::vector<Item> index;
  TensorShape shape;
  std::vector<double> values;
};

const TensorShape kA{10}, kM{3, 4}, kT{2, 3, 4};

std::vector<Case> Cases() {
  return {
      {"a[2:7]", kA, {Sl(2, 7)}, {5}, {2, 3, 4, 5, 6}},
      {"a[::-1]", kA, {Sl(N, N, -1)}, {10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {"a[::3]", kA, {Sl(N, N, 3)}, {4}, {0, 3, 6, 9}},
      {"a[-3:]", kA, {Sl(-3, N)}, {3}, {7, 8, 9}},
      {"a[7:2:-2]", kA, {Sl(7, 2, -2)}, {3}, {7, 5, 3}},
      {"a[-100:100]", kA, {Sl(-100, 100)}, {10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {"a[5:2]", kA, {Sl(5, 2)}, {0}, {}},
      {"a[3]", kA, {Ix(3)}, {}, {3}},
      {"a[-1]", kA, {Ix(-1)}, {}, {9}},
      {"a[:-7:-3]", kA, {Sl(N, -7, -3)}, {2}, {9, 6}},
      {"m[1:, ::2]", kM, {Sl(1, N), Sl(N, N, 2)}, {2, 2}, {4, 6, 8, 10}},
      {"m[:, 0]", kM, {Sl(N, N), Ix(0)}, {3}, {0, 4, 8}},
      {"m[::-1, 1:3]", kM, {Sl(N, N, -1), Sl(1, 3)}, {3, 2}, {9, 10, 5, 6, 1, 2}},
      {"m[None, 1]", kM, {NewAxis(), Ix(1)}, {1, 4}, {4, 5, 6, 7}},
      {"m[..., 1]", kM, {Dots(), Ix(1)}, {3}, {1, 5, 9}},
      {"m[1, ::-2]", kM, {Ix(1), Sl(N, N, -2)}, {2}, {7, 5}},
      {"t[..., 1:3]", kT, {Dots(), Sl(1, 3)}, {2, 3, 2}, {1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22}},
      {"t[1, ..., None]", kT, {Ix(1), Dots(), NewAxis()}, {3, 4, 1},
       {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
      {"t[:, -1, ::-3]", kT, {Sl(N, N), Ix(-1), Sl(N, N, -3)}, {2, 2}, {11, 8, 23, 20}},
      {"t[0, 2, 3]", kT, {Ix(0), Ix(2), Ix(3)}, {}, {11}},
      {"t[-1:, None, 5:0:-1]", kT, {Sl(-1, N), NewAxis(), Sl(5, 0, -1)}, {1, 1, 2, 4},
       {20, 21, 22, 23, 16, 17, 18, 19}},
  };
}

TEST(StridedSliceOpTest, MatchesNumPyForEveryDType) {
  for (const Case& c : Cases()) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(std::string(c.expr) + " " + std::string(DTypeName(dtype)));
      ExpectOp("strided_slice", {Iota(dtype, c.input)}, Lower(c.index), dtype, c.shape, c.values);
    }
  }
}

TEST(StridedSliceOpTest, ShapeFunctionMatchesNumPyShapes) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.expr);
    auto shapes = InferShapes("strided_slice", {PartialShape(c.input)}, {DType::kF32}, Lower(c.index));
    ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
    EXPECT_EQ((*shapes)[0], PartialShape(c.shape));
  }
}

TEST(StridedSliceOpTest, ShapeFunctionWithUnknownDims) {
  // x[?, 4]: x[1:, ::2] keeps the unknown dim unknown; x[0] drops it.
  const PartialShape in({-1, 4});
  EXPECT_EQ(InferShapesString("strided_slice", {in}, {DType::kF32}, Lower({Sl(1, N), Sl(N, N, 2)})), "[?, 2]");
  EXPECT_EQ(InferShapesString("strided_slice", {in}, {DType::kF32}, Lower({Ix(0)})), "[4]");
  EXPECT_EQ(InferShapesString("strided_slice", {in}, {DType::kF32}, Lower({Dots(), NewAxis()})), "[?, 4, 1]");
  EXPECT_EQ(InferShapesString("strided_slice", {PartialShape::Unknown()}, {DType::kF32}, Lower({Ix(0)})),
            "<unknown>");
}

TEST(StridedSliceOpTest, IndexOutOfRangeNamesIndexAndSize) {
  auto r = RunOp1("strided_slice", {Iota(DType::kF32, {3, 4})}, Lower({Ix(3)}));
  ExpectError(r, Code::kInvalidArgument, "index 3 is out of range for dimension 0 of size 3");
  auto neg = RunOp1("strided_slice", {Iota(DType::kF32, {3, 4})}, Lower({Sl(N, N), Ix(-5)}));
  ExpectError(neg, Code::kInvalidArgument, "index -5 is out of range for dimension 1 of size 4");
  EXPECT_EQ(InferShapesString("strided_slice", {PartialShape({3, 4})}, {DType::kF32}, Lower({Ix(3)})),
            "strided_slice: index 3 is out of range for dimension 0 of size 3");
}

TEST(StridedSliceOpTest, BadSpecsAreErrors) {
  const Tensor m = Iota(DType::kI32, {3, 4});
  ExpectError(RunOp1("strided_slice", {m}, Lower({Sl(N, N, 0)})), Code::kInvalidArgument,
              "strides[0] must be non-zero");
  ExpectError(RunOp1("strided_slice", {m}, Lower({Ix(0), Ix(0), Ix(0)})), Code::kInvalidArgument,
              "more items than the input has dimensions (2)");
  ExpectError(RunOp1("strided_slice", {m}, Lower({Dots(), Dots()})), Code::kInvalidArgument, "at most one ellipsis");
  ExpectError(RunOp1("strided_slice", {m}, {{"begin", Ints{0}}, {"end", Ints{1, 2}}}), Code::kInvalidArgument,
              "must have the same length");
}

TEST(StridedSliceOpTest, ZeroSizeInputAndEmptyStrides) {
  // z = zeros((0, 3)): z[:, 1] has shape (0,), z[::-1] shape (0, 3).
  ExpectOp("strided_slice", {Iota(DType::kF32, {0, 3})}, Lower({Sl(N, N), Ix(1)}), DType::kF32, {0}, {});
  ExpectOp("strided_slice", {Iota(DType::kF32, {0, 3})}, Lower({Sl(N, N, -1)}), DType::kF32, {0, 3}, {});
  // No strides attr: all 1. m[1:3] of arange(12).reshape(3, 4).
  ExpectOp("strided_slice", {Iota(DType::kF64, {3, 4})}, {{"begin", Ints{1}}, {"end", Ints{3}}}, DType::kF64, {2, 4},
           {4, 5, 6, 7, 8, 9, 10, 11});
}

}  // namespace
}  // namespace tfg::test
