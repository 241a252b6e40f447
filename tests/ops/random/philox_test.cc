// Philox4x32-10 against the known-answer vectors of the Random123
// distribution (tests/kat_vectors, the three "philox4x32 10" lines).
#include "ops/random/philox.h"

#include <gtest/gtest.h>

namespace tfg::random {
namespace {

TEST(PhiloxTest, KnownAnswerVectors) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}), (PhiloxCounter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (PhiloxCounter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (PhiloxCounter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

}  // namespace
}  // namespace tfg::random
