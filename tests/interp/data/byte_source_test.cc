#include "interp/data/byte_source.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/interp/data/test_files.h"

namespace tfg::data {
namespace {

using testing::Gzip;
using testing::ScratchFile;

TEST(ByteSourceTest, MemorySourceCountsDown) {
  auto src = MemorySource("hello", "m");
  EXPECT_EQ(src->MaxRemaining(), 5u);
  EXPECT_TRUE(src->exact_size());
  char buf[3];
  auto got = src->ReadFully(buf, 3);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 3u);
  EXPECT_EQ(src->MaxRemaining(), 2u);
  EXPECT_FALSE(*src->AtEnd());  // reads the 'l'
  EXPECT_EQ(*src->ReadRest(), "o");
  EXPECT_TRUE(*src->AtEnd());
}

TEST(ByteSourceTest, GzipIsDetectedAndBounded) {
  std::string text(100000, 'a');
  ScratchFile plain(".txt"), gz(".gz");
  plain.Write(text);
  gz.Write(Gzip(text));
  auto p = OpenFile(plain.path());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE((*p)->exact_size());
  EXPECT_EQ((*p)->MaxRemaining(), 100000u);
  auto g = OpenFile(gz.path());
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE((*g)->exact_size());
  // Deflate's best ratio is about 1032:1: the bound covers the real size
  // without being unlimited.
  uint64_t bound = (*g)->MaxRemaining();
  EXPECT_GE(bound, 100000u);
  EXPECT_LE(bound, 1040u * std::filesystem::file_size(gz.path()) + 65536u);
  EXPECT_EQ(*(*g)->ReadRest(), text);
}

TEST(ByteSourceTest, CutGzipIsTruncated) {
  std::string gz = Gzip(std::string(5000, 'x') + "tail");
  ScratchFile file(".gz");
  file.Write(gz.substr(0, gz.size() - 6));  // drop most of the CRC and length trailer
  auto src = OpenFile(file.path());
  ASSERT_TRUE(src.ok());
  auto rest = (*src)->ReadRest();
  // zlib either reports the cut as an error or flags it after a short read.
  EXPECT_TRUE(!rest.ok() || (*src)->truncated());
}

TEST(ByteSourceTest, WriteFileAtomicallyReplacesTheFile) {
  ScratchFile file(".bin");
  file.Write("old contents");
  ASSERT_TRUE(WriteFileAtomically(file.path(), "new").ok());
  EXPECT_EQ(file.Read(), "new");
  // No temporary file is left next to it.
  int siblings = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(file.path()).parent_path())) {
    siblings += e.path().string().rfind(file.path() + ".tmp", 0) == 0;
  }
  EXPECT_EQ(siblings, 0);
}

}  // namespace
}  // namespace tfg::data
