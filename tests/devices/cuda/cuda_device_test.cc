// The CUDA device's entry points on any machine: with no GPU or no driver
// (as on CI) they report 0 devices, never an error or a crash; with GPUs,
// each becomes a device that copies tensors there and back.
#include <gtest/gtest.h>

#include "devices/cuda/cuda_devices.h"
#include "tests/devices/cuda/gpu_test_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

TEST(CudaDevicesTest, CountAndDeviceListAgree) {
  int count = CudaDeviceCount();
  ASSERT_GE(count, 0);
  std::vector<std::unique_ptr<Device>> devices = CreateCudaDevices();
  EXPECT_LE(static_cast<int>(devices.size()), count);
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i]->type(), DeviceType::kGpu);
    EXPECT_EQ(devices[i]->name(), "/job:localhost/task:0/device:gpu:" + std::to_string(i));
  }
  EXPECT_EQ(CudaUnavailableReason().empty(), count > 0);
}

TEST(CudaDevicesTest, NoDeviceIsReportedCleanly) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_TRUE(CreateCudaDevices().empty());
  Status s = NoCudaDeviceError(0);
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_NE(s.message().find("no CUDA device available"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(CudaUnavailableReason()), std::string::npos) << s.message();
}

TEST(CudaDevicesTest, CopiesToANonGpuDeviceAreErrors) {
  Tensor t = test::MakeTensor<float>({1, 2, 3}, {3});
  Result<Tensor> r = CopyHostToCudaSync(test::TestCpuDevice(), t);
  EXPECT_FALSE(r.ok());
  r = CopyCudaToHostSync(nullptr, t);
  EXPECT_FALSE(r.ok());
}

TEST(CudaDevicesTest, CopiesRoundTrip) {
  Device* gpu = test::TestGpuDevice();
  if (gpu == nullptr) GTEST_SKIP() << "no CUDA device";
  Tensor t = test::MakeTensor<float>({1.5f, -2, 3, 4, 5, 6}, {2, 3});
  Result<Tensor> on_gpu = CopyHostToCudaSync(gpu, t);
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status().ToString();
  EXPECT_EQ(on_gpu->buffer()->allocator(), gpu->allocator());
  Result<Tensor> back = CopyCudaToHostSync(gpu, *on_gpu);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  test::ExpectTensorEq<float>(*back, {1.5f, -2, 3, 4, 5, 6}, {2, 3});
  Tensor strings = test::MakeStrings({"a"}, {1});
  EXPECT_FALSE(CopyHostToCudaSync(gpu, strings).ok());
}

}  // namespace
}  // namespace tfg
