// The fused elementwise kernel against the ops it stands for: every op and
// dtype the fusion table knows (walked from the table and checked against
// the op registry), with broadcasting, NaN, Inf and extreme integers, must
// give the same bytes fused as unfused; errors and --check-numerics
// failures must name the member op and its line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <tuple>

#include "interp/runtime/graph_optimizer.h"
#include "interp/runtime/session.h"
#include "devices/cpu/cpu_device.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/graph.h"
#include "ops/core/op_registry.h"
#include "ops/core/scalar_fn.h"
#include "ops/math/fused/block_ops.h"
#include "ops/math/fused/member_spans.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

const DType kDTypes[] = {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

// Values with the cases that break naive code, then a deterministic spread.
template <typename T>
std::vector<T> Values(int64_t n, uint64_t seed, bool nonzero, bool nonnegative) {
  std::vector<T> v(n);
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  auto next = [&s]() { return (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      v[i] = (next() & 1) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      const T special[] = {0, 1, T(-1), 7, T(-7), std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), 3};
      T x = i < 8 ? special[i] : static_cast<T>(static_cast<int64_t>(next() % 101) - 50);
      if (nonnegative) x = x < 0 ? T(-(x + 1)) % 5 : x % 5;
      if (nonzero && x == 0) x = 3;
      v[i] = x;
    } else {
      const double inf = std::numeric_limits<double>::infinity();
      const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, NAN, inf, -inf, 1e-3, 70000.0, -7.25};
      double x = i < 13 ? special[i] : (static_cast<double>(next() % 20001) - 10000.0) / 997.0;
      v[i] = static_cast<T>(x);
    }
  }
  return v;
}

Tensor MakeValues(DType d, TensorShape shape, uint64_t seed, bool nonzero = false, bool nonnegative = false) {
  const int64_t n = shape.num_elements();
  Tensor t;
  TFG_DISPATCH_ALL(d, T, {
    if constexpr (!std::is_same_v<T, std::string>) t = Tensor::FromVector(Values<T>(n, seed, nonzero, nonnegative), shape);
  });
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw_data(), b.raw_data(), a.bytes()) == 0;
}

Result<std::vector<Tensor>> RunGraph(const Graph& g, std::vector<std::pair<Output, Tensor>> feeds,
                                     std::vector<Output> fetches, SessionOptions options) {
  Session s(&g, options);
  return s.Run(feeds, fetches, {});
}

SessionOptions Unoptimized() {
  SessionOptions o;
  o.optimize = false;
  o.intra_op_threads = 2;
  return o;
}

// One op applied to placeholders of `shapes`, run as its own node and as a
// fused_elementwise node of one member; the outputs must be the same bytes.
void ExpectSameFused(const std::string& op, const std::vector<DType>& in_types, DType out_type,
                     const std::vector<TensorShape>& shapes, bool nonzero, bool nonnegative,
                     const AttrMap& member_attrs = {}, double param = 0) {
  SCOPED_TRACE(op + " on " + std::string(DTypeName(in_types[op == "where" ? 1 : 0])) + " -> " +
               std::string(DTypeName(out_type)) + " shapes " + shapes[0].ToString() + " " + shapes.back().ToString() +
               " param " + std::to_string(param));
  Graph g;
  std::vector<Output> ins;
  std::vector<std::pair<Output, Tensor>> feeds;
  std::vector<int64_t> args;
  for (size_t i = 0; i < in_types.size(); ++i) {
    Output p = AddNode(g, "placeholder", {}, {{"dtype", in_types[i]}, {"shape", PartialShape::Unknown()}})->output(0);
    ins.push_back(p);
    const bool checked = i == 1 && in_types.size() == 2;
    feeds.emplace_back(p, MakeValues(in_types[i], shapes[i], 17 + i, checked && nonzero, checked && nonnegative));
    args.push_back(static_cast<int64_t>(i));
  }
  AttrMap attrs = member_attrs;
  if (op == "cast") attrs["DstT"] = out_type;
  Node* plain = AddNode(g, op, ins, attrs, "member");
  ASSERT_NE(plain, nullptr);
  AttrMap fattrs{{"Tout", out_type},
                 {"ops", std::vector<std::string>{op}},
                 {"names", std::vector<std::string>{"member"}},
                 {"types", std::vector<DType>{out_type}},
                 {"args", args},
                 {"spans", std::vector<int64_t>{fused::InternSpan({})}},
                 {"params", std::vector<double>{param}}};
  Node* fused = AddNode(g, "fused_elementwise", ins, fattrs, "fused");
  ASSERT_NE(fused, nullptr);
  auto r = RunGraph(g, feeds, {plain->output(0), fused->output(0)}, Unoptimized());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(SameBytes((*r)[0], (*r)[1])) << FormatTensor((*r)[0], 20) << "\nvs\n" << FormatTensor((*r)[1], 20);
}

