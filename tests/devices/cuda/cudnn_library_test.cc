// Loading cuDNN at first use: where the library is installed (it is on
// the CUDA build machine, GPU or not) the table loads complete and once;
// elsewhere loading gives the same clean error every time, never a crash.
#include "devices/cuda/cudnn_library.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

TEST(CudnnLibraryTest, LoadsOnceAndCompletelyOrFailsCleanly) {
  Result<const CudnnApi*> first = LoadCudnn();
  Result<const CudnnApi*> second = LoadCudnn();
  ASSERT_EQ(first.ok(), second.ok());
  if (!first.ok()) {
    EXPECT_EQ(first.status().code(), Code::kUnavailable);
    EXPECT_EQ(first.status().message().rfind("cuDNN could not be loaded: ", 0), 0u) << first.status().message();
    EXPECT_EQ(first.status().message(), second.status().message());
    GTEST_SKIP() << first.status().message();
  }
  ASSERT_NE(*first, nullptr);
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(MissingCudnnFunctions(**first), std::vector<std::string>{});
}

}  // namespace
}  // namespace tfg
