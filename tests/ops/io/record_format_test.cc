#include "ops/io/record_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/io/crc32c.h"
#include "tests/ops/io/io_test_util.h"

namespace tfg::io {
namespace {

using test::TempDirTest;

class RecordFormatTest : public TempDirTest {
 protected:
  // Every record of `path`, or the first error.
  Result<std::vector<std::string>> ReadAll(const std::string& path, Compression c = Compression::kNone) {
    TFG_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> file, InputFile::Open(path, c));
    std::vector<std::string> out;
    for (;;) {
      TFG_ASSIGN_OR_RETURN(std::optional<std::string> r, ReadRecord(*file));
      if (!r) return out;
      out.push_back(*r);
    }
  }
  static std::string Encode(const std::vector<std::string>& records) {
    std::string bytes;
    for (const std::string& r : records) AppendRecord(bytes, r);
    return bytes;
  }
};

// The layout written out by hand: length, masked CRC of the length bytes,
// data, masked CRC of the data, all little-endian.
TEST_F(RecordFormatTest, EncodesTheDocumentedLayout) {
  std::string bytes = Encode({"abc"});
  ASSERT_EQ(bytes.size(), 8u + 4u + 3u + 4u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  const char len[8] = {3, 0, 0, 0, 0, 0, 0, 0};
  uint32_t len_crc = MaskCrc(Crc32c(len, 8));
  uint32_t data_crc = MaskCrc(Crc32c("abc", 3));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(static_cast<unsigned char>(bytes[8 + i]), (len_crc >> (8 * i)) & 0xFF) << i;
    EXPECT_EQ(static_cast<unsigned char>(bytes[15 + i]), (data_crc >> (8 * i)) & 0xFF) << i;
  }
  EXPECT_EQ(bytes.substr(12, 3), "abc");
}

TEST_F(RecordFormatTest, RoundTripsRecordsOfManySizes) {
  std::vector<std::string> records = {"", "x", std::string(1, '\0'), std::string(70000, 'q'), "tail\n\r"};
  auto got = ReadAll(WriteFile("r.rec", Encode(records)));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, records);
}

TEST_F(RecordFormatTest, ReadsAnEmptyFileAsNoRecords) {
  auto got = ReadAll(WriteFile("empty.rec", ""));
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->empty());
}

TEST_F(RecordFormatTest, RoundTripsThroughGzip) {
  std::vector<std::string> records = {"first", "second", std::string(5000, 'z')};
  auto got = ReadAll(WriteGzipFile("r.rec.gz", Encode(records)), Compression::kGzip);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, records);
}

// Cutting the file anywhere inside the second record is DataLoss naming the
// file and that record's offset (19: the first record is 12 + 3 + 4 bytes).
TEST_F(RecordFormatTest, TruncationAtEveryOffsetIsDataLoss) {
  std::string bytes = Encode({"abc", "defgh"});
  for (size_t cut = 20; cut < bytes.size(); ++cut) {
    std::string path = WriteFile("cut.rec", bytes.substr(0, cut));
    auto got = ReadAll(path);
    ASSERT_FALSE(got.ok()) << "cut at " << cut;
    EXPECT_EQ(got.status().code(), Code::kDataLoss);
    EXPECT_NE(got.status().message().find("cut.rec"), std::string::npos) << got.status().message();
    EXPECT_NE(got.status().message().find("offset 19"), std::string::npos) << got.status().message();
  }
}

// Flipping any bit of any byte is detected: either CRC no longer matches,
// or a changed length no longer fits the file.
TEST_F(RecordFormatTest, ACorruptByteAnywhereIsDataLoss) {
  std::string bytes = Encode({"abc", "defgh"});
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (int bit : {0, 7}) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(bad[at] ^ (1 << bit));
      auto got = ReadAll(WriteFile("bad.rec", bad));
      ASSERT_FALSE(got.ok()) << "byte " << at << " bit " << bit;
      EXPECT_EQ(got.status().code(), Code::kDataLoss) << got.status().ToString();
      std::string where = at < 19 ? "offset 0" : "offset 19";
      EXPECT_NE(got.status().message().find(where), std::string::npos) << at << ": " << got.status().message();
    }
  }
}

// A huge length with a valid CRC is refused before anything is allocated.
TEST_F(RecordFormatTest, ALengthBeyondTheFileIsRefused) {
  std::string bytes;
  const char len[8] = {0, 0, 0, 0, 0, 0, 0, 0x40};  // 2^62
  bytes.append(len, 8);
  uint32_t crc = MaskCrc(Crc32c(len, 8));
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
  bytes += "short";
  auto got = ReadAll(WriteFile("huge.rec", bytes));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kDataLoss);
  EXPECT_NE(got.status().message().find("4611686018427387904 bytes"), std::string::npos) << got.status().message();
  // Through gzip the size is unknown: the length is over what a reader
  // takes at once (MaxRecordBytes), refused before reading the data.
  auto gz = ReadAll(WriteGzipFile("huge.rec.gz", bytes), Compression::kGzip);
  ASSERT_FALSE(gz.ok());
  EXPECT_EQ(gz.status().code(), Code::kResourceExhausted);
  EXPECT_NE(gz.status().message().find("the record at byte offset 0 is longer than"), std::string::npos)
      << gz.status().message();
}

}  // namespace
}  // namespace tfg::io
