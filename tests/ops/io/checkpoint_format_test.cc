#include "ops/io/checkpoint_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ops/io/crc32c.h"
#include "tests/ops/op_test_util.h"

namespace tfg::checkpoint {
namespace {

using test::MakeHalf;
using test::MakeStrings;
using test::MakeTensor;
using test::MakeTensorOf;

std::vector<Entry> EveryDType() {
  return {
      {"f16", MakeHalf({0.5f, -2.0f, 65504.0f}, {3})},
      {"f32", MakeTensor<float>({1.5f, -0.0f, 3.25f, 1e-30f, 7.0f, 8.0f}, {2, 3})},
      {"f64", MakeTensor<double>({3.141592653589793}, {})},
      {"i32", MakeTensor<int32_t>({std::numeric_limits<int32_t>::min(), 0, 7}, {3, 1})},
      {"i64", MakeTensor<int64_t>({std::numeric_limits<int64_t>::max(), -1}, {2})},
      {"bool", MakeTensor<bool>({true, false, true, true}, {2, 2})},
      {"string", MakeStrings({"", "hello", std::string("nul\0byte", 8), "ünïcödé"}, {4})},
      {"empty", MakeTensor<float>({}, {0, 5})},
      {"empty_strings", MakeStrings({}, {3, 0})},
  };
}

std::string EncodeOrDie(const std::vector<Entry>& entries) {
  auto bytes = Encode(entries);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

TEST(CheckpointFormat, RoundTripsEveryDTypeScalarAndEmptyShapes) {
  std::vector<Entry> in = EveryDType();
  auto out = Decode(EncodeOrDie(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ((*out)[i].name, in[i].name);
    EXPECT_TRUE(TensorsEqual((*out)[i].value, in[i].value)) << in[i].name;
  }
  // Bit patterns survive, not just values that compare equal.
  EXPECT_TRUE(std::signbit((*out)[1].value.data<float>()[1]));
  EXPECT_EQ((*out)[6].value.data<std::string>()[2].size(), 8u);
}

TEST(CheckpointFormat, EmptyCheckpointIsHeaderAndFooter) {
  std::string bytes = EncodeOrDie({});
  EXPECT_EQ(bytes.size(), kHeaderBytes + kFooterBytes);
  auto out = Decode(bytes);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->empty());
}

// The layout of docs/checkpoints.md, checked byte by byte on one record.
TEST(CheckpointFormat, LayoutMatchesTheDocumentation) {
  std::string bytes = EncodeOrDie({{"w", MakeTensor<int32_t>({7, -1}, {2})}});
  // header 12 | len 8 | name_len 4, "w" 1 | dtype 1 | rank 4 | dim 8 | data_len 8 | data 8 | crc 4 | footer 20
  ASSERT_EQ(bytes.size(), 12u + 8 + 5 + 1 + 4 + 8 + 8 + 8 + 4 + 20);
  EXPECT_EQ(bytes.substr(0, 8), std::string("TFGCKPT\n"));
  EXPECT_EQ(bytes.substr(8, 4), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(bytes.substr(12, 8), std::string("\x22\0\0\0\0\0\0\0", 8));  // body of 34 bytes
  EXPECT_EQ(bytes.substr(20, 5), std::string("\x01\0\0\0w", 5));
  EXPECT_EQ(bytes[25], '\x04');  // i32
  EXPECT_EQ(bytes.substr(26, 4), std::string("\x01\0\0\0", 4));
  EXPECT_EQ(bytes.substr(30, 8), std::string("\x02\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(bytes.substr(38, 8), std::string("\x08\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(bytes.substr(46, 8), std::string("\x07\0\0\0\xff\xff\xff\xff", 8));
  uint32_t crc = 0;
  std::memcpy(&crc, bytes.data() + 54, 4);
  EXPECT_EQ(UnmaskCrc(crc), Crc32c(bytes.data() + 12, 42));
  EXPECT_EQ(bytes.substr(58, 8), std::string("\x01\0\0\0\0\0\0\0", 8));  // count
  std::memcpy(&crc, bytes.data() + 66, 4);
  EXPECT_EQ(UnmaskCrc(crc), Crc32c(bytes.data(), 66));
  EXPECT_EQ(bytes.substr(70), std::string("TFGCKEND"));
}

TEST(CheckpointFormat, EncodeRefusesBadEntries) {
  test::ExpectError(Encode({{"", MakeTensor<float>({1}, {1})}}), Code::kInvalidArgument, "names must have");
  test::ExpectError(Encode({{"a", MakeTensor<float>({1}, {1})}, {"a", MakeTensor<float>({2}, {1})}}),
                    Code::kInvalidArgument, "both named 'a'");
  test::ExpectError(Encode({{"a", Tensor()}}), Code::kInvalidArgument, "no value");
}

TEST(CheckpointFormat, EveryFlippedByteIsRefused) {
  const std::string good = EncodeOrDie(EveryDType());
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    auto r = Decode(bad);
    ASSERT_FALSE(r.ok()) << "flipping byte " << i << " went unnoticed";
    EXPECT_TRUE(r.status().code() == Code::kDataLoss || r.status().code() == Code::kUnimplemented)
        << r.status().ToString();
  }
}

TEST(CheckpointFormat, NamesWhatIsWrong) {
  const std::string good = EncodeOrDie(EveryDType());
  std::string bad = good;
  bad[0] = 'X';
  test::ExpectError(Decode(bad), Code::kDataLoss, "not a tfg checkpoint");
  bad = good;
  bad[8] = 2;
  test::ExpectError(Decode(bad), Code::kUnimplemented, "version 2 is not supported");
  bad = good;
  bad[kHeaderBytes + 30] ^= 1;  // inside the first record
  test::ExpectError(Decode(bad), Code::kDataLoss, "record 0 (at byte 12) fails its checksum");
  bad = good;
  bad[good.size() - kFooterBytes] ^= 1;  // the count
  test::ExpectError(Decode(bad), Code::kDataLoss, "file checksum");
  test::ExpectError(Decode(good + "x"), Code::kDataLoss, "does not end with the end marker");
  test::ExpectError(Decode(good.substr(0, good.size() - 1)), Code::kDataLoss, "does not end with the end marker");
  test::ExpectError(Decode(""), Code::kDataLoss, "not a tfg checkpoint");
}

TEST(CheckpointFormat, EveryTruncationIsRefused) {
  const std::string good = EncodeOrDie(EveryDType());
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(Decode(good.substr(0, n)).ok()) << "truncated to " << n << " bytes";
  }
}

TEST(CheckpointFormat, TrailingGarbageIsRefused) {
  const std::string good = EncodeOrDie(EveryDType());
  for (const std::string& tail : {std::string(1, '\0'), std::string("TFGCKEND"), good}) {
    EXPECT_FALSE(Decode(good + tail).ok()) << tail.size();
  }
}

// Corruption that keeps every checksum valid (as a malicious or buggy
// writer would produce) must still be caught by the bounds checks.
class ForgedRecord : public ::testing::Test {
 protected:
  // A checkpoint with one record whose body is `body`, checksums fixed.
  static std::string WithBody(const std::string& body, uint64_t count = 1) {
    std::string out(kMagic, sizeof(kMagic));
    Append<uint32_t>(out, kVersion);
    const size_t start = out.size();
    Append<uint64_t>(out, body.size());
    out += body;
    Append<uint32_t>(out, MaskCrc(Crc32c(out.data() + start, out.size() - start)));
    Append<uint64_t>(out, count);
    Append<uint32_t>(out, MaskCrc(Crc32c(out.data(), out.size())));
    out.append(kEndMagic, sizeof(kEndMagic));
    return out;
  }
  static std::string Body(const std::string& name, uint8_t dtype, const std::vector<int64_t>& dims,
                          uint64_t data_len, const std::string& data) {
    std::string b;
    Append<uint32_t>(b, static_cast<uint32_t>(name.size()));
    b += name;
    b.push_back(static_cast<char>(dtype));
    Append<uint32_t>(b, static_cast<uint32_t>(dims.size()));
    for (int64_t d : dims) Append<int64_t>(b, d);
    Append<uint64_t>(b, data_len);
    return b + data;
  }
  template <typename T>
  static void Append(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
};

TEST_F(ForgedRecord, ValidForgeryDecodes) {
  auto r = Decode(WithBody(Body("x", 2, {2}, 8, std::string(8, '\0'))));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<float>((*r)[0].value, {0.0f, 0.0f}, {2});
}

TEST_F(ForgedRecord, AbsurdLengthsAreRefused) {
  const int64_t huge = int64_t{1} << 61;
  test::ExpectError(Decode(WithBody(Body("x", 2, {huge}, 8, std::string(8, '\0')))), Code::kDataLoss,
                    "needs more than the 8 data bytes");
  test::ExpectError(Decode(WithBody(Body("x", 2, {huge, huge, 0}, 0, ""))), Code::kDataLoss, "too large");
  test::ExpectError(Decode(WithBody(Body("x", 2, {2}, uint64_t{1} << 62, std::string(8, '\0')))), Code::kDataLoss,
                    "data bytes recorded, the record has 8");
  test::ExpectError(Decode(WithBody(Body("x", 2, {-1}, 0, ""))), Code::kDataLoss, "negative dimension");
  test::ExpectError(Decode(WithBody(Body("x", 2, std::vector<int64_t>(65, 1), 4, "abcd"))), Code::kDataLoss,
                    "rank 65");
  test::ExpectError(Decode(WithBody(Body("x", 99, {}, 0, ""))), Code::kDataLoss, "unknown dtype code 99");
  test::ExpectError(Decode(WithBody(Body("x", 2, {3}, 8, std::string(8, '\0')))), Code::kDataLoss,
                    "shape [3] needs more");
  test::ExpectError(Decode(WithBody(Body("x", 2, {1}, 8, std::string(8, '\0')))), Code::kDataLoss,
                    "1 f32 elements need 4 bytes");
  std::string name_len_huge;
  Append<uint32_t>(name_len_huge, 0xFFFFFFFFu);
  test::ExpectError(Decode(WithBody(name_len_huge)), Code::kDataLoss, "name length 4294967295");
}

TEST_F(ForgedRecord, BadStringsAndBoolsAreRefused) {
  std::string s;
  Append<uint64_t>(s, uint64_t{1} << 60);  // a string longer than the data
  s += "abc";
  test::ExpectError(Decode(WithBody(Body("s", 7, {1}, s.size(), s))), Code::kDataLoss, "runs past");
  std::string ok;
  Append<uint64_t>(ok, 1);
  ok += "ab";  // one byte too many
  test::ExpectError(Decode(WithBody(Body("s", 7, {1}, ok.size(), ok))), Code::kDataLoss, "1 bytes left over");
  test::ExpectError(Decode(WithBody(Body("s", 7, {int64_t{1} << 40}, 8, std::string(8, '\0')))), Code::kDataLoss,
                    "needs more");
  test::ExpectError(Decode(WithBody(Body("b", 6, {2}, 2, std::string("\x01\x02", 2)))), Code::kDataLoss,
                    "bool element 1 holds byte 2");
}

TEST_F(ForgedRecord, CountAndDuplicatesAreChecked) {
  test::ExpectError(Decode(WithBody(Body("x", 2, {}, 4, std::string(4, '\0')), 2)), Code::kDataLoss,
                    "footer counts 2 tensors but the file holds 1");
  // Two records with one name: build the second record by hand.
  std::string one = WithBody(Body("x", 2, {}, 4, std::string(4, '\0')));
  std::string records = one.substr(kHeaderBytes, one.size() - kHeaderBytes - kFooterBytes);
  std::string out = one.substr(0, kHeaderBytes) + records + records;
  Append<uint64_t>(out, 2);
  Append<uint32_t>(out, MaskCrc(Crc32c(out.data(), out.size())));
  out.append(kEndMagic, sizeof(kEndMagic));
  test::ExpectError(Decode(out), Code::kDataLoss, "'x' appears twice");
}

}  // namespace
}  // namespace tfg::checkpoint
