// The progress line of a training loop (the `progress` builtin): what it
// says (epoch, step/steps, running mean of the loss, examples or steps per
// second) and when it is drawn. On a terminal one line is rewritten in place
// at most ten times a second; into a file or pipe a plain line is written at
// every tenth of an epoch, so a log gets about ten lines per epoch. The
// clock is injected, so all of this is testable without a terminal or time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tfg {

// The builtin checks the ranges: steps >= 1, 0 <= step <= steps, batch >= 1.
struct ProgressStep {
  int64_t step = 0;   // steps done so far in this epoch
  int64_t steps = 1;  // steps in one epoch
  std::optional<double> loss;
  std::optional<int64_t> epoch;
  std::optional<int64_t> epochs;
  std::optional<int64_t> batch;  // examples per step; the rate is then in examples/s
};

// "epoch 2/10  step 300/938  loss 0.4312  1234 ex/s"; parts without a value
// are left out.
std::string FormatProgressLine(const ProgressStep& s, std::optional<double> mean_loss, std::optional<double> rate);

class ProgressMeter {
 public:
  static constexpr double kMinRedrawSeconds = 0.1;

  // `now` returns monotonic seconds.
  ProgressMeter(bool terminal, std::function<double()> now);

  // Records one call and returns the text due on stderr ("" when nothing is).
  // An epoch starts at the first call, when the epoch number or the step
  // count changes, when the step goes back, and after an epoch's last step.
  std::string Update(const ProgressStep& s);
  // The text that ends a line drawn in place ("\n", or "" when none is
  // open), so that other output starts on a line of its own; the next
  // update draws below it.
  std::string CloseLine();

 private:
  bool StartsEpoch(const ProgressStep& s) const;
  void StartEpoch(const ProgressStep& s, double now);
  bool Due(const ProgressStep& s, double now) const;
  std::optional<double> Rate(const ProgressStep& s, double now) const;

  bool terminal_;
  std::function<double()> now_;
  bool started_ = false;
  std::optional<int64_t> epoch_;
  int64_t steps_ = 0;
  int64_t last_step_ = 0;
  int64_t start_step_ = 0;     // the step of the epoch's first call
  double start_time_ = 0;      // when the epoch's first call came
  double loss_sum_ = 0;
  int64_t loss_count_ = 0;
  bool drawn_this_epoch_ = false;
  double last_draw_ = 0;       // terminal: when the line was last drawn
  int64_t last_tenth_ = 0;     // pipe: the tenth of the epoch last printed
  bool line_open_ = false;     // terminal: a line is drawn without its newline
};

}  // namespace tfg
