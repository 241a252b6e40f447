#include "interp/language/modules.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

namespace fs = std::filesystem;

class ModulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tfg_modules_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "std");
    fs::create_directories(dir_ / "lib");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }

  Status RunMain(const std::string& text, std::string* out_text) {
    Write("main.tfg", text);
    std::ostringstream out, err;
    InterpreterOptions options;
    options.out = &out;
    options.err = &err;
    options.stdlib_dir = (dir_ / "std").string();
    Interpreter interp(options);
    Status s = interp.RunFile((dir_ / "main.tfg").string());
    *out_text = out.str();
    return s;
  }

  fs::path dir_;
};

TEST_F(ModulesTest, StdlibAndRelativeImportsRunOnce) {
  Write("std/mathx.tfg", "print(\"loading mathx\")\nfn double(x) { x * 2 }\nk = 7\n");
  Write("lib/util.tfg", "import mathx\nfn quad(x) { mathx.double(mathx.double(x)) }\n");
  std::string out;
  Status s = RunMain("import mathx\nimport \"lib/util.tfg\" as util\nprint(util.quad(3), mathx.k)\n", &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out, "loading mathx\n12 7\n");
}

TEST_F(ModulesTest, ModulesHaveTheirOwnGlobals) {
  Write("lib/m.tfg", "x = 1\nfn get() { x }\n");
  std::string out;
  Status s = RunMain("import \"lib/m.tfg\" as m\nx = 99\nprint(m.get(), m.x)\nm.x = 5\nprint(m.get())\n", &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out, "1 1\n5\n");
}

// A source file that is a FIFO would block its reader forever: the
// import refuses it as not found, and running it directly is refused as
// every reader of tfg refuses one (ops/core/safe_file.h).
TEST_F(ModulesTest, FifosAreRefusedAtOnce) {
  ASSERT_EQ(::mkfifo((dir_ / "lib/pipe.tfg").c_str(), 0600), 0);
  std::string out;
  Status s = RunMain("import \"lib/pipe.tfg\" as p\n", &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s.ToString();
  Result<std::string> text = ReadTextFile((dir_ / "lib/pipe.tfg").string());
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("it is a FIFO (named pipe), not a regular file"), std::string::npos)
      << text.status().ToString();
}

TEST_F(ModulesTest, MissingModuleListsWhereItLooked) {
  std::string out;
  Status s = RunMain("\nimport nothere\n", &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.span().line, 2);
  EXPECT_NE(s.message().find((dir_ / "std" / "nothere.tfg").string()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find((dir_ / "nothere.tfg").string()), std::string::npos) << s.message();
}

TEST_F(ModulesTest, CyclesAreReported) {
  Write("lib/a.tfg", "import \"b.tfg\" as b\n");
  Write("lib/b.tfg", "import \"a.tfg\" as a\n");
  std::string out;
  Status s = RunMain("import \"lib/a.tfg\" as a\n", &out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("import cycle: a.tfg -> b.tfg -> a.tfg"), std::string::npos) << s.message();
}

TEST_F(ModulesTest, ErrorsInsideAModulePointIntoIt) {
  Write("lib/bad.tfg", "x = 1\ny = x + \"s\"\n");
  std::string out;
  Status s = RunMain("import \"lib/bad.tfg\" as bad\n", &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.span().line, 2);
  EXPECT_NE(s.span().file->path().find("bad.tfg"), std::string::npos);
  ASSERT_EQ(s.notes().size(), 1u);
  EXPECT_EQ(s.notes()[0].message, "imported here");
}

}  // namespace
}  // namespace tfg
