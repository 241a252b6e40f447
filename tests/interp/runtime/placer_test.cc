// Placement: device matching, constraints, colocation, conflicts and the
// cost model's choices on graphs small enough to work out by hand.
#include "interp/runtime/placer.h"

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/device_set.h"
#include "interp/language/interpreter.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// Two logical CPU devices over one real one.
class TwoCpus {
 public:
  TwoCpus() : cpu_(1) {
    for (int i = 0; i < 2; ++i) set_.AddOwned(std::make_unique<LocalCpuDevice>(LocalDeviceName("cpu", i), &cpu_));
  }
  const DeviceSet& set() const { return set_; }

 private:
  CpuDevice cpu_;
  DeviceSet set_;
};

// The CPU and a stand-in for a GPU: placement looks only at device names
// and types, so no GPU is needed to check where nodes go.
class FakeGpu final : public Device {
 public:
  FakeGpu() : Device(LocalDeviceName("gpu", 0), DeviceType::kGpu) {}
  Allocator* allocator() override { return HostAllocator(); }
};

class CpuAndGpu {
 public:
  CpuAndGpu() : cpu_(1) {
    set_.Add(&cpu_);
    set_.AddOwned(std::make_unique<FakeGpu>());
  }
  const DeviceSet& set() const { return set_; }

 private:
  CpuDevice cpu_;
  DeviceSet set_;
};

// GPU kernels are registered only in builds with CUDA.
bool GpuKernelsBuilt() {
  for (const KernelDef* k : OpRegistry::Global().KernelsFor("matmul")) {
    if (k->device == DeviceType::kGpu) return true;
  }
  return false;
}

// The graph a script builds (nothing runs).
class ScriptGraph {
 public:
  explicit ScriptGraph(const std::string& source) : interp_(Options()) {
    Status s = interp_.RunSource("p.tfg", source);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  const Graph& graph() const { return interp_.graph(); }
  int Id(const std::string& name) const {
    const Node* n = graph().FindNode(name);
    EXPECT_NE(n, nullptr) << name;
    return n ? n->id() : 0;
  }

 private:
  static InterpreterOptions Options() {
    InterpreterOptions o;
    o.check_only = true;
    o.session.inter_op_threads = o.session.intra_op_threads = 1;
    return o;
  }
  Interpreter interp_;
};

TEST(DeviceSetTest, PartialSpecsMatchEveryDeviceTheyAllow) {
  TwoCpus cpus;
  auto spec = [](const std::string& s) { return *DeviceSpec::Parse(s); };
  EXPECT_EQ(*cpus.set().Matching(spec("")), (std::vector<int>{0, 1}));
  EXPECT_EQ(*cpus.set().Matching(spec("/device:cpu:*")), (std::vector<int>{0, 1}));
  EXPECT_EQ(*cpus.set().Matching(spec("/job:localhost/task:0")), (std::vector<int>{0, 1}));
  EXPECT_EQ(*cpus.set().Matching(spec("/device:cpu:1")), (std::vector<int>{1}));
  EXPECT_EQ(*cpus.set().Matching(spec("/cpu:0")), (std::vector<int>{0}));
  EXPECT_EQ(cpus.set().device(1)->name(), "/job:localhost/replica:0/task:0/device:cpu:1");
}

TEST(DeviceSetTest, UnmetRequestsSayWhy) {
  TwoCpus cpus;
  auto gpu = cpus.set().Matching(*DeviceSpec::Parse("/device:gpu:0"));
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), Code::kUnavailable);
  EXPECT_NE(gpu.status().message().find("no CUDA device available"), std::string::npos);
  auto worker = cpus.set().Matching(*DeviceSpec::Parse("/job:worker"));
  ASSERT_FALSE(worker.ok());
  EXPECT_NE(worker.status().message().find("no device matches /job:worker (devices: cpu:0, cpu:1"),
            std::string::npos)
      << worker.status().message();
  auto third = cpus.set().Matching(*DeviceSpec::Parse("/device:cpu:2"));
  EXPECT_FALSE(third.ok());
}

