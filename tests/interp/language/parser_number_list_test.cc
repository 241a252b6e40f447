// Tests for the packed number lists of the front end
// (interp/language/parser_number_list.h): which list literals are packed,
// the values they hold, errors inside them, and the size limits of
// ParseLimits. Expected values are written by hand from the literal's text.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "interp/language/parser.h"

namespace tfg {
namespace {

using ast::NumberList;

Result<std::shared_ptr<ast::Program>> ParseText(const std::string& text, const ParseLimits& limits = {}) {
  return ParseProgram(std::make_shared<SourceFile>("test.tfg", text), limits);
}

// The value of `x = ...` (the program's first statement).
const ast::Expr* AssignedValue(const ast::Program& program) {
  if (program.body.empty() || program.body[0]->kind != ast::StmtKind::kAssign) return nullptr;
  return static_cast<const ast::Assign&>(*program.body[0]).value.get();
}

// A packed list as `[1 -2.5f [3]]` (floats marked f); "not packed" when the
// value is any other expression, or the parse error.
std::string Packed(const std::string& text) {
  auto program = ParseText(text);
  if (!program.ok()) return "ERROR " + program.status().ToString();
  const ast::Expr* value = AssignedValue(**program);
  if (value == nullptr || value->kind != ast::ExprKind::kNumberList) return "not packed";
  const auto& list = static_cast<const NumberList&>(*value);
  std::string out = "[";
  size_t next = 0;
  bool first = true;
  for (NumberList::Item item : list.items) {
    if (!first && item != NumberList::Item::kClose) out += ' ';
    first = item == NumberList::Item::kOpen;
    switch (item) {
      case NumberList::Item::kInt: out += std::to_string(list.numbers[next++].i); break;
      case NumberList::Item::kFloat: out += fmt::format("{}f", list.numbers[next++].f); break;
      case NumberList::Item::kOpen: out += '['; break;
      case NumberList::Item::kClose: out += ']'; break;
    }
  }
  return out + "]";
}

// "line:col: message" of the error `text` must produce.
std::string E(const std::string& text, const ParseLimits& limits = {}) {
  auto program = ParseText(text, limits);
  if (program.ok()) return "parsed without error";
  const Status& s = program.status();
  return fmt::format("{}:{}: {}", s.span().line, s.span().col, s.message());
}

TEST(NumberListTest, IntsAndFloatsKeepTheirKind) {
  EXPECT_EQ(Packed("x = [1, 2.5, 3]"), "[1 2.5f 3]");
  EXPECT_EQ(Packed("x = [0, 007, 0x1F, 0XfF]"), "[0 7 31 255]");
  EXPECT_EQ(Packed("x = [5., .25, 1e3, 1E-2, 2.5e+2, 7e0]"), "[5f 0.25f 1000f 0.01f 250f 7f]");
  EXPECT_EQ(Packed("x = []"), "[]");
  EXPECT_EQ(Packed("x = [1,]"), "[1]");
}

TEST(NumberListTest, SignsAreFoldedIntoTheNumbers) {
  EXPECT_EQ(Packed("x = [-1, +2, -0.5, -1e-3, -0x10]"), "[-1 2 -0.5f -0.001f -16]");
  EXPECT_EQ(Packed("x = [-9223372036854775808, 9223372036854775807]"),
            "[-9223372036854775808 9223372036854775807]");
  // -0.0 stays a negative zero, as negating 0.0 gives.
  auto program = ParseText("x = [-0.0]");
  ASSERT_TRUE(program.ok());
  const auto& list = static_cast<const NumberList&>(*AssignedValue(**program));
  EXPECT_TRUE(std::signbit(list.numbers[0].f));
}

TEST(NumberListTest, NestedListsBlanksAndComments) {
  EXPECT_EQ(Packed("x = [[1, 2], [3, [4.5]], []]"), "[[1 2] [3 [4.5f]] []]");
  EXPECT_EQ(Packed("x = [\n  [1, 2],  # first row\n  [3, 4],\t# caf\xc3\xa9\r\n]"), "[[1 2] [3 4]]");
  EXPECT_EQ(Packed("x = [[[[0]]]]"), "[[[[0]]]]");
}

TEST(NumberListTest, AnythingElseIsAnOrdinaryList) {
  EXPECT_EQ(Packed("x = [1, y]"), "not packed");
  EXPECT_EQ(Packed("x = [- 1]"), "not packed");     // a space after the sign
  EXPECT_EQ(Packed("x = [1 - 2]"), "not packed");   // arithmetic
  EXPECT_EQ(Packed("x = [--1]"), "not packed");
  EXPECT_EQ(Packed("x = [1, \"a\"]"), "not packed");
  EXPECT_EQ(Packed("x = [[1], [y]]"), "not packed");
  EXPECT_EQ(Packed("x = [1, 2][0]"), "not packed");  // an index of a packed list
  // Indexing is never a list literal, whatever the subscripts.
  EXPECT_EQ(Packed("x = y[1, 2]"), "not packed");
  EXPECT_EQ(Packed("x = f()[0]"), "not packed");
}

TEST(NumberListTest, ValueErrorsPointAtTheNumber) {
  EXPECT_EQ(E("x = [1, 2,\n  3, 99999999999999999999]"), "2:6: integer 99999999999999999999 does not fit in 64 bits");
  EXPECT_EQ(E("x = [[1.5], [-1e999]]"), "1:15: number 1e999 is out of range for a 64-bit float");
  EXPECT_EQ(E("x = [-0x10000000000000000]"), "1:7: integer 0x10000000000000000 does not fit in 64 bits");
  // After non-ASCII text (read through a UTF-32 copy, not in place); columns
  // count bytes, as everywhere in the front end: "\xc3\xa9" is two.
  EXPECT_EQ(E("s = \"\xc3\xa9\"; x = [1, 1e999]"), "1:19: number 1e999 is out of range for a 64-bit float");
  EXPECT_EQ(Packed("x = [1, 2]  # \xc3\xa9"), "[1 2]");
}

TEST(NumberListTest, ErrorsDeepInALongLiteralPointAtTheirLineAndColumn) {
  // 2000 lines of "  1.5, -2, 3e-1," and a bad number at line 1501, column 9.
  std::string text = "x = [\n";
  for (int line = 2; line <= 2001; ++line) {
    text += line == 1501 ? "  1.5, -1e400, 3e-1,\n" : "  1.5, -2, 3e-1,\n";
  }
  text += "]\n";
  EXPECT_EQ(E(text), "1501:9: number 1e400 is out of range for a 64-bit float");
  // A syntax error inside: the list is parsed the ordinary way, and the
  // message is the ordinary one, at the right place.
  std::string broken = "x = [\n";
  for (int line = 2; line <= 2001; ++line) broken += line == 1800 ? "  1.5 -2 3e-1,\n" : "  1.5, -2, 3e-1,\n";
  broken += "]\n";
  EXPECT_EQ(E(broken), "1800:10: expected ',' or ']', found number 3e-1");
}

TEST(NumberListTest, ALongListIsOneNode) {
  std::string text = "x = [";
  for (int i = 0; i < 100000; ++i) text += i % 2 ? "-0.25, " : "3, ";
  text += "]";
  auto program = ParseText(text);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  const auto& list = static_cast<const NumberList&>(*AssignedValue(**program));
  ASSERT_EQ(list.numbers.size(), 100000u);
  EXPECT_EQ(list.numbers[0].i, 3);
  EXPECT_EQ(list.numbers[99999].f, -0.25);
  EXPECT_EQ(list.items[99999], NumberList::Item::kFloat);
  EXPECT_EQ(list.span.line, 1);
  EXPECT_EQ(list.span.col, 5);
  EXPECT_EQ(list.span.end_col, static_cast<int>(text.size()));
}

// Random tables written in every number form the grammar has; the expected
// items are what the generator chose, not what the parser read.
TEST(NumberListTest, RandomTablesReadBackExactly) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string text = "x = [";
    std::string expected = "[";
    int depth = 1;
    bool first = true;
    for (int i = 0; i < 40 || depth > 1; ++i) {
      uint64_t choice = rng() % 10;
      if (!first) text += rng() % 3 ? ", " : ",\n  ";
      std::string item;
      if (choice == 0 && depth < 4) {
        text += "[";
        item = "[";
        ++depth;
        first = true;
      } else if (choice == 1 && depth > 1 && !first) {
        text.erase(text.find_last_of(','));  // no comma before the ']'
        text += "]";
        expected += "]";
        --depth;
        first = false;
        continue;
      } else {
        bool negative = rng() % 2;
        if (rng() % 2) {
          int64_t v = static_cast<int64_t>(rng() % 1000000);
          bool hex = rng() % 4 == 0;
          std::string digits = hex ? fmt::format("0x{:x}", v) : std::to_string(v);
          text += fmt::format("{}{}", negative ? "-" : (rng() % 5 ? "" : "+"), digits);
          item = std::to_string(negative ? -v : v);
        } else {
          double v = static_cast<double>(rng() % 100000) / 64.0;  // exact in binary
          static const char* kForms[] = {"{:.6f}", "{:.3e}", "{:.6E}", "{:g}"};
          std::string written = fmt::format(fmt::runtime(kForms[rng() % 4]), v);
          if (written.find_first_of(".eE") == std::string::npos) written += ".";
          text += (negative ? "-" : "") + written;
          item = fmt::format("{}f", negative ? -std::strtod(written.c_str(), nullptr)
                                             : std::strtod(written.c_str(), nullptr));
        }
        first = false;
      }
      expected += (expected.back() == '[' ? "" : " ") + item;
    }
    text += "]";
    expected += "]";
    ASSERT_EQ(Packed(text), expected) << text;
  }
}