// The operand dtypes an op takes when dispatched on `d` (null: not at all).
std::vector<DType> OperandTypes(const std::string& op, DType d, int arity) {
  if (op == "where") return {DType::kBool, d, d};
  return std::vector<DType>(arity, d);
}

// The values of an op's param attr (block_ops.h) the walk below tries:
// its member attrs and the param the fusion pass would write for them.
std::vector<std::pair<AttrMap, double>> ParamVariants(const fused::BlockOp& block) {
  if (block.param_attr == nullptr) return {{AttrMap{}, 0.0}};
  if (block.param_is_bool) {
    return {{AttrMap{{block.param_attr, false}}, 0.0}, {AttrMap{{block.param_attr, true}}, 1.0}};
  }
  return {{AttrMap{{block.param_attr, 0.2}}, 0.2}, {AttrMap{{block.param_attr, -0.37}}, -0.37}};
}

TEST(FusedElementwiseTest, EveryFusableOpAndDtypeMatchesItsOwnKernelBitForBit) {
  const std::vector<TensorShape> same{TensorShape({70, 64}), TensorShape({70, 64}), TensorShape({70, 64})};
  const std::vector<TensorShape> rows{TensorShape({70, 64}), TensorShape({64}), TensorShape({70, 1})};
  const std::vector<TensorShape> scalar{TensorShape({}), TensorShape({70, 64}), TensorShape({})};
  // Odd lengths: the vector loops' (softplus's four lanes) tails.
  const std::vector<TensorShape> odd{TensorShape({7, 43}), TensorShape({43}), TensorShape({7, 1})};
  // One value per bound (clip_by_value's usual case).
  const std::vector<TensorShape> bounds{TensorShape({70, 64}), TensorShape({}), TensorShape({})};
  int checked = 0;
  for (const std::string& op : fused::FusableOps()) {
    const OpDef* def = OpRegistry::Global().Find(op);
    ASSERT_NE(def, nullptr) << op << " is in the fusion table but not a registered op";
    const int arity = static_cast<int>(def->inputs.size());
    for (DType in : kDTypes) {
      for (DType out : kDTypes) {
        const fused::BlockOp* block = fused::FindBlockOp(op, in, out);
        if (block == nullptr) continue;
        EXPECT_EQ(block->arity, arity) << op;
        const bool int_div = IsInteger(in) && (op == "div" || op == "floordiv" || op == "mod");
        const bool int_pow = IsInteger(in) && op == "pow";
        std::vector<DType> types = OperandTypes(op, in, arity);
        // The layouts the op's own kernel accepts.
        std::vector<const std::vector<TensorShape>*> layouts = {&same, &rows, &scalar, &odd};
        if (block->shapes == fused::ShapeRule::kSame) layouts = {&same};
        if (block->shapes == fused::ShapeRule::kBiasAdd) layouts = {&rows, &odd};
        // Bounds broadcast to t (NaN and Inf meet every other value in
        // `rows`; random bounds have min > max about half the time).
        if (block->shapes == fused::ShapeRule::kToFirst) layouts = {&same, &rows, &odd, &bounds};
        for (const auto& [attrs, param] : ParamVariants(*block)) {
          for (const auto* shapes : layouts) {
            std::vector<TensorShape> s(shapes->begin(), shapes->begin() + arity);
            if (arity == 1) s = {shapes->at(shapes == &scalar ? 1 : 0)};
            ExpectSameFused(op, types, out, s, int_div, int_pow, attrs, param);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 900);
}

// A member whose kernel rejects its operands' shapes (bias_add's bias not
// as long as the last dimension, though it broadcasts; a gradient helper
// whose dy and x differ) fails in the fused node as it does alone.
TEST(FusedElementwiseTest, ShapesTheMembersKernelRejectsFailAsUnfused) {
  for (const auto& [op, value, other, error] :
       {std::tuple{"bias_add", TensorShape({30, 40}), TensorShape({1}), "does not match the last dimension"},
        std::tuple{"bias_add", TensorShape({30, 40}), TensorShape({30, 40}), "does not match the last dimension"},
        std::tuple{"softplus_grad", TensorShape({30, 40}), TensorShape({40}), "dy has shape [30, 40] but x has"}}) {
    SCOPED_TRACE(op);
    Graph g;
    Output a = AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape::Unknown()}})->output(0);
    Output b = AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape::Unknown()}})->output(0);
    AttrMap fattrs{{"Tout", DType::kF32},
                   {"ops", std::vector<std::string>{op}},
                   {"names", std::vector<std::string>{"member"}},
                   {"types", std::vector<DType>{DType::kF32}},
                   {"args", std::vector<int64_t>{0, 1}},
                   {"spans", std::vector<int64_t>{fused::InternSpan({})}}};
    Node* fused = AddNode(g, "fused_elementwise", {a, b}, fattrs, "fused");
    ASSERT_NE(fused, nullptr);
    auto r = RunGraph(g, {{a, MakeValues(DType::kF32, value, 1)}, {b, MakeValues(DType::kF32, other, 2)}},
                      {fused->output(0)}, Unoptimized());
    ASSERT_FALSE(r.ok());
    // The member's own kernel's words, after its name, as unfused.
    const std::string& message = r.status().message();
    EXPECT_NE(message.find(std::string(op) + " 'member': " + op + ": "), std::string::npos) << message;
    EXPECT_NE(message.find(error), std::string::npos) << message;
  }
}

