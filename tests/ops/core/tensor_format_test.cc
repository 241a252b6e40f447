// Expected strings were printed by NumPy 2.4 (str(np.array(values,
// dtype))) with default print options; see the case list below.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/core/tensor.h"

namespace tfg {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
Tensor Floats(const std::vector<double>& values, TensorShape shape) {
  Tensor t(HostAllocator(), kDTypeOf<T>, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = static_cast<T>(values[i]);
  return t;
}

template <typename T>
Tensor Ints(const std::vector<int64_t>& values, TensorShape shape) {
  Tensor t(HostAllocator(), kDTypeOf<T>, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = static_cast<T>(values[i]);
  return t;
}

Tensor Bools(const std::vector<bool>& values, TensorShape shape) {
  Tensor t(HostAllocator(), DType::kBool, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i];
  return t;
}

Tensor Strings(const std::vector<std::string>& values, TensorShape shape) {
  return Tensor::FromVector<std::string>(values, std::move(shape));
}

template <typename T, typename F>
Tensor Generate(TensorShape shape, F fn) {
  Tensor t(HostAllocator(), kDTypeOf<T>, std::move(shape));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<T>()[i] = static_cast<T>(fn(i));
  return t;
}

TEST(FormatTensorTest, F32Vector) {
  EXPECT_EQ(FormatTensor(Floats<float>({1.0, 2.0, 3.0}, TensorShape({3}))),
            "[1. 2. 3.]");
}

TEST(FormatTensorTest, F32Matrix) {
  EXPECT_EQ(FormatTensor(Floats<float>({1.0, 2.5, 3.0, 4.0}, TensorShape({2, 2}))),
            "[[1.  2.5]\n [3.  4. ]]");
}

TEST(FormatTensorTest, F32Tenths) {
  EXPECT_EQ(FormatTensor(Floats<float>({0.1, 0.2}, TensorShape({2}))),
            "[0.1 0.2]");
}

TEST(FormatTensorTest, I32Vector) {
  EXPECT_EQ(FormatTensor(Ints<int32_t>({1, 2, 3}, TensorShape({3}))),
            "[1 2 3]");
}

TEST(FormatTensorTest, BoolVector) {
  EXPECT_EQ(FormatTensor(Bools({true, false}, TensorShape({2}))),
            "[ True False]");
}

TEST(FormatTensorTest, F32Scalar) {
  EXPECT_EQ(FormatTensor(Floats<float>({3.5}, TensorShape({}))),
            "3.5");
}

TEST(FormatTensorTest, Strings) {
  EXPECT_EQ(FormatTensor(Strings({"a", "bc"}, TensorShape({2}))),
            "['a' 'bc']");
}

TEST(FormatTensorTest, F64Scientific) {
  EXPECT_EQ(FormatTensor(Floats<double>({1e-05, 1.0}, TensorShape({2}))),
            "[1.e-05 1.e+00]");
}

TEST(FormatTensorTest, F32NonFinite) {
  EXPECT_EQ(FormatTensor(Floats<float>({kNan, kInf, -kInf, 1.5}, TensorShape({4}))),
            "[ nan  inf -inf  1.5]");
}

TEST(FormatTensorTest, F64Thirds) {
  EXPECT_EQ(FormatTensor(Floats<double>({0.3333333333333333, 0.6666666666666666}, TensorShape({2}))),
            "[0.33333333 0.66666667]");
}

TEST(FormatTensorTest, F32Third) {
  EXPECT_EQ(FormatTensor(Floats<float>({0.3333333333333333}, TensorShape({1}))),
            "[0.33333334]");
}

TEST(FormatTensorTest, I32Negative) {
  EXPECT_EQ(FormatTensor(Ints<int32_t>({-1, 10, -100}, TensorShape({3}))),
            "[  -1   10 -100]");
}

TEST(FormatTensorTest, F32NegativeZero) {
  EXPECT_EQ(FormatTensor(Floats<float>({-0.0, 1.5}, TensorShape({2}))),
            "[-0.   1.5]");
}

TEST(FormatTensorTest, F32Empty) {
  EXPECT_EQ(FormatTensor(Floats<float>({}, TensorShape({0}))),
            "[]");
}

TEST(FormatTensorTest, F32EmptyMatrix) {
  EXPECT_EQ(FormatTensor(Floats<float>({}, TensorShape({2, 0}))),
            "[]");
}

TEST(FormatTensorTest, I64Scalar) {
  EXPECT_EQ(FormatTensor(Ints<int64_t>({-42}, TensorShape({}))),
            "-42");
}

TEST(FormatTensorTest, BoolScalar) {
  EXPECT_EQ(FormatTensor(Bools({true}, TensorShape({}))),
            "True");
}

TEST(FormatTensorTest, StringScalar) {
  EXPECT_EQ(FormatTensor(Strings({"hi there"}, TensorShape({}))),
            "hi there");
}

TEST(FormatTensorTest, F64ScalarLarge) {
  EXPECT_EQ(FormatTensor(Floats<double>({1e+20}, TensorShape({}))),
            "1e+20");
}

TEST(FormatTensorTest, F32ScalarTenth) {
  EXPECT_EQ(FormatTensor(Floats<float>({0.1}, TensorShape({}))),
            "0.1");
}

TEST(FormatTensorTest, F64ScalarOne) {
  EXPECT_EQ(FormatTensor(Floats<double>({1.0}, TensorShape({}))),
            "1.0");
}

TEST(FormatTensorTest, F64ScalarNan) {
  EXPECT_EQ(FormatTensor(Floats<double>({kNan}, TensorShape({}))),
            "nan");
}

TEST(FormatTensorTest, F16Vector) {
  EXPECT_EQ(FormatTensor(Floats<half>({0.1, 1.5}, TensorShape({2}))),
            "[0.1 1.5]");
}

TEST(FormatTensorTest, F16Large) {
  EXPECT_EQ(FormatTensor(Floats<half>({1000.0, 1.0}, TensorShape({2}))),
            "[1.e+03 1.e+00]");
}

TEST(FormatTensorTest, F32Million) {
  EXPECT_EQ(FormatTensor(Floats<float>({1000000.0, 1.0}, TensorShape({2}))),
            "[1.e+06 1.e+00]");
}

TEST(FormatTensorTest, F64NineDigits) {
  EXPECT_EQ(FormatTensor(Floats<double>({123456789.123, 1.0}, TensorShape({2}))),
            "[1.23456789e+08 1.00000000e+00]");
}

// Past the digits that identify a value, NumPy prints the value's own next
// digits (Dragon4's min_digits), not zeros: -875758.3f is -875758.3125.
TEST(FormatTensorTest, F32ExpDigitsPastTheShortest) {
  EXPECT_EQ(FormatTensor(Floats<float>({710290.94, -875758.3, 1.0}, TensorShape({3}))),
            "[ 7.1029094e+05 -8.7575831e+05  1.0000000e+00]");
}

TEST(FormatTensorTest, F16ExpDigitsPastTheShortest) {
  EXPECT_EQ(FormatTensor(Floats<half>({171.25, -14.664, 0.001}, TensorShape({3}))),
            "[ 1.7125e+02 -1.4664e+01  1.0004e-03]");
  EXPECT_EQ(FormatTensor(Floats<half>({1.5, 2e-5, 1.0009765625}, TensorShape({3}))),
            "[1.500e+00 2.003e-05 1.001e+00]");
}

TEST(FormatTensorTest, F64HugeExponents) {
  EXPECT_EQ(FormatTensor(Floats<double>({1e-300, 1e+300}, TensorShape({2}))),
            "[1.e-300 1.e+300]");
}

TEST(FormatTensorTest, StringsQuoted) {
  EXPECT_EQ(FormatTensor(Strings({"it's", "x\ny", "back\\slash"}, TensorShape({3}))),
            "[\"it's\" 'x\\ny' 'back\\\\slash']");
}

TEST(FormatTensorTest, F32MixedExp) {
  EXPECT_EQ(FormatTensor(Floats<float>({1e-05, 2.0, 3.0, 40000000000.0}, TensorShape({2, 2}))),
            "[[1.e-05 2.e+00]\n [3.e+00 4.e+10]]");
}

TEST(FormatTensorTest, BoolMatrix) {
  EXPECT_EQ(FormatTensor(Bools({true, false, false, true}, TensorShape({2, 2}))),
            "[[ True False]\n [False  True]]");
}

TEST(FormatTensorTest, F64Mixed) {
  EXPECT_EQ(FormatTensor(Floats<double>({0.5, 100.25, -3.125}, TensorShape({3}))),
            "[  0.5   100.25   -3.125]");
}

TEST(FormatTensorTest, F32AllNan) {
  EXPECT_EQ(FormatTensor(Floats<float>({kNan, kNan}, TensorShape({2}))),
            "[nan nan]");
}

TEST(FormatTensorTest, F64LongFraction) {
  EXPECT_EQ(FormatTensor(Floats<double>({1.23456789012, 2.0}, TensorShape({2}))),
            "[1.23456789 2.        ]");
}

TEST(FormatTensorTest, F32Cube) {
  EXPECT_EQ(FormatTensor(Floats<float>({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.5}, TensorShape({2, 2, 3}))),
            "[[[ 1.   2.   3. ]\n  [ 4.   5.   6. ]]\n\n [[ 7.   8.   9. ]\n  [10.  11.  12.5]]]");
}

TEST(FormatTensorTest, I32Threshold) {
  EXPECT_EQ(FormatTensor(Ints<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, TensorShape({10})), 5),
            "[0 1 2 ... 7 8 9]");
}

TEST(FormatTensorTest, F64Arange30) {
  EXPECT_EQ(FormatTensor(Generate<double>(TensorShape({30}), [](int64_t i) { return static_cast<double>(i); })),
            "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]");
}

TEST(FormatTensorTest, I32LongRow) {
  EXPECT_EQ(FormatTensor(Generate<int32_t>(TensorShape({40}), [](int64_t i) { return (i * 37 % 101) - 50; })),
            "[-50 -13  24 -40  -3  34 -30   7  44 -20  17 -47 -10  27 -37   0  37 -27\n  10  47 -17  20 -44  -7  30 -34   3  40 -24  13  50 -14  23 -41  -4  33\n -31   6  43 -21]");
}

TEST(FormatTensorTest, F32WrappedMatrix) {
  EXPECT_EQ(FormatTensor(Generate<float>(TensorShape({4, 30}), [](int64_t i) { return (i * 37 % 101) / 7.0; })),
            "[[ 0.          5.285714   10.571428    1.4285715   6.714286   12.\n   2.857143    8.142858   13.428572    4.285714    9.571428    0.42857143\n   5.714286   11.          1.8571428   7.142857   12.428572    3.2857144\n   8.571428   13.857142    4.714286   10.          0.85714287  6.142857\n  11.428572    2.2857144   7.571429   12.857142    3.7142856   9.        ]\n [14.285714    5.142857   10.428572    1.2857143   6.571429   11.857142\n   2.7142856   8.         13.285714    4.142857    9.428572    0.2857143\n   5.571429   10.857142    1.7142857   7.         12.285714    3.142857\n   8.428572   13.714286    4.571429    9.857142    0.71428573  6.\n  11.285714    2.142857    7.428571   12.714286    3.5714285   8.857142  ]\n [14.142858    5.         10.285714    1.1428572   6.428571   11.714286\n   2.5714285   7.857143   13.142858    4.          9.285714    0.14285715\n   5.428571   10.714286    1.5714285   6.857143   12.142858    3.\n   8.285714   13.571428    4.428571    9.714286    0.5714286   5.857143\n  11.142858    2.          7.285714   12.571428    3.4285715   8.714286  ]\n [14.          4.857143   10.142858    1.          6.285714   11.571428\n   2.4285715   7.714286   13.          3.857143    9.142858    0.\n   5.285714   10.571428    1.4285715   6.714286   12.          2.857143\n   8.142858   13.428572    4.285714    9.571428    0.42857143  5.714286\n  11.          1.8571428   7.142857   12.428572    3.2857144   8.571428  ]]");
}

TEST(FormatTensorTest, I64Summarised) {
  EXPECT_EQ(FormatTensor(Generate<int64_t>(TensorShape({2, 1000}), [](int64_t i) { return i; })),
            "[[   0    1    2 ...  997  998  999]\n [1000 1001 1002 ... 1997 1998 1999]]");
}

TEST(FormatTensorTest, F32Summarised) {
  EXPECT_EQ(FormatTensor(Generate<float>(TensorShape({1001}), [](int64_t i) { return i * 0.5; })),
            "[  0.    0.5   1.  ... 499.  499.5 500. ]");
}

TEST(FormatTensorTest, F32Summarised3D) {
  EXPECT_EQ(FormatTensor(Generate<float>(TensorShape({10, 10, 20}), [](int64_t i) { return (i % 13) - 6.25; })),
            "[[[-6.25 -5.25 -4.25 ... -2.25 -1.25 -0.25]\n  [ 0.75  1.75  2.75 ...  4.75  5.75 -6.25]\n  [-5.25 -4.25 -3.25 ... -1.25 -0.25  0.75]\n  ...\n  [ 3.75  4.75  5.75 ... -5.25 -4.25 -3.25]\n  [-2.25 -1.25 -0.25 ...  1.75  2.75  3.75]\n  [ 4.75  5.75 -6.25 ... -4.25 -3.25 -2.25]]\n\n [[-1.25 -0.25  0.75 ...  2.75  3.75  4.75]\n  [ 5.75 -6.25 -5.25 ... -3.25 -2.25 -1.25]\n  [-0.25  0.75  1.75 ...  3.75  4.75  5.75]\n  ...\n  [-4.25 -3.25 -2.25 ... -0.25  0.75  1.75]\n  [ 2.75  3.75  4.75 ... -6.25 -5.25 -4.25]\n  [-3.25 -2.25 -1.25 ...  0.75  1.75  2.75]]\n\n [[ 3.75  4.75  5.75 ... -5.25 -4.25 -3.25]\n  [-2.25 -1.25 -0.25 ...  1.75  2.75  3.75]\n  [ 4.75  5.75 -6.25 ... -4.25 -3.25 -2.25]\n  ...\n  [ 0.75  1.75  2.75 ...  4.75  5.75 -6.25]\n  [-5.25 -4.25 -3.25 ... -1.25 -0.25  0.75]\n  [ 1.75  2.75  3.75 ...  5.75 -6.25 -5.25]]\n\n ...\n\n [[ 2.75  3.75  4.75 ... -6.25 -5.25 -4.25]\n  [-3.25 -2.25 -1.25 ...  0.75  1.75  2.75]\n  [ 3.75  4.75  5.75 ... -5.25 -4.25 -3.25]\n  ...\n  [-0.25  0.75  1.75 ...  3.75  4.75  5.75]\n  [-6.25 -5.25 -4.25 ... -2.25 -1.25 -0.25]\n  [ 0.75  1.75  2.75 ...  4.75  5.75 -6.25]]\n\n [[-5.25 -4.25 -3.25 ... -1.25 -0.25  0.75]\n  [ 1.75  2.75  3.75 ...  5.75 -6.25 -5.25]\n  [-4.25 -3.25 -2.25 ... -0.25  0.75  1.75]\n  ...\n  [ 4.75  5.75 -6.25 ... -4.25 -3.25 -2.25]\n  [-1.25 -0.25  0.75 ...  2.75  3.75  4.75]\n  [ 5.75 -6.25 -5.25 ... -3.25 -2.25 -1.25]]\n\n [[-0.25  0.75  1.75 ...  3.75  4.75  5.75]\n  [-6.25 -5.25 -4.25 ... -2.25 -1.25 -0.25]\n  [ 0.75  1.75  2.75 ...  4.75  5.75 -6.25]\n  ...\n  [-3.25 -2.25 -1.25 ...  0.75  1.75  2.75]\n  [ 3.75  4.75  5.75 ... -5.25 -4.25 -3.25]\n  [-2.25 -1.25 -0.25 ...  1.75  2.75  3.75]]]");
}

TEST(TensorsEqualTest, ComparesDtypeShapeAndValues) {
  Tensor a = Floats<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  EXPECT_TRUE(TensorsEqual(a, Floats<float>({1, 2, 3, 4}, TensorShape({2, 2}))));
  EXPECT_FALSE(TensorsEqual(a, Floats<float>({1, 2, 3, 5}, TensorShape({2, 2}))));
  EXPECT_FALSE(TensorsEqual(a, Floats<float>({1, 2, 3, 4}, TensorShape({4}))));
  EXPECT_FALSE(TensorsEqual(a, Floats<double>({1, 2, 3, 4}, TensorShape({2, 2}))));
  EXPECT_TRUE(TensorsEqual(Strings({"a", "b"}, TensorShape({2})), Strings({"a", "b"}, TensorShape({2}))));
  EXPECT_FALSE(TensorsEqual(Strings({"a", "b"}, TensorShape({2})), Strings({"a", "c"}, TensorShape({2}))));
  EXPECT_FALSE(TensorsEqual(Floats<float>({kNan}, TensorShape({1})), Floats<float>({kNan}, TensorShape({1}))));
  EXPECT_TRUE(TensorsEqual(Floats<half>({0.5}, TensorShape({})), Floats<half>({0.5}, TensorShape({}))));
}

}  // namespace
}  // namespace tfg
