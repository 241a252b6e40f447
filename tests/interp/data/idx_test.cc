#include "interp/data/idx.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/interp/data/test_files.h"

namespace tfg::data {
namespace {

using testing::BigEndian32;
using testing::Gzip;
using testing::ScratchFile;

std::string Header(uint8_t type, std::vector<uint32_t> dims) {
  std::string h{0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims) h += BigEndian32(d);
  return h;
}

std::string Bytes(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s += static_cast<char>(v);
  return s;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

// Two 2x3 u8 images, as MNIST stores them.
const std::string kImages = Header(0x08, {2, 2, 3}) + Bytes({0, 51, 102, 153, 204, 255, 255, 0, 0, 0, 0, 10});

TEST(IdxTest, U8BecomesI32) {
  auto t = DecodeIdx(kImages, "img");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), DType::kI32);
  EXPECT_EQ(t->shape(), TensorShape({2, 2, 3}));
  EXPECT_EQ(Values<int32_t>(*t), (std::vector<int32_t>{0, 51, 102, 153, 204, 255, 255, 0, 0, 0, 0, 10}));
}

TEST(IdxTest, SignedIntegersAreBigEndian) {
  auto i8 = DecodeIdx(Header(0x09, {3}) + Bytes({0x80, 0x7F, 0xFF}), "i8");
  ASSERT_TRUE(i8.ok()) << i8.status().ToString();
  EXPECT_EQ(Values<int32_t>(*i8), (std::vector<int32_t>{-128, 127, -1}));
  // 0x0102 = 258, 0xFFFE = -2, 0x8000 = -32768.
  auto i16 = DecodeIdx(Header(0x0B, {3}) + Bytes({0x01, 0x02, 0xFF, 0xFE, 0x80, 0x00}), "i16");
  ASSERT_TRUE(i16.ok()) << i16.status().ToString();
  EXPECT_EQ(Values<int32_t>(*i16), (std::vector<int32_t>{258, -2, -32768}));
  // 0x01020304 = 16909060, 0x80000000 = INT32_MIN.
  auto i32 = DecodeIdx(Header(0x0C, {2}) + Bytes({1, 2, 3, 4, 0x80, 0, 0, 0}), "i32");
  ASSERT_TRUE(i32.ok()) << i32.status().ToString();
  EXPECT_EQ(Values<int32_t>(*i32), (std::vector<int32_t>{16909060, INT32_MIN}));
}

TEST(IdxTest, FloatsKeepTheirType) {
  // 0x3FC00000 = 1.5f, 0xC0200000 = -2.5f.
  auto f32 = DecodeIdx(Header(0x0D, {2}) + Bytes({0x3F, 0xC0, 0, 0, 0xC0, 0x20, 0, 0}), "f32");
  ASSERT_TRUE(f32.ok()) << f32.status().ToString();
  EXPECT_EQ(f32->dtype(), DType::kF32);
  EXPECT_EQ(Values<float>(*f32), (std::vector<float>{1.5f, -2.5f}));
  // 0x3FF8... = 1.5, 0xC004... = -2.5.
  auto f64 = DecodeIdx(Header(0x0E, {1, 2}) + Bytes({0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0xC0, 0x04, 0, 0, 0, 0, 0, 0}), "f64");
  ASSERT_TRUE(f64.ok()) << f64.status().ToString();
  EXPECT_EQ(f64->dtype(), DType::kF64);
  EXPECT_EQ(f64->shape(), TensorShape({1, 2}));
  EXPECT_EQ(Values<double>(*f64), (std::vector<double>{1.5, -2.5}));
}

TEST(IdxTest, ZeroDimensionsAndEmptyShapes) {
  auto scalar = DecodeIdx(Header(0x08, {}) + Bytes({42}), "s");
  ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
  EXPECT_EQ(scalar->rank(), 0);
  EXPECT_EQ(scalar->data<int32_t>()[0], 42);
  auto empty = DecodeIdx(Header(0x08, {0, 28, 28}), "e");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->shape(), TensorShape({0, 28, 28}));
}

TEST(IdxTest, ReadsPlainAndGzippedFiles) {
  ScratchFile plain(".idx"), gz(".idx.gz");
  plain.Write(kImages);
  gz.Write(Gzip(kImages));
  for (const std::string& path : {plain.path(), gz.path()}) {
    auto t = ReadIdxFile(path);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->shape(), TensorShape({2, 2, 3}));
    EXPECT_EQ(t->data<int32_t>()[5], 255);
    EXPECT_EQ(t->data<int32_t>()[11], 10);
  }
}

TEST(IdxTest, MissingFileAndDirectory) {
  auto missing = ReadIdxFile("/nonexistent/dir/x.idx");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(), "cannot open '/nonexistent/dir/x.idx': No such file or directory");
  auto dir = ReadIdxFile(::testing::TempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("not a regular file"), std::string::npos) << dir.status().message();
}

TEST(IdxTest, HeaderErrors) {
  auto empty = DecodeIdx("", "f");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "'f' is empty, expected an IDX file");
  auto magic = DecodeIdx(Bytes({0x1f, 0x8b, 8, 0, 1}), "f");
  ASSERT_FALSE(magic.ok());
  EXPECT_EQ(magic.status().message(),
            "'f' is not an IDX file: it starts with 1f 8b 08 00, expected 00 00, a type byte and the number of "
            "dimensions");
  auto type = DecodeIdx(Header(0x07, {1}) + "x", "f");
  ASSERT_FALSE(type.ok());
  EXPECT_NE(type.status().message().find("unknown IDX element type 0x07"), std::string::npos);
  auto dims = DecodeIdx(Header(0x08, {2, 3}).substr(0, 9), "f");
  ASSERT_FALSE(dims.ok());
  EXPECT_EQ(dims.status().message(), "'f' is truncated: its IDX header declares 2 dimensions (8 bytes), found 5 bytes");
}