// clip_by_value fused (functor::ClipByValue in both kernels) on values
// whose results are worked out by hand: NaN in t stays NaN, a NaN bound
// is ignored, min > max gives max, signed zeros are kept as t has them.
TEST(FusedElementwiseTest, ClipByValueFusedGivesTheHandWorkedValues) {
  const float nan = NAN, inf = INFINITY;
  const std::vector<float> t{nan, 0.5f, 2, -inf, inf, 5, -5, 2, 0.5f, 7, -0.0f, 0.0f};
  const std::vector<float> lo{0, nan, 0, 0, 0, 3, 3, 3, -inf, -inf, 0.0f, -0.0f};
  const std::vector<float> hi{1, 1, nan, 1, 1, 1, 1, 1, inf, -inf, 1, -0.0f};
  const std::vector<float> want{nan, 0.5f, 2, 0, 1, 1, 1, 1, 0.5f, -inf, -0.0f, 0.0f};
  const TensorShape shape({static_cast<int64_t>(t.size())});
  // And scalar bounds over a vector: the loop's usual case.
  const std::vector<float> t2{nan, inf, -inf, 0.25f, -0.75f, 3};
  const std::vector<float> want2{nan, 1, -0.5f, 0.25f, -0.5f, 1};
  for (const auto& [tv, lov, hiv, expected, bound_shape] :
       {std::tuple{t, lo, hi, want, shape},
        std::tuple{t2, std::vector<float>{-0.5f}, std::vector<float>{1}, want2, TensorShape({})}}) {
    Graph g;
    std::vector<Output> ins;
    for (int i = 0; i < 3; ++i) {
      ins.push_back(AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape::Unknown()}})->output(0));
    }
    Node* plain = AddNode(g, "clip_by_value", ins, {}, "member");
    AttrMap fattrs{{"Tout", DType::kF32},
                   {"ops", std::vector<std::string>{"clip_by_value"}},
                   {"names", std::vector<std::string>{"member"}},
                   {"types", std::vector<DType>{DType::kF32}},
                   {"args", std::vector<int64_t>{0, 1, 2}},
                   {"spans", std::vector<int64_t>{fused::InternSpan({})}}};
    Node* fused = AddNode(g, "fused_elementwise", ins, fattrs, "fused");
    ASSERT_NE(fused, nullptr);
    const TensorShape tshape({static_cast<int64_t>(tv.size())});
    auto r = RunGraph(g,
                      {{ins[0], Tensor::FromVector(tv, tshape)},
                       {ins[1], Tensor::FromVector(lov, bound_shape)},
                       {ins[2], Tensor::FromVector(hiv, bound_shape)}},
                      {plain->output(0), fused->output(0)}, Unoptimized());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(SameBytes((*r)[0], (*r)[1]));
    const float* got = (*r)[1].data<float>();
    for (size_t i = 0; i < expected.size(); ++i) {
      if (std::isnan(expected[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << i;
      } else {
        EXPECT_EQ(got[i], expected[i]) << i;
        EXPECT_EQ(std::signbit(got[i]), std::signbit(expected[i])) << i;
      }
    }
  }
}

