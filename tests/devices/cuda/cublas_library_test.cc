// Loading cuBLAS at first use: on a machine with the toolkit's libcublas
// (or in a binary whose CUDA build found it) the table loads complete and
// once; elsewhere (no library, or a build without CUDA) loading gives the
// same clean error every time, never a crash.
#include "devices/cuda/cublas_library.h"

#include <gtest/gtest.h>

#include "devices/cuda/cuda_devices.h"

namespace tfg {
namespace {

TEST(CublasLibraryTest, LoadsOnceAndCompletelyOrFailsCleanly) {
  Result<const CublasApi*> first = LoadCublas();
  Result<const CublasApi*> second = LoadCublas();
  ASSERT_EQ(first.ok(), second.ok());
  if (!first.ok()) {
    EXPECT_EQ(first.status().code(), Code::kUnavailable);
    EXPECT_EQ(first.status().message().rfind("cuBLAS could not be loaded: ", 0), 0u) << first.status().message();
    EXPECT_EQ(first.status().message(), second.status().message());
    GTEST_SKIP() << first.status().message();
  }
  ASSERT_NE(*first, nullptr);
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(MissingCublasFunctions(**first), std::vector<std::string>{});
}

TEST(CublasLibraryTest, ABuildWithoutCudaNeverLoadsIt) {
  if (CudaUnavailableReason() != "tfg was built without CUDA") GTEST_SKIP() << "built with CUDA";
  Result<const CublasApi*> api = LoadCublas();
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().message(), "cuBLAS could not be loaded: tfg was built without CUDA");
}

}  // namespace
}  // namespace tfg
