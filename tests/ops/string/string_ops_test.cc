// string_join, string_split, substr, as_string and string_to_number.
// Expected values recorded from TensorFlow 2 (tf.strings.join, substr,
// as_string, to_number; tf.compat.v1.string_split densified with
// tf.sparse.to_dense(default_value="")), or by hand where noted.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeStrings;
using test::MakeTensor;

void ExpectStrings(const Tensor& t, const std::vector<std::string>& want, const TensorShape& shape) {
  ASSERT_EQ(t.dtype(), DType::kString);
  ASSERT_EQ(t.shape(), shape);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.data<std::string>()[i], want[i]) << "element " << i;
}

TEST(StringJoinOp, BroadcastsScalars) {
  ExpectStrings(Eval("string_join", {MakeStrings({"a"}, {}), MakeStrings({"b", "c"}, {2}), MakeStrings({"d"}, {})},
                     {{"separator", std::string("-")}}),
                {"a-b-d", "a-c-d"}, {2});
  ExpectStrings(Eval("string_join", {MakeStrings({"x", "y"}, {2}), MakeStrings({"1", "2"}, {2})}), {"x1", "y2"}, {2});
  ExpectStrings(Eval("string_join", {}), {""}, {});
  ExpectError(test::RunOp1("string_join", {MakeStrings({"a", "b"}, {2}), MakeStrings({"a", "b", "c"}, {3})}),
              Code::kInvalidArgument, "string_join: input shapes do not match: [2] vs. [3]");
  EXPECT_EQ(test::InferShapesString("string_join", {PartialShape({}), PartialShape({-1, 2})},
                                    {DType::kString, DType::kString}),
            "[?, 2]");
}

TEST(StringSplitOp, DenseTokens) {
  // tf.compat.v1.string_split(["a b  c", "", "d"]) densified: [3, 3].
  ExpectStrings(Eval("string_split", {MakeStrings({"a b  c", "", "d"}, {3})}),
                {"a", "b", "c", "", "", "", "d", "", ""}, {3, 3});
  ExpectStrings(Eval("string_split", {MakeStrings({"a,b;;c"}, {1})}, {{"delimiter", std::string(",;")}}),
                {"a", "b", "c"}, {1, 3});
  ExpectStrings(Eval("string_split", {MakeStrings({"a,b;;c"}, {1})},
                     {{"delimiter", std::string(",;")}, {"skip_empty", false}}),
                {"a", "b", "", "c"}, {1, 4});
  ExpectStrings(Eval("string_split", {MakeStrings({"abc"}, {1})}, {{"delimiter", std::string("")}}), {"a", "b", "c"},
                {1, 3});
  // A scalar (which TensorFlow refuses) gives the vector of its tokens, by hand.
  ExpectStrings(Eval("string_split", {MakeStrings({"to be"}, {})}), {"to", "be"}, {2});
  ExpectStrings(Eval("string_split", {MakeStrings({}, {0})}), {}, {0, 0});
  ExpectError(test::RunOp1("string_split", {MakeStrings({"a", "b"}, {1, 2})}), Code::kInvalidArgument,
              "string_split: input must be a scalar or a vector of strings, got shape [1, 2]");
  EXPECT_EQ(test::InferShapesString("string_split", {PartialShape({4})}, {DType::kString}), "[4, ?]");
}

TEST(SubstrOp, MatchesTensorFlow) {
  const Tensor hello = MakeStrings({"hello"}, {});
  auto sub = [&](int32_t pos, int32_t len) {
    return Eval("substr", {hello, MakeTensor<int32_t>({pos}, {}), MakeTensor<int32_t>({len}, {})});
  };
  ExpectStrings(sub(1, 3), {"ell"}, {});
  ExpectStrings(sub(1, -1), {"ello"}, {});
  ExpectStrings(sub(-3, 2), {"ll"}, {});
  ExpectStrings(sub(5, 2), {""}, {});
  ExpectStrings(sub(3, 10), {"lo"}, {});
  ExpectStrings(Eval("substr", {MakeStrings({"hello", "ab"}, {2}), MakeTensor<int64_t>({1, 0}, {2}),
                                MakeTensor<int64_t>({3, 5}, {2})}),
                {"ell", "ab"}, {2});
  ExpectError(test::RunOp1("substr", {hello, MakeTensor<int32_t>({6}, {}), MakeTensor<int32_t>({2}, {})}),
              Code::kInvalidArgument, "substr: pos 6 out of range for string 'hello' at index 0");
  ExpectError(test::RunOp1("substr", {hello, MakeTensor<int32_t>({-6}, {}), MakeTensor<int32_t>({2}, {})}),
              Code::kInvalidArgument, "substr: pos -6 out of range");
  ExpectError(test::RunOp1("substr", {MakeStrings({"a", "b"}, {2}), MakeTensor<int32_t>({0, 0, 0}, {3}),
                                      MakeTensor<int32_t>({1}, {})}),
              Code::kInvalidArgument, "substr: pos must be a scalar or of the input's shape [2], got [3]");
}