// Bounds that broadcast with t but not to t's shape: the fused kernel
// leaves them to clip_by_value's kernel, whose error names the member.
TEST(FusedElementwiseTest, ClipBoundsLargerThanTFailAsUnfused) {
  Graph g;
  std::vector<Output> ins;
  for (int i = 0; i < 3; ++i) {
    ins.push_back(AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape::Unknown()}})->output(0));
  }
  AttrMap fattrs{{"Tout", DType::kF32},
                 {"ops", std::vector<std::string>{"clip_by_value"}},
                 {"names", std::vector<std::string>{"member"}},
                 {"types", std::vector<DType>{DType::kF32}},
                 {"args", std::vector<int64_t>{0, 1, 2}},
                 {"spans", std::vector<int64_t>{fused::InternSpan({})}}};
  Node* fused = AddNode(g, "fused_elementwise", ins, fattrs, "fused");
  ASSERT_NE(fused, nullptr);
  auto r = RunGraph(g,
                    {{ins[0], MakeValues(DType::kF32, TensorShape({40}), 1)},
                     {ins[1], MakeValues(DType::kF32, TensorShape({30, 40}), 2)},
                     {ins[2], MakeValues(DType::kF32, TensorShape({}), 3)}},
                    {fused->output(0)}, Unoptimized());
  ASSERT_FALSE(r.ok());
  const std::string& message = r.status().message();
  EXPECT_NE(message.find("clip_by_value 'member': clip_by_value: clip_value_min of shape [30, 40] does not "
                         "broadcast to t's shape [40]"),
            std::string::npos)
      << message;
}

// Two members run as one loop (block_ops.h FindPairOp): `first` on inputs
// 0 and 1, then `second` on its result and input 2 (left or right) or on
// its result twice, fused and as two plain nodes, with inputs of the whole
// shape or of one element.
void ExpectSamePair(const std::string& first, const std::string& second, DType d, fused::PairForm form,
                    const std::vector<TensorShape>& shapes) {
  SCOPED_TRACE(first + " then " + second + " on " + std::string(DTypeName(d)) + " form " +
               std::to_string(static_cast<int>(form)) + " shapes " + shapes[0].ToString() + " " +
               shapes[1].ToString() + " " + shapes[2].ToString());
  Graph g;
  std::vector<Output> ins;
  std::vector<std::pair<Output, Tensor>> feeds;
  for (int i = 0; i < 3; ++i) {
    Output p = AddNode(g, "placeholder", {}, {{"dtype", d}, {"shape", PartialShape::Unknown()}})->output(0);
    ins.push_back(p);
    feeds.emplace_back(p, MakeValues(d, shapes[i], 31 + i));
  }
  Output t = AddNode(g, first, {ins[0], ins[1]}, {}, "first")->output(0);
  std::vector<Output> operands = form == fused::PairForm::kLeft    ? std::vector<Output>{t, ins[2]}
                                 : form == fused::PairForm::kRight ? std::vector<Output>{ins[2], t}
                                                                   : std::vector<Output>{t, t};
  Node* plain = AddNode(g, second, operands, {}, "second");
  ASSERT_NE(plain, nullptr);
  std::vector<int64_t> args = {0, 1};
  if (form == fused::PairForm::kLeft) args.insert(args.end(), {-1, 2});
  if (form == fused::PairForm::kRight) args.insert(args.end(), {2, -1});
  if (form == fused::PairForm::kBoth) args.insert(args.end(), {-1, -1});
  const int64_t span = fused::InternSpan({});
  AttrMap fattrs{{"Tout", d},
                 {"ops", std::vector<std::string>{first, second}},
                 {"names", std::vector<std::string>{"first", "second"}},
                 {"types", std::vector<DType>{d, d}},
                 {"args", args},
                 {"spans", std::vector<int64_t>{span, span}}};
  std::vector<Output> fused_in = ins;
  if (form == fused::PairForm::kBoth) fused_in.pop_back();
  Node* fused = AddNode(g, "fused_elementwise", fused_in, fattrs, "fused");
  ASSERT_NE(fused, nullptr);
  if (form == fused::PairForm::kBoth) feeds.pop_back();
  auto r = RunGraph(g, feeds, {plain->output(0), fused->output(0)}, Unoptimized());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(SameBytes((*r)[0], (*r)[1])) << FormatTensor((*r)[0], 20) << "\nvs\n" << FormatTensor((*r)[1], 20);
}

