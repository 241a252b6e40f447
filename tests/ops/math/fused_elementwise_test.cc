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

#include "interp/runtime/graph_optimizer.h"
#include "interp/runtime/session.h"
#include "devices/cpu/cpu_device.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/graph.h"
#include "ops/core/op_registry.h"
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
                     const std::vector<TensorShape>& shapes, bool nonzero, bool nonnegative) {
  SCOPED_TRACE(op + " on " + std::string(DTypeName(in_types[op == "where" ? 1 : 0])) + " -> " +
               std::string(DTypeName(out_type)) + " shapes " + shapes[0].ToString() + " " + shapes.back().ToString());
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
  AttrMap attrs;
  if (op == "cast") attrs["DstT"] = out_type;
  Node* plain = AddNode(g, op, ins, attrs, "member");
  ASSERT_NE(plain, nullptr);
  AttrMap fattrs{{"Tout", out_type},
                 {"ops", std::vector<std::string>{op}},
                 {"names", std::vector<std::string>{"member"}},
                 {"types", std::vector<DType>{out_type}},
                 {"args", args},
                 {"spans", std::vector<int64_t>{fused::InternSpan({})}}};
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

TEST(FusedElementwiseTest, EveryFusableOpAndDtypeMatchesItsOwnKernelBitForBit) {
  const std::vector<TensorShape> same{TensorShape({70, 64}), TensorShape({70, 64}), TensorShape({70, 64})};
  const std::vector<TensorShape> rows{TensorShape({70, 64}), TensorShape({64}), TensorShape({70, 1})};
  const std::vector<TensorShape> scalar{TensorShape({}), TensorShape({70, 64}), TensorShape({})};
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
        for (const auto* shapes : {&same, &rows, &scalar}) {
          std::vector<TensorShape> s(shapes->begin(), shapes->begin() + arity);
          if (arity == 1) s = {shapes->at(shapes == &scalar ? 1 : 0)};
          ExpectSameFused(op, types, out, s, int_div, int_pow);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 500);
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

TEST(FusedElementwiseTest, TheTableCoversTheElementwiseOpsOfTheRegistry) {
  // The elementwise ops of ops/math whose kernels run the shared functors.
  const std::vector<std::string> fusable = fused::FusableOps();
  for (const char* op : {"add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum", "equal",
                         "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
                         "logical_not", "neg", "abs", "sign", "square", "relu", "exp", "log", "sqrt", "rsqrt", "tanh",
                         "sigmoid", "sin", "cos", "log1p", "expm1", "reciprocal", "floor", "ceil", "round",
                         "relu_grad", "sigmoid_grad", "tanh_grad", "sqrt_grad", "rsqrt_grad", "where", "cast"}) {
    EXPECT_NE(std::find(fusable.begin(), fusable.end(), op), fusable.end()) << op;
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr) << op;
  }
}

}  // namespace
}  // namespace tfg
