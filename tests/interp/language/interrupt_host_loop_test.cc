// Ctrl-C (simulated through the same pipe and watcher thread a SIGINT
// uses) stops a host loop at once, at its line, and in the REPL cancels
// only the statement running: the session and its variables stay.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "interp/language/interpreter.h"
#include "interp/runtime/interrupt.h"

namespace tfg {
namespace {

InterpreterOptions Quiet(std::ostringstream& out) {
  InterpreterOptions options;
  options.session.inter_op_threads = options.session.intra_op_threads = 1;
  options.out = &out;
  options.err = &out;
  return options;
}

// Presses Ctrl-C after 200 ms. The scope's grace period is 3 s: had the
// loop not stopped by then, the process would end (exit 130) and the test
// with it.
std::thread PressCtrlCSoon() {
  return std::thread([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    interrupt::Simulate();
  });
}

TEST(InterruptHostLoopTest, AnEmptyWhileLoopStopsAtItsLine) {
  std::ostringstream out;
  Interpreter interp(Quiet(out));
  std::thread presser = PressCtrlCSoon();
  Status s = interp.RunSource("spin.tfg", "n = 1\nwhile true {}\nprint(\"not reached\")\n");
  presser.join();
  EXPECT_EQ(s.code(), Code::kCancelled);
  EXPECT_EQ(s.message(), "interrupted (Ctrl-C)");
  EXPECT_EQ(s.span().line, 2);
  EXPECT_EQ(out.str(), "");
}

TEST(InterruptHostLoopTest, ALoopBodyStopsAtTheStatementItReached) {
  std::ostringstream out;
  Interpreter interp(Quiet(out));
  std::thread presser = PressCtrlCSoon();
  Status s = interp.RunSource("count.tfg", "n = 0\nfor i in range(1000000000000) {\n  n += 1\n}\n");
  presser.join();
  EXPECT_EQ(s.code(), Code::kCancelled);
  EXPECT_EQ(s.span().line, 3);
}

TEST(InterruptHostLoopTest, TheReplDropsTheStatementAndKeepsTheSession) {
  std::ostringstream out;
  Interpreter interp(Quiet(out));
  ASSERT_TRUE(interp.EvalInteractive("x = 41\n").ok());
  std::thread presser = PressCtrlCSoon();
  Result<std::string> spun = interp.EvalInteractive("while true {\n  x = x\n}\n");
  presser.join();
  ASSERT_FALSE(spun.ok());
  EXPECT_EQ(spun.status().code(), Code::kCancelled);
  EXPECT_EQ(spun.status().message(), "interrupted (Ctrl-C)");
  EXPECT_EQ(spun.status().span().line, 2);
  // The next statement runs normally, with x still defined.
  Result<std::string> next = interp.EvalInteractive("x + 1\n");
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(*next, "42");
}

}  // namespace
}  // namespace tfg
