// The data loaders (load_idx, load_npy, load_csv) and save_npy on files that
// are not regular files, and on input larger than the memory budget.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "interp/data/csv.h"
#include "interp/data/idx.h"
#include "interp/data/npy.h"
#include "ops/core/memory_budget.h"
#include "tests/interp/data/test_files.h"

namespace tfg::data::special_files_test {
namespace {

using testing::ScratchFile;

// A FIFO nobody writes to: opening it for reading the usual way blocks.
class Fifo {
 public:
  Fifo() : file_(".fifo") { EXPECT_EQ(::mkfifo(file_.path().c_str(), 0600), 0); }
  const std::string& path() const { return file_.path(); }

 private:
  ScratchFile file_;
};

std::string NotRegular(const std::string& path, const std::string& kind) {
  return "cannot read '" + path + "': it is " + kind + ", not a regular file";
}

TEST(SpecialFilesTest, LoadersRefuseAFifoAtOnce) {
  Fifo fifo;
  const auto start = std::chrono::steady_clock::now();
  Result<Tensor> idx = ReadIdxFile(fifo.path());
  Result<Tensor> npy = ReadNpyFile(fifo.path());
  Result<Tensor> csv = ReadCsvFile(fifo.path(), {});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  for (const Result<Tensor>* r : {&idx, &npy, &csv}) {
    ASSERT_FALSE(r->ok());
    EXPECT_EQ(r->status().code(), Code::kInvalidArgument);
    EXPECT_EQ(r->status().message(), NotRegular(fifo.path(), "a FIFO (named pipe)"));
  }
}

// /dev/zero never ends: read whole, it would take all memory.
TEST(SpecialFilesTest, LoadersRefuseDevices) {
  EXPECT_EQ(ReadNpyFile("/dev/zero").status().message(), NotRegular("/dev/zero", "a character device"));
  EXPECT_EQ(ReadCsvFile("/dev/zero", {}).status().message(), NotRegular("/dev/zero", "a character device"));
  EXPECT_EQ(ReadIdxFile("/dev/null").status().message(), NotRegular("/dev/null", "a character device"));
}

TEST(SpecialFilesTest, SaveNpyRefusesAFifoAndADevice) {
  Fifo fifo;
  const Tensor t = Tensor::Vector<float>({1, 2});
  Status s = WriteNpyFile(fifo.path(), t);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot write '" + fifo.path() +
                             "': it is a FIFO (named pipe), not a regular file; writers replace only regular files");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // still a FIFO, not replaced by a file
  EXPECT_EQ(WriteNpyFile("/dev/full", t).code(), Code::kInvalidArgument);
  ASSERT_EQ(::lstat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(SpecialFilesTest, SaveNpyThroughASymlinkWritesTheTarget) {
  ScratchFile target(".npy");
  ScratchFile link(".link.npy");
  target.Write("old");
  std::filesystem::create_symlink(target.path(), link.path());
  ASSERT_TRUE(WriteNpyFile(link.path(), Tensor::Vector<int32_t>({7, 8})).ok());
  EXPECT_TRUE(std::filesystem::is_symlink(link.path()));
  Result<Tensor> back = ReadNpyFile(target.path());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->data<int32_t>()[0], 7);
  EXPECT_EQ(back->data<int32_t>()[1], 8);
}

// A gzipped CSV that unpacks to more than the budget is refused while it
// is read, not after it took the memory.
TEST(SpecialFilesTest, CsvLargerThanTheMemoryLimitIsRefused) {
  ScratchFile file(".csv.gz");
  file.Write(testing::Gzip(std::string(1 << 20, '1')));  // one 1 MiB field
  SetMemoryLimit(256 << 10);
  Result<Tensor> t = ReadCsvFile(file.path(), {});
  SetMemoryLimit(0);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(t.status().message(), "'" + file.path() +
                                      "' does not fit in memory: it holds more than the memory limit of 256 KiB "
                                      "(--memory-limit)");
}

// Raw bytes of a bad field would reach the user's terminal: escape
// sequences among them are escaped, and a long field is cut.
TEST(SpecialFilesTest, CsvErrorsEscapeAndCutTheField) {
  Result<Tensor> esc = ParseCsv("1,2\n3,\x1b[2J\x07\n", "d.csv", {});
  ASSERT_FALSE(esc.ok());
  EXPECT_EQ(esc.status().message(), "'d.csv' line 2, field 2: '\\x1b[2J\\x07' is not a number");
  Result<Tensor> big = ParseCsv("1" + std::string(5000, '#') + "\n", "d.csv", {});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "'d.csv' line 1, field 1: '1" + std::string(63, '#') + "... (5001 bytes)' is not a number");
}

}  // namespace
}  // namespace tfg::data::special_files_test
