// .npz archives (interp/data/npz.cc). arrays.npz and arrays_deflated.npz
// were written by NumPy (np.savez, np.savez_compressed) from
// w = arange(6, dtype=f32).reshape(2, 3) / 4, steps = [3, -1] (int64),
// words = ["cat", "", "naïve"] (tests/scripts/data/files/record_formats.py).
#include "interp/data/npz.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/ops/op_test_util.h"

namespace tfg::data {
namespace {

namespace fs = std::filesystem;
const fs::path kFiles = fs::path(__FILE__).parent_path().parent_path().parent_path() / "scripts" / "data" / "files";

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void ExpectTheRecordedArrays(const NamedArrays& a) {
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].first, "w");
  test::ExpectTensorEq<float>(a[0].second, {0, 0.25f, 0.5f, 0.75f, 1, 1.25f}, TensorShape({2, 3}));
  EXPECT_EQ(a[1].first, "steps");
  test::ExpectTensorEq<int64_t>(a[1].second, {3, -1}, TensorShape({2}));
  EXPECT_EQ(a[2].first, "words");
  test::ExpectTensorEq<std::string>(a[2].second, {"cat", "", "na\xc3\xafve"}, TensorShape({3}));
}

TEST(Npz, ReadsWhatNumPyStoresAndDeflates) {
  for (const char* name : {"arrays.npz", "arrays_deflated.npz"}) {
    SCOPED_TRACE(name);
    auto a = ReadNpzFile((kFiles / name).string());
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ExpectTheRecordedArrays(*a);
  }
}

TEST(Npz, RoundTripsStoredAndDeflated) {
  NamedArrays arrays = {{"x", test::MakeTensor<double>({1.5, -2}, {2, 1})},
                        {"s", test::MakeStrings({"\xff", "ok"}, {2})},
                        {"empty", test::MakeTensor<int32_t>({}, {0})}};
  for (bool compressed : {false, true}) {
    auto bytes = EncodeNpz(arrays, compressed);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto back = DecodeNpz(*bytes, "mem.npz");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_EQ(back->size(), 3u);
    test::ExpectTensorEq<double>((*back)[0].second, {1.5, -2}, TensorShape({2, 1}));
    test::ExpectTensorEq<std::string>((*back)[1].second, {"\xff", "ok"}, TensorShape({2}));
    EXPECT_EQ((*back)[2].second.num_elements(), 0);
  }
}

// Every truncation and every flipped byte of NumPy's archives is an error
// or, where zip leaves bytes unchecked (times, attributes), the same arrays.
TEST(Npz, RefusesCorruptionWithoutCrashing) {
  for (const char* name : {"arrays.npz", "arrays_deflated.npz"}) {
    const std::string bytes = Slurp(kFiles / name);
    ASSERT_FALSE(bytes.empty());
    for (size_t n = 0; n < bytes.size(); n += 7) EXPECT_FALSE(DecodeNpz(bytes.substr(0, n), name).ok()) << n;
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ 0x41);
      auto r = DecodeNpz(bad, name);
      if (r.ok() && r->size() == 3) {
        EXPECT_EQ(r->at(1).second.data<int64_t>()[0], 3) << "byte " << i;
      }
    }
  }
}

TEST(Npz, NamesTheBrokenMember) {
  std::string bytes = Slurp(kFiles / "arrays.npz");
  // The first member's data starts after its 30-byte header, "w.npy" and
  // the 20-byte zip64 field NumPy writes (force_zip64).
  const size_t w_data = 30 + 5 + 20;
  bytes[w_data + 100] ^= 1;
  test::ExpectError(DecodeNpz(bytes, "a.npz"), Code::kDataLoss, "'w.npy' fails its CRC-32 check");
}

TEST(Npz, RefusesDuplicateOrEmptyNames) {
  test::ExpectError(EncodeNpz({{"", test::MakeTensor<float>({1}, {1})}}, true), Code::kInvalidArgument,
                    "non-empty and unique");
}

}  // namespace
}  // namespace tfg::data
