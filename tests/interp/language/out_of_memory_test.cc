// std::bad_alloc while a statement runs (a graph or host value grown past
// what the machine holds) is a ResourceExhausted error at that statement,
// not the end of the process. The sanitized build aborts on a real
// out-of-memory instead of throwing, so a builtin registered here throws.
#include <gtest/gtest.h>

#include <new>
#include <sstream>

#include "interp/language/builtins/builtins.h"
#include "interp/language/interpreter.h"

namespace tfg {
namespace {

class OutOfMemoryTest : public testing::Test {
 protected:
  void SetUp() override {
    BuiltinRegistry::Global().Register(BuiltinDef{
        "test_out_of_memory", {}, "Tests only: throws std::bad_alloc, as an allocation that fails does.",
        [](BuiltinContext&, BoundArgs&) -> Result<Value> { throw std::bad_alloc(); }});
    options_.session.inter_op_threads = options_.session.intra_op_threads = 1;
    options_.out = &out_;
    options_.err = &out_;
  }

  std::ostringstream out_;
  InterpreterOptions options_;
};

TEST_F(OutOfMemoryTest, IsAnErrorAtTheInnermostStatement) {
  Interpreter interp(options_);
  Status s = interp.RunSource("oom.tfg", "a = 1\nfn f() {\n  b = test_out_of_memory()\n}\nf()\nprint(a)\n");
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_EQ(s.message(), "out of memory while running this statement");
  EXPECT_EQ(s.span().line, 3);
  ASSERT_EQ(s.notes().size(), 1u);
  EXPECT_EQ(s.notes()[0].span.line, 5);  // in this call of 'f'
  EXPECT_EQ(out_.str(), "");
}

TEST_F(OutOfMemoryTest, CanBeCaught) {
  Interpreter interp(options_);
  Status s = interp.RunSource("oom.tfg",
                              "try {\n  x = test_out_of_memory()\n} except ResourceExhausted as e {\n"
                              "  print(\"caught:\", e)\n}\n");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out_.str(), "caught: out of memory while running this statement\n");
}

TEST_F(OutOfMemoryTest, TheReplGoesOn) {
  Interpreter interp(options_);
  ASSERT_TRUE(interp.EvalInteractive("x = 20\n").ok());
  Result<std::string> failed = interp.EvalInteractive("y = test_out_of_memory()\n");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(failed.status().span().line, 1);
  Result<std::string> next = interp.EvalInteractive("x + 2\n");
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(*next, "22");
}

}  // namespace
}  // namespace tfg
