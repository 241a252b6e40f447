#include "interp/data/csv.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/core/dtype_traits.h"
#include "tests/interp/data/test_files.h"

namespace tfg::data {
namespace {

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

Tensor MustParse(const std::string& text, CsvOptions options = {}) {
  auto t = ParseCsv(text, "d.csv", options);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Tensor(HostAllocator(), DType::kF32, TensorShape({0, 0}));
}

std::string ParseError(const std::string& text, CsvOptions options = {}) {
  auto t = ParseCsv(text, "d.csv", options);
  EXPECT_FALSE(t.ok());
  return t.ok() ? "" : t.status().message();
}

TEST(CsvTest, NumbersIntoARowsByColumnsTensor) {
  Tensor t = MustParse("1,2.5,-3\n4e2, +5 ,6\n");
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<float>(t), (std::vector<float>{1, 2.5f, -3, 400, 5, 6}));
}

TEST(CsvTest, HeaderQuotesBlankLinesAndCrLf) {
  CsvOptions o;
  o.skip_header = true;
  o.dtype = DType::kF64;
  Tensor t = MustParse("x,\"y, the second\"\r\n\r\n\"1.25\",2\r\n3,\"-4\"\r\n\n", o);
  EXPECT_EQ(t.shape(), TensorShape({2, 2}));
  EXPECT_EQ(Values<double>(t), (std::vector<double>{1.25, 2, 3, -4}));
  // No final newline.
  EXPECT_EQ(MustParse("7").shape(), TensorShape({1, 1}));
}

TEST(CsvTest, OtherDTypesAndDelimiters) {
  CsvOptions ints;
  ints.dtype = DType::kI32;
  ints.delimiter = ';';
  EXPECT_EQ(Values<int32_t>(MustParse("1;-2\n2147483647;-2147483648\n", ints)),
            (std::vector<int32_t>{1, -2, 2147483647, INT32_MIN}));
  CsvOptions i64;
  i64.dtype = DType::kI64;
  i64.delimiter = '\t';
  EXPECT_EQ(Values<int64_t>(MustParse("9007199254740993\t1\n", i64)), (std::vector<int64_t>{9007199254740993, 1}));
  CsvOptions b;
  b.dtype = DType::kBool;
  EXPECT_EQ(Values<bool>(MustParse("true,0\nFalse,1\n", b)), (std::vector<bool>{true, false, false, true}));
  CsvOptions s;
  s.dtype = DType::kString;
  Tensor names = MustParse("a,\"b \"\"q\"\"\nc\"\n,d\n", s);
  EXPECT_EQ(names.shape(), TensorShape({2, 2}));
  EXPECT_EQ(Values<std::string>(names), (std::vector<std::string>{"a", "b \"q\"\nc", "", "d"}));
  CsvOptions f16;
  f16.dtype = DType::kF16;
  EXPECT_EQ(static_cast<float>(MustParse("0.5\n", f16).data<half>()[0]), 0.5f);
}

TEST(CsvTest, SpecialFloats) {
  std::vector<float> v = Values<float>(MustParse("nan,inf,-inf,1e-50\n"));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], INFINITY);
  EXPECT_EQ(v[2], -INFINITY);
  EXPECT_EQ(v[3], 0.0f);  // below f32's range: rounds to zero, like NumPy
}

TEST(CsvTest, ErrorsNameLineAndField) {
  EXPECT_EQ(ParseError("1,2\n\n3,abc\n"), "'d.csv' line 3, field 2: 'abc' is not a number");
  EXPECT_EQ(ParseError("1,2,3\n4,5,6\n7,8\n"), "'d.csv' line 3 has 2 fields, expected 3 like line 1");
  EXPECT_EQ(ParseError("1,,3\n"), "'d.csv' line 1, field 2 is empty");
  EXPECT_EQ(ParseError("1,2,\n"), "'d.csv' line 1, field 3 is empty");
  EXPECT_EQ(ParseError("1,\"2\n"), "'d.csv' line 1, field 2: the quoted field is never closed");
  EXPECT_EQ(ParseError("\"1\"x,2\n"), "'d.csv' line 1, field 1: unexpected 'x' after the closing quote");
  EXPECT_EQ(ParseError("1e999\n"), "'d.csv' line 1, field 1: '1e999' is out of range for f32");
  // Words on the first line are most likely column names.
  EXPECT_EQ(ParseError("x,y\n1,2\n"),
            "'d.csv' line 1, field 1: 'x' is not a number; if the first line is a header, pass skip_header=true");
  EXPECT_EQ(ParseError("1,2\nx,y\n"), "'d.csv' line 2, field 1: 'x' is not a number");
  EXPECT_EQ(ParseError("1e39\n"), "'d.csv' line 1, field 1: '1e39' is out of range for f32");
  CsvOptions ints;
  ints.dtype = DType::kI32;
  EXPECT_EQ(ParseError("1.5\n", ints), "'d.csv' line 1, field 1: '1.5' is not an integer");
  EXPECT_EQ(ParseError("2147483648\n", ints), "'d.csv' line 1, field 1: '2147483648' is out of range for i32");
  EXPECT_EQ(ParseError(""), "'d.csv' has no rows");
  CsvOptions header;
  header.skip_header = true;
  EXPECT_EQ(ParseError("a,b\n", header), "'d.csv' has no rows after the header");
  CsvOptions quote;
  quote.delimiter = '"';
  EXPECT_EQ(ParseError("1\n", quote), "the delimiter cannot be a quote or a line break");
}

TEST(CsvTest, ReadsFiles) {
  testing::ScratchFile plain(".csv"), gz(".csv.gz");
  plain.Write("1,2\n3,4\n");
  gz.Write(testing::Gzip("1,2\n3,4\n"));
  for (const std::string& path : {plain.path(), gz.path()}) {
    auto t = ReadCsvFile(path);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(Values<float>(*t), (std::vector<float>{1, 2, 3, 4}));
  }
  auto missing = ReadCsvFile("/nonexistent/d.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "cannot open '/nonexistent/d.csv': No such file or directory");
}

TEST(CsvTest, CorruptBytesGiveErrorsNotCrashes) {
  const std::string valid = "a,b,c\n1,\"2,5\",3\n4,5,\"6\"\"\"\r\n7,8,9\n";
  int errors = 0;
  for (DType d : {DType::kF32, DType::kI64, DType::kString}) {
    CsvOptions o;
    o.dtype = d;
    o.skip_header = true;
    testing::CorruptAndRead(valid, 200, [&](const std::string& b) { errors += !ParseCsv(b, "f", o).ok(); });
  }
  EXPECT_GT(errors, 100);
}

}  // namespace
}  // namespace tfg::data
