// Reading a --curve-keys directory: key files are opened as every reader of
// tfg opens files, so a FIFO, a device or a huge file given as a key is an
// error naming it at once, never a hang or an allocation of the file's size.
#include "net/curve.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tfg::net {
namespace {

namespace fs = std::filesystem;

class CurveKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CheckCurveSupport().ok()) GTEST_SKIP() << "libzmq without CURVE";
    std::string tmpl = (fs::temp_directory_path() / "tfg_curve_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(GenerateCurveKeys(dir_).ok());
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  // Replaces `name` by `text` with `mode`.
  void Write(const std::string& name, const std::string& text, mode_t mode) const {
    fs::remove(Path(name));
    std::ofstream(Path(name), std::ios::binary) << text;
    ASSERT_EQ(::chmod(Path(name).c_str(), mode), 0);
  }
  std::string LoadError() const {
    Result<CurveKeys> keys = LoadCurveKeys(dir_);
    return keys.ok() ? "loaded" : keys.status().message();
  }

  std::string dir_;
};

TEST_F(CurveKeysTest, TheKeysKeygenWritesLoad) {
  Result<CurveKeys> keys = LoadCurveKeys(dir_);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(keys->server_public.size(), 40u);
  EXPECT_EQ(keys->client_secret.size(), 40u);
  ASSERT_EQ(keys->authorized.size(), 1u);
  EXPECT_EQ(*keys->authorized.begin(), keys->client_public);
}

TEST_F(CurveKeysTest, CommentsBlankLinesAndCrlfAroundTheKeyAreAccepted) {
  char pub[41] = {}, sec[41] = {};
  ASSERT_EQ(zmq_curve_keypair(pub, sec), 0);
  Write("client.key", std::string("# a comment\r\n\r\n  ") + sec + " \r\n# another\r\n", 0600);
  Result<CurveKeys> keys = LoadCurveKeys(dir_);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(keys->client_secret, sec);
  EXPECT_EQ(keys->client_public, pub);
}

TEST_F(CurveKeysTest, AFifoAsAKeyIsRefusedWithoutBlocking) {
  fs::remove(Path("server.key"));
  ASSERT_EQ(::mkfifo(Path("server.key").c_str(), 0600), 0);
  EXPECT_EQ(LoadError(), "cannot read CURVE key file '" + Path("server.key") +
                             "': it is a FIFO (named pipe), not a regular file");
}

TEST_F(CurveKeysTest, ADeviceBehindASymlinkIsRefused) {
  fs::remove(Path("client.key"));
  fs::create_symlink("/dev/zero", Path("client.key"));
  EXPECT_EQ(LoadError(),
            "cannot read CURVE key file '" + Path("client.key") + "': it is a character device, not a regular file");
}

TEST_F(CurveKeysTest, AHugeKeyFileIsRefusedBeforeItIsRead) {
  // 8 GiB, sparse: reading it line by line would need 8 GiB of memory.
  fs::remove(Path("client.key"));
  std::ofstream(Path("client.key")).close();
  ASSERT_EQ(::chmod(Path("client.key").c_str(), 0600), 0);
  ASSERT_EQ(::truncate(Path("client.key").c_str(), 8LL << 30), 0);
  EXPECT_EQ(LoadError(), "CURVE key file '" + Path("client.key") +
                             "': 8589934592 bytes, not a key file (a key file is a line of 40 characters)");
}

TEST_F(CurveKeysTest, AnAuthorizedKeyOverTheSizeLimitIsRefused) {
  // 64 KiB + 1 of comments: one byte past the limit.
  Write("authorized/long.pub", std::string(64 * 1024, '#') + "\n", 0644);
  EXPECT_EQ(LoadError(), "CURVE key file '" + Path("authorized/long.pub") +
                             "': 65537 bytes, not a key file (a key file is a line of 40 characters)");
}

TEST_F(CurveKeysTest, ADirectoryNamedLikeAKeyIsRefused) {
  fs::create_directory(Path("authorized/dir.pub"));
  EXPECT_EQ(LoadError(),
            "cannot read CURVE key file '" + Path("authorized/dir.pub") + "': it is a directory, not a regular file");
}

TEST_F(CurveKeysTest, ASecretKeyReadableByOthersIsRefused) {
  ASSERT_EQ(::chmod(Path("server.key").c_str(), 0640), 0);
  EXPECT_EQ(LoadError(), "CURVE key file '" + Path("server.key") +
                             "': a secret key readable by others (mode 640): chmod 600 it");
}

}  // namespace
}  // namespace tfg::net
