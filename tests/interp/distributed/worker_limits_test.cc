// A worker in this process with small caps (WorkerOptions), driven by
// ClusterClients as masters drive it: a Hello beyond max_sessions and a
// partition beyond max_partitions_per_session are refused with errors
// that say so, and the worker serves again once a session has ended.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "interp/distributed/cluster.h"
#include "interp/distributed/worker.h"
#include "ops/core/graph.h"

namespace tfg {
namespace {

constexpr char kTask[] = "/job:worker/replica:0/task:0";
constexpr char kDevice[] = "/job:worker/replica:0/task:0/device:cpu:0";

class WorkerLimitsTest : public ::testing::Test {
 protected:
  void StartWorker(int max_sessions, int max_partitions) {
    WorkerOptions options;
    options.listen = "tcp://127.0.0.1:0";
    options.threads = 1;
    options.max_sessions = max_sessions;
    options.max_partitions_per_session = max_partitions;
    auto worker = WorkerService::Start(options);
    ASSERT_TRUE(worker.ok()) << worker.status().ToString();
    worker_ = std::move(*worker);
    serving_ = std::thread([this] { worker_->Serve(stop_); });
  }
  void TearDown() override {
    stop_ = true;
    if (serving_.joinable()) serving_.join();
  }

  Result<std::shared_ptr<ClusterClient>> Connect() {
    ClusterOptions cluster;
    cluster.local_task = "/job:localhost/replica:0/task:0";
    return ClusterClient::Connect({{kTask, worker_->address()}}, cluster);
  }

  // A partition of one constant, fetched.
  Result<uint64_t> RegisterConstant(ClusterClient& client, float value) {
    Graph g;
    NodeSpec spec;
    spec.op = "constant";
    spec.name = "c";
    spec.attrs["value"] = Tensor::Scalar<float>(value);
    spec.attrs["dtype"] = DType::kF32;
    spec.device = kDevice;
    TFG_ASSIGN_OR_RETURN(Node * c, g.AddNode(std::move(spec)));
    return client.Register(0, g, kDevice, {}, {c->output(0)}, {});
  }

  std::unique_ptr<WorkerService> worker_;
  std::atomic<bool> stop_{false};
  std::thread serving_;
};

TEST_F(WorkerLimitsTest, AHelloBeyondTheSessionCapIsRefusedUntilOneEnds) {
  StartWorker(/*max_sessions=*/2, /*max_partitions=*/10);
  auto first = Connect();
  auto second = Connect();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  auto third = Connect();
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), Code::kResourceExhausted) << third.status().ToString();
  EXPECT_NE(third.status().message().find("serves 2 masters already, its limit"), std::string::npos)
      << third.status().message();
  // The first master ends (its CloseSession frees the place): a new one is
  // served again. The CloseSession and the new Hello travel on different
  // connections, so the Hello may come first.
  first->reset();
  Result<std::shared_ptr<ClusterClient>> again = Connect();
  for (int i = 0; i < 50 && !again.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    again = Connect();
  }
  ASSERT_TRUE(again.ok()) << again.status().ToString();
}

TEST_F(WorkerLimitsTest, APartitionBeyondTheCapIsRefused) {
  StartWorker(/*max_sessions=*/4, /*max_partitions=*/2);
  auto client = Connect();
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  for (float v : {1.0f, 2.0f}) {
    auto handle = RegisterConstant(**client, v);
    ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  }
  auto over = RegisterConstant(**client, 3.0f);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Code::kResourceExhausted) << over.status().ToString();
  EXPECT_NE(over.status().message().find("2 partitions of this master are registered on " + std::string(kTask) +
                                         " already, its limit"),
            std::string::npos)
      << over.status().message();
  // Another master has its own count.
  auto other = Connect();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_TRUE(RegisterConstant(**other, 4.0f).ok());
}

}  // namespace
}  // namespace tfg
