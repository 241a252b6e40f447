#include "interp/language/value_arith.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace tfg {
namespace {

using ast::BinaryOp;
using ast::UnaryOp;

Value Bin(BinaryOp op, Value a, Value b) {
  auto r = HostBinary(op, a, b);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Value();
}

TEST(HostArithTest, IntsStayInts) {
  EXPECT_EQ(Bin(BinaryOp::kAdd, Value::Int(2), Value::Int(3)).as_int(), 5);
  EXPECT_EQ(Bin(BinaryOp::kSub, Value::Int(2), Value::Int(3)).as_int(), -1);
  EXPECT_EQ(Bin(BinaryOp::kMul, Value::Int(-4), Value::Int(3)).as_int(), -12);
  EXPECT_EQ(Bin(BinaryOp::kPow, Value::Int(2), Value::Int(62)).as_int(), int64_t{4611686018427387904});
  EXPECT_EQ(Bin(BinaryOp::kPow, Value::Int(-3), Value::Int(3)).as_int(), -27);
}

TEST(HostArithTest, DivisionIsTrueDivision) {
  Value q = Bin(BinaryOp::kDiv, Value::Int(7), Value::Int(2));
  ASSERT_TRUE(q.is(ValueKind::kFloat));
  EXPECT_EQ(q.as_float(), 3.5);
  EXPECT_EQ(Bin(BinaryOp::kDiv, Value::Int(6), Value::Int(3)).as_float(), 2.0);
  EXPECT_FALSE(HostBinary(BinaryOp::kDiv, Value::Int(1), Value::Int(0)).ok());
  EXPECT_FALSE(HostBinary(BinaryOp::kDiv, Value::Float(1), Value::Float(0)).ok());
}

TEST(HostArithTest, ModuloFollowsTheDivisorSign) {
  // Python: -7 % 3 == 2, 7 % -3 == -2, -7.5 % 2 == 0.5.
  EXPECT_EQ(Bin(BinaryOp::kMod, Value::Int(-7), Value::Int(3)).as_int(), 2);
  EXPECT_EQ(Bin(BinaryOp::kMod, Value::Int(7), Value::Int(-3)).as_int(), -2);
  EXPECT_EQ(Bin(BinaryOp::kMod, Value::Int(7), Value::Int(3)).as_int(), 1);
  EXPECT_EQ(Bin(BinaryOp::kMod, Value::Float(-7.5), Value::Int(2)).as_float(), 0.5);
  EXPECT_EQ(Bin(BinaryOp::kMod, Value::Int(INT64_MIN), Value::Int(-1)).as_int(), 0);
  EXPECT_FALSE(HostBinary(BinaryOp::kMod, Value::Int(1), Value::Int(0)).ok());
}

TEST(HostArithTest, FloorDivisionRoundsTowardNegativeInfinity) {
  // Python: 7 // 2 == 3, -7 // 2 == -4, 7 // -2 == -4, -7.5 // 2 == -4.0,
  // 1 // 0.1 == 9.0 (0.1 is a little more than a tenth), -0.0 // 1 == -0.0.
  Value q = Bin(BinaryOp::kFloorDiv, Value::Int(7), Value::Int(2));
  ASSERT_TRUE(q.is(ValueKind::kInt));
  EXPECT_EQ(q.as_int(), 3);
  EXPECT_EQ(Bin(BinaryOp::kFloorDiv, Value::Int(-7), Value::Int(2)).as_int(), -4);
  EXPECT_EQ(Bin(BinaryOp::kFloorDiv, Value::Int(7), Value::Int(-2)).as_int(), -4);
  EXPECT_EQ(Bin(BinaryOp::kFloorDiv, Value::Int(-6), Value::Int(2)).as_int(), -3);
  EXPECT_EQ(Bin(BinaryOp::kFloorDiv, Value::Float(-7.5), Value::Int(2)).as_float(), -4.0);
  EXPECT_EQ(Bin(BinaryOp::kFloorDiv, Value::Int(1), Value::Float(0.1)).as_float(), 9.0);
  EXPECT_TRUE(std::signbit(Bin(BinaryOp::kFloorDiv, Value::Float(-0.0), Value::Int(1)).as_float()));
  EXPECT_FALSE(HostBinary(BinaryOp::kFloorDiv, Value::Int(1), Value::Int(0)).ok());
  EXPECT_FALSE(HostBinary(BinaryOp::kFloorDiv, Value::Float(1), Value::Float(0)).ok());
  EXPECT_FALSE(HostBinary(BinaryOp::kFloorDiv, Value::Int(INT64_MIN), Value::Int(-1)).ok());
}

TEST(HostArithTest, AZeroModuloTakesTheDivisorSign) {
  // Python: -4.0 % 2 == 0.0, 4.0 % -2 == -0.0, 5 % -0.5 == -0.0.
  EXPECT_FALSE(std::signbit(Bin(BinaryOp::kMod, Value::Float(-4), Value::Int(2)).as_float()));
  EXPECT_TRUE(std::signbit(Bin(BinaryOp::kMod, Value::Float(4), Value::Int(-2)).as_float()));
  EXPECT_TRUE(std::signbit(Bin(BinaryOp::kMod, Value::Int(5), Value::Float(-0.5)).as_float()));
  EXPECT_EQ(Bin(BinaryOp::kMod, Value::Float(7.5), Value::Int(-2)).as_float(), -0.5);
}

TEST(HostArithTest, NegativePowerGivesFloat) {
  Value p = Bin(BinaryOp::kPow, Value::Int(2), Value::Int(-1));
  ASSERT_TRUE(p.is(ValueKind::kFloat));
  EXPECT_EQ(p.as_float(), 0.5);
  EXPECT_EQ(Bin(BinaryOp::kPow, Value::Float(9), Value::Float(0.5)).as_float(), 3.0);
  // Python: ZeroDivisionError, for an int zero as for a float one.
  EXPECT_EQ(HostBinary(BinaryOp::kPow, Value::Int(0), Value::Int(-1)).status().message(),
            "0.0 cannot be raised to a negative power");
}

TEST(HostArithTest, MixedIntFloatGivesFloat) {
  Value s = Bin(BinaryOp::kAdd, Value::Int(1), Value::Float(0.5));
  ASSERT_TRUE(s.is(ValueKind::kFloat));
  EXPECT_EQ(s.as_float(), 1.5);
  // Bools count as 0 and 1.
  EXPECT_EQ(Bin(BinaryOp::kAdd, Value::Bool(true), Value::Int(1)).as_int(), 2);
}

TEST(HostArithTest, OverflowIsAnError) {
  auto r = HostBinary(BinaryOp::kMul, Value::Int(INT64_MAX), Value::Int(2));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("overflow"), std::string::npos);
  EXPECT_FALSE(HostBinary(BinaryOp::kPow, Value::Int(10), Value::Int(19)).ok());
  EXPECT_FALSE(HostUnary(UnaryOp::kNeg, Value::Int(INT64_MIN)).ok());
}

