#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg::test {
namespace {

AttrMap Column(int64_t column, int64_t num_columns, std::string delim = ",") {
  return {{"column", column}, {"num_columns", num_columns}, {"field_delim", std::move(delim)},
          {"use_quote_delim", true}};
}

Tensor Records() { return MakeStrings({"1.5,7,cat", ",-3,\"a,\"\"b\"\"\"", "2e3,,"}, {3}); }

TEST(DecodeCsvColumn, ParsesEachColumnAsItsDefaultsType) {
  Tensor f = MakeTensor<float>({9.5f}, {1});
  Tensor i = MakeTensor<int32_t>({42}, {1});
  Tensor s = MakeStrings({"none"}, {1});
  ExpectTensorEq<float>(Eval("decode_csv_column", {Records(), f}, Column(0, 3)), {1.5f, 9.5f, 2000.0f}, {3});
  ExpectTensorEq<int32_t>(Eval("decode_csv_column", {Records(), i}, Column(1, 3)), {7, -3, 42}, {3});
  ExpectTensorEq<std::string>(Eval("decode_csv_column", {Records(), s}, Column(2, 3)), {"cat", "a,\"b\"", "none"},
                              {3});
}

TEST(DecodeCsvColumn, KeepsTheRecordsShapeAndOtherDelimiters) {
  Tensor recs = MakeStrings({"1;2", "3;4", "5;6", "7;8"}, {2, 2});
  Tensor def = MakeTensor<int64_t>({0}, {1});
  ExpectTensorEq<int64_t>(Eval("decode_csv_column", {recs, def}, Column(1, 2, ";")), {2, 4, 6, 8}, {2, 2});
}

TEST(DecodeCsvColumn, AnEmptyFieldWithoutDefaultNamesRecordAndColumn) {
  Tensor required = MakeTensor<float>({}, {0});
  ExpectError(RunOp("decode_csv_column", {Records(), required}, Column(0, 3)), Code::kInvalidArgument,
              "record 1, column 0 is empty and the column has no default");
}

TEST(DecodeCsvColumn, AMalformedNumberNamesRecordAndColumn) {
  Tensor recs = MakeStrings({"1,2", "3,x4"}, {2});
  ExpectError(RunOp("decode_csv_column", {recs, MakeTensor<int32_t>({0}, {1})}, Column(1, 2)),
              Code::kInvalidArgument, "record 1, column 1: \"x4\" is not a valid i32");
  Tensor big = MakeStrings({"3000000000"}, {1});
  ExpectError(RunOp("decode_csv_column", {big, MakeTensor<int32_t>({0}, {1})}, Column(0, 1)),
              Code::kInvalidArgument, "is not a valid i32");
  Tensor partial = MakeStrings({"1.5x"}, {1});
  ExpectError(RunOp("decode_csv_column", {partial, MakeTensor<float>({0}, {1})}, Column(0, 1)),
              Code::kInvalidArgument, "\"1.5x\" is not a valid f32");
}

TEST(DecodeCsvColumn, AWrongFieldCountIsAnError) {
  Tensor recs = MakeStrings({"1,2,3", "1,2"}, {2});
  ExpectError(RunOp("decode_csv_column", {recs, MakeTensor<float>({0}, {1})}, Column(0, 3)),
              Code::kInvalidArgument, "record 1 has 2 field(s), expected 3");
  Tensor open_quote = MakeStrings({"\"abc,1"}, {1});
  ExpectError(RunOp("decode_csv_column", {open_quote, MakeStrings({""}, {1})}, Column(0, 2)),
              Code::kInvalidArgument, "record 0: a quoted field is not closed");
}

}  // namespace
}  // namespace tfg::test
