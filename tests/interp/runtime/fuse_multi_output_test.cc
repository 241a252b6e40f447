// Fused groups with several outputs (interp/runtime/fuse_elementwise.h): a
// member whose value is also fetched or used outside the group is an
// extra output of the fused node, written in the same pass, with the same
// bytes as unfused (NaN, Inf and broadcasting included); a group whose
// extra output would feed back into it is fused without one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/fuse_elementwise.h"
#include "interp/runtime/graph_optimizer.h"
#include "interp/runtime/session.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

constexpr int64_t kRows = 96, kCols = 64;  // 6144 elements: above the 4096 fusion threshold

class FuseMultiOutputTest : public ::testing::Test {
 protected:
  Output X() {
    return AddNode(g_, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({kRows, kCols})}}, "x")
        ->output(0);
  }
  Output C(float v) { return test::Const(g_, Tensor::Scalar<float>(v)); }
  Output Op(const std::string& op, std::vector<Output> in, AttrMap attrs = {}) {
    return AddNode(g_, op, std::move(in), std::move(attrs))->output(0);
  }
  Result<OptimizedGraph> Optimize(std::vector<Output> fetches, std::vector<Output> feeds) {
    return OptimizeGraph(g_, feeds, fetches, {}, {}, &cpu_);
  }
  // The fused nodes of the optimized graph and their output counts.
  static std::vector<int> FusedOutputs(const Graph& g) {
    std::vector<int> outs;
    for (const auto& node : g.nodes()) {
      if (node->op_name() == "fused_elementwise") outs.push_back(node->num_outputs());
    }
    return outs;
  }
  // Values with NaN, Inf and both signs of zero among a ramp.
  static Tensor Values() {
    std::vector<float> v(kRows * kCols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int64_t>(i % 997) - 498) / 61.0f;
    v[5] = std::numeric_limits<float>::quiet_NaN();
    v[77] = std::numeric_limits<float>::infinity();
    v[78] = -std::numeric_limits<float>::infinity();
    v[300] = -0.0f;
    return Tensor::FromVector(v, TensorShape({kRows, kCols}));
  }
  Result<std::vector<Tensor>> Run(Output x, std::vector<Output> fetches, bool optimize) {
    SessionOptions o;
    o.optimize = optimize;
    o.intra_op_threads = 2;
    Session s(&g_, o);
    return s.Run({{x, Values()}}, fetches, {});
  }
  // Fused and unfused runs give the same bytes for every fetch.
  void ExpectSame(Output x, std::vector<Output> fetches) {
    auto fused = Run(x, fetches, true);
    auto plain = Run(x, fetches, false);
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    ASSERT_TRUE(plain.ok()) << plain.status().ToString();
    for (size_t i = 0; i < fetches.size(); ++i) {
      const Tensor &a = (*fused)[i], &b = (*plain)[i];
      ASSERT_EQ(a.shape(), b.shape()) << "fetch " << i;
      EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.bytes()), 0) << "fetch " << i;
    }
  }

  Graph g_;
  CpuDevice cpu_{1};
};

// y = x * 1.5 + bias (a row, broadcast); z = y * y + 1. Fetching y and z
// used to split the chain in two kernels; now one writes both.
TEST_F(FuseMultiOutputTest, AFetchedIntermediateIsASecondOutput) {
  Output x = X();
  std::vector<float> row(kCols);
  for (int64_t j = 0; j < kCols; ++j) row[j] = 0.25f * static_cast<float>(j) - 3.0f;
  Output y = Op("add", {Op("mul", {x, C(1.5f)}), test::Const(g_, Tensor::Vector<float>(row))});
  Output z = Op("add", {Op("mul", {y, y}), C(1.0f)});
  auto o = Optimize({y, z}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(FusedOutputs(*o->graph), std::vector<int>{2});
  ExpectSame(x, {y, z});
  // By hand at element 1 (x = (1 - 498) / 61, column 1): y = 1.5 x - 2.75.
  auto r = Run(x, {y, z}, true);
  ASSERT_TRUE(r.ok());
  const float x1 = static_cast<float>(1 - 498) / 61.0f;
  const float y1 = x1 * 1.5f + (0.25f - 3.0f);
  EXPECT_EQ((*r)[0].data<float>()[1], y1);
  EXPECT_EQ((*r)[1].data<float>()[1], y1 * y1 + 1.0f);
  EXPECT_TRUE(std::isnan((*r)[1].data<float>()[5]));
  EXPECT_EQ((*r)[1].data<float>()[77], std::numeric_limits<float>::infinity());
}

// y is also read by an op that is not fused (a sum over the first axis):
// the group exports it.
TEST_F(FuseMultiOutputTest, AnIntermediateReadOutsideTheGroupIsExported) {
  Output x = X();
  Output y = Op("sub", {Op("mul", {x, C(2.0f)}), C(1.0f)});
  Output cols = Op("sum", {y}, {{"axis", std::vector<int64_t>{0}}});
  Output z = Op("neg", {Op("exp", {y})});
  auto o = Optimize({cols, z}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(FusedOutputs(*o->graph), std::vector<int>{2});
  ExpectSame(x, {cols, z});
}

// The chain's values fetched and summed: the sum is output 0, the values
// output 1, both from one pass.
TEST_F(FuseMultiOutputTest, AReducedGroupCanExportItsValues) {
  Output x = X();
  Output y = Op("add", {Op("mul", {x, x}), C(0.5f)});
  Output total = Op("sum", {y});
  auto o = Optimize({y, total}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(FusedOutputs(*o->graph), std::vector<int>{2});
  ExpectSame(x, {y, total});
}

// u = max over rows of y, and z = y - u: exporting y to u would make the
// fused node feed itself, so y's group is formed without extra outputs
// and the results are still the unfused ones.
TEST_F(FuseMultiOutputTest, AnExportThatWouldCloseACycleIsNotMade) {
  Output x = X();
  Output y = Op("mul", {Op("add", {x, C(1.0f)}), C(3.0f)});
  Output u = Op("max", {y}, {{"axis", std::vector<int64_t>{0}}, {"keepdims", true}});
  Output z = Op("exp", {Op("sub", {y, u})});
  auto o = Optimize({z}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  for (int outputs : FusedOutputs(*o->graph)) EXPECT_EQ(outputs, 1);
  EXPECT_EQ(FusedOutputs(*o->graph).size(), 2u);  // {add, mul} and {sub, exp}
  ExpectSame(x, {z});
}

}  // namespace
}  // namespace tfg
