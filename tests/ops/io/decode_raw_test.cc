#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg::test {
namespace {

AttrMap RawAttrs(DType out, bool little_endian = true, std::string source = "") {
  return {{"out_type", out}, {"little_endian", little_endian}, {"source", std::move(source)}};
}

// 1.0f is 0x3F800000; -2.5f is 0xC0200000.
TEST(DecodeRaw, FloatsLittleAndBigEndian) {
  Tensor le = MakeStrings({std::string("\x00\x00\x80\x3f\x00\x00\x20\xc0", 8)}, {1});
  ExpectTensorEq<float>(Eval("decode_raw", {le}, RawAttrs(DType::kF32)), {1.0f, -2.5f}, {1, 2});
  Tensor be = MakeStrings({std::string("\x3f\x80\x00\x00", 4)}, {});
  ExpectTensorEq<float>(Eval("decode_raw", {be}, RawAttrs(DType::kF32, false)), {1.0f}, {1});
}

TEST(DecodeRaw, Int32AndInt64) {
  Tensor t = MakeStrings({std::string("\x01\x02\x00\x00\xff\xff\xff\xff", 8)}, {});
  ExpectTensorEq<int32_t>(Eval("decode_raw", {t}, RawAttrs(DType::kI32)), {513, -1}, {2});
  ExpectTensorEq<int64_t>(Eval("decode_raw", {t}, RawAttrs(DType::kI64)), {int64_t{-4294966783}}, {1});
  ExpectTensorEq<int64_t>(Eval("decode_raw", {t}, RawAttrs(DType::kI64, false)),
                          {int64_t{0x01020000ffffffff}}, {1});
}

TEST(DecodeRaw, UnsignedAndSignedBytesWiden) {
  Tensor t = MakeStrings({std::string("\x00\x7f\x80\xff", 4), std::string("\x01\x02\x03\x04", 4)}, {2});
  ExpectTensorEq<float>(Eval("decode_raw", {t}, RawAttrs(DType::kF32, true, "u8")),
                        {0, 127, 128, 255, 1, 2, 3, 4}, {2, 4});
  ExpectTensorEq<int32_t>(Eval("decode_raw", {t}, RawAttrs(DType::kI32, true, "i8")),
                          {0, 127, -128, -1, 1, 2, 3, 4}, {2, 4});
  ExpectTensorEq<int32_t>(Eval("decode_raw", {t}, RawAttrs(DType::kI32, true, "u16")),
                          {0x7f00, 0xff80, 0x0201, 0x0403}, {2, 2});
  ExpectTensorEq<int32_t>(Eval("decode_raw", {t}, RawAttrs(DType::kI32, false, "i16")),
                          {0x007f, -32513, 0x0102, 0x0304}, {2, 2});
}

TEST(DecodeRaw, StringsOfDifferentLengthsAreAnError) {
  Tensor t = MakeStrings({"abcd", "ab"}, {2});
  ExpectError(RunOp("decode_raw", {t}, RawAttrs(DType::kF32, true, "u8")), Code::kInvalidArgument,
              "string 1 has 2 bytes; expected 4");
  Tensor odd = MakeStrings({"abcde"}, {1});
  ExpectError(RunOp("decode_raw", {odd}, RawAttrs(DType::kI32)), Code::kInvalidArgument,
              "string 0 has 5 bytes, not a whole number of 4-byte elements");
  // The first string itself is the odd one: no claim that 0 bytes were expected.
  Tensor short_first = MakeStrings({"abc", "abcd"}, {2});
  ExpectError(RunOp("decode_raw", {short_first}, RawAttrs(DType::kF32)), Code::kInvalidArgument,
              "string 0 has 3 bytes, not a whole number of 4-byte elements");
}

// IEEE binary16 (NumPy's '<f2'): 1.0 is 0x3C00, -2.0 is 0xC000, 65504 is 0x7BFF.
TEST(DecodeRaw, HalfFloats) {
  Tensor le = MakeStrings({std::string("\x00\x3c\x00\xc0\xff\x7b", 6)}, {});
  ExpectTensorNear(Eval("decode_raw", {le}, RawAttrs(DType::kF16)), {1.0, -2.0, 65504.0}, {3}, 0);
  Tensor be = MakeStrings({std::string("\x3c\x00", 2)}, {});
  ExpectTensorNear(Eval("decode_raw", {be}, RawAttrs(DType::kF16, false)), {1.0}, {1}, 0);
  Tensor bytes = MakeStrings({std::string("\xff\x02", 2)}, {});
  ExpectTensorNear(Eval("decode_raw", {bytes}, RawAttrs(DType::kF16, true, "u8")), {255.0, 2.0}, {2}, 0);
}

TEST(DecodeRaw, UnknownSourceIsRefused) {
  ExpectError(RunOp("decode_raw", {MakeStrings({"a"}, {})}, RawAttrs(DType::kF32, true, "u4")),
              Code::kInvalidArgument, "source must be");
}

}  // namespace
}  // namespace tfg::test

namespace tfg::test {
namespace {

TEST(EncodeRaw, BytesOfEachRowAndTheRoundTrip) {
  Tensor pixels = MakeTensor<int32_t>({0, 1, 255, 7, 8, 9}, {2, 3});
  Tensor bytes = Eval("encode_raw", {pixels}, {{"dest", std::string("u8")}});
  ExpectTensorEq<std::string>(bytes, {std::string("\x00\x01\xff", 3), std::string("\x07\x08\x09", 3)}, {2});
  Tensor f = MakeTensor<float>({1.0f, -2.5f}, {2});
  ExpectTensorEq<std::string>(Eval("encode_raw", {f}, {{"dest", std::string("")}}),
                              {std::string("\x00\x00\x80\x3f\x00\x00\x20\xc0", 8)}, {});
  Tensor i16 = MakeTensor<int32_t>({-2, 258}, {2});
  ExpectTensorEq<std::string>(Eval("encode_raw", {i16}, {{"dest", std::string("i16")}}),
                              {std::string("\xfe\xff\x02\x01", 4)}, {});
}

// f16 as its binary16 bits (NumPy: np.float16([1, -2, 65504]).tobytes()).
TEST(EncodeRaw, HalfFloats) {
  Tensor h = MakeTensorOf(DType::kF16, {1.0, -2.0, 65504.0}, {3});
  ExpectTensorEq<std::string>(Eval("encode_raw", {h}, {{"dest", std::string("")}}),
                              {std::string("\x00\x3c\x00\xc0\xff\x7b", 6)}, {});
}

TEST(EncodeRaw, ValuesOutsideTheDestinationAreAnError) {
  ExpectError(RunOp("encode_raw", {MakeTensor<int32_t>({3, 256}, {2})}, {{"dest", std::string("u8")}}),
              Code::kInvalidArgument, "element 1 is 256, which is not an integer in [0, 255]");
  ExpectError(RunOp("encode_raw", {MakeTensor<float>({0.5f}, {1})}, {{"dest", std::string("u8")}}),
              Code::kInvalidArgument, "element 0 is 0.5");
}

}  // namespace
}  // namespace tfg::test
