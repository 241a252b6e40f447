#include "interp/app/cli.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace tfg::cli {
namespace {

CliOptions Parse(std::vector<std::string> args) {
  auto r = ParseArgs(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : CliOptions{};
}

std::string ParseError(std::vector<std::string> args) {
  auto r = ParseArgs(args);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(ParseArgsTest, NoArgumentsStartsTheRepl) {
  CliOptions o = Parse({});
  EXPECT_EQ(o.command, Command::kRepl);
  EXPECT_EQ(o.interpreter.session.inter_op_threads, 0);
  EXPECT_EQ(o.interpreter.session.seed, 0u);
  EXPECT_FALSE(o.interpreter.quiet);
  EXPECT_FALSE(o.interpreter.session.check_numerics);
}

TEST(ParseArgsTest, CheckNumericsIsAFlag) {
  CliOptions o = Parse({"--check-numerics", "train.tfg", "--check-numerics"});
  EXPECT_TRUE(o.interpreter.session.check_numerics);
  EXPECT_EQ(o.interpreter.argv, (std::vector<std::string>{"--check-numerics"}));
  EXPECT_TRUE(Parse({"check", "m.tfg", "--check-numerics"}).interpreter.session.check_numerics);
  EXPECT_EQ(ParseError({"--check-numerics=1", "a.tfg"}), "unknown option '--check-numerics=1'");
}

TEST(ParseArgsTest, OptionsBeforeFileAndEverythingAfterIsArgv) {
  CliOptions o = Parse({"--threads", "3", "--seed=42", "-q", "train.tfg", "--seed", "7", "x"});
  EXPECT_EQ(o.command, Command::kRun);
  EXPECT_EQ(o.file, "train.tfg");
  EXPECT_EQ(o.interpreter.session.inter_op_threads, 3);
  EXPECT_EQ(o.interpreter.session.intra_op_threads, 3);
  EXPECT_EQ(o.interpreter.session.seed, 42u);
  EXPECT_TRUE(o.interpreter.quiet);
  EXPECT_EQ(o.interpreter.argv, (std::vector<std::string>{"--seed", "7", "x"}));
}

TEST(ParseArgsTest, DoubleDashEndsOptions) {
  CliOptions o = Parse({"--", "-odd.tfg", "a"});
  EXPECT_EQ(o.command, Command::kRun);
  EXPECT_EQ(o.file, "-odd.tfg");
  EXPECT_EQ(o.interpreter.argv, (std::vector<std::string>{"a"}));
  // A script named like a subcommand.
  EXPECT_EQ(Parse({"--", "check"}).command, Command::kRun);
  EXPECT_EQ(Parse({"--", "check"}).file, "check");
}

TEST(ParseArgsTest, DashIsStdin) {
  CliOptions o = Parse({"-", "a"});
  EXPECT_EQ(o.command, Command::kRun);
  EXPECT_EQ(o.file, "-");
  EXPECT_EQ(o.interpreter.argv, (std::vector<std::string>{"a"}));
}

TEST(ParseArgsTest, CheckAndGraphTakeOptionsAfterFile) {
  CliOptions c = Parse({"check", "m.tfg", "--seed", "5", "--", "a1"});
  EXPECT_EQ(c.command, Command::kCheck);
  EXPECT_EQ(c.file, "m.tfg");
  EXPECT_EQ(c.interpreter.session.seed, 5u);
  EXPECT_EQ(c.interpreter.argv, (std::vector<std::string>{"a1"}));
  CliOptions g = Parse({"--quiet", "graph", "m.tfg", "--dot"});
  EXPECT_EQ(g.command, Command::kGraph);
  EXPECT_EQ(g.file, "m.tfg");
  EXPECT_TRUE(g.interpreter.quiet);
  EXPECT_EQ(Parse({"graph", "--dot", "m.tfg"}).file, "m.tfg");
}

TEST(ParseArgsTest, HelpAndVersionWin) {
  EXPECT_EQ(Parse({"--help"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"check", "-h"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"--version"}).command, Command::kVersion);
  // After FILE, --help belongs to the script.
  EXPECT_EQ(Parse({"s.tfg", "--help"}).interpreter.argv, (std::vector<std::string>{"--help"}));
}

TEST(ParseArgsTest, DocOps) {
  EXPECT_EQ(Parse({"doc", "ops"}).command, Command::kDocOps);
  EXPECT_EQ(ParseError({"doc"}), "'doc' needs a topic (known: ops)");
  EXPECT_EQ(ParseError({"doc", "kernels"}), "unknown doc topic 'kernels' (known: ops)");
}

TEST(ParseArgsTest, UsageErrors) {
  EXPECT_EQ(ParseError({"--frob"}), "unknown option '--frob'");
  EXPECT_EQ(ParseError({"--threads"}), "option --threads needs a value");
  EXPECT_EQ(ParseError({"--threads", "2x", "a.tfg"}),
            "--threads expects a whole number from 1 to 4096, found '2x'");
  EXPECT_EQ(ParseError({"--threads=0", "a.tfg"}), "--threads expects a whole number from 1 to 4096, found '0'");
  EXPECT_EQ(ParseError({"--seed", "-1"}), "--seed expects a non-negative whole number, found '-1'");
  EXPECT_EQ(ParseError({"--seed", "99999999999999999999"}),
            "--seed expects a non-negative whole number, found '99999999999999999999'");
  EXPECT_EQ(ParseError({"check"}), "check needs a FILE");
  EXPECT_EQ(ParseError({"graph", "a.tfg", "b.tfg"}),
            "unexpected argument 'b.tfg' after a.tfg (script arguments go after '--')");
  EXPECT_EQ(ParseError({"--dot", "a.tfg"}), "unknown option '--dot'");
}

TEST(ParseArgsTest, UsageErrorsAreInvalidArgument) {
  EXPECT_EQ(ParseArgs({"--frob"}).status().code(), Code::kInvalidArgument);
}

TEST(ParseArgsTest, WorkerMode) {
  auto r = ParseArgs({"--worker", "--listen", "tcp://127.0.0.1:7001", "--master-timeout", "5"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->command, Command::kWorker);
  EXPECT_EQ(r->listen, "tcp://127.0.0.1:7001");
  EXPECT_EQ(r->master_timeout, 5);
  EXPECT_EQ(ParseError({"--worker", "a.tfg"}), "--worker runs no script: drop 'a.tfg'");
  EXPECT_EQ(ParseError({"--worker"}), "--worker needs --listen ADDR, e.g. --listen tcp://127.0.0.1:7001");
  EXPECT_EQ(ParseError({"--listen", ":7001", "a.tfg"}), "--listen goes with --worker");
}

TEST(ParseArgsTest, Cluster) {
  auto r = ParseArgs({"--cluster", "ps=tcp://127.0.0.1:7001,worker=tcp://127.0.0.1:7002;:7003", "--heartbeat",
                      "0.5", "a.tfg"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->interpreter.heartbeat, 0.5);
  EXPECT_EQ(ParseError({"--cluster", "ps", "a.tfg"}),
            "--cluster expects JOB=ADDR;ADDR,JOB=ADDR (e.g. ps=tcp://127.0.0.1:7001), found 'ps'");
  EXPECT_EQ(ParseError({"--cluster", "ps=tcp://127.0.0.1:x", "a.tfg"}),
            "job 'ps': 'tcp://127.0.0.1:x' is not an address: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:7001");
  EXPECT_EQ(ParseError({"--heartbeat", "0", "a.tfg"}), "--heartbeat expects seconds from 0.01 to 3600, found '0'");
}

TEST(ParseArgsTest, SecurityAndCompression) {
  auto w = ParseArgs({"--worker", "--listen", ":7001", "--curve-keys", "keys", "--data-dir=/srv/data"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->curve_keys, "keys");
  EXPECT_EQ(w->data_dir, "/srv/data");
  auto m = ParseArgs({"--compress-transfers", "--curve-keys=keys", "a.tfg"});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->compress_transfers);
  EXPECT_EQ(m->curve_keys, "keys");
  auto k = ParseArgs({"keygen", "keys"});
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->command, Command::kKeygen);
  EXPECT_EQ(k->file, "keys");
  EXPECT_EQ(ParseError({"keygen"}), "keygen needs a DIR");
  EXPECT_EQ(ParseError({"--data-dir", "d", "a.tfg"}), "--data-dir goes with --worker");
  EXPECT_EQ(ParseError({"--worker", "--listen", ":1", "--compress-transfers"}),
            "--compress-transfers is the master's choice (it tells the workers): drop it here");
  EXPECT_EQ(ParseError({"--curve-keys=", "a.tfg"}), "--curve-keys expects a directory");
}

TEST(ParseArgsTest, StatsAndTrace) {
  auto r = ParseArgs({"--stats", "--trace", "out.json", "a.tfg"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->interpreter.session.collect_stats);
  EXPECT_TRUE(r->interpreter.session.trace);
  EXPECT_EQ(r->trace_path, "out.json");
  auto eq = ParseArgs({"--trace=t.json", "a.tfg"});
  ASSERT_TRUE(eq.ok()) << eq.status().ToString();
  EXPECT_EQ(eq->trace_path, "t.json");
  EXPECT_FALSE(ParseArgs({"--trace=", "a.tfg"}).ok());
}

TEST(ParseArgsTest, OutputOptionsNeverNameAnExistingScript) {
  // `tfg --trace train.tfg`: the script was read as the trace's file name.
  const std::string script = ::testing::TempDir() + "cli_test_train.tfg";
  std::ofstream(script) << "print(1)\n";
  EXPECT_EQ(ParseError({"--trace", script}),
            "--trace " + script + " names an existing script, which it would overwrite; give --trace a file of its "
            "own (e.g. --trace trace.json)");
  EXPECT_EQ(ParseError({"--logdir=" + script, "a.tfg"}),
            "--logdir " + script + " names an existing script, which it would overwrite; give --logdir a file of "
            "its own (e.g. --logdir logs)");
  std::remove(script.c_str());
  // A .tfg name that does not exist yet is an ordinary output file.
  EXPECT_EQ(Parse({"--trace", script, "a.tfg"}).trace_path, script);
}

TEST(UsageTest, MentionsEveryOption) {
  std::string usage = Usage();
  for (const char* s :
       {"--threads", "--seed", "--quiet", "--check-numerics", "--stats", "--trace", "--help", "--version", "check",
        "graph", "--dot", "keygen", "--curve-keys", "--data-dir", "--compress-transfers"}) {
    EXPECT_NE(usage.find(s), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace tfg::cli
