// checkpoint_every across "process" restarts: a training run stopped after
// k steps and started again by a fresh interpreter resumes from its newest
// checkpoint and ends with the same values as a run that was never stopped.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

namespace fs = std::filesystem;

// Adam on a small least-squares problem: its slots and beta powers are
// variables too, so a resume only matches when every one is restored.
// argv: the checkpoint directory, the step to stop before.
constexpr const char* kTrainScript = R"(
x = constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = constant([[1.0], [2.0], [3.0]])
W = variable([[0.1], [-0.2]], name="W")
b = variable([0.0], name="b")
loss = mean(square(x @ W + b - y))
train = minimize(loss, adam(0.05))
init()
ck = checkpoint_every(3, argv[0], keep=2)
print("resumed at", ck["step"])
for step in range(ck["step"], int(argv[1])) {
  run(train)
  ck["after_step"](step)
}
print(run(W), run(b), run(loss))
)";

class CheckpointResume : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tfg_ckpt_resume_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the training script in a new interpreter; its stdout.
  static std::string Train(const std::string& ckpt_dir, int stop) {
    std::ostringstream out, err;
    InterpreterOptions options;
    options.session.inter_op_threads = options.session.intra_op_threads = 1;
    options.session.seed = 1;
    options.quiet = true;
    options.argv = {ckpt_dir, std::to_string(stop)};
    options.out = &out;
    options.err = &err;
    Interpreter interp(options);
    Status s = interp.RunSource("train.tfg", kTrainScript);
    EXPECT_TRUE(s.ok()) << FormatDiagnostic(s) << err.str();
    return out.str();
  }
  static std::string LastLine(const std::string& text) {
    std::string t = text;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    return t.substr(t.rfind('\n') + 1);
  }
  std::vector<std::string> Files(const std::string& sub) const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ + "/" + sub)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string dir_;
};

TEST_F(CheckpointResume, StoppedRunResumesAndMatchesAnUninterruptedOne) {
  const std::string whole = Train(dir_ + "/whole", 10);
  EXPECT_NE(whole.find("resumed at 0\n"), std::string::npos) << whole;

  // Stopped after 7 steps: checkpoints after steps 3 and 6; step 7's work is lost.
  const std::string first = Train(dir_ + "/split", 7);
  EXPECT_EQ(Files("split"), (std::vector<std::string>{"model-3", "model-6"}));
  const std::string second = Train(dir_ + "/split", 10);
  EXPECT_NE(second.find("resumed at 6\n"), std::string::npos) << second;
  EXPECT_EQ(LastLine(second), LastLine(whole));
  EXPECT_NE(LastLine(first), LastLine(whole));
  // keep=2: the newest two remain.
  EXPECT_EQ(Files("split"), (std::vector<std::string>{"model-6", "model-9"}));
}

TEST_F(CheckpointResume, RunPastTheEndResumesWithoutTraining) {
  Train(dir_ + "/done", 6);
  const std::string again = Train(dir_ + "/done", 6);
  EXPECT_NE(again.find("resumed at 6\n"), std::string::npos) << again;
}

}  // namespace
}  // namespace tfg