TEST(NumberListTest, NestingCountsTowardsTheBracketLimit) {
  auto nest = [](int depth) { return "x = " + std::string(depth, '[') + "1" + std::string(depth, ']'); };
  EXPECT_EQ(Packed(nest(200)).substr(0, 3), "[[[");
  EXPECT_EQ(E(nest(201)), "1:205: brackets nested too deeply (the limit is 200 levels)");
  EXPECT_EQ(E("x = " + std::string(150, '(') + std::string(51, '[') + "1" + std::string(51, ']') +
              std::string(150, ')')),
            "1:205: brackets nested too deeply (the limit is 200 levels)");
}

TEST(ParseLimitsTest, AScriptPastTheLimitIsRefusedWhereItCrossesIt) {
  ParseLimits limits;
  limits.max_script_bytes = 20;
  EXPECT_TRUE(ParseText("x = 1\ny = 2\nz = 3\n", limits).ok());  // 18 bytes
  EXPECT_EQ(E("x = 1\ny = 2\nz = 3\nw = 4\n", limits),
            "4:3: the script is 24 bytes, larger than the limit of 20 bytes; split it into modules, "
            "or load big data from a file (load_npy, load_csv)");
}

TEST(ParseLimitsTest, OneLiteralPastTheLimitIsRefusedAtItsStart) {
  ParseLimits limits;
  limits.max_literal_bytes = 16;
  EXPECT_TRUE(ParseText("x = [1, 2, 3, 4, 5]", limits).ok());  // 15 bytes
  const std::string hint = "; load big data from a file (load_npy, load_csv)";
  EXPECT_EQ(E("y = 1\nx = [1, 2, 3, 4, 5, 6]", limits),
            "2:5: this list literal is 18 bytes, larger than the limit of 16 bytes for one literal" + hint);
  EXPECT_EQ(E("x = [a, b, c, d, e, f]", limits),
            "1:5: this list literal is 18 bytes, larger than the limit of 16 bytes for one literal" + hint);
  EXPECT_EQ(E("x = {\"a\": 1, \"b\": 22}", limits),
            "1:5: this dict literal is 17 bytes, larger than the limit of 16 bytes for one literal" + hint);
  EXPECT_EQ(E("x = \"0123456789abcdef\"", limits),
            "1:5: this string literal is 18 bytes, larger than the limit of 16 bytes for one literal" + hint);
}

