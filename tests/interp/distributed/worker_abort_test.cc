// A worker in this process, driven by a ClusterClient as a master drives it:
// an AbortStep sent right behind its RunStep (another task's part of the
// run failed at once) ends the step, however soon it comes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "interp/distributed/cluster.h"
#include "interp/distributed/worker.h"
#include "ops/core/cancellation.h"
#include "ops/core/graph.h"

namespace tfg {
namespace {

constexpr char kTask[] = "/job:worker/replica:0/task:0";
constexpr char kDevice[] = "/job:worker/replica:0/task:0/device:cpu:0";

class WorkerAbortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WorkerOptions options;
    options.listen = "tcp://127.0.0.1:0";
    options.threads = 2;
    auto worker = WorkerService::Start(options);
    ASSERT_TRUE(worker.ok()) << worker.status().ToString();
    worker_ = std::move(*worker);
    serving_ = std::thread([this] { worker_->Serve(stop_); });
    ClusterOptions cluster;
    cluster.local_task = "/job:localhost/replica:0/task:0";
    auto client = ClusterClient::Connect({{kTask, worker_->address()}}, cluster);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = *client;
  }
  void TearDown() override {
    client_.reset();
    stop_ = true;
    if (serving_.joinable()) serving_.join();
  }

  // A partition whose only node waits for a tensor no task will send.
  uint64_t RegisterWaitingPart() {
    Graph g;
    NodeSpec spec;
    spec.op = "_recv";
    spec.name = "never";
    spec.attrs["tensor_type"] = DType::kF32;
    spec.attrs["tensor_name"] = std::string("x:0");
    spec.attrs["send_device"] = std::string("/job:ps/replica:0/task:0/device:cpu:0");
    spec.attrs["recv_device"] = std::string(kDevice);
    spec.device = kDevice;
    auto recv = g.AddNode(std::move(spec));
    EXPECT_TRUE(recv.ok()) << recv.status().ToString();
    auto handle = client_->Register(0, g, kDevice, {}, {(*recv)->output(0)}, {});
    EXPECT_TRUE(handle.ok()) << handle.status().ToString();
    return handle.ok() ? *handle : 0;
  }

  std::unique_ptr<WorkerService> worker_;
  std::atomic<bool> stop_{false};
  std::thread serving_;
  std::shared_ptr<ClusterClient> client_;
};

TEST_F(WorkerAbortTest, AnAbortRightBehindTheRunStepEndsTheStep) {
  const uint64_t handle = RegisterWaitingPart();
  for (int64_t run = 1; run <= 5; ++run) {
    // Cancelled already: RunRemote sends the AbortStep straight after the
    // RunStep, before the worker's step thread can have started.
    CancellationManager cancel;
    cancel.StartCancel();
    const auto start = std::chrono::steady_clock::now();
    auto result = client_->RunRemote(0, handle, run, 1, {}, /*timeout_seconds=*/10, &cancel);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(result.ok());
    // Not the step's own 10 s deadline.
    EXPECT_EQ(result.status().code(), Code::kCancelled) << "run " << run << ": " << result.status().ToString();
    EXPECT_LT(seconds, 5) << "run " << run;
  }
}

}  // namespace
}  // namespace tfg