TEST(FusedElementwiseTest, EveryPairLoopMatchesTheTwoKernelsBitForBit) {
  const char* ops[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  const TensorShape big({3, 1500}), one({});
  // a is spread when it has one element; b and c are read with stride 0.
  const std::vector<std::vector<TensorShape>> layouts = {
      {big, big, big}, {big, one, one}, {big, one, big}, {one, big, one}, {big, big, one}};
  int checked = 0;
  for (const char* first : ops) {
    for (const char* second : ops) {
      for (DType d : {DType::kF32, DType::kF64}) {
        for (auto form : {fused::PairForm::kLeft, fused::PairForm::kRight, fused::PairForm::kBoth}) {
          ASSERT_NE(fused::FindPairOp(first, second, d, form), nullptr) << first << "+" << second;
          for (const auto& shapes : layouts) {
            ExpectSamePair(first, second, d, form, shapes);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 6 * 6 * 2 * 3 * 5);
  EXPECT_EQ(fused::FindPairOp("add", "add", DType::kF16, fused::PairForm::kLeft), nullptr);
  EXPECT_EQ(fused::FindPairOp("add", "add", DType::kI32, fused::PairForm::kLeft), nullptr);
}

// A pair ending a group that sums (block_ops.h PairSumRun) adds into the
// sum's lanes itself: the same bytes as the two kernels and `sum`, for
// every pair, form and float dtype, over a whole vector (parts of 2^15,
// row blocks of 4096, pieces of 1024 and a tail of 5) and over rows of an
// odd length.
void ExpectSamePairSum(const std::string& first, const std::string& second, DType d, fused::PairForm form,
                       const TensorShape& shape, const std::vector<int64_t>& axis) {
  SCOPED_TRACE(first + " then " + second + " summed, " + std::string(DTypeName(d)) + " form " +
               std::to_string(static_cast<int>(form)) + " shape " + shape.ToString());
  Graph g;
  std::vector<Output> ins;
  std::vector<std::pair<Output, Tensor>> feeds;
  const TensorShape shapes[] = {shape, TensorShape({}), shape};
  for (int i = 0; i < 3; ++i) {
    Output p = AddNode(g, "placeholder", {}, {{"dtype", d}, {"shape", PartialShape::Unknown()}})->output(0);
    ins.push_back(p);
    feeds.emplace_back(p, MakeValues(d, shapes[i], 41 + i));
  }
  Output t = AddNode(g, first, {ins[0], ins[1]}, {}, "first")->output(0);
  std::vector<Output> operands = form == fused::PairForm::kLeft    ? std::vector<Output>{t, ins[2]}
                                 : form == fused::PairForm::kRight ? std::vector<Output>{ins[2], t}
                                                                   : std::vector<Output>{t, t};
  Output y = AddNode(g, second, operands, {}, "second")->output(0);
  AttrMap sum_attrs;
  if (!axis.empty()) sum_attrs["axis"] = axis;
  Node* plain = AddNode(g, "sum", {y}, sum_attrs, "total");
  ASSERT_NE(plain, nullptr);
  std::vector<int64_t> args = {0, 1};
  if (form == fused::PairForm::kLeft) args.insert(args.end(), {-1, 2});
  if (form == fused::PairForm::kRight) args.insert(args.end(), {2, -1});
  if (form == fused::PairForm::kBoth) args.insert(args.end(), {-1, -1});
  args.push_back(-2);
  const int64_t span = fused::InternSpan({});
  AttrMap fattrs{{"Tout", d},
                 {"ops", std::vector<std::string>{first, second, "sum"}},
                 {"names", std::vector<std::string>{"first", "second", "total"}},
                 {"types", std::vector<DType>{d, d, d}},
                 {"args", args},
                 {"spans", std::vector<int64_t>{span, span, span}}};
  if (!axis.empty()) fattrs["axis"] = axis;
  std::vector<Output> fused_in = ins;
  if (form == fused::PairForm::kBoth) {
    fused_in.pop_back();
    feeds.pop_back();
  }
  Node* fused = AddNode(g, "fused_elementwise", fused_in, fattrs, "fused");
  ASSERT_NE(fused, nullptr);
  auto r = RunGraph(g, feeds, {plain->output(0), fused->output(0)}, Unoptimized());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(SameBytes((*r)[0], (*r)[1])) << FormatTensor((*r)[0], 20) << "\nvs\n" << FormatTensor((*r)[1], 20);
}

TEST(FusedElementwiseTest, PairsEndingInASumAddInTheSumKernelsOrder) {
  const char* ops[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  int checked = 0;
  for (const char* first : ops) {
    for (const char* second : ops) {
      for (DType d : {DType::kF32, DType::kF64}) {
        for (auto form : {fused::PairForm::kLeft, fused::PairForm::kRight, fused::PairForm::kBoth}) {
          ASSERT_NE(fused::FindPairSumOp(first, second, d, form), nullptr) << first << "+" << second;
          ExpectSamePairSum(first, second, d, form, TensorShape({3 * 32768 + 8 * 1024 + 5}), {});
          ExpectSamePairSum(first, second, d, form, TensorShape({7, 4101}), {1});
          checked += 2;
        }
      }
    }
  }
  EXPECT_EQ(checked, 6 * 6 * 2 * 3 * 2);
}

TEST(FusedElementwiseTest, TheTableCoversTheElementwiseOpsOfTheRegistry) {
  // Every op of the registry with a scalar function (the cwise families of
  // ops/math and ops/nn registered through RegisterCwiseKernel) is fusable
  // at each dtype it has one for.
  int cwise = 0;
  for (const OpDef* def : OpRegistry::Global().ListOps()) {
    for (DType d : kDTypes) {
      if (FindScalarFn(def->name, d) == nullptr) continue;
      bool fusable = false;
      for (DType out : kDTypes) fusable = fusable || fused::FindBlockOp(def->name, d, out) != nullptr;
      EXPECT_TRUE(fusable || def->name.rfind("cast", 0) == 0) << def->name << " on " << DTypeName(d);
      ++cwise;
    }
  }
  EXPECT_GT(cwise, 120);  // 141 op and dtype pairs when written
  // And the elementwise ops with kernels of their own.
  const std::vector<std::string> fusable = fused::FusableOps();
  for (const char* op : {"where", "cast", "gelu", "selu", "atan2", "leaky_relu", "leaky_relu_grad", "elu", "elu_grad",
                         "softplus", "softplus_grad", "relu6", "relu6_grad", "bias_add", "clip_by_value", "lgamma", "digamma", "erf",
                         "erfc", "asin", "acos", "atan", "sinh", "cosh", "tan", "is_finite", "is_inf"}) {
    EXPECT_NE(std::find(fusable.begin(), fusable.end(), op), fusable.end()) << op;
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr) << op;
  }
}

}  // namespace
}  // namespace tfg
