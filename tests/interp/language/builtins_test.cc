#include "interp/language/builtins/builtins.h"

#include <gtest/gtest.h>

#include <sstream>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

Status RunSrc(const std::string& source, std::string* out_text = nullptr) {
  std::ostringstream out, err;
  InterpreterOptions options;
  options.out = &out;
  options.err = &err;
  Interpreter interp(options);
  Status s = interp.RunSource("b.tfg", source);
  if (out_text) *out_text = out.str();
  return s;
}

TEST(BuiltinsTest, AssertFailsWithAborted) {
  Status s = RunSrc("assert(1 == 1)\nassert(1 == 2, \"one is not two\")\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kAborted);
  EXPECT_EQ(s.message(), "assertion failed: one is not two");
  EXPECT_EQ(s.span().line, 2);
}

TEST(BuiltinsTest, AssertCloseToleranceIsRelativeToB) {
  // |a - b| <= tol + tol * |b|: 100.5 vs 100 passes with tol 0.005 (0.005 + 0.5).
  EXPECT_TRUE(RunSrc("assert_close(100.5, 100, tol=0.005)").ok());
  EXPECT_TRUE(RunSrc("assert_close([[1.0, 2.0]], [1.0, 2.0000001])").ok());
  // Broadcasting: a scalar b against a vector a.
  EXPECT_TRUE(RunSrc("assert_close([2.0, 2.0], 2)").ok());
  Status s = RunSrc("assert_close([1.0, 2.0, 3.0], [1.0, 2.5, 3.0], tol=0.1)");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kAborted);
  EXPECT_NE(s.message().find("1 of 3 elements"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("at index [1]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("(2.0 vs 2.5)"), std::string::npos) << s.message();
  Status shapes = RunSrc("assert_close([1.0, 2.0], [1.0, 2.0, 3.0])");
  ASSERT_FALSE(shapes.ok());
  EXPECT_NE(shapes.message().find("[2] and [3]"), std::string::npos);
  Status nan = RunSrc("assert_close(float(\"nan\"), 1.0)");
  EXPECT_FALSE(nan.ok());
}

TEST(BuiltinsTest, AssertEqualIgnoresNumericDType) {
  EXPECT_TRUE(RunSrc("assert_equal(run(constant([1, 2])), [1.0, 2.0])").ok());
  EXPECT_TRUE(RunSrc("assert_equal(\"ab\", \"a\" + \"b\")").ok());
  EXPECT_TRUE(RunSrc("assert_equal([1, [2, \"x\"]], [1, [2, \"x\"]])").ok());
  Status s = RunSrc("assert_equal([1, 2], [1, 3])");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kAborted);
  EXPECT_FALSE(RunSrc("assert_equal(run(constant([1, 2])), [1, 2, 3])").ok());
  Status graph = RunSrc("assert_equal(constant(1), 1)");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.message().find("run(x)"), std::string::npos);
}

TEST(BuiltinsTest, Conversions) {
  std::string out;
  ASSERT_TRUE(RunSrc("print(int(3.9), int(-3.9), int(\"42\"), float(2), float(\"1.5\"), str(1.0) + \"!\", "
                     "int(run(constant(7))))",
                     &out)
                  .ok());
  EXPECT_EQ(out, "3 -3 42 2.0 1.5 1.0! 7\n");
  EXPECT_FALSE(RunSrc("int(\"4x\")").ok());
}

TEST(BuiltinsTest, MinMaxAbsLen) {
  std::string out;
  ASSERT_TRUE(RunSrc("print(min(3, 1, 2), max([4, 9, 2]), max(1, 2.5), abs(-3), abs(-2.5), len(\"abc\"), "
                     "len([1]), len({}), len(range(2, 10, 3)))",
                     &out)
                  .ok());
  EXPECT_EQ(out, "1 9 2.5 3 2.5 3 1 0 3\n");
}

TEST(BuiltinsTest, RangeAndContainers) {
  std::string out;
  ASSERT_TRUE(RunSrc("l = []\nfor i in range(5, 0, -2) { append(l, i) }\nprint(l, enumerate([\"a\"], start=1), "
                     "zip([1, 2, 3], [4, 5]))",
                     &out)
                  .ok());
  EXPECT_EQ(out, "[5, 3, 1] [[1, \"a\"]] [[1, 4], [2, 5]]\n");
  EXPECT_FALSE(RunSrc("range(1, 2, 0)").ok());
}

TEST(BuiltinsTest, BindingErrorsNameTheBuiltin) {
  Status s = RunSrc("assert_close(1)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("assert_close() is missing its argument 'b'"), std::string::npos) << s.message();
  Status k = RunSrc("len([1], foo=2)");
  EXPECT_NE(k.message().find("len() has no parameter 'foo'"), std::string::npos) << k.message();
}

TEST(BuiltinsTest, SignatureForDocs) {
  const BuiltinDef* close = BuiltinRegistry::Global().Find("assert_close");
  ASSERT_NE(close, nullptr);
  EXPECT_EQ(BuiltinSignature(*close), "assert_close(a, b, tol=1e-06)");
  EXPECT_EQ(BuiltinSignature(*BuiltinRegistry::Global().Find("print")), "print(values..., sep=\" \", end=\"\\n\")");
}

TEST(BuiltinsTest, EveryBuiltinIsDocumented) {
  std::string ref = BuiltinReference();
  for (const BuiltinDef* def : BuiltinRegistry::Global().List()) {
    EXPECT_FALSE(def->doc.empty()) << def->name;
    EXPECT_NE(ref.find("| `" + def->name + "("), std::string::npos) << def->name;
  }
  EXPECT_NE(ref.find("| `assert_close(a, b, tol=1e-06)` |"), std::string::npos);
}

TEST(BuiltinsTest, ConstantAndDTypeKeyword) {
  std::string out;
  ASSERT_TRUE(RunSrc("c = constant(1, dtype=f64, shape=[2])\nprint(c.dtype, run(c), run(constant(3, name=\"k\")))\n"
                     "print(add(1, 2, dtype=f64).dtype)",
                     &out)
                  .ok());
  EXPECT_EQ(out, "f64 [1. 1.] 3\nf64\n");
}

}  // namespace
}  // namespace tfg
