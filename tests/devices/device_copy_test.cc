// Host <-> device copies as _send, _recv and a run's fetches use them: on
// a host-memory device the tensor passes through untouched (same buffer);
// on a GPU (when there is one) it makes the round trip intact.
#include "devices/device_copy.h"

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "tests/devices/cuda/gpu_test_util.h"

namespace tfg {
namespace {

Tensor Vector(std::vector<float> values) {
  Tensor t = *Tensor::Allocate(HostAllocator(), DType::kF32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

TEST(DeviceCopyTest, AHostMemoryDevicePassesTheSameBufferThrough) {
  CpuDevice cpu(1);
  EXPECT_TRUE(UsesHostMemory(cpu));
  Tensor t = Vector({1, 2, 3});
  int calls = 0;
  CopyToHost(&cpu, t, [&](Result<Tensor> r) {
    ++calls;
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->raw_data(), t.raw_data());
  });
  CopyFromHost(&cpu, t, [&](Result<Tensor> r) {
    ++calls;
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->raw_data(), t.raw_data());
  });
  EXPECT_EQ(calls, 2);
  auto fetched = TensorsToHost(&cpu, {t, Tensor()});
  ASSERT_TRUE(fetched.ok());
  EXPECT_EQ((*fetched)[0].raw_data(), t.raw_data());
  EXPECT_FALSE((*fetched)[1].IsInitialized());
}

// Dead (unset) fetches stay unset on any device: nothing is copied.
TEST(DeviceCopyTest, UnsetTensorsAreNotCopied) {
  if (test::TestGpuDevice() == nullptr) GTEST_SKIP() << "no CUDA device";
  auto fetched = TensorsToHost(test::TestGpuDevice(), {Tensor()});
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  EXPECT_FALSE((*fetched)[0].IsInitialized());
}

TEST(DeviceCopyTest, AGpuRoundTripKeepsTheValues) {
  Device* gpu = test::TestGpuDevice();
  if (gpu == nullptr) GTEST_SKIP() << "no CUDA device";
  EXPECT_FALSE(UsesHostMemory(*gpu));
  auto there = TensorsFromHost(gpu, {Vector({1.5f, -2, 4})});
  ASSERT_TRUE(there.ok()) << there.status().ToString();
  auto back = TensorsToHost(gpu, *there);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ((*back)[0].num_elements(), 3);
  EXPECT_EQ((*back)[0].data<float>()[0], 1.5f);
  EXPECT_EQ((*back)[0].data<float>()[1], -2.0f);
  EXPECT_EQ((*back)[0].data<float>()[2], 4.0f);
}

}  // namespace
}  // namespace tfg
