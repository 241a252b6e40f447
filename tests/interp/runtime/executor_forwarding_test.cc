// Buffer forwarding in a run (ops/core/forward_input.h): an elementwise op
// writes into an input's buffer only when nothing else holds it, so an
// intermediate's block is reused, while fed, fetched, variable and constant
// values keep their contents.
#include <gtest/gtest.h>

#include "interp/runtime/session.h"
#include "ops/core/forward_input.h"
#include "ops/core/host_bfc_allocator.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

// 2**17 floats: 512 KiB, a large block (HostBfcAllocator::kLargeBlock).
constexpr int64_t kN = int64_t{1} << 17;

Tensor Iota() {
  std::vector<float> v(kN);
  for (int64_t i = 0; i < kN; ++i) v[i] = static_cast<float>(i);
  return Tensor::Vector<float>(v);
}

Output Scalar(Graph& g, float v) { return test::Const(g, Tensor::Scalar<float>(v)); }
Output Binary(Graph& g, const char* op, Output a, Output b) { return AddNode(g, op, {a, b})->output(0); }
Output Placeholder(Graph& g) {
  return AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({kN})}}, "x")->output(0);
}

// Without graph optimization, so that each op runs as its own kernel.
SessionOptions Unoptimized() {
  SessionOptions o;
  o.optimize = false;
  o.inter_op_threads = 2;
  o.intra_op_threads = 2;
  return o;
}

// Counts what a run does to the host block cache and to forwarding.
struct Counts {
  int64_t allocs = HostBlockCache().GetStats().num_allocs;
  int64_t forwarded = ForwardedInputCount();
  int64_t NewAllocs() const { return HostBlockCache().GetStats().num_allocs - allocs; }
  int64_t NewForwards() const { return ForwardedInputCount() - forwarded; }
};

void ExpectValues(const Tensor& t, float scale, float offset, const char* what) {
  ASSERT_EQ(t.num_elements(), kN) << what;
  int64_t wrong = 0;
  for (int64_t i = 0; i < kN; ++i) wrong += t.data<float>()[i] != scale * static_cast<float>(i) + offset;
  EXPECT_EQ(wrong, 0) << what;
}

class ExecutorForwardingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HostBlockCacheEnabled() || !InputForwardingEnabled()) GTEST_SKIP() << "block cache or forwarding off";
  }
};

