// One rule for the paths builtins take: relative to the working directory,
// as in Python and TensorFlow, wherever the calling script lives. Each test
// runs a script named elsewhere/script.tfg from a fresh working directory in
// which elsewhere/ holds decoys: a builtin that resolved against the
// script's folder would read or write those instead.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

namespace fs = std::filesystem;

class BuiltinPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_cwd_ = fs::current_path();
    dir_ = fs::temp_directory_path() / ("tfg_paths_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "elsewhere");
    fs::current_path(dir_);
  }
  void TearDown() override {
    fs::current_path(old_cwd_);
    fs::remove_all(dir_);
  }

  static void Write(const fs::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f << bytes;
  }

  // Runs the source as elsewhere/script.tfg; returns what it printed.
  std::string Run(const std::string& source) {
    std::ostringstream out, err;
    InterpreterOptions options;
    options.out = &out;
    options.err = &err;
    Interpreter interp(options);
    Status s = interp.RunSource("elsewhere/script.tfg", source);
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << err.str();
    return out.str();
  }

  fs::path old_cwd_;
  fs::path dir_;
};

// A 1-D u8 IDX file: magic 0x00000801, one big-endian dimension, the bytes.
std::string Idx(const std::string& values) {
  return std::string("\0\0\x08\x01\0\0\0", 7) + static_cast<char>(values.size()) + values;
}

TEST_F(BuiltinPathsTest, LoadIdx) {
  Write("labels.idx1", Idx("\x07\x09"));
  Write("elsewhere/labels.idx1", Idx("\x01"));
  EXPECT_EQ(Run("print(load_idx(\"labels.idx1\"))\n"), "[7 9]\n");
}

TEST_F(BuiltinPathsTest, SaveNpyAndLoadNpy) {
  EXPECT_EQ(Run("save_npy(\"a.npy\", [1.5, 2.5])\nprint(load_npy(\"a.npy\"))\n"), "[1.5 2.5]\n");
  EXPECT_TRUE(fs::exists("a.npy"));
  EXPECT_FALSE(fs::exists("elsewhere/a.npy"));
}

TEST_F(BuiltinPathsTest, SaveNpzAndLoadNpz) {
  EXPECT_EQ(Run("save_npz(\"a.npz\", {\"w\": [3, 4]})\nprint(load_npz(\"a.npz\")[\"w\"])\n"), "[3 4]\n");
  EXPECT_TRUE(fs::exists("a.npz"));
  EXPECT_FALSE(fs::exists("elsewhere/a.npz"));
}

TEST_F(BuiltinPathsTest, LoadCsv) {
  Write("t.csv", "1,2\n3,4\n");
  Write("elsewhere/t.csv", "9,9\n");
  EXPECT_EQ(Run("print(load_csv(\"t.csv\"))\n"), "[[1. 2.]\n [3. 4.]]\n");
}

TEST_F(BuiltinPathsTest, WriteLinesAndReadTokens) {
  Write("elsewhere/words.txt", "decoy\n");
  EXPECT_EQ(Run("write_lines(\"words.txt\", [\"red fox\", \"blue\"])\nprint(len(read_tokens(\"words.txt\")))\n"),
            "3\n");
  EXPECT_TRUE(fs::exists("words.txt"));
}

TEST_F(BuiltinPathsTest, WriteRecords) {
  EXPECT_EQ(Run("print(write_records(\"r.rec\", [\"a\", \"b\"]))\n"), "2\n");
  EXPECT_TRUE(fs::exists("r.rec"));
  EXPECT_FALSE(fs::exists("elsewhere/r.rec"));
}

TEST_F(BuiltinPathsTest, ExportAndImportGraphDef) {
  Run("x = placeholder(f32, [2], name=\"x\")\ny = identity(x * 2, name=\"y\")\n"
      "export_graph_def(\"g.pb\", fetches=[y])\n"
      "d = import_graph_def(\"g.pb\", input_map={\"x:0\": constant([1.0, 2.0])})\n"
      "print(run(d[\"y:0\"]))\n");
  EXPECT_TRUE(fs::exists("g.pb"));
  EXPECT_FALSE(fs::exists("elsewhere/g.pb"));
}

TEST_F(BuiltinPathsTest, SaveRestoreAndLatestCheckpoint) {
  EXPECT_EQ(Run("v = variable([5.0], name=\"v\")\nrun(init())\nsave(\"ckpt/model-3\", vars=[v])\n"
                "run(assign(v, [0.0]))\nrestore(\"ckpt/model-3\", vars=[v])\nprint(run(v))\n"
                "print(latest_checkpoint(\"ckpt\"))\n"),
            "[5.]\nckpt/model-3\n");
  EXPECT_TRUE(fs::exists("ckpt/model-3"));
  EXPECT_FALSE(fs::exists("elsewhere/ckpt"));
}

TEST_F(BuiltinPathsTest, SummaryWriter) {
  Run("w = summary_writer(\"logs\")\n");
  EXPECT_TRUE(fs::is_directory("logs"));
  EXPECT_FALSE(fs::exists("elsewhere/logs"));
}

}  // namespace
}  // namespace tfg
