// Checkpoints and the in-graph readers on files that are not regular files,
// and on lines or records longer than a reader takes at once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "ops/core/memory_budget.h"
#include "ops/io/checkpoint_file.h"
#include "ops/io/reader_input.h"
#include "ops/io/reader_source.h"
#include "ops/io/record_format.h"
#include "tests/ops/io/io_test_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::io::files_test {
namespace {

namespace fs = std::filesystem;

// Sets a budget for one test and restores the machine's default after.
class ScopedMemoryLimit {
 public:
  explicit ScopedMemoryLimit(int64_t bytes) { SetMemoryLimit(bytes); }
  ~ScopedMemoryLimit() { SetMemoryLimit(0); }
};

void ExpectFailure(const Status& s, Code code, const std::string& substr) {
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_NE(s.message().find(substr), std::string::npos) << s.message();
}

class IoFilesTest : public test::TempDirTest {
 protected:
  std::string Fifo(const std::string& name) {
    const std::string path = (dir_ / name).string();
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
    return path;
  }
  static bool IsFifo(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  }
};

TEST_F(IoFilesTest, RestoreRefusesAFifoAndDevicesAtOnce) {
  const std::string fifo = Fifo("ckpt");
  const auto start = std::chrono::steady_clock::now();
  test::ExpectError(checkpoint::Read(fifo), Code::kInvalidArgument,
                    "cannot read checkpoint '" + fifo + "': it is a FIFO (named pipe), not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  test::ExpectError(checkpoint::Read("/dev/zero"), Code::kInvalidArgument,
                    "cannot read checkpoint '/dev/zero': it is a character device, not a regular file");
  EXPECT_FALSE(checkpoint::LooksLikeCheckpoint(fifo));
}

TEST_F(IoFilesTest, CheckpointLargerThanTheMemoryLimitIsRefusedUnread) {
  const std::string path = (dir_ / "model").string();
  ASSERT_TRUE(checkpoint::Write(path, {{"w", test::MakeTensor<float>(std::vector<float>(1024, 1.0f), {1024})}}).ok());
  ScopedMemoryLimit limit(1000);  // the file holds 4 KiB of floats alone
  test::ExpectError(checkpoint::Read(path), Code::kResourceExhausted, "(the memory limit, --memory-limit 1000 bytes)");
}

TEST_F(IoFilesTest, SaveRefusesAFifoAndADeviceAndLeavesThem) {
  const std::vector<checkpoint::Entry> entries = {{"w", test::MakeTensor<float>({1, 2}, {2})}};
  const std::string fifo = Fifo("ckpt");
  ExpectFailure(checkpoint::Write(fifo, entries), Code::kInvalidArgument,
                "cannot write '" + fifo + "': it is a FIFO (named pipe), not a regular file");
  EXPECT_TRUE(IsFifo(fifo));
  ExpectFailure(checkpoint::Write("/dev/full", entries), Code::kInvalidArgument,
                "cannot write '/dev/full': it is a character device");
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // Nothing but the FIFO is left in the directory (no temporary file).
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"ckpt"});
}

TEST_F(IoFilesTest, SaveThroughASymlinkWritesItsTarget) {
  const std::string target = WriteFile("real", "old");
  const std::string link = (dir_ / "link").string();
  fs::create_symlink(target, link);
  ASSERT_TRUE(checkpoint::Write(link, {{"w", test::MakeTensor<float>({5}, {1})}}).ok());
  EXPECT_TRUE(fs::is_symlink(link));
  auto back = checkpoint::Read(target);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  test::ExpectTensorEq<float>((*back)[0].value, {5}, {1});
}

TEST_F(IoFilesTest, InputFileRefusesAFifo) {
  const std::string fifo = Fifo("lines");
  for (Compression c : {Compression::kNone, Compression::kGzip}) {
    test::ExpectError(InputFile::Open(fifo, c), Code::kInvalidArgument,
                      "cannot read '" + fifo + "': it is a FIFO (named pipe), not a regular file");
  }
}

// The reproducer was an 8 GB line in an 8 MB gzip file; the same, scaled to
// a small budget: the line is refused once it passes the limit.
TEST_F(IoFilesTest, GzipLineLongerThanTheLimitIsAnError) {
  const std::string path = WriteGzipFile("long.gz", "short\n" + std::string(300 << 10, 'a') + "\nafter\n");
  ScopedMemoryLimit limit(256 << 10);
  EXPECT_EQ(MaxRecordBytes(), uint64_t{256} << 10);
  auto source = MakeTextLineSource(Compression::kGzip, 0);
  ASSERT_TRUE(source->Open(path).ok());
  auto first = source->Next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(**first, "short");
  auto second = source->Next();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kResourceExhausted);
  EXPECT_NE(second.status().message().find("'" + path + "': the line at byte offset 6 is longer than 262144 bytes"),
            std::string::npos)
      << second.status().message();
}

TEST_F(IoFilesTest, LineOfExactlyTheCapIsRead) {
  const std::string path = WriteFile("edge.txt", std::string(4096, 'b') + "\r\n" + std::string(4096, 'c'));
  ScopedMemoryLimit limit(4096);
  auto source = MakeTextLineSource(Compression::kNone, 0);
  ASSERT_TRUE(source->Open(path).ok());
  auto a = source->Next();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ((*a)->size(), 4096u);
  auto b = source->Next();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)->size(), 4096u);
}

TEST_F(IoFilesTest, RecordLongerThanTheLimitIsAnError) {
  std::string bytes;
  AppendRecord(bytes, std::string(300 << 10, 'r'));
  const std::string path = WriteGzipFile("big.rec.gz", bytes);
  ScopedMemoryLimit limit(256 << 10);
  auto source = MakeRecordFileSource(Compression::kGzip);
  ASSERT_TRUE(source->Open(path).ok());
  test::ExpectError(source->Next(), Code::kResourceExhausted,
                    "'" + path + "': the record at byte offset 0 is longer than 262144 bytes");
}

TEST(MaxRecordBytesTest, IsTheCapUnlessTheBudgetIsSmaller) {
  SetMemoryLimit(int64_t{64} << 30);
  EXPECT_EQ(MaxRecordBytes(), kMaxRecordBytesCap);
  EXPECT_EQ(kMaxRecordBytesCap, uint64_t{256} << 20);
  SetMemoryLimit(1 << 20);
  EXPECT_EQ(MaxRecordBytes(), uint64_t{1} << 20);
  SetMemoryLimit(0);
}

}  // namespace
}  // namespace tfg::io::files_test
