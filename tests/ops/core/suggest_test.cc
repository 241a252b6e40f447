#include "ops/core/suggest.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

TEST(EditDistanceTest, HandComputed) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", "abc"), 0u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);             // three insertions
  EXPECT_EQ(EditDistance("abc", ""), 3u);             // three deletions
  EXPECT_EQ(EditDistance("matmull", "matmul"), 1u);   // one deletion
  EXPECT_EQ(EditDistance("ab", "ba"), 2u);            // a swap is two edits
  EXPECT_EQ(EditDistance("flaw", "lawn"), 2u);        // drop f, add n
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);   // k->s, e->i, add g
  EXPECT_EQ(EditDistance("intention", "execution"), 5u);
}

TEST(ClosestNamesTest, NearestFirstTiesInCandidateOrder) {
  // "prnt": print and pint are 1 away, point 2 (beyond the limit of 1).
  std::vector<std::string> candidates = {"print", "point", "pint"};
  EXPECT_EQ(ClosestNames("prnt", candidates, 3), (std::vector<std::string>{"print", "pint"}));
  EXPECT_EQ(ClosestNames("prnt", candidates, 1), (std::vector<std::string>{"print"}));
  EXPECT_EQ(ClosestName("prnt", candidates), "print");
  EXPECT_EQ(ClosestName("prnt", {"pint", "print"}), "pint");
}

TEST(ClosestNamesTest, WithinAThirdOfTheLength) {
  // 9 characters: up to 3 edits.
  EXPECT_EQ(ClosestName("abcdefghi", {"abcdewxyz", "abcdefxyz"}), "abcdefxyz");
  EXPECT_EQ(ClosestName("abcdefghi", {"abcdewxyz"}), "");
  // Short names still allow one edit.
  EXPECT_EQ(ClosestName("x", {"zz", "y"}), "y");
  EXPECT_EQ(ClosestName("abc", {"xyz"}), "");
  EXPECT_EQ(ClosestName("abc", {}), "");
}

}  // namespace
}  // namespace tfg
