#include "ops/io/crc32c.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tfg {
namespace {

// Check values from RFC 3720 (iSCSI), appendix B.4.
TEST(Crc32c, MatchesRfc3720Vectors) {
  std::vector<unsigned char> zeros(32, 0), ones(32, 0xFF), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) {
    inc[i] = static_cast<unsigned char>(i);
    dec[i] = static_cast<unsigned char>(31 - i);
  }
  EXPECT_EQ(Crc32c(zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(Crc32c(inc.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(Crc32c(dec.data(), 32), 0x113FDB5Cu);
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
}

TEST(Crc32c, ContinuesAcrossPieces) {
  std::string s = "the quick brown fox jumps over the lazy dog";
  uint32_t whole = Crc32c(s.data(), s.size());
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(Crc32c(s.data() + cut, s.size() - cut, Crc32c(s.data(), cut)), whole) << cut;
  }
}

TEST(Crc32c, MaskRoundTrips) {
  for (uint32_t c : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu}) {
    EXPECT_EQ(UnmaskCrc(MaskCrc(c)), c);
    EXPECT_NE(MaskCrc(c), c);
  }
}

}  // namespace
}  // namespace tfg