// Update builtins take the variable's device; an assign built by hand with
// no request follows it through the resource it names.
TEST(PlacerTest, RequestsAreMetAndResourcesFollowTheirVariable) {
  TwoCpus cpus;
  ScriptGraph s(R"(
with device("/device:cpu:1") { w = variable(1.0, name="w") }
with device("/device:cpu:0") { x = constant(2.0, name="x") * 3.0 }
step = assign_add(w, x)
)");
  auto placed = PlaceGraph(s.graph(), cpus.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ((*placed)[s.Id("w")], 1);
  EXPECT_EQ((*placed)[s.Id("w/init")], 1);
  EXPECT_EQ((*placed)[s.Id("x")], 0);
  EXPECT_EQ((*placed)[s.Id("mul")], 0);
  // assign_add asks for nothing, but updates w.
  EXPECT_EQ((*placed)[s.Id("assign_add")], 1);
}

TEST(PlacerTest, ColocateWithFollowsTheNode) {
  TwoCpus cpus;
  ScriptGraph s(R"(
with device("/device:cpu:1") { a = constant(1.0, name="a") }
with colocate_with(a) { b = neg(a, name="b") }
c = a + 1.0
)");
  auto placed = PlaceGraph(s.graph(), cpus.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ((*placed)[s.Id("b")], 1);
  // The request names a's own request as well as the anchor, so b asks
  // for a's device even in a run that does not contain a.
  EXPECT_EQ(s.graph().node(s.Id("b"))->requested_device(), "/device:cpu:1@a");
}

TEST(PlacerTest, AWhileLoopRunsOnOneDevice) {
  TwoCpus cpus;
  ScriptGraph s(R"(
n = constant(5)
with device("/device:cpu:1") {
  i, t = while_loop(fn(i, t) { i < n }, fn(i, t) { [i + 1, t + i] }, [0, 0])
}
)");
  auto placed = PlaceGraph(s.graph(), cpus.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  int in_loop = 0;
  for (const auto& node : s.graph().nodes()) {
    const std::string& op = node->op_name();
    if (op == "enter" || op == "merge" || op == "switch" || op == "exit" || op == "next_iteration" ||
        op == "loop_cond") {
      EXPECT_EQ((*placed)[node->id()], 1) << node->name();
      ++in_loop;
    }
  }
  EXPECT_GE(in_loop, 10);
}

TEST(PlacerTest, ContradictoryRequestsNameBothLines) {
  TwoCpus cpus;
  ScriptGraph s(R"(
with device("/device:cpu:1") { a = placeholder(f32, [], name="a") }
with device("/device:cpu:0") {
  with colocate_with(a) { b = neg(a, name="b") }
}
)");
  auto placed = PlaceGraph(s.graph(), cpus.set());
  ASSERT_FALSE(placed.ok());
  const Status& st = placed.status();
  EXPECT_NE(st.message().find("contradictory device constraints"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("/device:cpu:0"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("/device:cpu:1"), std::string::npos) << st.message();
  // One line is the error's, the other a note's: lines 2 (a) and 4 (b).
  ASSERT_EQ(st.notes().size(), 1u);
  std::vector<int> lines{st.span().line, st.notes()[0].span.line};
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<int>{2, 4}));
}

TEST(PlacerTest, GpuRequestWithoutGpuFailsAtItsLine) {
  TwoCpus cpus;
  ScriptGraph s("x = constant(1.0)\nwith device(\"/device:gpu:0\") { y = x * 2.0 }\n");
  auto placed = PlaceGraph(s.graph(), cpus.set());
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.status().message().find("no CUDA device available"), std::string::npos);
  EXPECT_EQ(placed.status().span().line, 2);
  auto preferred = PlaceGraph(ScriptGraph("x = constant(1.0)\n").graph(), cpus.set(), "gpu");
  ASSERT_FALSE(preferred.ok());
  EXPECT_NE(preferred.status().message().find("no CUDA device available"), std::string::npos);
}

// Costs (interp/runtime/placement_cost.cc): a kernel 200 ns + 0.5 ns per element
// in and out, a matmul 200 ns + 0.5 ns per flop; a transfer 2000 ns +
// 0.25 ns per byte. With 200x200 f32 inputs: each constant 20200 ns, each
// matmul 8000200 ns, a transfer 42000 ns, the add 60200 ns. Greedy in
// topological order (ties to device 0): a→0, b→1, c→0, d→1; mm1 ends at
// 8062400 on either device (→0); mm2 ends at 8082600 on 1 but 16062600 on
// 0 (→1); the add ends at 8164600 on 1 (mm1 comes over), 8184800 on 0.
TEST(PlacerTest, CostModelRunsIndependentMatmulsOnBothDevices) {
  TwoCpus cpus;
  ScriptGraph s(R"(
a = constant(0.0, shape=[200, 200], name="a")
b = constant(0.0, shape=[200, 200], name="b")
c = constant(0.0, shape=[200, 200], name="c")
d = constant(0.0, shape=[200, 200], name="d")
mm1 = matmul(a, b, name="mm1")
mm2 = matmul(c, d, name="mm2")
total = add(mm1, mm2, name="total")
)");
  auto placed = PlaceGraph(s.graph(), cpus.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ((*placed)[s.Id("a")], 0);
  EXPECT_EQ((*placed)[s.Id("b")], 1);
  EXPECT_EQ((*placed)[s.Id("mm1")], 0);
  EXPECT_EQ((*placed)[s.Id("mm2")], 1);
  EXPECT_EQ((*placed)[s.Id("total")], 1);
}

// A chain of scalar ops: moving any of them would add a 2000 ns transfer
// to save nothing, so all stay where the first went.
TEST(PlacerTest, CostModelKeepsASmallChainTogether) {
  TwoCpus cpus;
  ScriptGraph s("x = constant(1.0, name=\"x\")\ny = add(x, 1.0, name=\"y\")\nz = mul(y, 2.0, name=\"z\")\n");
  auto placed = PlaceGraph(s.graph(), cpus.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ((*placed)[s.Id("x")], 0);
  EXPECT_EQ((*placed)[s.Id("y")], 0);
  EXPECT_EQ((*placed)[s.Id("z")], 0);
}

TEST(GpuPlacementTest, AGpuRequestFindsTheGpu) {
  CpuAndGpu devices;
  EXPECT_EQ(*devices.set().Matching(*DeviceSpec::Parse("/device:gpu:0")), (std::vector<int>{1}));
  EXPECT_EQ(*devices.set().Matching(*DeviceSpec::Parse("/device:cpu:0")), (std::vector<int>{0}));
  EXPECT_EQ(devices.set().ShortNames(), "cpu:0, gpu:0");
}

// Costs (interp/runtime/placement_cost.cc) with x f32[200, 200]: the placeholder
// has only a CPU kernel (20200 ns there). The matmul on the CPU: 200 + 0.5
// ns x 2·200³ flops, ending at 8020400 ns; on the GPU: x comes over in
// 10000 + 0.1 x 160000 bytes = 26000 ns, then 5000 + 0.005 x 16e6 = 85000
// ns, ending at 131200 ns: the GPU.
TEST(GpuPlacementTest, ABigMatmulGoesToTheGpuItsPlaceholderStaysOnTheCpu) {
  if (!GpuKernelsBuilt()) GTEST_SKIP() << "built without CUDA: no GPU kernels";
  CpuAndGpu devices;
  ScriptGraph s("x = placeholder(f32, [200, 200], name=\"x\")\ny = matmul(x, x, name=\"mm\")\n");
  auto placed = PlaceGraph(s.graph(), devices.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ((*placed)[s.Id("x")], 0);
  EXPECT_EQ((*placed)[s.Id("mm")], 1);
}

// Scalars: a GPU kernel costs 5000 ns to the CPU's ~200, and moving a
// tensor 10000 ns, so a small chain stays on the CPU although constant,
// add and mul all have GPU kernels.
TEST(GpuPlacementTest, SmallScalarWorkStaysOnTheCpu) {
  if (!GpuKernelsBuilt()) GTEST_SKIP() << "built without CUDA: no GPU kernels";
  CpuAndGpu devices;
  ScriptGraph s("x = constant(1.0, name=\"x\")\ny = add(x, 1.0, name=\"y\")\nz = mul(y, 2.0, name=\"z\")\n");
  auto placed = PlaceGraph(s.graph(), devices.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  for (const char* name : {"x", "y", "z"}) EXPECT_EQ((*placed)[s.Id(name)], 0) << name;
}

// sum of 10^6 elements: 500200 ns on the CPU; on the GPU 10000 + 0.1 x 4e6
// bytes to move the input and 5000 + 0.005 x 1e6 to sum it, 420000 ns.
// The f32 sum goes to the GPU; the i32 sum, whose op has no GPU kernel
// for i32, stays on the CPU.
TEST(GpuPlacementTest, OnlyOpsWithAGpuKernelForTheirDtypeGoToTheGpu) {
  if (!GpuKernelsBuilt()) GTEST_SKIP() << "built without CUDA: no GPU kernels";
  CpuAndGpu devices;
  ScriptGraph s(R"(
f = placeholder(f32, [1000, 1000], name="f")
i = placeholder(i32, [1000, 1000], name="i")
sf = sum(f, name="sf")
si = sum(i, name="si")
)");
  auto placed = PlaceGraph(s.graph(), devices.set());
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ((*placed)[s.Id("sf")], 1);
  EXPECT_EQ((*placed)[s.Id("si")], 0);
  // --device gpu: preferred where there is a kernel, the CPU elsewhere.
  auto preferred = PlaceGraph(s.graph(), devices.set(), "gpu");
  ASSERT_TRUE(preferred.ok()) << preferred.status().ToString();
  EXPECT_EQ((*preferred)[s.Id("f")], 0);
  EXPECT_EQ((*preferred)[s.Id("sf")], 1);
  EXPECT_EQ((*preferred)[s.Id("si")], 0);
}

// --device gpu with a variable, which has no GPU kernel, colocated with its
// initializer, which has one: the preference gives way to the colocation
// (it used to be a "contradictory device constraints" error), and the rest
// of the graph still goes to the GPU.
TEST(GpuPlacementTest, APreferredTypeGivesWayToColocationWithAVariable) {
  if (!GpuKernelsBuilt()) GTEST_SKIP() << "built without CUDA: no GPU kernels";
  CpuAndGpu devices;
  ScriptGraph s(R"(
w = variable([[1.0, 2.0], [3.0, 4.0]], name="w")
x = constant([[1.0, 0.0], [0.0, 1.0]], name="x")
loss = sum(square(matmul(x, w, name="mm")), name="loss")
)");
  auto placed = PlaceGraph(s.graph(), devices.set(), "gpu");
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ((*placed)[s.Id("w")], 0);
  EXPECT_EQ((*placed)[s.Id("x")], 1);
  EXPECT_EQ((*placed)[s.Id("mm")], 1);
}

TEST(GpuPlacementTest, AGpuRequestForAnOpWithoutAGpuKernelFailsAtItsLine) {
  if (!GpuKernelsBuilt()) GTEST_SKIP() << "built without CUDA: no GPU kernels";
  CpuAndGpu devices;
  ScriptGraph s("i = placeholder(i32, [4])\nwith device(\"/device:gpu:0\") { s = sum(i) }\n");
  auto placed = PlaceGraph(s.graph(), devices.set());
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.status().message().find("no kernel for it on /device:gpu:0"), std::string::npos)
      << placed.status().message();
  EXPECT_EQ(placed.status().span().line, 2);
}

}  // namespace
}  // namespace tfg
