// Partitioning a placed graph: one _send/_recv pair per (tensor,
// destination device), control edges as transfers of a dummy, and the
// run's feeds, fetches and targets given to the partition that holds them.
#include "interp/runtime/partition.h"

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/device_set.h"

namespace tfg {
namespace {

class PartitionTest : public ::testing::Test {
 protected:
  PartitionTest() : cpu_(1) {
    for (int i = 0; i < 2; ++i) set_.AddOwned(std::make_unique<LocalCpuDevice>(LocalDeviceName("cpu", i), &cpu_));
  }
  Node* Add(const std::string& op, std::vector<Output> inputs, const std::string& name, int device,
            AttrMap attrs = {}, std::vector<Node*> control = {}) {
    NodeSpec spec;
    spec.op = op;
    spec.inputs = std::move(inputs);
    spec.control_inputs = std::move(control);
    spec.attrs = std::move(attrs);
    spec.name = name;
    auto n = g_.AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    device_of_.resize(g_.num_nodes());
    device_of_[(*n)->id()] = device;
    return *n;
  }
  static int Count(const Graph& g, const std::string& op) {
    int n = 0;
    for (const auto& node : g.nodes()) n += node->op_name() == op;
    return n;
  }

  CpuDevice cpu_;
  DeviceSet set_;
  Graph g_;
  std::vector<int32_t> device_of_;
};

TEST_F(PartitionTest, OneTransferPerTensorAndDestination) {
  // x (fed, cpu:0) feeds neg and exp on cpu:1 and abs on cpu:0; a no_op on
  // cpu:0 must finish before the sum on cpu:1.
  Node* x = Add("placeholder", {}, "x", 0, {{"dtype", DType::kF32}, {"shape", PartialShape({2})}});
  Node* neg = Add("neg", {x->output(0)}, "neg", 1);
  Node* ex = Add("exp", {x->output(0)}, "exp", 1);
  Node* ab = Add("abs", {x->output(0)}, "abs", 0);
  Node* wait = Add("no_op", {}, "wait", 0);
  Node* sum = Add("add", {neg->output(0), ex->output(0)}, "sum", 1, {}, {wait});
  auto split = PartitionGraph(g_, device_of_, set_, {x->output(0)}, {sum->output(0), ab->output(0)}, {});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_EQ(split->partitions.size(), 2u);
  EXPECT_EQ(split->sends, 2);  // x once (for neg and exp), the no_op's completion once
  const GraphPartition& p0 = split->partitions[0];
  const GraphPartition& p1 = split->partitions[1];
  EXPECT_EQ(p0.device, 0);
  EXPECT_EQ(p1.device, 1);
  EXPECT_EQ(Count(*p0.graph, "_send"), 2);
  EXPECT_EQ(Count(*p0.graph, "_recv"), 0);
  EXPECT_EQ(Count(*p1.graph, "_recv"), 2);
  EXPECT_EQ(Count(*p1.graph, "_send"), 0);
  // The feed stays with x; each fetch goes with its node.
  ASSERT_EQ(p0.feeds.size(), 1u);
  EXPECT_EQ(p0.feeds[0].node->name(), "x");
  EXPECT_TRUE(p1.feeds.empty());
  ASSERT_EQ(p1.fetch_index, (std::vector<int>{0}));
  ASSERT_EQ(p0.fetch_index, (std::vector<int>{1}));
  EXPECT_EQ(p1.fetches[0].node->name(), "sum");
  // The sends are p0's targets; the sum waits on a received completion.
  EXPECT_EQ(p0.targets.size(), 2u);
  const Node* sum_image = p1.graph->FindNode("sum");
  ASSERT_NE(sum_image, nullptr);
  ASSERT_EQ(sum_image->control_inputs().size(), 1u);
  EXPECT_EQ(sum_image->control_inputs()[0]->op_name(), "_recv");
  // neg and exp read the same received x.
  const Node* neg_image = p1.graph->FindNode("neg");
  const Node* exp_image = p1.graph->FindNode("exp");
  EXPECT_EQ(neg_image->inputs()[0].node, exp_image->inputs()[0].node);
  EXPECT_EQ(neg_image->inputs()[0].node->op_name(), "_recv");
  EXPECT_EQ(neg_image->assigned_device(), set_.device(1)->name());
}

TEST_F(PartitionTest, EdgesOnOneDeviceNeedNoTransfer) {
  Node* a = Add("constant", {}, "a", 1, {{"value", Tensor::Scalar<float>(1)}, {"dtype", DType::kF32}});
  Node* b = Add("neg", {a->output(0)}, "b", 1);
  auto split = PartitionGraph(g_, device_of_, set_, {}, {b->output(0)}, {});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_EQ(split->partitions.size(), 1u);
  EXPECT_EQ(split->sends, 0);
  EXPECT_EQ(split->partitions[0].device, 1);
}

}  // namespace
}  // namespace tfg
