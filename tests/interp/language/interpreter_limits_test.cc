// The limits for untrusted scripts (InterpreterOptions::max_statements and
// SessionOptions::max_eager_elements), which the fuzzer runs under.
#include <gtest/gtest.h>

#include <sstream>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

Status RunLimited(const std::string& source, int64_t max_statements, int64_t max_eager_elements) {
  std::ostringstream out;
  InterpreterOptions options;
  options.session.inter_op_threads = options.session.intra_op_threads = 1;
  options.max_statements = max_statements;
  options.session.max_eager_elements = max_eager_elements;
  options.out = &out;
  options.err = &out;
  Interpreter interp(options);
  return interp.RunSource("limits.tfg", source);
}

TEST(InterpreterLimitsTest, EndlessLoopStopsAtTheStatementLimit) {
  Status s = RunLimited("n = 0\nwhile true { n += 1 }\n", 1000, 0);
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_EQ(s.message(), "the script ran more than 1000 statements, this interpreter's limit");
  EXPECT_EQ(s.span().line, 2);
}

TEST(InterpreterLimitsTest, UnderTheLimitRunsNormally) {
  EXPECT_TRUE(RunLimited("n = 0\nfor i in range(100) { n += 1 }\nassert(n == 100)\n", 1000, 0).ok());
}

TEST(InterpreterLimitsTest, HostOpsLargerThanTheLimitAreRefused) {
  Status big = RunLimited("z = zeros([100, 100])\n", 0, 1000);
  EXPECT_EQ(big.code(), Code::kResourceExhausted);
  EXPECT_EQ(big.message(), "zeros: the result would have 10000 elements, more than the limit of 1000");
  EXPECT_EQ(big.span().line, 1);
  // A shape whose element count overflows int64 is no size at all: an
  // InvalidArgument naming the numbers (ops/core/checked_size.h).
  Status overflow = RunLimited("z = zeros([4294967296, 4294967296, 4294967296])\n", 0, 1000);
  EXPECT_EQ(overflow.code(), Code::kInvalidArgument);
  EXPECT_EQ(overflow.message(),
            "zeros: shape [4294967296, 4294967296, 4294967296] is too large: its element count 4294967296 * "
            "4294967296 overflows int64 (at most 9223372036854775807)");
  EXPECT_TRUE(RunLimited("z = zeros([10, 10]) + 1\n", 0, 1000).ok());
}

TEST(InterpreterLimitsTest, NoLimitsByDefault) {
  EXPECT_TRUE(RunLimited("z = zeros([100, 100])\nfor i in range(5000) { }\n", 0, 0).ok());
}

}  // namespace
}  // namespace tfg
