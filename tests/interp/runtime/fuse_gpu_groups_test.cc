// The fusion pass on a placed graph whose nodes run on a GPU
// (fuse_elementwise.h FuseOptions::target_of, as FusePlacedGraph sets it):
// GPU groups take only ops with a fused GPU form, at one dtype, and no
// reduction; nodes of other devices never join them. The kernels
// themselves run in tests/devices/cuda/gpu_fusion_test.cc (GPU only).
#include <gtest/gtest.h>

#include <set>

#include "interp/runtime/fuse_elementwise.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

class FuseGpuGroupsTest : public ::testing::Test {
 protected:
  Output X(DType d = DType::kF32) {
    return AddNode(g_, "placeholder", {}, {{"dtype", d}, {"shape", PartialShape({1 << 20})}}, "x")->output(0);
  }
  Output C(float v) { return test::Const(g_, Tensor::Scalar<float>(v)); }
  Output Op(const std::string &op, std::vector<Output> in, AttrMap attrs = {}) {
    return AddNode(g_, op, std::move(in), std::move(attrs))->output(0);
  }
  // Fuses with every node on the GPU but those named in `cpu`; returns
  // the fused nodes' member op lists.
  std::vector<std::vector<std::string>> Fuse(std::vector<Output> &fetches, std::set<int> cpu = {},
                                             bool check_numerics = false) {
    FuseOptions options;
    options.check_numerics = check_numerics;
    options.target_of = [cpu](const Node &n) { return cpu.count(n.id()) ? FuseTarget::kCpu : FuseTarget::kGpu; };
    auto r = FuseElementwise(g_, fetches, {}, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::vector<std::string>> groups;
    for (const auto &n : g_.nodes()) {
      if (n->op_name() == "fused_elementwise") groups.push_back(*n->attr<std::vector<std::string>>("ops"));
    }
    return groups;
  }
  Graph g_;
};

using Ops = std::vector<std::string>;

TEST_F(FuseGpuGroupsTest, AChainOnTheGpuIsOneGroup) {
  Output x = X();
  Output y = Op("relu", {Op("add", {Op("mul", {x, C(1.5f)}), x})});
  std::vector<Output> fetches{y};
  EXPECT_EQ(Fuse(fetches), (std::vector<Ops>{{"mul", "add", "relu"}}));
  EXPECT_EQ(fetches[0].node->op_name(), "fused_elementwise");
}

TEST_F(FuseGpuGroupsTest, AReductionStaysOutOfAGpuGroup) {
  Output x = X();
  Output total = Op("sum", {Op("exp", {Op("mul", {x, x})})});
  std::vector<Output> fetches{total};
  EXPECT_EQ(Fuse(fetches), (std::vector<Ops>{{"mul", "exp"}}));
  EXPECT_EQ(fetches[0].node->op_name(), "sum");
}

TEST_F(FuseGpuGroupsTest, OpsWithoutAFusedGpuFormEndTheGroup) {
  Output x = X();
  // softplus has no GPU kernel.
  Output y = Op("mul", {Op("softplus", {Op("neg", {Op("abs", {x})})}), x});
  std::vector<Output> fetches{y};
  EXPECT_EQ(Fuse(fetches), (std::vector<Ops>{{"abs", "neg"}}));
}

TEST_F(FuseGpuGroupsTest, NodesOfAnotherDeviceNeverJoin) {
  Output x = X();
  Output a = Op("mul", {x, x});
  Output b = Op("add", {a, x});
  Output c = Op("sub", {b, x});
  Output d = Op("mul", {c, c});
  std::vector<Output> fetches{d};
  // b on the CPU: {mul, add} would cross devices at b.
  auto groups = Fuse(fetches, {b.node->id()});
  EXPECT_EQ(groups, (std::vector<Ops>{{"sub", "mul"}}));
}

TEST_F(FuseGpuGroupsTest, IntegerGroupsOnlyOfIntegerGpuOps) {
  Output x = X(DType::kI32);
  Output one = test::Const(g_, Tensor::Scalar<int32_t>(1));
  Output y = Op("maximum", {Op("mul", {Op("add", {x, one}), x}), one});
  Output q = Op("sub", {Op("floordiv", {y, one}), x});
  std::vector<Output> fetches{q};
  // floordiv on integers checks its divisor first: no GPU form.
  EXPECT_EQ(Fuse(fetches), (std::vector<Ops>{{"add", "mul", "maximum"}}));
}

TEST_F(FuseGpuGroupsTest, BiasAddJoinsAGroup) {
  Output x = X();
  Output bias = AddNode(g_, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({1 << 20})}})->output(0);
  Output y = Op("relu", {Op("bias_add", {Op("mul", {x, x}), bias})});
  std::vector<Output> fetches{y};
  EXPECT_EQ(Fuse(fetches), (std::vector<Ops>{{"mul", "bias_add", "relu"}}));
}

TEST_F(FuseGpuGroupsTest, CheckNumericsLeavesGpuNodesUnfused) {
  Output x = X();
  Output y = Op("relu", {Op("add", {Op("mul", {x, C(1.5f)}), x})});
  std::vector<Output> fetches{y};
  EXPECT_TRUE(Fuse(fetches, {}, /*check_numerics=*/true).empty());
}

}  // namespace
}  // namespace tfg