TEST(IdxTest, DataSizeMustMatchTheHeader) {
  auto truncated = DecodeIdx(Header(0x08, {2, 2, 3}) + Bytes({1, 2, 3, 4, 5}), "f");
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().code(), Code::kDataLoss);
  EXPECT_EQ(truncated.status().message(),
            "'f' is truncated: header promises 12 bytes of data (shape [2, 2, 3] of u8), found 5");
  auto extra = DecodeIdx(kImages + "x", "f");
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().message(),
            "'f' has more data than its header promises (12 bytes for shape [2, 2, 3] of u8)");
  // 60000 x 28 x 28 promised, 1000 bytes there: refused before allocating.
  auto big = DecodeIdx(Header(0x08, {60000, 28, 28}) + std::string(1000, '\0'), "f");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "'f' is truncated: header promises 47040000 bytes of data (shape [60000, 28, 28] of u8), found 1000");
  // 2^32-1 in every dim overflows 64 bits.
  auto absurd = DecodeIdx(Header(0x0E, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}), "f");
  ASSERT_FALSE(absurd.ok());
  EXPECT_NE(absurd.status().message().find("impossible IDX shape"), std::string::npos);
  auto absurd_empty = DecodeIdx(Header(0x08, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0}), "f");
  EXPECT_FALSE(absurd_empty.ok());
}

TEST(IdxTest, GzipErrors) {
  std::string gz = Gzip(kImages);
  ScratchFile cut(".gz"), corrupt(".gz");
  cut.Write(gz.substr(0, gz.size() / 2));
  auto t = ReadIdxFile(cut.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("truncated"), std::string::npos) << t.status().message();
  // A bad block type (the deflate stream starts right after the 10-byte gzip header).
  std::string bad = gz;
  bad[10] = static_cast<char>(0xFF);
  corrupt.Write(bad);
  auto c = ReadIdxFile(corrupt.path());
  ASSERT_FALSE(c.ok());
  // zlib's reason, named by the path alone (not zlib's "<fd:N>: ").
  EXPECT_EQ(c.status().message(), "'" + corrupt.path() + "' is not valid gzip data: invalid block type");
}

TEST(IdxTest, CorruptBytesGiveErrorsNotCrashes) {
  std::string gz = Gzip(kImages);
  ScratchFile file(".idx");
  int errors = 0;
  testing::CorruptAndRead(kImages, 300, [&](const std::string& bytes) { errors += !DecodeIdx(bytes, "f").ok(); });
  testing::CorruptAndRead(gz, 300, [&](const std::string& bytes) {
    file.Write(bytes);
    errors += !ReadIdxFile(file.path()).ok();
  });
  EXPECT_GT(errors, 300);  // most variants are refused; none may crash
}

// Debian's dataset-fashion-mnist, checked against values read with
// Python's gzip and struct modules.
TEST(IdxTest, FashionMnist) {
  const std::string dir = "/usr/share/datasets/fashion-mnist/";
  if (!std::filesystem::exists(dir + "train-images-idx3-ubyte.gz")) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  auto images = ReadIdxFile(dir + "train-images-idx3-ubyte.gz");
  ASSERT_TRUE(images.ok()) << images.status().ToString();
  EXPECT_EQ(images->shape(), TensorShape({60000, 28, 28}));
  const int32_t* px = images->data<int32_t>();
  EXPECT_EQ(px[0 * 784 + 14 * 28 + 14], 217);
  EXPECT_EQ(px[1 * 784 + 10 * 28 + 10], 252);
  EXPECT_EQ(px[123 * 784 + 7 * 28 + 21], 98);
  int64_t sum0 = 0, total = 0;
  for (int i = 0; i < 784; ++i) sum0 += px[i];
  for (int64_t i = 0; i < images->num_elements(); ++i) total += px[i];
  EXPECT_EQ(sum0, 76247);
  EXPECT_EQ(total, 3431114169);

  auto labels = ReadIdxFile(dir + "train-labels-idx1-ubyte.gz");
  ASSERT_TRUE(labels.ok()) << labels.status().ToString();
  EXPECT_EQ(labels->shape(), TensorShape({60000}));
  std::vector<int32_t> l = Values<int32_t>(*labels);
  EXPECT_EQ(std::vector<int32_t>(l.begin(), l.begin() + 10), (std::vector<int32_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
  EXPECT_EQ(*std::min_element(l.begin(), l.end()), 0);
  EXPECT_EQ(*std::max_element(l.begin(), l.end()), 9);

  auto test_labels = ReadIdxFile(dir + "t10k-labels-idx1-ubyte.gz");
  ASSERT_TRUE(test_labels.ok()) << test_labels.status().ToString();
  EXPECT_EQ(test_labels->shape(), TensorShape({10000}));
  EXPECT_EQ(test_labels->data<int32_t>()[1], 2);
  EXPECT_EQ(test_labels->data<int32_t>()[9999], 5);
}

}  // namespace
}  // namespace tfg::data
