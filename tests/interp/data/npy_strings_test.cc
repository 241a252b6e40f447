// String .npy files (interp/data/npy_strings.cc). The files were written by
// NumPy's np.save (tests/scripts/data/files/record_formats.py).
#include "interp/data/npy_strings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "interp/data/npy.h"
#include "tests/ops/op_test_util.h"

namespace tfg::data {
namespace {

namespace fs = std::filesystem;
const fs::path kFiles = fs::path(__FILE__).parent_path().parent_path().parent_path() / "scripts" / "data" / "files";

Tensor Load(const char* name) {
  auto t = ReadNpyFile((kFiles / name).string());
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Tensor();
}

TEST(NpyStrings, ReadsNumPysUnicodeAndBytes) {
  test::ExpectTensorEq<std::string>(Load("words_unicode.npy"), {"cat", "", "na\xc3\xafve"}, TensorShape({3}));
  test::ExpectTensorEq<std::string>(Load("words_bytes.npy"), {"ab", "", "\xffz"}, TensorShape({3}));
  test::ExpectTensorEq<std::string>(Load("words_big_endian.npy"), {"x", "yz", "\xc3\xa9", "w"}, TensorShape({2, 2}));
  test::ExpectTensorEq<std::string>(Load("words_fortran.npy"), {"a", "b", "c", "d", "e", "f"}, TensorShape({2, 3}));
  test::ExpectTensorEq<std::string>(Load("names_str.npy"), {"a", "bc"}, TensorShape({2}));
}

// np.save(np.array(["a", "bc"])) gives names_str.npy: the same bytes.
TEST(NpyStrings, WritesWhatNumPyWrites) {
  auto bytes = EncodeNpy(test::MakeStrings({"a", "bc"}, {2}));
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::ifstream in(kFiles / "names_str.npy", std::ios::binary);
  EXPECT_EQ(*bytes, std::string(std::istreambuf_iterator<char>(in), {}));
}

TEST(NpyStrings, NonUtf8StringsAreWrittenAsBytes) {
  Tensor t = test::MakeStrings({std::string("\xff\x00z", 3), "", "ok"}, {3});
  auto bytes = EncodeNpy(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find("'descr': '|S3'"), std::string::npos);
  auto back = DecodeNpy(*bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  // Trailing zero bytes are padding to NumPy, and dropped as NumPy drops them.
  test::ExpectTensorEq<std::string>(*back, {std::string("\xff\x00z", 3), "", "ok"}, TensorShape({3}));
}

TEST(NpyStrings, RefusesInvalidCodePointsAndTruncation) {
  auto bytes = EncodeNpy(test::MakeStrings({"ab"}, {1}));
  ASSERT_TRUE(bytes.ok());
  std::string bad = *bytes;
  bad[bad.size() - 1] = '\x7f';  // the last code point becomes 0x7f000062
  test::ExpectError(DecodeNpy(bad, "bad.npy"), Code::kDataLoss, "which is not a character");
  test::ExpectError(DecodeNpy(bytes->substr(0, bytes->size() - 1), "cut.npy"), Code::kDataLoss, "truncated");
}

}  // namespace
}  // namespace tfg::data