// y = x * 1.5 needs a new buffer (x is fed: the caller holds it); y + 0.25,
// y's last use, writes into y's. x is intact afterwards.
TEST_F(ExecutorForwardingTest, IntermediateBufferIsReusedAndTheFeedIsNot) {
  Graph g;
  Output x = Placeholder(g);
  Output y = Binary(g, "mul", x, Scalar(g, 1.5f));
  Output z = Binary(g, "add", y, Scalar(g, 0.25f));
  Session s(&g, Unoptimized());
  Tensor xs = Iota();
  Counts c;
  auto r = s.Run({{x, xs}}, {z}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(c.NewAllocs(), 1);
  EXPECT_EQ(c.NewForwards(), 1);
  ExpectValues((*r)[0], 1.5f, 0.25f, "z = 1.5 x + 0.25");
  ExpectValues(xs, 1.0f, 0.0f, "the fed x");
}

// A chain of six ops on one fed vector allocates one block: every later op
// takes its input's.
TEST_F(ExecutorForwardingTest, ChainAllocatesOnce) {
  Graph g;
  Output x = Placeholder(g);
  Output y = Binary(g, "add", x, Scalar(g, 1));     // x + 1
  y = Binary(g, "mul", y, Scalar(g, 2));            // 2x + 2
  y = Binary(g, "sub", y, Scalar(g, 2));            // 2x
  y = AddNode(g, "neg", {y})->output(0);            // -2x
  y = Binary(g, "mul", Scalar(g, 3), y);            // -6x: input 1 is the one forwarded
  y = Binary(g, "add", y, x);                       // -5x
  Session s(&g, Unoptimized());
  Tensor xs = Iota();
  Counts c;
  auto r = s.Run({{x, xs}}, {y}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(c.NewAllocs(), 1);
  EXPECT_EQ(c.NewForwards(), 5);
  ExpectValues((*r)[0], -5.0f, 0.0f, "-5 x");
  ExpectValues(xs, 1.0f, 0.0f, "the fed x");
}

// A fetched intermediate is held by the fetch: its consumer writes a new
// buffer, and the fetched values are y's.
TEST_F(ExecutorForwardingTest, FetchedIntermediateIsNotOverwritten) {
  Graph g;
  Output x = Placeholder(g);
  Output y = Binary(g, "mul", x, Scalar(g, 2));
  Output z = Binary(g, "add", y, Scalar(g, 1));
  Session s(&g, Unoptimized());
  Tensor xs = Iota();
  Counts c;
  auto r = s.Run({{x, xs}}, {y, z}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(c.NewForwards(), 0);
  EXPECT_EQ(c.NewAllocs(), 2);
  ExpectValues((*r)[0], 2.0f, 0.0f, "fetched y = 2 x");
  ExpectValues((*r)[1], 2.0f, 1.0f, "z = 2 x + 1");
}

// A variable's value (held by the session's resources) is read, never
// written, by the ops that consume it.
TEST_F(ExecutorForwardingTest, VariableIsNotOverwritten) {
  Graph g;
  Output x = Placeholder(g);
  AttrMap var = {{"dtype", DType::kF32}, {"shape", PartialShape({kN})}, {"shared_name", std::string("v")}};
  Output v = AddNode(g, "variable", {}, var, "v")->output(0);
  Node* init = AddNode(g, "assign", {x}, {{"shared_name", std::string("v")}}, "v/init");
  Output z = AddNode(g, "neg", {Binary(g, "add", v, Scalar(g, 1))})->output(0);
  Session s(&g, Unoptimized());
  ASSERT_TRUE(s.Run({{x, Iota()}}, {}, {init}).ok());
  for (int run = 0; run < 2; ++run) {
    auto r = s.Run({}, {z}, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectValues((*r)[0], -1.0f, -1.0f, "z = -(v + 1)");
  }
  auto read = s.Run({}, {v}, {});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectValues((*read)[0], 1.0f, 0.0f, "v after two runs");
}

// A constant's kernel holds its value: running twice gives the same result.
TEST_F(ExecutorForwardingTest, ConstantIsNotOverwritten) {
  Graph g;
  Output c = test::Const(g, Iota());
  Output z = Binary(g, "mul", c, Scalar(g, 2));
  Session s(&g, Unoptimized());
  for (int run = 0; run < 2; ++run) {
    auto r = s.Run({}, {z}, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectValues((*r)[0], 2.0f, 0.0f, "z = 2 c");
  }
}

// x + x reads one buffer through two slots: it is not forwarded (two
// holders), and the sum is right.
TEST_F(ExecutorForwardingTest, ValueReadTwiceBySameOpIsNotForwarded) {
  Graph g;
  Output x = Placeholder(g);
  Output y = Binary(g, "mul", x, Scalar(g, 1));
  Output z = Binary(g, "add", y, y);
  Session s(&g, Unoptimized());
  Counts c;
  auto r = s.Run({{x, Iota()}}, {z}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(c.NewForwards(), 0);
  ExpectValues((*r)[0], 2.0f, 0.0f, "y + y");
}

// With broadcasting, only an input of the output's size is forwarded: the
// [kN/4, 4] intermediate takes the result of adding a [4] row.
TEST_F(ExecutorForwardingTest, BroadcastForwardsTheFullSizeInput) {
  Graph g;
  Output x = Placeholder(g);
  Output m = AddNode(g, "reshape", {Binary(g, "mul", x, Scalar(g, 1))},
                     {{"shape", std::vector<int64_t>{kN / 4, 4}}})
                 ->output(0);
  Output z = Binary(g, "add", test::Const(g, Tensor::Vector<float>({0, 10, 20, 30})), m);
  Session s(&g, Unoptimized());
  Counts c;
  auto r = s.Run({{x, Iota()}}, {z}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(c.NewForwards(), 1);
  const Tensor& t = (*r)[0];
  ASSERT_EQ(t.shape(), TensorShape({kN / 4, 4}));
  int64_t wrong = 0;
  for (int64_t i = 0; i < kN; ++i) wrong += t.data<float>()[i] != static_cast<float>(i) + 10.0f * (i % 4);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace tfg
