// TF_CONFIG as the Kubernetes training operator sets it, read into the
// command line's options (interp/app/tf_config.h).
#include "interp/app/tf_config.h"

#include <gtest/gtest.h>

namespace tfg::cli {
namespace {

const char kCluster[] =
    R"({"cluster": {"chief": ["10.0.0.1:2222"], "ps": ["10.0.0.2:2222"],
                    "worker": ["10.0.0.3:2222", "job-worker-1.ns.svc:2222"]},
        "task": {"type": "%s", "index": %d}, "environment": "cloud"})";

std::string Config(const char* type, int index) {
  char text[512];
  std::snprintf(text, sizeof text, kCluster, type, index);
  return text;
}

CliOptions Options(bool worker, Command command = Command::kRun) {
  CliOptions o;
  o.worker = worker;
  o.command = worker ? Command::kRepl : command;
  return o;
}

TEST(TfConfigTest, AWorkerListensAtItsEntry) {
  CliOptions o = Options(true);
  ASSERT_TRUE(ApplyTfConfig(Config("worker", 0).c_str(), o).ok());
  EXPECT_EQ(o.listen, "tcp://10.0.0.3:2222");
  EXPECT_EQ(o.interpreter.cluster, "");
}

TEST(TfConfigTest, AWorkerNamedByHostListensOnEveryInterface) {
  CliOptions o = Options(true);
  ASSERT_TRUE(ApplyTfConfig(Config("worker", 1).c_str(), o).ok());
  EXPECT_EQ(o.listen, "tcp://0.0.0.0:2222");
}

TEST(TfConfigTest, TheChiefGetsEveryOtherJobAndListensAtItsEntry) {
  CliOptions o = Options(false);
  ASSERT_TRUE(ApplyTfConfig(Config("chief", 0).c_str(), o).ok());
  EXPECT_EQ(o.interpreter.cluster,
            "ps=tcp://10.0.0.2:2222,worker=tcp://10.0.0.3:2222;tcp://job-worker-1.ns.svc:2222");
  EXPECT_EQ(o.interpreter.master_listen, "tcp://10.0.0.1:2222");
}

TEST(TfConfigTest, FlagsTakePrecedence) {
  CliOptions o = Options(false);
  o.interpreter.cluster = "ps=tcp://127.0.0.1:7001";
  o.interpreter.master_listen = "tcp://127.0.0.1:7000";
  ASSERT_TRUE(ApplyTfConfig(Config("chief", 0).c_str(), o).ok());
  EXPECT_EQ(o.interpreter.cluster, "ps=tcp://127.0.0.1:7001");
  EXPECT_EQ(o.interpreter.master_listen, "tcp://127.0.0.1:7000");
  CliOptions w = Options(true);
  w.listen = "tcp://127.0.0.1:7005";
  ASSERT_TRUE(ApplyTfConfig(Config("ps", 0).c_str(), w).ok());
  EXPECT_EQ(w.listen, "tcp://127.0.0.1:7005");
}

TEST(TfConfigTest, UnsetOrBlankChangesNothing) {
  CliOptions o = Options(true);
  EXPECT_TRUE(ApplyTfConfig(nullptr, o).ok());
  EXPECT_TRUE(ApplyTfConfig("  \n", o).ok());
  EXPECT_EQ(o.listen, "");
}

TEST(TfConfigTest, MistakesNameTheField) {
  CliOptions o = Options(true);
  Status s = ApplyTfConfig(Config("worker", 2).c_str(), o);
  EXPECT_EQ(s.message(), "TF_CONFIG: task.index is 2, but job 'worker' has 2 tasks");
  s = ApplyTfConfig(Config("evaluator", 0).c_str(), o);
  EXPECT_EQ(s.message(), "TF_CONFIG: task.type is 'evaluator', which the cluster has no job of");
  s = ApplyTfConfig(R"({"cluster": {"ps": "10.0.0.2:2222"}, "task": {"type": "ps"}})", o);
  EXPECT_EQ(s.message(), "TF_CONFIG: cluster.ps is a string, expected a list of \"host:port\"");
  s = ApplyTfConfig(R"({"cluster": {"ps": ["10.0.0.2"]}, "task": {"type": "ps"}})", o);
  EXPECT_EQ(s.message(), "TF_CONFIG: '10.0.0.2' is not host:port");
  s = ApplyTfConfig(R"({"cluster": )", o);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("TF_CONFIG: not valid JSON at offset 12"), std::string::npos) << s.message();
}

TEST(TfConfigTest, AnEvaluatorIsNotSupportedYetAndTheChiefLeavesItOut) {
  const std::string config = R"({"cluster": {"chief": ["10.0.0.1:2222"], "worker": ["10.0.0.3:2222"],
                                             "evaluator": ["10.0.0.9:2222"]}, "task": {"type": "%s", "index": 0}})";
  CliOptions e = Options(false);
  std::string text = config;
  text.replace(text.find("%s"), 2, "evaluator");
  EXPECT_EQ(ApplyTfConfig(text.c_str(), e).message(),
            "TF_CONFIG: this task is evaluator:0, and an evaluator task is not supported yet: leave the Evaluator "
            "replicas out (the chief's cluster skips them)");
  CliOptions w = Options(true);
  EXPECT_EQ(ApplyTfConfig(text.c_str(), w).code(), Code::kInvalidArgument);
  text = config;
  text.replace(text.find("%s"), 2, "chief");
  CliOptions c = Options(false);
  ASSERT_TRUE(ApplyTfConfig(text.c_str(), c).ok());
  EXPECT_EQ(c.interpreter.cluster, "worker=tcp://10.0.0.3:2222");
}

TEST(TfConfigTest, AWorkerTaskDoesNotRunAScriptAndTheChiefIsNoWorker) {
  CliOptions o = Options(false);
  EXPECT_EQ(ApplyTfConfig(Config("worker", 0).c_str(), o).message(),
            "TF_CONFIG: this task is worker:0: start it with `tfg --worker` (the script runs on the chief)");
  CliOptions w = Options(true);
  EXPECT_EQ(ApplyTfConfig(Config("chief", 0).c_str(), w).message(),
            "TF_CONFIG: this task is chief:0, which runs the script: drop --worker");
}

TEST(TfConfigTest, DeepNestingIsRefusedNotRecursedInto) {
  CliOptions o = Options(true);
  std::string deep(100000, '[');
  Status s = ApplyTfConfig(deep.c_str(), o);
  EXPECT_NE(s.message().find("nested too deeply"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tfg::cli
