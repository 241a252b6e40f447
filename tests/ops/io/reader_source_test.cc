// The readers' file logic: which records text_line_reader,
// fixed_length_record_reader and record_reader find in a file.
#include "ops/io/reader_source.h"

#include <gtest/gtest.h>

#include "ops/io/reader_input.h"
#include "ops/io/record_format.h"
#include "tests/ops/io/io_test_util.h"

namespace tfg::io {
namespace {

class ReaderSourceTest : public test::TempDirTest {
 protected:
  static Result<std::vector<std::string>> ReadAll(RecordSource& source, const std::string& path) {
    TFG_RETURN_IF_ERROR(source.Open(path));
    std::vector<std::string> out;
    for (;;) {
      TFG_ASSIGN_OR_RETURN(std::optional<std::string> r, source.Next());
      if (!r) return out;
      out.push_back(*r);
    }
  }
  using Lines = std::vector<std::string>;
};

TEST_F(ReaderSourceTest, TextLinesWithAndWithoutATrailingNewline) {
  auto source = MakeTextLineSource(Compression::kNone, 0);
  auto with = ReadAll(*source, WriteFile("a.txt", "one\ntwo\n\nfour\n"));
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  EXPECT_EQ(*with, (Lines{"one", "two", "", "four"}));
  auto without = ReadAll(*source, WriteFile("b.txt", "one\ntwo"));
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(*without, (Lines{"one", "two"}));
  auto empty = ReadAll(*source, WriteFile("c.txt", ""));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_F(ReaderSourceTest, TextLinesDropCarriageReturnsBeforeNewlines) {
  auto source = MakeTextLineSource(Compression::kNone, 0);
  auto got = ReadAll(*source, WriteFile("crlf.txt", "a,b\r\nc\rd\r\n\r\nlast\r"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, (Lines{"a,b", "c\rd", "", "last"}));
}

TEST_F(ReaderSourceTest, TextLinesLongerThanTheBuffer) {
  std::string long_line(200000, 'x');
  auto source = MakeTextLineSource(Compression::kNone, 0);
  auto got = ReadAll(*source, WriteFile("long.txt", "s\n" + long_line + "\nt"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, (Lines{"s", long_line, "t"}));
}

TEST_F(ReaderSourceTest, SkipHeaderLinesSkipsInEveryFile) {
  auto source = MakeTextLineSource(Compression::kNone, 2);
  auto got = ReadAll(*source, WriteFile("h.csv", "title\nx,y\n1,2\n3,4\n"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, (Lines{"1,2", "3,4"}));
  auto only_header = ReadAll(*source, WriteFile("h2.csv", "title\n"));
  ASSERT_TRUE(only_header.ok());
  EXPECT_TRUE(only_header->empty());
}

TEST_F(ReaderSourceTest, GzipTextLines) {
  auto source = MakeTextLineSource(Compression::kGzip, 1);
  auto got = ReadAll(*source, WriteGzipFile("g.txt.gz", "header\nalpha\nbeta"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, (Lines{"alpha", "beta"}));
}

TEST_F(ReaderSourceTest, GzipRefusesAPlainFile) {
  auto source = MakeTextLineSource(Compression::kGzip, 0);
  auto got = ReadAll(*source, WriteFile("plain.txt", "not compressed\n"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kDataLoss);
  EXPECT_NE(got.status().message().find("not gzip data"), std::string::npos) << got.status().message();
}

TEST_F(ReaderSourceTest, ACutGzipStreamIsDataLoss) {
  std::string full;
  for (int i = 0; i < 2000; ++i) full += "line " + std::to_string(i) + "\n";
  std::string gz = ReadFile(WriteGzipFile("full.gz", full));
  auto source = MakeTextLineSource(Compression::kGzip, 0);
  auto got = ReadAll(*source, WriteFile("cut.gz", gz.substr(0, gz.size() / 2)));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kDataLoss) << got.status().ToString();
}

TEST_F(ReaderSourceTest, ACorruptGzipStreamNamesTheFileOnce) {
  std::string gz = ReadFile(WriteGzipFile("full.gz", "one line\n"));
  gz[10] = static_cast<char>(0xFF);  // a bad block type: the deflate stream starts after the 10-byte header
  const std::string path = WriteFile("bad.gz", gz);
  auto got = ReadAll(*MakeTextLineSource(Compression::kGzip, 0), path);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "'" + path + "' is not valid gzip data: invalid block type");
}

TEST(GzipReasonTest, DropsWhatZlibPutsBeforeTheReason) {
  EXPECT_EQ(GzipReason("<fd:5>: incorrect data check"), "incorrect data check");
  EXPECT_EQ(GzipReason("/tmp/x.gz: invalid block type"), "invalid block type");
  EXPECT_EQ(GzipReason("invalid block type"), "invalid block type");
  EXPECT_EQ(GzipReason(nullptr), "corrupt stream");
}

TEST_F(ReaderSourceTest, AMissingFileIsNotFound) {
  auto source = MakeTextLineSource(Compression::kNone, 0);
  Status s = source->Open((dir_ / "absent.txt").string());
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("absent.txt"), std::string::npos);
}

TEST_F(ReaderSourceTest, FixedLengthRecordsBetweenHeaderAndFooter) {
  auto source = MakeFixedLengthSource(Compression::kNone, 3, 2, 1);
  auto got = ReadAll(*source, WriteFile("f.bin", "HHabcdefghiF"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, (Lines{"abc", "def", "ghi"}));
  auto none = ReadAll(*source, WriteFile("g.bin", "HHF"));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(ReaderSourceTest, FixedLengthGzip) {
  auto source = MakeFixedLengthSource(Compression::kGzip, 2, 1, 2);
  auto got = ReadAll(*source, WriteGzipFile("f.bin.gz", "Habcdef.."));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, (Lines{"ab", "cd", "ef"}));
}

TEST_F(ReaderSourceTest, FixedLengthFileThatDoesNotFitIsAnError) {
  auto source = MakeFixedLengthSource(Compression::kNone, 3, 2, 1);
  Status s = source->Open(WriteFile("bad.bin", "HHabcdeF"));  // 5 bytes between header and footer
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("bad.bin"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("not a multiple of record_bytes"), std::string::npos) << s.message();
  Status short_file = source->Open(WriteFile("short.bin", "HH"));
  EXPECT_EQ(short_file.code(), Code::kInvalidArgument);
  // Compressed, the size is found only at the end: the whole records come first.
  auto gz = MakeFixedLengthSource(Compression::kGzip, 3, 2, 1);
  ASSERT_TRUE(gz->Open(WriteGzipFile("bad.bin.gz", "HHabcdeF")).ok());
  auto first = gz->Next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(**first, "abc");
  auto second = gz->Next();
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("not a whole record"), std::string::npos) << second.status().message();
}

TEST_F(ReaderSourceTest, RecordFileSource) {
  std::string bytes;
  AppendRecord(bytes, "r0");
  AppendRecord(bytes, "");
  AppendRecord(bytes, "r2");
  auto source = MakeRecordFileSource(Compression::kNone);
  auto got = ReadAll(*source, WriteFile("x.rec", bytes));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, (Lines{"r0", "", "r2"}));
  auto gz = MakeRecordFileSource(Compression::kGzip);
  auto got_gz = ReadAll(*gz, WriteGzipFile("x.rec.gz", bytes));
  ASSERT_TRUE(got_gz.ok());
  EXPECT_EQ(*got_gz, (Lines{"r0", "", "r2"}));
}

}  // namespace
}  // namespace tfg::io