const char* const kTokenHint =
    " (a list literal of nothing but numbers is one token at any size; lists of strings, names or "
    "expressions are a few tokens per element)";

// The parse tree of one statement costs several hundred bytes per token: a
// statement past the limit is refused at its first token, before its tree
// grows further.
TEST(ParseLimitsTest, OneStatementPastTheTokenLimitIsRefusedAtItsStart) {
  ParseLimits limits;
  limits.max_statement_tokens = 10;
  // x = [ a , b , c ] and the newline: 10 tokens.
  EXPECT_TRUE(ParseText("y = 1\nx = [a, b, c]\n", limits).ok());
  const std::string refused = "this statement is more than 10 tokens long, the limit for one statement; load big "
                              "data from a file (load_npy, load_csv)" + std::string(kTokenHint);
  EXPECT_EQ(E("y = 1\nx = [a, b, c, d]\n", limits), "2:1: " + refused);
  EXPECT_EQ(E("y = 1\n\n  x = [\n  \"a\",\n  \"b\",\n  \"c\",\n \"d\"]\n", limits), "3:3: " + refused);
  // A block is one statement, with all its lines.
  EXPECT_EQ(E("if true {\n  a = 1\n  b = 2\n}\n", limits), "1:1: " + refused);
  // A table of numbers is one token, whatever its size.
  limits.max_statement_tokens = 4;
  EXPECT_TRUE(ParseText("x = [[1, 2, 3, 4], [5, 6, 7, 8]]\n", limits).ok());
}

// Tokens are made for the whole script before it is parsed (about 140
// bytes each): past the limit, the error is at the token that crosses it.
TEST(ParseLimitsTest, AScriptPastTheTokenLimitIsRefusedWhereItCrossesIt) {
  ParseLimits limits;
  limits.max_tokens = 8;
  EXPECT_TRUE(ParseText("x = 1\ny = 2\n", limits).ok());  // x = 1 NEWLINE, twice
  EXPECT_TRUE(ParseText("x = [1, 2, 3, 4, 5, 6, 7, 8, 9]\n", limits).ok());
  EXPECT_EQ(E("x = 1\ny = 2\nz = 3\n", limits),
            "3:1: the script is more than 8 tokens long, the limit; split it into modules, or load big data from a "
            "file (load_npy, load_csv)" + std::string(kTokenHint));
}

TEST(ParseLimitsTest, TheDefaultsAreDocumented) {
  ParseLimits limits;
  EXPECT_EQ(limits.max_script_bytes, 256u << 20);
  EXPECT_EQ(limits.max_literal_bytes, 64u << 20);
  EXPECT_EQ(limits.max_tokens, 8u << 20);
  EXPECT_EQ(limits.max_statement_tokens, 1u << 19);
}

}  // namespace
}  // namespace tfg
