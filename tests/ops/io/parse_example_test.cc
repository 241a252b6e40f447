// tf.train.Example parsing (ops/io/example_proto.cc, ops/io/parse_example.cc).
// kTfExample is what TensorFlow's Example.SerializeToString() gives for
// {label: int64 [3, -1], pixels: float [0.5, -2.0], name: bytes ["ab", ""]}.
#include <gtest/gtest.h>

#include "ops/io/example_proto.h"
#include "tests/ops/op_test_util.h"

namespace tfg::test {
namespace {

const std::string kTfExample(
    "\x0a\x44\x0a\x16\x0a\x06\x70\x69\x78\x65\x6c\x73\x12\x0c\x12\x0a\x0a\x08\x00\x00\x00\x3f\x00\x00\x00\xc0\x0a"
    "\x10\x0a\x04\x6e\x61\x6d\x65\x12\x08\x0a\x06\x0a\x02\x61\x62\x0a\x00\x0a\x18\x0a\x05\x6c\x61\x62\x65\x6c\x12"
    "\x0f\x1a\x0d\x0a\x0b\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
    70);

using example::Feature;

TEST(ExampleProto, FindsEachListTensorFlowWrote) {
  auto label = example::FindFeature(kTfExample, "label");
  ASSERT_TRUE(label.ok() && *label) << label.status().ToString();
  EXPECT_EQ((*label)->kind, Feature::Kind::kInt64);
  EXPECT_EQ((*label)->ints, (std::vector<int64_t>{3, -1}));
  auto pixels = example::FindFeature(kTfExample, "pixels");
  ASSERT_TRUE(pixels.ok() && *pixels);
  EXPECT_EQ((*pixels)->floats, (std::vector<float>{0.5f, -2.0f}));
  auto name = example::FindFeature(kTfExample, "name");
  ASSERT_TRUE(name.ok() && *name);
  EXPECT_EQ((*name)->bytes, (std::vector<std::string>{"ab", ""}));
  auto missing = example::FindFeature(kTfExample, "nothing");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);
}

// Protobuf also allows unpacked repeated numbers (one field per value).
TEST(ExampleProto, ReadsUnpackedNumbers) {
  // Int64List {1: 5, 1: 7} unpacked; FloatList {1: 1.0f} as one fixed32.
  const std::string ints("\x08\x05\x08\x07", 4);
  const std::string floats("\x0d\x00\x00\x80\x3f", 5);
  auto entry = [](const std::string& key, int kind, const std::string& list) {
    std::string feature = std::string(1, static_cast<char>(kind << 3 | 2)) + static_cast<char>(list.size()) + list;
    std::string e = "\x0a" + std::string(1, static_cast<char>(key.size())) + key + "\x12" +
                    static_cast<char>(feature.size()) + feature;
    return "\x0a" + std::string(1, static_cast<char>(e.size())) + e;
  };
  // FloatList {1: ""}: a packed list of no floats (found by tf_bundle_fuzz:
  // it copied zero bytes into an empty vector's null data()).
  const std::string no_floats("\x0a\x00", 2);
  std::string map = entry("i", 3, ints) + entry("f", 2, floats) + entry("e", 2, no_floats);
  std::string ex = "\x0a" + std::string(1, static_cast<char>(map.size())) + map;
  auto i = example::FindFeature(ex, "i");
  ASSERT_TRUE(i.ok() && *i) << i.status().ToString();
  EXPECT_EQ((*i)->ints, (std::vector<int64_t>{5, 7}));
  auto f = example::FindFeature(ex, "f");
  ASSERT_TRUE(f.ok() && *f);
  EXPECT_EQ((*f)->floats, (std::vector<float>{1.0f}));
  auto e = example::FindFeature(ex, "e");
  ASSERT_TRUE(e.ok() && *e) << e.status().ToString();
  EXPECT_EQ((*e)->kind, Feature::Kind::kFloat);
  EXPECT_TRUE((*e)->floats.empty());
}

TEST(ExampleProto, RefusesEveryTruncation) {
  for (size_t n = 1; n < kTfExample.size(); ++n) {
    // A cut may still parse when it falls between whole fields; it must not
    // then invent values.
    auto r = example::FindFeature(kTfExample.substr(0, n), "label");
    if (r.ok() && *r) {
      EXPECT_EQ((*r)->ints, (std::vector<int64_t>{3, -1})) << n;
    }
  }
  test::ExpectError(example::FindFeature(kTfExample.substr(0, 10), "label"), Code::kDataLoss, "malformed");
}

AttrMap Fixed(const std::string& key, PartialShape shape) {
  return {{"key", key}, {"shape", std::move(shape)}, {"var_len", false}};
}
AttrMap VarLen(const std::string& key) { return {{"key", key}, {"shape", PartialShape::Scalar()}, {"var_len", true}}; }

Tensor Records() {
  // Record 1 is an empty Example: every feature is missing from it.
  return MakeStrings({kTfExample, "", kTfExample}, {3});
}

TEST(ParseExampleFeature, FixedLengthFeaturesTakeTheirDefaultWhenMissing) {
  auto label = RunOp("parse_example_feature", {Records(), MakeTensor<int64_t>({9, 9}, {2})}, Fixed("label", {2}));
  ASSERT_TRUE(label.ok()) << label.status().ToString();
  ExpectTensorEq<int64_t>((*label)[0], {3, -1, 9, 9, 3, -1}, {3, 2});
  ExpectTensorEq<int64_t>((*label)[1], {2, 2, 2}, {3});
  auto pixels = RunOp("parse_example_feature", {Records(), MakeTensor<float>({0}, {1})}, Fixed("pixels", {2, 1}));
  ASSERT_TRUE(pixels.ok()) << pixels.status().ToString();
  ExpectTensorEq<float>((*pixels)[0], {0.5f, -2.0f, 0, 0, 0.5f, -2.0f}, {3, 2, 1});
}

TEST(ParseExampleFeature, VariableLengthFeaturesArePaddedWithLengths) {
  auto name = RunOp("parse_example_feature", {Records(), MakeStrings({}, {0})}, VarLen("name"));
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  ExpectTensorEq<std::string>((*name)[0], {"ab", "", "", "", "ab", ""}, {3, 2});
  ExpectTensorEq<int64_t>((*name)[1], {2, 0, 2}, {3});
}

TEST(ParseExampleFeature, OneRecordGivesTheFeaturesShape) {
  auto label = RunOp("parse_example_feature", {MakeStrings({kTfExample}, {}), MakeTensor<int64_t>({}, {0})},
                     Fixed("label", {2}));
  ASSERT_TRUE(label.ok()) << label.status().ToString();
  ExpectTensorEq<int64_t>((*label)[0], {3, -1}, {2});
  ExpectTensorEq<int64_t>((*label)[1], {2}, {});
}

TEST(ParseExampleFeature, ErrorsNameTheRecordAndFeature) {
  ExpectError(RunOp("parse_example_feature", {Records(), MakeTensor<int64_t>({}, {0})}, Fixed("label", {2})),
              Code::kInvalidArgument, "record 1 has no feature 'label', which has no default_value");
  ExpectError(RunOp("parse_example_feature", {Records(), MakeTensor<int64_t>({0}, {1})}, Fixed("label", {3})),
              Code::kInvalidArgument, "feature 'label' of record 0 has 2 values, but shape [3] needs 3");
  ExpectError(RunOp("parse_example_feature", {Records(), MakeTensor<float>({0}, {1})}, Fixed("label", {2})),
              Code::kInvalidArgument, "feature 'label' of record 0 is a int64 list, but a float one was asked for");
  ExpectError(RunOp("parse_example_feature", {MakeStrings({"\x0a\x05"}, {1}), MakeTensor<float>({0}, {1})},
                    Fixed("x", PartialShape::Scalar())),
              Code::kDataLoss, "parse_example: record 0: malformed Example");
}

TEST(ParseExampleFeature, ShapesFollowTheRecordsAndSpec) {
  EXPECT_EQ(InferShapesString("parse_example_feature", {PartialShape({-1}), PartialShape({1})},
                              {DType::kString, DType::kI64}, Fixed("label", {2, 3})),
            "[?, 2, 3];[?]");
  EXPECT_EQ(InferShapesString("parse_example_feature", {PartialShape::Scalar(), PartialShape({0})},
                              {DType::kString, DType::kF32}, VarLen("tags")),
            "[?];[]");
}

}  // namespace
}  // namespace tfg::test
