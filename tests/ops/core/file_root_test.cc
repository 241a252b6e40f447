#include "ops/core/file_root.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace tfg {
namespace {

namespace fs = std::filesystem;

class FileRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::canonical(fs::temp_directory_path()) / ("tfg_file_root_" + std::to_string(::getpid()));
    fs::remove_all(base_);
    fs::create_directories(base_ / "data" / "sub");
    fs::create_directories(base_ / "outside");
    fs::create_symlink(base_ / "outside", base_ / "data" / "escape");
    root_ = (base_ / "data").string();
  }
  void TearDown() override { fs::remove_all(base_); }
  fs::path base_;
  std::string root_;
};

TEST_F(FileRootTest, RelativePathsStartAtTheRoot) {
  auto p = ResolveUnder(root_, "sub/model.ckpt");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(*p, root_ + "/sub/model.ckpt");
  auto q = ResolveUnder(root_, "sub/../new/x.txt");  // does not exist yet: still checked
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(*q, root_ + "/new/x.txt");
  EXPECT_TRUE(ResolveUnder(root_, root_ + "/sub").ok());
}

TEST_F(FileRootTest, PathsLeavingTheRootAreRefused) {
  for (const std::string path : {"../outside/x", "/etc/passwd", "escape/x", "sub/../../data2/x", "/"}) {
    auto p = ResolveUnder(root_, path);
    ASSERT_FALSE(p.ok()) << path;
    EXPECT_EQ(p.status().code(), Code::kPermissionDenied);
    EXPECT_EQ(p.status().message(),
              "the path '" + path + "' is outside this worker's --data-dir " + root_);
  }
}

// A sibling whose name starts with the root's is not inside it.
TEST_F(FileRootTest, APrefixOfTheNameIsNotEnough) {
  fs::create_directories(base_ / "data2");
  EXPECT_FALSE(ResolveUnder(root_, (base_ / "data2" / "x").string()).ok());
}

}  // namespace
}  // namespace tfg
