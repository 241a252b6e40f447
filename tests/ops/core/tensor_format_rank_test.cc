// A tensor of more axes than NumPy lays out (64) is named, not laid out:
// the layout recurses once per axis, and a rank-100,000 tensor (from a
// reader without a cap) overflowed the stack.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ops/core/tensor.h"

namespace tfg {
namespace {

TEST(TensorFormatRankTest, HundredThousandAxesAreNamedNotLaidOut) {
  // Allocation refuses such a shape; a buffer given directly does not ask.
  auto buffer = std::make_shared<Buffer>(HostAllocator(), DType::kF32, 1);
  static_cast<float*>(buffer->data())[0] = 2.5f;
  Tensor t(DType::kF32, TensorShape(std::vector<int64_t>(100000, 1)), buffer);
  ASSERT_TRUE(t.IsInitialized());
  EXPECT_EQ(FormatTensor(t), "<f32 tensor of rank 100000, too many axes to print (at most 64)>");
}

TEST(TensorFormatRankTest, SixtyFourAxesAreLaidOut) {
  // NumPy: str(np.full((1,)*64, 2.5, np.float32)) is 64 '[', "2.5", 64 ']'.
  Tensor t = Tensor::FromVector<float>({2.5f}, TensorShape(std::vector<int64_t>(64, 1)));
  EXPECT_EQ(FormatTensor(t), std::string(64, '[') + "2.5" + std::string(64, ']'));
}

}  // namespace
}  // namespace tfg
