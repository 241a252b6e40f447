// Piped REPL input: an error's spans move from the chunk's own numbering
// to the input's, and the excerpt still shows the line.
#include "interp/app/input_lines.h"

#include <gtest/gtest.h>

#include <memory>

namespace tfg {
namespace {

SourceSpan At(const std::shared_ptr<SourceFile>& file, int line, int col, int end_col) {
  return SourceSpan{file, line, col, line, end_col};
}

TEST(InputLinesTest, SpansMoveToTheInputsLines) {
  InputLines lines;
  const std::string chunk = "z = [1,\n  nope]\n";
  lines.Record(chunk, 10);  // the chunk began at line 10 of the input
  auto file = std::make_shared<SourceFile>("<stdin>", chunk);
  Status error(Code::kNotFound, "unknown name 'nope'", At(file, 2, 3, 6));
  error.AddNote(At(file, 1, 1, 1), "in this statement");
  Status moved = lines.Renumber(error);
  EXPECT_EQ(moved.code(), Code::kNotFound);
  EXPECT_EQ(moved.span().line, 11);
  EXPECT_EQ(moved.span().end_line, 11);
  EXPECT_EQ(moved.span().col, 3);
  ASSERT_EQ(moved.notes().size(), 1u);
  EXPECT_EQ(moved.notes()[0].span.line, 10);
  const std::string text = FormatDiagnostic(moved);
  EXPECT_NE(text.find("<stdin>:11:3: error: unknown name 'nope'\n 11 |   nope]\n"), std::string::npos) << text;
}

TEST(InputLinesTest, OtherFilesAndUnknownChunksStayAsTheyAre) {
  InputLines lines;
  lines.Record("a = 1\n", 5);
  auto module = std::make_shared<SourceFile>("lib.tfg", "a = 1\n");
  auto other = std::make_shared<SourceFile>("<stdin>", "b = 2\n");
  EXPECT_EQ(lines.Renumber(Status(Code::kUnknown, "m", At(module, 1, 1, 1))).span().line, 1);
  EXPECT_EQ(lines.Renumber(Status(Code::kUnknown, "m", At(other, 1, 1, 1))).span().line, 1);
  EXPECT_TRUE(lines.Renumber(Status::OK()).ok());
}

}  // namespace
}  // namespace tfg
