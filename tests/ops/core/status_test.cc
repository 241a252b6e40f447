#include "ops/core/status.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

TEST(StatusTest, OkAndCodes) {
  EXPECT_TRUE(Status::OK().ok());
  Status s = OutOfRange("queue '{}' is closed", "q");
  EXPECT_EQ(s.code(), Code::kOutOfRange);
  EXPECT_EQ(s.ToString(), "OutOfRange: queue 'q' is closed");
  EXPECT_EQ(CodeFromName("OutOfRange"), Code::kOutOfRange);
  EXPECT_EQ(CodeFromName("Nope"), std::nullopt);
}

TEST(StatusTest, InnermostSpanWins) {
  auto file = std::make_shared<SourceFile>("a.tfg", "x = 1\ny = x @ z\n");
  Status s = InvalidArgument("bad");
  s.WithSpan({file, 2, 5, 2, 9});
  s.WithSpan({file, 1, 1, 1, 5});  // outer context: ignored
  EXPECT_EQ(s.span().line, 2);
  EXPECT_EQ(s.ToString(), "a.tfg:2:5: InvalidArgument: bad");
}

TEST(StatusTest, CopiesDoNotShareEdits) {
  Status a = InvalidArgument("m");
  Status b = a;
  b.Prepend("ctx: ");
  EXPECT_EQ(a.message(), "m");
  EXPECT_EQ(b.message(), "ctx: m");
}

TEST(StatusTest, DiagnosticWithNote) {
  auto file = std::make_shared<SourceFile>("b.tfg", "W = variable(zeros([2]))\n\tz = W @ W\n");
  Status s(Code::kInvalidArgument, "matmul: needs rank >= 2", {file, 2, 6, 2, 10});
  s.AddNote({file, 1, 5, 1, 24}, "W declared here");
  EXPECT_EQ(FormatDiagnostic(s),
            "b.tfg:2:6: error: matmul: needs rank >= 2\n"
            " 2 | \tz = W @ W\n"
            "   | \t    ^~~~~\n"
            "b.tfg:1:5: note: W declared here\n"
            " 1 | W = variable(zeros([2]))\n"
            "   |     ^~~~~~~~~~~~~~~~~~~~\n");
}

TEST(StatusTest, ALongLineIsShownAroundTheColumn) {
  // A one-line literal of 10,000 elements with the error at element 5000:
  // the excerpt keeps 60 bytes before the column and 160 in all.
  std::string line = "x = [";
  for (int i = 0; i < 10000; ++i) line += i == 5000 ? "\"s\", " : "1, ";
  const int col = static_cast<int>(line.find('"')) + 1;
  auto file = std::make_shared<SourceFile>("c.tfg", line + "]\n");
  Status s(Code::kInvalidArgument, "list of mixed types", {file, 1, col, 1, col + 2});
  const std::string shown = "..." + line.substr(col - 61, 160) + "...";
  EXPECT_EQ(FormatDiagnostic(s), "c.tfg:1:" + std::to_string(col) + ": error: list of mixed types\n" +
                                     " 1 | " + shown + "\n" + "   | " + std::string(63, ' ') + "^~~\n");
}

TEST(StatusTest, ResultCarriesValueOrError) {
  Result<int> good = 3;
  Result<int> bad = NotFound("x");
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace tfg
