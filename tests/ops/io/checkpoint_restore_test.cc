// save()/restore() through the interpreter: all-or-nothing restores, the
// names in mismatch errors, corrupted files refused with every variable
// left as it was, and errors pointing at the calling line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

namespace fs = std::filesystem;

class CheckpointRestore : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tfg_ckpt_restore_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    InterpreterOptions options;
    options.session.inter_op_threads = options.session.intra_op_threads = 1;
    options.session.seed = 1;
    options.quiet = true;
    options.out = &out_;
    options.err = &err_;
    interp_ = std::make_unique<Interpreter>(options);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs a chunk in the interpreter's persistent scope; its value printed.
  Result<std::string> Eval(const std::string& code) { return interp_->EvalInteractive(code); }
  void Ok(const std::string& code) {
    auto r = Eval(code);
    ASSERT_TRUE(r.ok()) << code << "\n" << r.status().ToString();
  }
  std::string Value(const std::string& code) {
    auto r = Eval(code);
    EXPECT_TRUE(r.ok()) << code << "\n" << r.status().ToString();
    return r.ok() ? *r : std::string();
  }
  void ExpectFails(const std::string& code, const std::string& substr) {
    auto r = Eval(code);
    ASSERT_FALSE(r.ok()) << code;
    EXPECT_NE(r.status().message().find(substr), std::string::npos)
        << "message: " << r.status().message() << "\nexpected to contain: " << substr;
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Q(const std::string& name) const { return "\"" + Path(name) + "\""; }
  static std::string ReadAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static void WriteAll(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  // Two variables saved as [1, 2] and 7, then changed to [5, 6] and 0.
  void SaveThenChange() {
    Ok("v = variable([1.0, 2.0], name=\"v\")\nn = variable(7, name=\"n\")\ninit()\nsave(" + Q("ck") + ")");
    Ok("run([assign(v, [5.0, 6.0]), assign(n, 0)])");
  }
  void ExpectChanged() {
    EXPECT_EQ(Value("run(v)"), "[5. 6.]");
    EXPECT_EQ(Value("run(n)"), "0");
  }

  std::ostringstream out_, err_;
  std::unique_ptr<Interpreter> interp_;
  std::string dir_;
};

TEST_F(CheckpointRestore, BringsSavedValuesBack) {
  SaveThenChange();
  ExpectChanged();
  Ok("restore(" + Q("ck") + ")");
  EXPECT_EQ(Value("run(v)"), "[1. 2.]");
  EXPECT_EQ(Value("run(n)"), "7");
}

TEST_F(CheckpointRestore, RestoreInitializesUninitializedVariables) {
  Ok("a = variable([3.0, 4.0], name=\"a\")\ninit()\nsave(" + Q("ck") + ")");
  Ok("reset()");
  ExpectFails("run(a)", "before it is initialized");
  Ok("restore(" + Q("ck") + ")");
  EXPECT_EQ(Value("run(a)"), "[3. 4.]");
}

TEST_F(CheckpointRestore, CorruptFilesAreRefusedAndNothingChanges) {
  SaveThenChange();
  const std::string good = ReadAll(Path("ck"));
  ASSERT_GT(good.size(), 40u);
  for (size_t i = 0; i < good.size(); i += 3) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    WriteAll(Path("ck"), bad);
    ExpectFails("restore(" + Q("ck") + ")", "checkpoint '" + Path("ck") + "'");
    ExpectChanged();
  }
  for (size_t n = 0; n < good.size(); n += 5) {
    WriteAll(Path("ck"), good.substr(0, n));
    ExpectFails("restore(" + Q("ck") + ")", "is refused");
    ExpectChanged();
  }
  WriteAll(Path("ck"), good + "trailing");
  ExpectFails("restore(" + Q("ck") + ")", "does not end with the end marker");
  ExpectChanged();
  WriteAll(Path("ck"), good);
  Ok("restore(" + Q("ck") + ")");
  EXPECT_EQ(Value("run(v)"), "[1. 2.]");
}

