#include "ops/io/checkpoint_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/ops/op_test_util.h"

namespace tfg::checkpoint {
namespace {

namespace fs = std::filesystem;

class CheckpointFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tfg_ckpt_file_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void WriteRaw(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  std::string dir_;
};

TEST_F(CheckpointFile, WritesAtomicallyIntoNewDirectories) {
  const std::string path = dir_ + "/a/b/model";
  std::vector<Entry> entries = {{"w", test::MakeTensor<float>({1, 2, 3}, {3})}};
  ASSERT_TRUE(Write(path, entries).ok());
  // Only the checkpoint is there: the temporary file was renamed.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_ + "/a/b")) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"model"});
  auto back = Read(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  test::ExpectTensorEq<float>((*back)[0].value, {1, 2, 3}, {3});
  // Overwriting replaces the old contents whole.
  ASSERT_TRUE(Write(path, {{"v", test::MakeTensor<int64_t>({9}, {})}}).ok());
  back = Read(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].name, "v");
}

TEST_F(CheckpointFile, ErrorsNameTheFile) {
  test::ExpectError(Read(dir_ + "/none"), Code::kNotFound, "cannot open checkpoint '" + dir_ + "/none'");
  WriteRaw(dir_ + "/junk", "hello, not a checkpoint at all");
  test::ExpectError(Read(dir_ + "/junk"), Code::kDataLoss,
                    "checkpoint '" + dir_ + "/junk' is refused: not a tfg checkpoint");
  test::ExpectError(Read(dir_), Code::kInvalidArgument, "is a directory");
  // A file where a directory should be.
  WriteRaw(dir_ + "/file", "x");
  Status s = Write(dir_ + "/file/model", {});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir_ + "/file"), std::string::npos) << s.message();
}

TEST_F(CheckpointFile, ListsStepFilesInStepOrder) {
  for (int step : {100, 20, 3}) ASSERT_TRUE(Write(dir_ + "/model-" + std::to_string(step), {}).ok());
  WriteRaw(dir_ + "/model-7.tmp-123", "half written");
  WriteRaw(dir_ + "/model-x", "");
  WriteRaw(dir_ + "/other-5", "");
  fs::create_directory(dir_ + "/model-999");
  auto found = List(dir_, "model");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->size(), 3u);
  EXPECT_EQ((*found)[0], std::make_pair(int64_t{3}, dir_ + "/model-3"));
  EXPECT_EQ((*found)[1].first, 20);
  EXPECT_EQ((*found)[2].first, 100);
  auto none = List(dir_ + "/absent", "model");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(CheckpointFile, RecognizesCheckpointsByTheirMagic) {
  ASSERT_TRUE(Write(dir_ + "/ck", {}).ok());
  WriteRaw(dir_ + "/text", "TFGCKP");
  EXPECT_TRUE(LooksLikeCheckpoint(dir_ + "/ck"));
  EXPECT_FALSE(LooksLikeCheckpoint(dir_ + "/text"));
  EXPECT_FALSE(LooksLikeCheckpoint(dir_ + "/absent"));
  EXPECT_FALSE(LooksLikeCheckpoint(dir_));
}

}  // namespace
}  // namespace tfg::checkpoint
