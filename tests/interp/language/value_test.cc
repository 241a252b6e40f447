#include "interp/language/value.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

TEST(FormatFloatTest, MatchesPythonRepr) {
  // Expected strings are Python 3's repr() of the same doubles.
  EXPECT_EQ(FormatFloat(0.1), "0.1");
  EXPECT_EQ(FormatFloat(1.0), "1.0");
  EXPECT_EQ(FormatFloat(100.0), "100.0");
  EXPECT_EQ(FormatFloat(1e16), "1e+16");
  EXPECT_EQ(FormatFloat(1e15), "1000000000000000.0");
  EXPECT_EQ(FormatFloat(0.0001), "0.0001");
  EXPECT_EQ(FormatFloat(0.00001), "1e-05");
  EXPECT_EQ(FormatFloat(-2.5), "-2.5");
  EXPECT_EQ(FormatFloat(123456789.125), "123456789.125");
  EXPECT_EQ(FormatFloat(1.5e-7), "1.5e-07");
  EXPECT_EQ(FormatFloat(1180591620717411303424.0), "1.1805916207174113e+21");
  EXPECT_EQ(FormatFloat(0.0), "0.0");
  EXPECT_EQ(FormatFloat(-0.0), "-0.0");
  EXPECT_EQ(FormatFloat(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(FormatFloat(12345678901234567.0), "1.2345678901234568e+16");
  EXPECT_EQ(FormatFloat(1.0 / 0.0), "inf");
  EXPECT_EQ(FormatFloat(-1.0 / 0.0), "-inf");
}

TEST(ReprTest, ScalarsAndContainers) {
  EXPECT_EQ(Repr(Value()), "none");
  EXPECT_EQ(Repr(Value::Bool(true)), "true");
  EXPECT_EQ(Repr(Value::Bool(false)), "false");
  EXPECT_EQ(Repr(Value::Int(-3)), "-3");
  EXPECT_EQ(Repr(Value::Str("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(ToDisplayString(Value::Str("raw text")), "raw text");
  Value list = Value::NewList({Value::Int(1), Value::Float(2.5), Value::Str("s"), Value()});
  EXPECT_EQ(Repr(list), "[1, 2.5, \"s\", none]");
  EXPECT_EQ(ToDisplayString(list), "[1, 2.5, \"s\", none]");
  Value dict = Value::NewDict();
  ASSERT_TRUE(dict.as_dict().Set(Value::Str("k"), Value::Int(1)).ok());
  ASSERT_TRUE(dict.as_dict().Set(Value::Int(2), list).ok());
  EXPECT_EQ(Repr(dict), "{\"k\": 1, 2: [1, 2.5, \"s\", none]}");
  EXPECT_EQ(Repr(Value::Type(DType::kF32)), "f32");
  EXPECT_EQ(Repr(Value::RangeOf(Range{0, 5, 1})), "range(0, 5)");
  EXPECT_EQ(Repr(Value::RangeOf(Range{5, 0, -2})), "range(5, 0, -2)");
}

TEST(ReprTest, SelfContainingListTerminates) {
  Value list = Value::NewList({Value::Int(1)});
  list.as_list().items.push_back(list);
  std::string r = Repr(list);
  EXPECT_NE(r.find("[...]"), std::string::npos);
  list.as_list().items.clear();  // break the cycle
}

TEST(DictTest, PythonKeyEquality) {
  Dict d;
  ASSERT_TRUE(d.Set(Value::Int(1), Value::Str("int")).ok());
  // 1, 1.0 and true are one key, as in Python.
  ASSERT_TRUE(d.Set(Value::Float(1.0), Value::Str("float")).ok());
  ASSERT_TRUE(d.Set(Value::Bool(true), Value::Str("bool")).ok());
  EXPECT_EQ(d.size(), 1u);
  EXPECT_EQ(d.Find(Value::Int(1))->as_string(), "bool");
  ASSERT_TRUE(d.Set(Value::Float(1.5), Value::Int(7)).ok());
  ASSERT_TRUE(d.Set(Value::Str("1"), Value::Int(8)).ok());
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d.Find(Value::Str("1"))->as_int(), 8);
  EXPECT_EQ(d.Find(Value::Str("missing")), nullptr);
  // Insertion order is kept.
  EXPECT_EQ(d.entries()[1].first.as_float(), 1.5);
}

TEST(DictTest, UnhashableKeysAreErrors) {
  Dict d;
  Status s = d.Set(Value::NewList(), Value::Int(1));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("list"), std::string::npos);
}

TEST(RangeTest, SizeFollowsPython) {
  EXPECT_EQ((Range{0, 10, 1}).size(), 10);
  EXPECT_EQ((Range{0, 10, 3}).size(), 4);   // 0 3 6 9
  EXPECT_EQ((Range{10, 0, -3}).size(), 4);  // 10 7 4 1
  EXPECT_EQ((Range{5, 5, 1}).size(), 0);
  EXPECT_EQ((Range{5, 0, 1}).size(), 0);
  EXPECT_EQ((Range{2, 9, 3}).at(2), 8);
}

TEST(TruthyTest, PythonRules) {
  EXPECT_FALSE(*Truthy(Value()));
  EXPECT_FALSE(*Truthy(Value::Int(0)));
  EXPECT_TRUE(*Truthy(Value::Int(-1)));
  EXPECT_FALSE(*Truthy(Value::Float(0.0)));
  EXPECT_FALSE(*Truthy(Value::Str("")));
  EXPECT_TRUE(*Truthy(Value::Str("x")));
  EXPECT_FALSE(*Truthy(Value::NewList()));
  EXPECT_TRUE(*Truthy(Value::NewList({Value()})));
  EXPECT_FALSE(*Truthy(Value::RangeOf(Range{0, 0, 1})));
  EXPECT_TRUE(*Truthy(Value::HostTensor(Tensor::Scalar<float>(0.5f))));
  EXPECT_FALSE(*Truthy(Value::HostTensor(Tensor::Scalar<bool>(false))));
  auto many = Truthy(Value::HostTensor(Tensor::Vector<int32_t>({1, 2})));
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("ambiguous"), std::string::npos);
}

TEST(EnvTest, LookupWalksOutwards) {
  auto globals = std::make_shared<Env>();
  globals->vars["a"] = Value::Int(1);
  globals->vars["b"] = Value::Int(2);
  auto local = std::make_shared<Env>();
  local->parent = globals;
  local->vars["b"] = Value::Int(20);
  EXPECT_EQ(local->Lookup("a")->as_int(), 1);
  EXPECT_EQ(local->Lookup("b")->as_int(), 20);
  EXPECT_EQ(globals->Lookup("b")->as_int(), 2);
  EXPECT_EQ(local->Lookup("c"), nullptr);
}

}  // namespace
}  // namespace tfg
