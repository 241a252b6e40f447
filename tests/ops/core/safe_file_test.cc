#include "ops/core/safe_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace tfg::safe_file_test {
namespace {

namespace fs = std::filesystem;

class SafeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tfg_safe_file_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& bytes) const {
    std::ofstream(Path(name), std::ios::binary) << bytes;
    return Path(name);
  }
  std::string Fifo(const std::string& name) const {
    EXPECT_EQ(::mkfifo(Path(name).c_str(), 0600), 0);
    return Path(name);
  }
  static std::string Slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // The names in the directory: a write leaves no temporary file behind.
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

TEST_F(SafeFileTest, ReadsARegularFile) {
  const std::string path = Write("a.txt", "hello");
  Result<std::string> text = ReadRegularFile(path, 100);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "hello");
}

// With no writer, opening a FIFO would block forever: it is refused at once.
TEST_F(SafeFileTest, RefusesAFifoWithoutBlocking) {
  const std::string fifo = Fifo("pipe");
  const auto start = std::chrono::steady_clock::now();
  Result<RegularFile> opened = OpenRegularFile(fifo);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(opened.status().message(), "cannot read '" + fifo + "': it is a FIFO (named pipe), not a regular file");
}

TEST_F(SafeFileTest, RefusesDevicesAndDirectories) {
  Result<std::string> zero = ReadRegularFile("/dev/zero", 100);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(), "cannot read '/dev/zero': it is a character device, not a regular file");
  Result<std::string> dir = ReadRegularFile(dir_.string(), 100, "checkpoint");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), "cannot read checkpoint '" + dir_.string() + "': it is a directory, not a regular file");
}

TEST_F(SafeFileTest, MissingFileIsNotFound) {
  Result<std::string> missing = ReadRegularFile(Path("none"), 100, "script");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(), "cannot open script '" + Path("none") + "': No such file or directory");
}

TEST_F(SafeFileTest, FileLargerThanTheCapIsRefused) {
  const std::string path = Write("big", std::string(101, 'x'));
  Result<std::string> text = ReadRegularFile(path, 100);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(text.status().message(), "cannot read '" + path + "': it is 101 bytes, more than the 100 that may be read");
  EXPECT_TRUE(ReadRegularFile(path, 101).ok());
}

TEST_F(SafeFileTest, WriteCreatesAndReplacesRegularFiles) {
  const std::string path = Path("out.bin");
  ASSERT_TRUE(WriteFileReplacing(path, "first").ok());
  EXPECT_EQ(Slurp(path), "first");
  ::chmod(path.c_str(), 0640);
  ASSERT_TRUE(WriteFileReplacing(path, "second").ok());
  EXPECT_EQ(Slurp(path), "second");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file's permissions stay
  EXPECT_EQ(Names(), std::vector<std::string>{"out.bin"});
}

TEST_F(SafeFileTest, WriteRefusesAFifoAndLeavesIt) {
  const std::string fifo = Fifo("pipe");
  Status s = WriteFileReplacing(fifo, "data");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot write '" + fifo +
                             "': it is a FIFO (named pipe), not a regular file; writers replace only regular files");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(Names(), std::vector<std::string>{"pipe"});
}

TEST_F(SafeFileTest, WriteRefusesADevice) {
  for (const char* device : {"/dev/null", "/dev/full"}) {
    Status s = WriteFileReplacing(device, "data");
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << device;
    EXPECT_EQ(s.message(), std::string("cannot write '") + device +
                               "': it is a character device, not a regular file; writers replace only regular files");
    struct stat st {};
    ASSERT_EQ(::lstat(device, &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << device;
  }
}

TEST_F(SafeFileTest, WriteRefusesADirectory) {
  fs::create_directory(Path("sub"));
  EXPECT_EQ(WriteFileReplacing(Path("sub"), "x").code(), Code::kInvalidArgument);
  EXPECT_TRUE(fs::is_directory(Path("sub")));
}

// Through a link the file it points to is written, and the link stays.
TEST_F(SafeFileTest, WriteThroughASymlinkWritesItsTarget) {
  const std::string target = Write("target.txt", "old");
  fs::create_symlink("target.txt", Path("link"));  // relative: resolved from the link's directory
  ASSERT_TRUE(WriteFileReplacing(Path("link"), "new").ok());
  EXPECT_TRUE(fs::is_symlink(Path("link")));
  EXPECT_EQ(fs::read_symlink(Path("link")), "target.txt");
  EXPECT_EQ(Slurp(target), "new");
  EXPECT_EQ(*WritablePath(Path("link")), target);
  // A link to a FIFO is refused, naming both.
  const std::string fifo = Fifo("pipe");
  fs::create_symlink(fifo, Path("to_pipe"));
  Status s = WriteFileReplacing(Path("to_pipe"), "x");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("where the link '" + Path("to_pipe") + "' leads"), std::string::npos) << s.message();
}

TEST_F(SafeFileTest, WriteMakesParentsWhenAsked) {
  const std::string path = Path("a/b/c.bin");
  EXPECT_EQ(WriteFileReplacing(path, "x").code(), Code::kNotFound);
  ASSERT_TRUE(WriteFileReplacing(path, "x", WriteOptions{.sync = true, .make_parents = true}).ok());
  EXPECT_EQ(Slurp(path), "x");
}

TEST(FileKindOfTest, NamesEachKind) {
  EXPECT_EQ(FileKindOf(S_IFREG), "");
  EXPECT_EQ(FileKindOf(S_IFIFO), "a FIFO (named pipe)");
  EXPECT_EQ(FileKindOf(S_IFCHR), "a character device");
  EXPECT_EQ(FileKindOf(S_IFBLK), "a block device");
  EXPECT_EQ(FileKindOf(S_IFSOCK), "a socket");
  EXPECT_EQ(FileKindOf(S_IFDIR), "a directory");
}

}  // namespace
}  // namespace tfg::safe_file_test
