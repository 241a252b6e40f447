#include "interp/data/npy.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "ops/core/dtype_traits.h"
#include "tests/interp/data/test_files.h"

namespace tfg::data {
namespace {

using testing::ScratchFile;

std::string Hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// A version 1.0 file with `dict` as its header (unpadded: readers must not
// depend on NumPy's padding).
std::string Npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  size_t len = dict.size() + 1;
  out += static_cast<char>(len & 0xFF);
  out += static_cast<char>((len >> 8) & 0xFF);
  if (major > 1) out += std::string(2, '\0');
  return out + dict + "\n" + data;
}

std::string Dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

Tensor MustDecode(const std::string& bytes) {
  auto t = DecodeNpy(bytes, "a.npy");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Tensor();
}

TEST(NpyTest, FloatTypes) {
  // 1.5f, -2.0f, 3.0f, 4.0f, 5.25f, -6.0f as NumPy stores them.
  Tensor f32 = MustDecode(Npy(Dict("<f4", "(2, 3)"), Hex("0000c03f000000c000004040000080400000a8400000c0c0")));
  EXPECT_EQ(f32.dtype(), DType::kF32);
  EXPECT_EQ(f32.shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<float>(f32), (std::vector<float>{1.5f, -2, 3, 4, 5.25f, -6}));
  // 0x3FF8000000000000 = 1.5 little-endian.
  Tensor f64 = MustDecode(Npy(Dict("<f8", "(1,)"), Hex("000000000000f83f")));
  EXPECT_EQ(Values<double>(f64), (std::vector<double>{1.5}));
  // f16: 0x3C00 = 1.0, 0xC000 = -2.0.
  Tensor f16 = MustDecode(Npy(Dict("<f2", "(2,)"), Hex("003c00c0")));
  ASSERT_EQ(f16.dtype(), DType::kF16);
  EXPECT_EQ(static_cast<float>(f16.data<half>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(f16.data<half>()[1]), -2.0f);
}

TEST(NpyTest, IntegerAndBoolTypes) {
  Tensor i4 = MustDecode(Npy(Dict("<i4", "(2,)"), Hex("ffffffff04030201")));
  EXPECT_EQ(Values<int32_t>(i4), (std::vector<int32_t>{-1, 0x01020304}));
  Tensor i8 = MustDecode(Npy(Dict("<i8", "()"), Hex("0700000000000000")));
  EXPECT_EQ(i8.rank(), 0);
  EXPECT_EQ(i8.data<int64_t>()[0], 7);
  Tensor u1 = MustDecode(Npy(Dict("|u1", "(2,)"), Hex("ff07")));
  EXPECT_EQ(u1.dtype(), DType::kI32);
  EXPECT_EQ(Values<int32_t>(u1), (std::vector<int32_t>{255, 7}));
  Tensor i1 = MustDecode(Npy(Dict("|i1", "(1,)"), Hex("80")));
  EXPECT_EQ(Values<int32_t>(i1), (std::vector<int32_t>{-128}));
  Tensor i2 = MustDecode(Npy(Dict("<i2", "(1,)"), Hex("0080")));
  EXPECT_EQ(Values<int32_t>(i2), (std::vector<int32_t>{-32768}));
  Tensor u2 = MustDecode(Npy(Dict("<u2", "(1,)"), Hex("ffff")));
  EXPECT_EQ(Values<int32_t>(u2), (std::vector<int32_t>{65535}));
  Tensor u4 = MustDecode(Npy(Dict("<u4", "(1,)"), Hex("ffffffff")));
  EXPECT_EQ(u4.dtype(), DType::kI64);
  EXPECT_EQ(Values<int64_t>(u4), (std::vector<int64_t>{4294967295}));
  Tensor u8 = MustDecode(Npy(Dict("<u8", "(1,)"), Hex("ffffffffffffff7f")));
  EXPECT_EQ(Values<int64_t>(u8), (std::vector<int64_t>{INT64_MAX}));
  // Any non-zero byte is true.
  Tensor b = MustDecode(Npy(Dict("|b1", "(3,)"), Hex("000102")));
  EXPECT_EQ(Values<bool>(b), (std::vector<bool>{false, true, true}));
}

TEST(NpyTest, BigEndianIsSwapped) {
  Tensor f8 = MustDecode(Npy(Dict(">f8", "(2,)"), Hex("3ff8000000000000c004000000000000")));
  EXPECT_EQ(Values<double>(f8), (std::vector<double>{1.5, -2.5}));
  Tensor i4 = MustDecode(Npy(Dict(">i4", "(1,)"), Hex("01020304")));
  EXPECT_EQ(Values<int32_t>(i4), (std::vector<int32_t>{0x01020304}));
}

TEST(NpyTest, FortranOrderIsTransposed) {
  // [[0, 1, 2], [3, 4, 5]] stored column by column.
  std::string data;
  for (int v : {0, 3, 1, 4, 2, 5}) data += std::string{static_cast<char>(v), 0, 0, 0};
  Tensor t = MustDecode(Npy(Dict("<i4", "(2, 3)", true), data));
  EXPECT_EQ(t.shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<int32_t>(t), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  // a[i, j, k] = 100 i + 10 j + k, shape (2, 3, 4): column-major means i
  // varies fastest in the file.
  std::vector<double> f;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) f.push_back(100 * i + 10 * j + k);
  Tensor t3 = MustDecode(Npy(Dict("<f8", "(2, 3, 4)", true),
                             std::string(reinterpret_cast<const char*>(f.data()), f.size() * 8)));
  std::vector<double> c = Values<double>(t3);
  ASSERT_EQ(c.size(), 24u);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(c[i * 12 + j * 4 + k], 100 * i + 10 * j + k);
}

TEST(NpyTest, HeaderVariants) {
  // Format 2.0 and 3.0 have a 4-byte header length.
  EXPECT_EQ(MustDecode(Npy(Dict("<i4", "(1,)"), Hex("05000000"), 2)).data<int32_t>()[0], 5);
  EXPECT_EQ(MustDecode(Npy(Dict("<i4", "(1,)"), Hex("05000000"), 3)).data<int32_t>()[0], 5);
  // Keys in any order, double quotes, no trailing comma, Python 2 longs.
  Tensor t = MustDecode(Npy("{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<i4\"}",
                            Hex("0100000002000000")));
  EXPECT_EQ(t.shape(), TensorShape({1, 2}));
  Tensor empty = MustDecode(Npy(Dict("<f8", "(0, 4)"), ""));
  EXPECT_EQ(empty.shape(), TensorShape({0, 4}));
}

Status DecodeError(const std::string& bytes) {
  auto t = DecodeNpy(bytes, "a.npy");
  EXPECT_FALSE(t.ok());
  return t.ok() ? Status() : t.status();
}

TEST(NpyTest, UnsupportedTypesSaySo) {
  Status u = DecodeError(Npy(Dict("<M8", "(2,)"), std::string(16, 'a')));
  EXPECT_EQ(u.code(), Code::kUnimplemented);
  EXPECT_EQ(u.message(), "'a.npy' holds dates or times (dtype '<M8'): not supported yet");
  Status c = DecodeError(Npy(Dict("<c8", "(1,)"), std::string(8, '\0')));
  EXPECT_EQ(c.code(), Code::kUnimplemented);
  Status rec = DecodeError(Npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", "abcd"));
  EXPECT_EQ(rec.code(), Code::kUnimplemented);
  EXPECT_NE(rec.message().find("structured array"), std::string::npos);
  Status v = DecodeError(std::string("\x93NUMPY\x04\x00", 8) + "xx");
  EXPECT_EQ(v.code(), Code::kUnimplemented);
  EXPECT_NE(v.message().find("format 4.0"), std::string::npos);
  Status big = DecodeError(Npy(Dict("<u8", "(1,)"), Hex("ffffffffffffffff")));
  EXPECT_EQ(big.message(), "'a.npy': element 0 is 18446744073709551615, which does not fit in i64");
}

TEST(NpyTest, CorruptFilesSayWhat) {
  EXPECT_EQ(DecodeError("").message(), "'a.npy' is empty, expected a .npy file");
  EXPECT_EQ(DecodeError("PK\x03\x04 zip").message(), "'a.npy' is not a .npy file: it does not start with \\x93NUMPY");
  std::string good = Npy(Dict("<f4", "(2, 3)"), std::string(24, '\0'));
  EXPECT_NE(DecodeError(good.substr(0, 9)).message().find("truncated"), std::string::npos);
  EXPECT_NE(DecodeError(good.substr(0, 30)).message().find("its header length says"), std::string::npos);
  EXPECT_EQ(DecodeError(good.substr(0, good.size() - 4)).message(),
            "'a.npy' is truncated: header promises 24 bytes of data (shape [2, 3] of '<f4'), found 20");
  EXPECT_NE(DecodeError(good + "x").message().find("more data than its header describes"), std::string::npos);
  EXPECT_EQ(DecodeError(Npy("{'descr' '<f4', 'fortran_order': False, 'shape': (1,), }", "")).message(),
            "'a.npy' has a malformed header: expected ':' after 'descr' (at byte 9 of \"{'descr' '<f4', "
            "'fortran_order': False, 'shape': (1,), }\")");
  EXPECT_NE(DecodeError(Npy("{'descr': '<f4', 'fortran_order': False}", "")).message().find("it has no 'shape'"),
            std::string::npos);
  EXPECT_NE(DecodeError(Npy(Dict("<f4", "(2, -3)"), "")).message().find("a non-negative integer"),
            std::string::npos);
  EXPECT_NE(DecodeError(Npy(Dict("<f4", "(4294967295, 4294967295, 4294967295)"), "")).message().find("impossible"),
            std::string::npos);
  // A huge but representable shape is refused before any allocation.
  EXPECT_NE(DecodeError(Npy(Dict("<f8", "(100000, 100000)"), "abc")).message().find("80000000000 bytes"),
            std::string::npos);
  std::string huge_header = std::string("\x93NUMPY\x02\x00", 8) + std::string("\xff\xff\xff\x7f", 4);
  EXPECT_NE(DecodeError(huge_header).message().find("implausibly large"), std::string::npos);
}

TEST(NpyTest, CorruptBytesGiveErrorsNotCrashes) {
  std::string good = Npy(Dict("<f4", "(2, 3)"), std::string(24, '\x11'));
  std::string fortran = Npy(Dict(">i2", "(2, 3)", true), std::string(12, '\x22'));
  int errors = 0;
  for (const std::string& valid : {good, fortran}) {
    testing::CorruptAndRead(valid, 400, [&](const std::string& b) { errors += !DecodeNpy(b, "f").ok(); });
  }
  EXPECT_GT(errors, 400);
}

// Byte for byte what NumPy 2.4's np.save writes for the same arrays.
TEST(NpyTest, EncodeMatchesNumPy) {
  auto prefix = [](const std::string& dict, int spaces) {
    return std::string("\x93NUMPY\x01\x00v\x00", 10) + dict + std::string(spaces, ' ') + "\n";
  };
  auto f32 = EncodeNpy(Tensor::FromVector<float>({1.5f, -2, 3, 4, 5.25f, -6}, TensorShape({2, 3})));
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(*f32, prefix("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58) +
                      Hex("0000c03f000000c000004040000080400000a8400000c0c0"));
  EXPECT_EQ(*EncodeNpy(Tensor::Scalar<int64_t>(7)),
            prefix("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", 62) + Hex("0700000000000000"));
  EXPECT_EQ(*EncodeNpy(Tensor::Vector<bool>({true, false, true})),
            prefix("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 60) + Hex("010001"));
  EXPECT_EQ(*EncodeNpy(Tensor(HostAllocator(), DType::kF64, TensorShape({0, 4}))),
            prefix("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", 58));
  EXPECT_EQ(*EncodeNpy(Tensor::Vector<half>({half(1.0f), half(-2.0f)})),
            prefix("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", 60) + Hex("003c00c0"));
  // Strings as NumPy's np.save(np.array(["a"])) writes them.
  EXPECT_EQ(*EncodeNpy(Tensor::Vector<std::string>({"a"})),
            prefix("{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }", 60) + Hex("61000000"));
}

TEST(NpyTest, WriteThenReadFile) {
  ScratchFile file(".npy");
  Tensor t = Tensor::FromVector<int32_t>({1, -2, 3, 4}, TensorShape({2, 1, 2}));
  ASSERT_TRUE(WriteNpyFile(file.path(), t).ok());
  auto back = ReadNpyFile(file.path());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(TensorsEqual(*back, t));
  EXPECT_EQ(back->shape(), TensorShape({2, 1, 2}));
  Status bad = WriteNpyFile("/nonexistent/dir/x.npy", t);
  EXPECT_EQ(bad.message(), "cannot create '/nonexistent/dir/x.npy': No such file or directory");
}

// NumPy itself reads what we write (skipped when python3 with NumPy is not
// installed).
TEST(NpyTest, NumPyLoadsOurFiles) {
  if (std::system("python3 -c 'import numpy' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no NumPy";
  ScratchFile file(".npy");
  ASSERT_TRUE(WriteNpyFile(file.path(), Tensor::FromVector<double>({0.25, -1, 1e300}, TensorShape({3, 1}))).ok());
  std::string check = "python3 -c \"import numpy as np; a = np.load('" + file.path() +
                      "'); assert a.dtype == np.float64 and a.shape == (3, 1) and a.ravel().tolist() == [0.25, -1.0, "
                      "1e300]\"";
  EXPECT_EQ(std::system(check.c_str()), 0);
}

}  // namespace
}  // namespace tfg::data
