// load_idx, load_npy, save_npy and load_csv as scripts call them
// (interp/language/builtins/builtins_data.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "interp/data/npy.h"
#include "interp/language/interpreter.h"

namespace tfg {
namespace {

namespace fs = std::filesystem;

// A scratch working directory holding the script: relative paths resolve
// against the working directory (tests/interp/language/builtin_paths_test.cc
// checks that the script's own folder plays no part).
class BuiltinsDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("tfg_data_builtins_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "sub");
    old_cwd_ = fs::current_path();
    fs::current_path(dir_);
  }
  void TearDown() override {
    fs::current_path(old_cwd_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void WriteFile(const std::string& name, const std::string& bytes) {
    std::ofstream out(dir_ / name, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  Status Run(const std::string& source, std::string* out_text = nullptr, bool check_only = false) {
    std::ostringstream out, err;
    InterpreterOptions options;
    options.out = &out;
    options.err = &err;
    options.check_only = check_only;
    Interpreter interp(options);
    Status s = interp.RunSource((dir_ / "s.tfg").string(), source);
    if (out_text) *out_text = out.str();
    return s;
  }

  fs::path dir_;
  fs::path old_cwd_;
};

const std::string kImages = std::string{0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2} + std::string("\x00\xff\x33\x66", 4);

TEST_F(BuiltinsDataTest, LoadIdxRelativeToTheWorkingDirectory) {
  WriteFile("sub/img.idx", kImages);
  std::string out;
  Status s = Run("t = load_idx(\"sub/img.idx\")\nprint(t.shape, t.dtype)\nprint(t)\n", &out);
  ASSERT_TRUE(s.ok()) << FormatDiagnostic(s);
  EXPECT_EQ(out, "[2, 1, 2] i32\n[[[  0 255]]\n\n [[ 51 102]]]\n");
}

TEST_F(BuiltinsDataTest, LoadIdxDTypeAndScale) {
  WriteFile("img.idx", kImages);
  std::string out;
  // In f32, as NumPy computes np.float32([51, 102]) * np.float32(1 / 255).
  Status s = Run("a = load_idx(\"img.idx\", scale=1/255)\nprint(a.dtype, a[1])\n"
                 "b = load_idx(\"img.idx\", dtype=f64)\nprint(b.dtype, b[0])\n"
                 "c = load_idx(\"img.idx\", dtype=f64, scale=0.5)\nprint(c.dtype, c[1])\n",
                 &out);
  ASSERT_TRUE(s.ok()) << FormatDiagnostic(s);
  EXPECT_EQ(out, "f32 [[0.20000002 0.40000004]]\nf64 [[  0. 255.]]\nf64 [[25.5 51. ]]\n");
  Status bad = Run("load_idx(\"img.idx\", dtype=i64, scale=0.5)");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "load_idx: scale= needs a float dtype, got dtype=i64");
}

TEST_F(BuiltinsDataTest, ErrorsNameTheBuiltinAndPointAtTheCall) {
  Status s = Run("x = 1\ny = load_idx(\"missing.idx\")\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "load_idx: cannot open 'missing.idx': No such file or directory");
  EXPECT_EQ(s.span().line, 2);
  WriteFile("cut.idx", kImages.substr(0, 18));
  Status cut = Run("load_idx(\"cut.idx\")");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.code(), Code::kDataLoss);
  EXPECT_EQ(cut.message(), "load_idx: 'cut.idx'"
                               " is truncated: header promises 4 bytes of data (shape [2, 1, 2] of u8), found 2");
}

TEST_F(BuiltinsDataTest, SaveThenLoadNpy) {
  std::string out;
  Status s = Run("save_npy(\"sub/a.npy\", [[1.5, 2.0], [3.0, -4.0]])\n"
                 "save_npy(\"flags.npy\", run(constant([true, false])))\n"
                 "a = load_npy(\"sub/a.npy\")\nprint(a.dtype, a.shape, a[1][1])\n"
                 "print(load_npy(\"flags.npy\"))\n",
                 &out);
  ASSERT_TRUE(s.ok()) << FormatDiagnostic(s);
  EXPECT_EQ(out, "f32 [2, 2] -4.0\n[ True False]\n");
  auto direct = data::ReadNpyFile((dir_ / "sub/a.npy").string());
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct->data<float>()[1], 2.0f);
  Status graph = Run("save_npy(\"g.npy\", constant([1.0]))");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.message().find("run(x) gives one"), std::string::npos) << graph.message();
}

TEST_F(BuiltinsDataTest, CheckModeWritesNothing) {
  ASSERT_TRUE(Run("save_npy(\"none.npy\", [1, 2])", nullptr, true).ok());
  EXPECT_FALSE(fs::exists(dir_ / "none.npy"));
}

TEST_F(BuiltinsDataTest, LoadCsvOptions) {
  WriteFile("t.csv", "a;b\n1;2\n3;4\n");
  std::string out;
  Status s = Run("t = load_csv(\"t.csv\", dtype=i32, skip_header=true, delimiter=\";\")\nprint(t.shape, t.dtype, t)\n",
                 &out);
  ASSERT_TRUE(s.ok()) << FormatDiagnostic(s);
  EXPECT_EQ(out, "[2, 2] i32 [[1 2]\n [3 4]]\n");
  Status bad = Run("load_csv(\"t.csv\")");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "load_csv: 't.csv' line 1, field 1: 'a;b' is not a number; "
                                "if the first line is a header, pass skip_header=true");
  Status delim = Run("load_csv(\"t.csv\", delimiter=\";;\")");
  ASSERT_FALSE(delim.ok());
  EXPECT_EQ(delim.message(), "load_csv: the delimiter must be one character, got \";;\"");
}

}  // namespace
}  // namespace tfg
