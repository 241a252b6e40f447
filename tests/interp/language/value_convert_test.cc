#include "interp/language/value_convert.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

Value Ints(std::initializer_list<int64_t> xs) {
  std::vector<Value> items;
  for (int64_t x : xs) items.push_back(Value::Int(x));
  return Value::NewList(std::move(items));
}

TEST(ToTensorTest, NestedListsAreTensorLiterals) {
  Value v = Value::NewList({Ints({1, 2, 3}), Ints({4, 5, 6})});
  auto t = ToTensor(v);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), DType::kI32);
  EXPECT_EQ(t->shape(), TensorShape({2, 3}));
  EXPECT_EQ(t->data<int32_t>()[0], 1);
  EXPECT_EQ(t->data<int32_t>()[5], 6);
}

TEST(ToTensorTest, DefaultDTypes) {
  EXPECT_EQ(*DefaultDType(Value::Int(3)), DType::kI32);
  EXPECT_EQ(*DefaultDType(Value::Int(int64_t{1} << 40)), DType::kI64);
  EXPECT_EQ(*DefaultDType(Value::Float(0.5)), DType::kF32);
  EXPECT_EQ(*DefaultDType(Value::Bool(true)), DType::kBool);
  EXPECT_EQ(*DefaultDType(Value::Str("s")), DType::kString);
  EXPECT_EQ(*DefaultDType(Value::NewList({Value::Int(1), Value::Float(2.5)})), DType::kF32);
  EXPECT_EQ(*DefaultDType(Value::NewList()), DType::kF32);
  EXPECT_FALSE(DefaultDType(Value::NewList({Value::Bool(true), Value::Int(1)})).ok());
}

TEST(ToTensorTest, ConvertsToTheRequestedDType) {
  auto t = ToTensor(Value::NewList({Value::Int(1), Value::Float(2.5)}), DType::kF64);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dtype(), DType::kF64);
  EXPECT_EQ(t->data<double>()[1], 2.5);
  auto h = ToTensor(Value::Int(3), DType::kF16);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(static_cast<float>(h->scalar<half>()), 3.0f);
}

TEST(ToTensorTest, FloatToIntIsAnError) {
  auto t = ToTensor(Value::Float(0.5), DType::kI32);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("float 0.5"), std::string::npos);
  EXPECT_NE(t.status().message().find("i32"), std::string::npos);
  EXPECT_FALSE(ToTensor(Value::Bool(true), DType::kF32).ok());
  EXPECT_FALSE(ToTensor(Value::Int(int64_t{1} << 40), DType::kI32).ok());
}

TEST(ToTensorTest, RaggedListIsAnError) {
  auto t = ToTensor(Value::NewList({Ints({1, 2}), Ints({3})}));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("ragged"), std::string::npos);
  EXPECT_NE(t.status().message().find("[1]"), std::string::npos);
  EXPECT_NE(t.status().message().find("[2]"), std::string::npos);
}

TEST(ToTensorTest, ListsOfHostTensorsStack) {
  Value rows = Value::NewList({Value::HostTensor(Tensor::Vector<float>({1, 2})), Value::NewList({Value::Int(3), Value::Int(4)})});
  auto t = ToTensor(rows);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), DType::kF32);
  EXPECT_EQ(t->shape(), TensorShape({2, 2}));
  EXPECT_EQ(t->data<float>()[3], 4.0f);
}

TEST(ToTensorTest, RangesAndStrings) {
  auto r = ToTensor(Value::RangeOf(Range{0, 6, 2}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), TensorShape({3}));
  EXPECT_EQ(r->data<int32_t>()[2], 4);
  auto s = ToTensor(Value::NewList({Value::Str("a"), Value::Str("bc")}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->data<std::string>()[1], "bc");
}

TEST(ConvertTensorTest, ImplicitRules) {
  Tensor i = Tensor::Vector<int32_t>({1, -2});
  auto f = ConvertTensor(i, DType::kF64);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->data<double>()[1], -2.0);
  auto l = ConvertTensor(i, DType::kI64);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->data<int64_t>()[1], -2);
  EXPECT_FALSE(ConvertTensor(Tensor::Vector<float>({0.5f}), DType::kI32).ok());
  EXPECT_FALSE(ConvertTensor(Tensor::Vector<int64_t>({int64_t{1} << 40}), DType::kI32).ok());
}

TEST(TensorElementTest, ReadsEveryDType) {
  EXPECT_EQ(TensorElement(Tensor::Vector<int64_t>({5, 7}), 1).as_int(), 7);
  EXPECT_EQ(TensorElement(Tensor::Scalar<double>(0.25), 0).as_float(), 0.25);
  EXPECT_TRUE(TensorElement(Tensor::Scalar<bool>(true), 0).as_bool());
  EXPECT_EQ(TensorElement(Tensor::Scalar<std::string>("x"), 0).as_string(), "x");
}

TEST(TensorRowTest, CopiesOneRow) {
  Tensor t = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Tensor row = TensorRow(t, 2);
  EXPECT_EQ(row.shape(), TensorShape({2}));
  EXPECT_EQ(row.data<int32_t>()[0], 5);
  EXPECT_EQ(row.data<int32_t>()[1], 6);
}

TEST(ZerosTensorTest, ZeroFilled) {
  Tensor z = *ZerosTensor(DType::kF32, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(z.data<float>()[i], 0.0f);
}

}  // namespace
}  // namespace tfg
