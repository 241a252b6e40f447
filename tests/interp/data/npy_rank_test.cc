// The .npy reader's cap on axes: a crafted header with 100,000 axes (all of
// size 1, so the data fits in 4 bytes) must be refused by name, not turned
// into a tensor that printing or any kernel would recurse over.
#include <gtest/gtest.h>

#include "interp/data/npy.h"
#include "tests/interp/data/test_files.h"

namespace tfg::data {
namespace {

// Format 2.0 (a 4-byte header length): the 100,000-axis dict is ~300 KB.
std::string NpyWithShape(const std::string& shape, const std::string& data) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }\n";
  std::string out = std::string("\x93NUMPY\x02\x00", 8);
  const uint32_t len = static_cast<uint32_t>(dict.size());
  for (int i = 0; i < 4; ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
  return out + dict + data;
}

std::string OnesShape(int rank) {
  std::string s = "(";
  for (int i = 0; i < rank; ++i) s += "1, ";
  return s + ")";
}

TEST(NpyRankTest, HundredThousandAxesAreRefusedNamingTheFile) {
  testing::ScratchFile file(".npy");
  file.Write(NpyWithShape(OnesShape(100000), std::string(4, '\0')));
  auto t = ReadNpyFile(file.path());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(t.status().message(), "'" + file.path() + "' has a shape of more than 64 axes; .npy files hold at most 64");
}

TEST(NpyRankTest, SixtyFourAxesAreRead) {
  // NumPy's limit is also 64: np.zeros((1,)*64, np.float32) saves and loads.
  auto t = DecodeNpy(NpyWithShape(OnesShape(64), std::string("\x00\x00\xc0\x3f", 4)), "a.npy");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->rank(), 64);
  EXPECT_EQ(t->data<float>()[0], 1.5f);
  auto over = DecodeNpy(NpyWithShape(OnesShape(65), std::string(4, '\0')), "a.npy");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().message(), "'a.npy' has a shape of more than 64 axes; .npy files hold at most 64");
}

}  // namespace
}  // namespace tfg::data