TEST_F(CheckpointRestore, MissingVariablesAreNamedAndNothingChanges) {
  SaveThenChange();
  Ok("later1 = variable([0.0], name=\"later1\")\nlater2 = variable([0.0], name=\"later2\")\ninit()");
  Ok("run([assign(v, [5.0, 6.0]), assign(n, 0)])");
  ExpectFails("restore(" + Q("ck") + ")", "not in the file: 'later1', 'later2'");
  ExpectChanged();
  // A subset that the file has restores fine.
  Ok("restore(" + Q("ck") + ", vars=[v])");
  EXPECT_EQ(Value("run(v)"), "[1. 2.]");
  EXPECT_EQ(Value("run(n)"), "0");
}

TEST_F(CheckpointRestore, ShapeAndDTypeMismatchesNameBothTypes) {
  SaveThenChange();
  Ok("wide = variable([0.0, 0.0, 0.0], name=\"wide\")\nwhole = variable([0, 0], name=\"whole\")\ninit()");
  Ok("run([assign(v, [5.0, 6.0]), assign(n, 0)])");
  ExpectFails("restore(" + Q("ck") + ", vars={\"v\": wide})", "'v' is f32[2] in the file but the variable is f32[3]");
  ExpectFails("restore(" + Q("ck") + ", vars={\"v\": whole})", "'v' is f32[2] in the file but the variable is i32[2]");
  ExpectChanged();
}

TEST_F(CheckpointRestore, TensorsMatchingNoVariableAreListed) {
  Ok("a = variable([1.0], name=\"a\")\ninit()");
  Ok("save(" + Q("many") +
     ", vars={\"x1\": a, \"x2\": a, \"x3\": a, \"x4\": a, \"x5\": a, \"x6\": a, \"x7\": a})");
  ExpectFails("restore(" + Q("many") + ")",
              "in the file but matching no variable: 'x1', 'x2', 'x3', 'x4', 'x5' and 2 more");
  ExpectFails("restore(" + Q("many") + ")", "not in the file: 'a'");
  // Given vars, the other tensors of the file are simply not used.
  Ok("run(assign(a, [9.0]))\nrestore(" + Q("many") + ", vars={\"x6\": a})");
  EXPECT_EQ(Value("run(a)"), "[1.]");
}

TEST_F(CheckpointRestore, SavesStringsAndHalfs) {
  Ok("s = variable([\"a\", \"\", \"long string\"], name=\"s\")\nh = variable([0.5, -2.0], dtype=f16, name=\"h\")\n"
     "init()\nsave(" + Q("ck") + ")\nrun([assign(s, [\"x\", \"y\", \"z\"]), assign(h, [1.0, 1.0])])");
  Ok("restore(" + Q("ck") + ")");
  EXPECT_EQ(Value("run(h)"), "[ 0.5 -2. ]");
  EXPECT_EQ(Value("run(s)[2]"), "\"long string\"");  // the interactive echo shows a string's repr
}

TEST_F(CheckpointRestore, ErrorsPointAtTheCallingLine) {
  Ok("v = variable([1.0], name=\"v\")\ninit()");
  const std::string script = "save(" + Q("a") + ")\nrestore(" + Q("a") + ")\nx = 1\nrestore(" + Q("absent") + ")\n";
  Status s = interp_->RunSource("calls.tfg", script);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.span().line, 4) << s.ToString();
  EXPECT_NE(s.message().find("cannot open checkpoint '" + Path("absent") + "'"), std::string::npos) << s.message();
}

TEST_F(CheckpointRestore, SaveNeedsInitializedVariablesAndLeavesNoFile) {
  Ok("u = variable([1.0], name=\"u\")");
  ExpectFails("save(" + Q("ck") + ")", "have no value yet: 'u'");
  EXPECT_FALSE(fs::exists(Path("ck")));
}

TEST_F(CheckpointRestore, VarsMustBeVariables) {
  Ok("v = variable([1.0], name=\"v\")\ninit()");
  ExpectFails("save(" + Q("ck") + ", vars=[1])", "vars must hold variables, got an int");
  ExpectFails("save(" + Q("ck") + ", vars={1: v})", "the keys of a vars dict");
  ExpectFails("save(" + Q("ck") + ", vars=[v, v])", "both be saved as 'v'");
  ExpectFails("save(" + Q("ck") + ", vars=[])", "no variables to save");
}

}  // namespace
}  // namespace tfg
