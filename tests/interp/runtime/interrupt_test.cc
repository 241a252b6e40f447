// Ctrl-C: the interrupt scope's manager is cancelled through the same pipe
// and thread a real SIGINT uses, and a running script stops with
// "interrupted" at its next run().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "interp/language/interpreter.h"
#include "interp/runtime/interrupt.h"

namespace tfg {
namespace {

bool WaitUntil(const std::function<bool()>& cond) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(InterruptTest, CtrlCCancelsTheScopesManager) {
  EXPECT_EQ(interrupt::Current(), nullptr);
  {
    interrupt::ScriptScope scope(60);
    std::shared_ptr<CancellationManager> cm = interrupt::Current();
    ASSERT_NE(cm, nullptr);
    EXPECT_FALSE(interrupt::Requested());
    std::atomic<bool> callback_ran{false};
    cm->Register([&] { callback_ran = true; });
    interrupt::Simulate();
    ASSERT_TRUE(WaitUntil([&] { return callback_ran.load(); }));
    EXPECT_TRUE(cm->IsCancelled());
    EXPECT_TRUE(interrupt::Requested());
  }
  EXPECT_EQ(interrupt::Current(), nullptr);
  // A new scope starts uninterrupted.
  interrupt::ScriptScope next(60);
  EXPECT_FALSE(interrupt::Requested());
  EXPECT_FALSE(interrupt::Current()->IsCancelled());
}

TEST(InterruptTest, ARunningScriptStopsAtItsNextRun) {
  std::ostringstream out;
  InterpreterOptions options;
  options.session.inter_op_threads = options.session.intra_op_threads = 1;
  options.out = &out;
  options.err = &out;
  Interpreter interp(options);
  std::thread presser([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    interrupt::Simulate();
  });
  // Would take minutes: only Ctrl-C ends it in time.
  Status s = interp.RunSource("loop.tfg",
                              "x = placeholder(f32, [])\n"
                              "y = x * 2.0\n"
                              "for i in range(100000000) {\n"
                              "  run(y, feed={x: 1.0})\n"
                              "}\n");
  presser.join();
  EXPECT_EQ(s.code(), Code::kCancelled);
  EXPECT_EQ(s.message(), "interrupted (Ctrl-C)");
  EXPECT_EQ(s.span().line, 4);
}

}  // namespace
}  // namespace tfg
