#include "interp/runtime/progress.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace tfg {
namespace {

// Few digits: the line is read at a glance, and a width that stays put
// keeps an in-place line from flickering.
std::string FormatRate(double rate) {
  if (rate >= 100) return fmt::format("{:.0f}", rate);
  if (rate >= 10) return fmt::format("{:.1f}", rate);
  return fmt::format("{:.2f}", rate);
}

// Four significant digits, trailing zeros kept: 0.4312, 12.00, 8.308e-05.
std::string FormatLoss(double loss) {
  if (std::isnan(loss)) return "nan";
  if (std::isinf(loss)) return loss > 0 ? "inf" : "-inf";
  return fmt::format("{:#.4g}", loss);
}

}  // namespace

std::string FormatProgressLine(const ProgressStep& s, std::optional<double> mean_loss, std::optional<double> rate) {
  std::string line;
  if (s.epoch && s.epochs) {
    line = fmt::format("epoch {}/{}  ", *s.epoch, *s.epochs);
  } else if (s.epoch) {
    line = fmt::format("epoch {}  ", *s.epoch);
  }
  line += fmt::format("step {}/{}", s.step, s.steps);
  if (mean_loss) line += "  loss " + FormatLoss(*mean_loss);
  if (rate) line += "  " + FormatRate(*rate) + (s.batch ? " ex/s" : " steps/s");
  return line;
}

ProgressMeter::ProgressMeter(bool terminal, std::function<double()> now)
    : terminal_(terminal), now_(std::move(now)) {}

bool ProgressMeter::StartsEpoch(const ProgressStep& s) const {
  return !started_ || s.epoch != epoch_ || s.steps != steps_ || s.step < last_step_ || last_step_ >= steps_;
}

void ProgressMeter::StartEpoch(const ProgressStep& s, double now) {
  started_ = true;
  epoch_ = s.epoch;
  steps_ = s.steps;
  start_step_ = s.step;
  start_time_ = now;
  loss_sum_ = 0;
  loss_count_ = 0;
  drawn_this_epoch_ = false;
  last_tenth_ = 0;
}

bool ProgressMeter::Due(const ProgressStep& s, double now) const {
  if (s.step == s.steps) return true;
  if (terminal_) return !drawn_this_epoch_ || now - last_draw_ >= kMinRedrawSeconds;
  return s.step * 10 / s.steps > last_tenth_;
}

// Measured from the epoch's first call: the steps before it are not timed.
std::optional<double> ProgressMeter::Rate(const ProgressStep& s, double now) const {
  double elapsed = now - start_time_;
  int64_t steps = s.step - start_step_;
  if (steps <= 0 || elapsed <= 0) return std::nullopt;
  return static_cast<double>(steps * s.batch.value_or(1)) / elapsed;
}

std::string ProgressMeter::Update(const ProgressStep& s) {
  double now = now_();
  std::string text;
  if (StartsEpoch(s)) {
    // An epoch left unfinished keeps its last line on screen.
    if (line_open_) text += "\n";
    line_open_ = false;
    StartEpoch(s, now);
  }
  last_step_ = s.step;
  if (s.loss) {
    loss_sum_ += *s.loss;
    ++loss_count_;
  }
  if (!Due(s, now)) return text;
  std::optional<double> mean;
  if (loss_count_ > 0) mean = loss_sum_ / static_cast<double>(loss_count_);
  std::string line = FormatProgressLine(s, mean, Rate(s, now));
  drawn_this_epoch_ = true;
  last_tenth_ = s.step * 10 / s.steps;
  if (!terminal_) return text + line + "\n";
  last_draw_ = now;
  line_open_ = s.step != s.steps;
  return text + "\r" + line + "\x1b[K" + (line_open_ ? "" : "\n");
}

std::string ProgressMeter::CloseLine() {
  if (!line_open_) return "";
  line_open_ = false;
  return "\n";
}

}  // namespace tfg
