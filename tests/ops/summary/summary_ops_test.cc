// The summary ops run through the registry; their output parsed back as a
// Summary protobuf.
#include <gtest/gtest.h>

#include "ops/core/op_registry.h"
#include "proto/summary.pb.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::MakeStrings;
using test::MakeTensor;
using test::RunOp1;

Tensor Tag(const std::string& tag) { return MakeStrings({tag}, TensorShape({})); }

pb::Summary Parse(const Tensor& t) {
  pb::Summary s;
  EXPECT_EQ(t.dtype(), DType::kString);
  EXPECT_EQ(t.rank(), 0);
  EXPECT_TRUE(s.ParseFromString(t.scalar<std::string>()));
  return s;
}

TEST(SummaryOpsTest, ScalarSummaryRoundTrips) {
  auto out = RunOp1("scalar_summary", {Tag("loss"), MakeTensor<double>({0.25}, TensorShape({}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  pb::Summary s = Parse(*out);
  ASSERT_EQ(s.value_size(), 1);
  EXPECT_EQ(s.value(0).tag(), "loss");
  ASSERT_TRUE(s.value(0).has_simple_value());
  EXPECT_EQ(s.value(0).simple_value(), 0.25f);
}

TEST(SummaryOpsTest, ScalarSummaryOfAnInteger) {
  auto out = RunOp1("scalar_summary", {Tag("step"), MakeTensor<int64_t>({7}, TensorShape({}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Parse(*out).value(0).simple_value(), 7.0f);
}

TEST(SummaryOpsTest, ScalarSummaryNeedsOneValue) {
  auto out = RunOp1("scalar_summary", {Tag("loss"), MakeTensor<float>({1, 2}, TensorShape({2}))});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("must be a scalar"), std::string::npos) << out.status().message();
  auto empty_tag = RunOp1("scalar_summary", {Tag(""), MakeTensor<float>({1}, TensorShape({}))});
  EXPECT_FALSE(empty_tag.ok());
}

TEST(SummaryOpsTest, TagsAreUtf8Text) {
  // Tags are protobuf strings: UTF-8 only (é and 😀 pass; a lone
  // continuation byte, an overlong '/', a surrogate and a truncated
  // sequence do not).
  EXPECT_TRUE(RunOp1("scalar_summary", {Tag("caf\xc3\xa9/\xf0\x9f\x98\x80"), MakeTensor<float>({1}, TensorShape({}))}).ok());
  for (const char* bad : {"a\x80", "\xc0\xaf", "\xed\xa0\x80", "ok\xe2\x82"}) {
    auto r = RunOp1("scalar_summary", {Tag(bad), MakeTensor<float>({1}, TensorShape({}))});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("not UTF-8"), std::string::npos) << r.status().ToString();
  }
}

TEST(SummaryOpsTest, HistogramSummaryRoundTrips) {
  auto out = RunOp1("histogram_summary", {Tag("w"), MakeTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  pb::Summary s = Parse(*out);
  ASSERT_EQ(s.value_size(), 1);
  EXPECT_EQ(s.value(0).tag(), "w");
  ASSERT_TRUE(s.value(0).has_histo());
  const pb::HistogramProto& h = s.value(0).histo();
  EXPECT_EQ(h.num(), 4);
  EXPECT_EQ(h.min(), 1);
  EXPECT_EQ(h.max(), 4);
  EXPECT_EQ(h.sum(), 10);
  EXPECT_EQ(h.sum_squares(), 30);
}

TEST(SummaryOpsTest, HistogramSummaryRejectsNaN) {
  auto out = RunOp1("histogram_summary", {Tag("w"), MakeTensor<float>({1, NAN}, TensorShape({2}))});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("element 1 is NaN"), std::string::npos) << out.status().message();
}

TEST(SummaryOpsTest, ImageSummaryEncodesPngs) {
  // Two 1x2 gray images; floats scale from [0, 1] to bytes.
  Tensor images = MakeTensor<float>({0.0f, 1.0f, 0.5f, 2.0f}, TensorShape({2, 1, 2, 1}));
  auto out = RunOp1("image_summary", {Tag("digits"), images});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  pb::Summary s = Parse(*out);
  ASSERT_EQ(s.value_size(), 2);
  EXPECT_EQ(s.value(0).tag(), "digits/image/0");
  EXPECT_EQ(s.value(1).tag(), "digits/image/1");
  const pb::Summary::Image& image = s.value(1).image();
  EXPECT_EQ(image.height(), 1);
  EXPECT_EQ(image.width(), 2);
  EXPECT_EQ(image.colorspace(), 1);
  EXPECT_EQ(image.encoded_image_string().substr(1, 3), "PNG");
}

TEST(SummaryOpsTest, ImageSummaryKeepsMaxImages) {
  Tensor images = MakeTensor<int32_t>(std::vector<int32_t>(3 * 2 * 2 * 3, 200), TensorShape({3, 2, 2, 3}));
  auto out = RunOp1("image_summary", {Tag("rgb"), images}, {{"max_images", int64_t{1}}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  pb::Summary s = Parse(*out);
  ASSERT_EQ(s.value_size(), 1);
  EXPECT_EQ(s.value(0).tag(), "rgb/image");
  EXPECT_EQ(s.value(0).image().colorspace(), 3);
}

TEST(SummaryOpsTest, ImageSummaryErrors) {
  auto two_channels = RunOp1("image_summary", {Tag("x"), MakeTensor<float>({0, 0}, TensorShape({1, 1, 1, 2}))});
  ASSERT_FALSE(two_channels.ok());
  EXPECT_NE(two_channels.status().message().find("1, 3 or 4 channels"), std::string::npos);
  auto rank3 = RunOp1("image_summary", {Tag("x"), MakeTensor<float>({0}, TensorShape({1, 1, 1}))});
  EXPECT_FALSE(rank3.ok());
  auto too_bright = RunOp1("image_summary", {Tag("x"), MakeTensor<int32_t>({256}, TensorShape({1, 1, 1, 1}))});
  ASSERT_FALSE(too_bright.ok());
  EXPECT_NE(too_bright.status().message().find("outside [0, 255]"), std::string::npos);
}

TEST(SummaryOpsTest, MergeSummariesJoinsValues) {
  Tensor a = *RunOp1("scalar_summary", {Tag("a"), MakeTensor<float>({1}, TensorShape({}))});
  Tensor b = *RunOp1("scalar_summary", {Tag("b"), MakeTensor<float>({2}, TensorShape({}))});
  auto merged = RunOp1("merge_summaries", {a, b});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  pb::Summary s = Parse(*merged);
  ASSERT_EQ(s.value_size(), 2);
  EXPECT_EQ(s.value(0).tag(), "a");
  EXPECT_EQ(s.value(0).simple_value(), 1.0f);
  EXPECT_EQ(s.value(1).tag(), "b");
  EXPECT_EQ(s.value(1).simple_value(), 2.0f);
}

TEST(SummaryOpsTest, MergeSummariesRejectsDuplicateTags) {
  Tensor a = *RunOp1("scalar_summary", {Tag("a"), MakeTensor<float>({1}, TensorShape({}))});
  auto merged = RunOp1("merge_summaries", {a, a});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("'a' occurs twice"), std::string::npos);
}

TEST(SummaryOpsTest, MergeSummariesRejectsGarbage) {
  auto merged = RunOp1("merge_summaries", {MakeStrings({std::string("\xff\xff\xff", 3)}, TensorShape({}))});
  EXPECT_FALSE(merged.ok());
}

TEST(SummaryOpsTest, ShapeFunctions) {
  EXPECT_EQ(test::InferShapesString("scalar_summary", {PartialShape::Scalar(), PartialShape::Scalar()},
                                    {DType::kString, DType::kF32}),
            "[]");
  EXPECT_NE(test::InferShapesString("scalar_summary", {PartialShape::Scalar(), PartialShape({3})},
                                    {DType::kString, DType::kF32}).find("must be a scalar"),
            std::string::npos);
  EXPECT_NE(test::InferShapesString("histogram_summary", {PartialShape({2}), PartialShape({3})},
                                    {DType::kString, DType::kF32}).find("tag must be a string scalar"),
            std::string::npos);
  EXPECT_NE(test::InferShapesString("image_summary", {PartialShape::Scalar(), PartialShape({1, 2, 2, 2})},
                                    {DType::kString, DType::kF32}).find("1, 3 or 4 channels"),
            std::string::npos);
}

TEST(SummaryOpsTest, NoGradients) {
  for (const char* name : {"scalar_summary", "histogram_summary", "image_summary", "merge_summaries"}) {
    const OpDef* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_FALSE(op->grad_fn);
    EXPECT_FALSE(op->no_gradient_reason.empty()) << name;
  }
}

}  // namespace
}  // namespace tfg
