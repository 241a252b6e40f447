// The checked-size helpers, against values worked out by hand: 2**31 * 2**32
// = 2**63 is one past INT64_MAX = 9223372036854775807; 3037000499**2 =
// 9223372030926249001 fits, 3037000500**2 = 9223372037000250000 does not.
#include "ops/core/checked_size.h"

#include <gtest/gtest.h>

#include <limits>

#include "ops/core/tensor.h"

namespace tfg {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedSizeTest, MulAddSubFitOrSayNot) {
  EXPECT_EQ(checked::Mul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_EQ(checked::Mul(int64_t{1} << 31, int64_t{1} << 32), std::nullopt);
  EXPECT_EQ(checked::Mul(3037000499, 3037000499), 9223372030926249001);
  EXPECT_EQ(checked::Mul(3037000500, 3037000500), std::nullopt);
  EXPECT_EQ(checked::Mul(-1, kMin), std::nullopt);
  EXPECT_EQ(checked::Add(kMax - 1, 1), kMax);
  EXPECT_EQ(checked::Add(kMax, 1), std::nullopt);
  EXPECT_EQ(checked::Sub(kMin + 1, 1), kMin);
  EXPECT_EQ(checked::Sub(kMin, 1), std::nullopt);
}

TEST(CheckedSizeTest, MulSizeAndAddSizeNameTheOpAndTheNumbers) {
  EXPECT_EQ(*checked::MulSize("tile", "output dim", 3, 5), 15);
  auto mul = checked::MulSize("tile", "output dim", int64_t{1} << 32, int64_t{1} << 32);
  ASSERT_FALSE(mul.ok());
  EXPECT_EQ(mul.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(mul.status().message(),
            "tile: output dim 4294967296 * 4294967296 overflows int64 (at most 9223372036854775807)");
  auto add = checked::AddSize("pad", "padded size", 1, kMax);
  ASSERT_FALSE(add.ok());
  EXPECT_EQ(add.status().message(), "pad: padded size 1 + 9223372036854775807 overflows int64 (at most 9223372036854775807)");
}

TEST(CheckedSizeTest, NumElements) {
  EXPECT_EQ(*checked::NumElements("op", {}), 1);
  EXPECT_EQ(*checked::NumElements("op", {2, 3, 4}), 24);
  EXPECT_EQ(*checked::NumElements("op", {3037000499, 3037000499}), 9223372030926249001);
  EXPECT_EQ(*checked::NumElements("op", {2, 0, 5}), 0);
  auto wrapped = checked::NumElements("zeros", {3037000500, 3037000500, 4});
  ASSERT_FALSE(wrapped.ok());
  EXPECT_EQ(wrapped.status().message(),
            "zeros: shape [3037000500, 3037000500, 4] is too large: its element count 3037000500 * 3037000500 "
            "overflows int64 (at most 9223372036854775807)");
  // A zero dim does not hide the others: strides over them would overflow.
  EXPECT_FALSE(checked::NumElements("op", {0, int64_t{1} << 62, 4}).ok());
  auto negative = checked::NumElements("op", {2, -3});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(), "op: shape [2, -3] has a negative dimension");
}

TEST(CheckedSizeTest, ByteSize) {
  EXPECT_EQ(*checked::ByteSize("op", 10, DType::kF32), 40);
  EXPECT_EQ(*checked::ByteSize("op", int64_t{1} << 60, DType::kI32), int64_t{1} << 62);
  auto bytes = checked::ByteSize("op", int64_t{1} << 62, DType::kF64);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().message(), "op: 4611686018427387904 elements of f64 (8 bytes each) overflow int64 bytes");
}

TEST(CheckedSizeTest, CheckTensorShape) {
  EXPECT_TRUE(checked::CheckTensorShape("op", TensorShape{2, 3}, DType::kF32).ok());
  EXPECT_TRUE(checked::CheckTensorShape("op", TensorShape(std::vector<int64_t>(64, 1)), DType::kF32).ok());
  Status rank = checked::CheckTensorShape("op", TensorShape(std::vector<int64_t>(65, 1)), DType::kF32);
  EXPECT_EQ(rank.message(), "op: rank 65 is above the limit of 64 dimensions");
  // 2**61 f32 elements are 2**63 bytes: the count fits, the bytes do not.
  EXPECT_FALSE(checked::CheckTensorShape("op", TensorShape{int64_t{1} << 61}, DType::kF32).ok());
  EXPECT_TRUE(checked::CheckTensorShape("op", TensorShape{int64_t{1} << 61}, DType::kBool).ok());
}

TEST(CheckedSizeTest, CheckPartialShapeIgnoresUnknownDims) {
  EXPECT_TRUE(checked::CheckPartialShape("op", PartialShape::Unknown()).ok());
  EXPECT_TRUE(checked::CheckPartialShape("op", PartialShape{-1, int64_t{1} << 62, -1}).ok());
  Status s = checked::CheckPartialShape("placeholder", PartialShape{-1, int64_t{1} << 62, 4});
  EXPECT_EQ(s.message(),
            "placeholder: shape [?, 4611686018427387904, 4] is too large: its element count 4611686018427387904 * 4 "
            "overflows int64 (at most 9223372036854775807)");
  EXPECT_EQ(checked::CheckPartialShape("op", PartialShape{2, -2}).message(),
            "op: shape [2, ?] has a negative dimension -2");
  EXPECT_FALSE(checked::CheckPartialShape("op", PartialShape::UnknownOfRank(65)).ok());
}

TEST(CheckedSizeTest, NumElementsSaturatesInsteadOfWrapping) {
  EXPECT_EQ(TensorShape({2, 3}).num_elements(), 6);
  EXPECT_EQ(TensorShape({int64_t{1} << 32, int64_t{1} << 32}).num_elements(), kMax);
  EXPECT_EQ(TensorShape({3037000500, 3037000500, 4}).num_elements(), kMax);
  EXPECT_EQ(TensorShape({int64_t{1} << 32, 0}).num_elements(), 0);
  EXPECT_EQ(PartialShape({int64_t{1} << 32, int64_t{1} << 32}).num_elements(), kMax);
}

TEST(CheckedSizeTest, AllocateRefusesWhatCannotBeCounted) {
  auto wrapped = Tensor::Allocate(HostAllocator(), DType::kF32, TensorShape{3037000500, 3037000500, 4});
  ASSERT_FALSE(wrapped.ok());
  EXPECT_EQ(wrapped.status().code(), Code::kInvalidArgument);
  EXPECT_NE(wrapped.status().message().find("3037000500 * 3037000500 overflows int64"), std::string::npos);
  auto deep = Tensor::Allocate(HostAllocator(), DType::kF32, TensorShape(std::vector<int64_t>(65, 1)));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("rank 65 is above the limit of 64 dimensions"), std::string::npos);
  // The constructor gives no buffer rather than a wrapped one.
  Tensor t(HostAllocator(), DType::kF32, TensorShape{int64_t{1} << 32, int64_t{1} << 32});
  EXPECT_FALSE(t.IsInitialized());
  auto ok = Tensor::Allocate(HostAllocator(), DType::kF32, TensorShape(std::vector<int64_t>(64, 1)));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->num_elements(), 1);
}

}  // namespace
}  // namespace tfg