TEST(AsStringOp, MatchesTensorFlow) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  ExpectStrings(Eval("as_string", {MakeTensor<float>({1.5f, -0.25f, 1e10f, nan, inf, -inf, 3.14159265f}, {7})}),
                {"1.500000", "-0.250000", "10000000000.000000", "nan", "inf", "-inf", "3.141593"}, {7});
  ExpectStrings(Eval("as_string", {MakeTensor<double>({1.5, 1.0 / 3}, {2})}), {"1.500000", "0.333333"}, {2});
  ExpectStrings(Eval("as_string", {MakeTensor<float>({1.5f, -0.25f}, {2})}, {{"precision", int64_t{2}}}),
                {"1.50", "-0.25"}, {2});
  ExpectStrings(Eval("as_string", {MakeTensor<float>({1234.5f}, {1})}, {{"scientific", true}}), {"1.234500e+03"}, {1});
  ExpectStrings(Eval("as_string", {MakeTensor<float>({1234.5f, 0.0001f, 1e20f}, {3})}, {{"shortest", true}}),
                {"1234.5", "0.0001", "1e+20"}, {3});
  ExpectStrings(Eval("as_string", {MakeTensor<int32_t>({3, -42}, {2})}, {{"width", int64_t{5}}}), {"    3", "  -42"},
                {2});
  ExpectStrings(Eval("as_string", {MakeTensor<int32_t>({3, -42}, {2})},
                     {{"width", int64_t{5}}, {"fill", std::string("0")}}),
                {"00003", "-0042"}, {2});
  ExpectStrings(Eval("as_string", {MakeTensor<int32_t>({3}, {1})}, {{"fill", std::string("0")}}), {"3"}, {1});
  ExpectStrings(Eval("as_string", {MakeTensor<bool>({true, false}, {2})}), {"true", "false"}, {2});
  ExpectStrings(Eval("as_string", {MakeTensor<int64_t>({std::numeric_limits<int64_t>::min()}, {1})}),
                {"-9223372036854775808"}, {1});
  ExpectStrings(Eval("as_string", {test::MakeHalf({0.1f}, {1})}), {"0.099976"}, {1});
  ExpectStrings(Eval("as_string", {MakeTensor<float>({0.1f}, {1})}, {{"precision", int64_t{10}}}), {"0.1000000015"},
                {1});
  ExpectStrings(Eval("as_string", {MakeStrings({"a"}, {1})}), {"a"}, {1});
  ExpectError(test::RunOp1("as_string", {MakeTensor<int32_t>({3}, {1})}, {{"width", int64_t{5}}, {"fill", std::string("x")}}),
              Code::kInvalidArgument, "as_string: fill argument not supported: \"x\"");
  ExpectError(test::RunOp1("as_string", {MakeTensor<int32_t>({3}, {1})}, {{"precision", int64_t{2}}}),
              Code::kInvalidArgument, "as_string: precision not supported for datatype i32");
  ExpectError(test::RunOp1("as_string", {MakeTensor<float>({3}, {1})}, {{"scientific", true}, {"shortest", true}}),
              Code::kInvalidArgument, "as_string: cannot select both scientific and shortest notation");
}

TEST(StringToNumberOp, MatchesTensorFlow) {
  auto f32 = [](const std::vector<std::string>& s) {
    return Eval("string_to_number", {MakeStrings(s, {static_cast<int64_t>(s.size())})});
  };
  auto to = [](DType t, const std::vector<std::string>& s) {
    return Eval("string_to_number", {MakeStrings(s, {static_cast<int64_t>(s.size())})}, {{"out_type", t}});
  };
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor f = f32({" 12 ", "1e3", "0x10", "+5", "1.5", "  -7", "inf", "-INF", " 2.5 ", "1e40", "1e-50", ".5", "5."});
  ExpectTensorNear(f, {12, 1000, 16, 5, 1.5, -7, inf, -inf, 2.5, inf, 0, 0.5, 5}, {13});
  EXPECT_EQ(f.dtype(), DType::kF32);
  EXPECT_TRUE(std::isnan(f32({"nan"}).data<float>()[0]));
  EXPECT_TRUE(std::signbit(f32({"-0"}).data<float>()[0]));
  ExpectTensorNear(to(DType::kF64, {"0.1"}), {0.1}, {1}, 0);
  ExpectTensorEq<int32_t>(to(DType::kI32, {" 12 ", "+5", "-0", "  -7", "2147483647", "-2147483648"}),
                          {12, 5, 0, -7, 2147483647, std::numeric_limits<int32_t>::min()}, {6});
  ExpectTensorEq<int64_t>(to(DType::kI64, {"9223372036854775807"}), {std::numeric_limits<int64_t>::max()}, {1});
  for (const char* bad : {"", "12abc"}) {
    ExpectError(test::RunOp1("string_to_number", {MakeStrings({"1", bad}, {2})}), Code::kInvalidArgument,
                std::string("string_to_number: could not convert string '") + bad + "' at index 1 to f32");
  }
  for (const char* bad : {"1e3", "0x10", "", "1.5", "2147483648", "-2147483649", "inf", "nan", " 2.5 ", ".5", "5."}) {
    ExpectError(test::RunOp1("string_to_number", {MakeStrings({bad}, {1})}, {{"out_type", DType::kI32}}),
                Code::kInvalidArgument, std::string("could not convert string '") + bad + "' at index 0 to i32");
  }
  ExpectError(test::RunOp1("string_to_number", {MakeStrings({"9223372036854775808"}, {1})}, {{"out_type", DType::kI64}}),
              Code::kInvalidArgument, "to i64");
}

}  // namespace
}  // namespace tfg