TEST(HostArithTest, Strings) {
  EXPECT_EQ(Bin(BinaryOp::kAdd, Value::Str("ab"), Value::Str("cd")).as_string(), "abcd");
  EXPECT_EQ(Bin(BinaryOp::kMul, Value::Str("ab"), Value::Int(3)).as_string(), "ababab");
  EXPECT_TRUE(Bin(BinaryOp::kLt, Value::Str("abc"), Value::Str("abd")).as_bool());
  EXPECT_TRUE(Bin(BinaryOp::kEq, Value::Str("x"), Value::Str("x")).as_bool());
  auto bad = HostBinary(BinaryOp::kAdd, Value::Str("a"), Value::Int(1));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("string"), std::string::npos);
  EXPECT_NE(bad.status().message().find("int"), std::string::npos);
}

TEST(HostArithTest, Comparisons) {
  EXPECT_TRUE(Bin(BinaryOp::kLt, Value::Int(1), Value::Float(1.5)).as_bool());
  EXPECT_TRUE(Bin(BinaryOp::kGe, Value::Int(2), Value::Int(2)).as_bool());
  EXPECT_FALSE(Bin(BinaryOp::kGt, Value::Int(2), Value::Int(2)).as_bool());
  EXPECT_TRUE(Bin(BinaryOp::kEq, Value::Int(1), Value::Float(1.0)).as_bool());
  EXPECT_TRUE(Bin(BinaryOp::kNe, Value::Int(1), Value::Str("1")).as_bool());
  EXPECT_TRUE(Bin(BinaryOp::kEq, Value(), Value()).as_bool());
  EXPECT_FALSE(HostBinary(BinaryOp::kLt, Value(), Value::Int(1)).ok());
}

TEST(HostArithTest, Unary) {
  EXPECT_EQ(HostUnary(UnaryOp::kNeg, Value::Int(3))->as_int(), -3);
  EXPECT_EQ(HostUnary(UnaryOp::kNeg, Value::Float(0.5))->as_float(), -0.5);
  EXPECT_TRUE(HostUnary(UnaryOp::kNot, Value::Int(0))->as_bool());
  EXPECT_FALSE(HostUnary(UnaryOp::kNot, Value::Str("x"))->as_bool());
  EXPECT_FALSE(HostUnary(UnaryOp::kNeg, Value::Str("x")).ok());
}

TEST(HostEqualsTest, DeepAndCrossKind) {
  Value a = Value::NewList({Value::Int(1), Value::NewList({Value::Str("x")})});
  Value b = Value::NewList({Value::Float(1.0), Value::NewList({Value::Str("x")})});
  EXPECT_TRUE(HostEquals(a, b));
  Value c = Value::NewList({Value::Int(1)});
  EXPECT_FALSE(HostEquals(a, c));
  EXPECT_FALSE(HostEquals(Value::Int(0), Value()));
  EXPECT_TRUE(HostEquals(Value::Type(DType::kF32), Value::Type(DType::kF32)));
  EXPECT_FALSE(HostEquals(Value::Type(DType::kF32), Value::Type(DType::kF64)));
}

}  // namespace
}  // namespace tfg
