// The progress line's text and its timing, with a clock the test moves by
// hand: expected rates are worked out from the clock's values.
#include "interp/runtime/progress.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace tfg {
namespace {

struct FakeClock {
  double now = 100;  // any start: only differences matter
  std::function<double()> fn() {
    return [this] { return now; };
  }
};

ProgressStep Step(int64_t step, int64_t steps, std::optional<double> loss = std::nullopt) {
  ProgressStep s;
  s.step = step;
  s.steps = steps;
  s.loss = loss;
  return s;
}

TEST(FormatProgressLineTest, AllParts) {
  ProgressStep s = Step(300, 938, 0.5);
  s.epoch = 2;
  s.epochs = 10;
  s.batch = 64;
  EXPECT_EQ(FormatProgressLine(s, 0.43126, 1234.4), "epoch 2/10  step 300/938  loss 0.4313  1234 ex/s");
}

TEST(FormatProgressLineTest, PartsWithoutValuesAreLeftOut) {
  EXPECT_EQ(FormatProgressLine(Step(3, 10), std::nullopt, std::nullopt), "step 3/10");
  EXPECT_EQ(FormatProgressLine(Step(3, 10), std::nullopt, 2.5), "step 3/10  2.50 steps/s");
  ProgressStep s = Step(1, 5);
  s.epoch = 7;
  EXPECT_EQ(FormatProgressLine(s, 12.0, 45.67), "epoch 7  step 1/5  loss 12.00  45.7 steps/s");
}

TEST(FormatProgressLineTest, LossesShowFourSignificantDigits) {
  EXPECT_EQ(FormatProgressLine(Step(1, 1), 1.5e-5, std::nullopt), "step 1/1  loss 1.500e-05");
  EXPECT_EQ(FormatProgressLine(Step(1, 1), 0.00290512, std::nullopt), "step 1/1  loss 0.002905");
  EXPECT_EQ(FormatProgressLine(Step(1, 1), 2.5e7, std::nullopt), "step 1/1  loss 2.500e+07");
  EXPECT_EQ(FormatProgressLine(Step(1, 1), 0.0, std::nullopt), "step 1/1  loss 0.000");
  EXPECT_EQ(FormatProgressLine(Step(1, 1), NAN, std::nullopt), "step 1/1  loss nan");
  EXPECT_EQ(FormatProgressLine(Step(1, 1), -INFINITY, std::nullopt), "step 1/1  loss -inf");
}

// Piped: a line at each tenth of the epoch and at its end.
TEST(ProgressMeterTest, PipedPrintsEveryTenthOfAnEpoch) {
  FakeClock clock;
  ProgressMeter meter(false, clock.fn());
  std::vector<std::string> lines;
  for (int64_t step = 1; step <= 938; ++step) {
    std::string text = meter.Update(Step(step, 938));
    if (!text.empty()) lines.push_back(text);
    clock.now += 0.01;
  }
  ASSERT_EQ(lines.size(), 10u);
  // 94 is the first step at or past 93.8, a tenth of 938.
  EXPECT_EQ(lines[0].rfind("step 94/938  ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[9].rfind("step 938/938  ", 0), 0u) << lines[9];
  for (const std::string& line : lines) {
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\r'), std::string::npos);
    EXPECT_EQ(line.find('\x1b'), std::string::npos);
  }
}

TEST(ProgressMeterTest, PipedShortEpochPrintsEveryStepWithRunningMeanAndRate) {
  FakeClock clock;
  ProgressMeter meter(false, clock.fn());
  const double losses[] = {4, 2, 3, 1};
  std::vector<std::string> texts;
  for (int64_t step = 1; step <= 4; ++step) {
    ProgressStep s = Step(step, 4, losses[step - 1]);
    s.epoch = 1;
    s.epochs = 3;
    s.batch = 8;
    texts.push_back(meter.Update(s));
    clock.now += 0.5;
  }
  // The rate counts from the first call: step 2 comes 0.5 s after step 1,
  // so 1 step of 8 examples in 0.5 s; step 4: 3 steps, 24 examples, 1.5 s.
  EXPECT_EQ(texts[0], "epoch 1/3  step 1/4  loss 4.000\n");
  EXPECT_EQ(texts[1], "epoch 1/3  step 2/4  loss 3.000  16.0 ex/s\n");
  EXPECT_EQ(texts[2], "epoch 1/3  step 3/4  loss 3.000  16.0 ex/s\n");
  EXPECT_EQ(texts[3], "epoch 1/3  step 4/4  loss 2.500  16.0 ex/s\n");
}

TEST(ProgressMeterTest, NextEpochRestartsMeanAndRate) {
  FakeClock clock;
  ProgressMeter meter(false, clock.fn());
  meter.Update(Step(1, 2, 10.0));
  clock.now += 1;
  meter.Update(Step(2, 2, 20.0));
  clock.now += 60;  // an evaluation between epochs is not counted
  EXPECT_EQ(meter.Update(Step(1, 2, 1.0)), "step 1/2  loss 1.000\n");
  clock.now += 0.25;
  EXPECT_EQ(meter.Update(Step(2, 2, 3.0)), "step 2/2  loss 2.000  4.00 steps/s\n");
}

TEST(ProgressMeterTest, StepGoingBackOrEpochChangingStartsAnEpoch) {
  FakeClock clock;
  ProgressMeter meter(false, clock.fn());
  meter.Update(Step(1, 10, 5.0));
  meter.Update(Step(2, 10, 5.0));
  // The loop was left early and started over: the old losses are gone.
  EXPECT_EQ(meter.Update(Step(1, 10, 1.0)), "step 1/10  loss 1.000\n");
  ProgressStep s = Step(2, 10, 3.0);
  s.epoch = 2;
  EXPECT_EQ(meter.Update(s), "epoch 2  step 2/10  loss 3.000\n");
}

// Terminal: in place, at most every 0.1 s, always the first and last step.
// The clock moves 1/32 s per step, exact in binary, so the 0.1 s limit is
// crossed at steps 5 (0.125 s) and 9 (0.25 s).
TEST(ProgressMeterTest, TerminalRedrawsInPlaceAtMostTenTimesASecond) {
  FakeClock clock;
  ProgressMeter meter(true, clock.fn());
  std::vector<std::string> texts;
  for (int64_t step = 1; step <= 10; ++step) {
    texts.push_back(meter.Update(Step(step, 10)));
    clock.now += 1.0 / 32;
  }
  std::vector<int> drawn;
  for (int i = 0; i < 10; ++i) {
    if (!texts[i].empty()) drawn.push_back(i + 1);
  }
  EXPECT_EQ(drawn, (std::vector<int>{1, 5, 9, 10}));
  EXPECT_EQ(texts[0], "\rstep 1/10\x1b[K");
  // 4 steps in 0.125 s.
  EXPECT_EQ(texts[4], "\rstep 5/10  32.0 steps/s\x1b[K");
  EXPECT_EQ(texts[9], "\rstep 10/10  32.0 steps/s\x1b[K\n");
}

TEST(ProgressMeterTest, TerminalKeepsAnUnfinishedEpochsLine) {
  FakeClock clock;
  ProgressMeter meter(true, clock.fn());
  EXPECT_EQ(meter.Update(Step(1, 10)), "\rstep 1/10\x1b[K");
  clock.now += 1;
  ProgressStep s = Step(1, 10);
  s.epoch = 2;
  EXPECT_EQ(meter.Update(s), "\n\repoch 2  step 1/10\x1b[K");
}

TEST(ProgressMeterTest, ClosingTheLineLetsOtherOutputStartOnItsOwn) {
  FakeClock clock;
  ProgressMeter meter(true, clock.fn());
  EXPECT_EQ(meter.CloseLine(), "");  // nothing drawn yet
  EXPECT_EQ(meter.Update(Step(1, 10)), "\rstep 1/10\x1b[K");
  EXPECT_EQ(meter.CloseLine(), "\n");
  EXPECT_EQ(meter.CloseLine(), "");
  clock.now += 1;
  // The next draw is on the new line; a finished epoch leaves none open.
  EXPECT_EQ(meter.Update(Step(10, 10)), "\rstep 10/10  9.00 steps/s\x1b[K\n");
  EXPECT_EQ(meter.CloseLine(), "");
  ProgressMeter piped(false, clock.fn());
  EXPECT_EQ(piped.Update(Step(5, 10)), "step 5/10\n");
  EXPECT_EQ(piped.CloseLine(), "");
}

TEST(ProgressMeterTest, StepZeroIsDrawnOnATerminalButNotPrintedToAPipe) {
  FakeClock clock;
  ProgressMeter terminal(true, clock.fn());
  ProgressMeter piped(false, clock.fn());
  EXPECT_EQ(terminal.Update(Step(0, 5)), "\rstep 0/5\x1b[K");
  EXPECT_EQ(piped.Update(Step(0, 5)), "");
}

}  // namespace
}  // namespace tfg
