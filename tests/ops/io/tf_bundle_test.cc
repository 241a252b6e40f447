// TensorFlow V2 checkpoints (ops/io/tf_bundle_*): the files under
// tf_checkpoints/ were written by TensorFlow 2.21's tf.compat.v1.train.Saver
// (tf_checkpoints/record.py), with each variable's value saved by NumPy
// beside them in expected/.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "interp/data/npy.h"
#include "ops/io/checkpoint_file.h"
#include "ops/io/crc32c.h"
#include "ops/io/sstable.h"
#include "ops/io/tf_bundle_file.h"
#include "ops/io/tf_bundle_format.h"
#include "ops/io/tf_bundle_slices.h"
#include "tests/ops/io/io_test_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::tf_bundle {
namespace {

namespace fs = std::filesystem;
using checkpoint::Entry;

const fs::path kData = fs::path(__FILE__).parent_path() / "tf_checkpoints";

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::map<std::string, Tensor> ByName(const std::vector<Entry>& entries) {
  std::map<std::string, Tensor> out;
  for (const Entry& e : entries) out[e.name] = e.value;
  return out;
}

// Same dtype, shape and bytes: a restore must be bit-exact.
void ExpectSameTensor(const Tensor& actual, const Tensor& expected, const std::string& name) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << name;
  ASSERT_EQ(actual.shape(), expected.shape()) << name;
  if (actual.dtype() == DType::kString) {
    for (int64_t i = 0; i < actual.num_elements(); ++i) {
      EXPECT_EQ(actual.data<std::string>()[i], expected.data<std::string>()[i]) << name << " at " << i;
    }
  } else {
    EXPECT_EQ(std::memcmp(actual.raw_data(), expected.raw_data(), actual.bytes()), 0) << name;
  }
}

Tensor Expected(const std::string& name) {
  std::string file = name;
  for (size_t at; (at = file.find('/')) != std::string::npos;) file.replace(at, 1, "__");
  auto t = data::ReadNpyFile((kData / "expected" / (file + ".npy")).string());
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Tensor();
}

TEST(TfBundle, ReadsTheMlpCheckpointTensorFlowWrote) {
  auto entries = ReadBundle((kData / "mlp").string());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  auto tensors = ByName(*entries);
  const std::vector<std::string> numeric = {"dense/kernel", "dense/bias",  "dense_1/kernel", "dense_1/bias",
                                            "extra/f64",    "extra/i32",   "extra/i64",      "extra/flags",
                                            "extra/scalar", "global_step"};
  EXPECT_EQ(tensors.size(), numeric.size() + 1);
  for (const std::string& name : numeric) {
    ASSERT_EQ(tensors.count(name), 1u) << name;
    ExpectSameTensor(tensors[name], Expected(name), name);
  }
  test::ExpectTensorEq<int64_t>(tensors["global_step"], {42}, TensorShape({}));
  test::ExpectTensorEq<std::string>(tensors["extra/words"], {"hello", "", "t\xc3\xa9nsor"}, TensorShape({3}));
}

TEST(TfBundle, ReadsAShardedCheckpoint) {
  auto entries = ReadBundle((kData / "sharded").string());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  auto tensors = ByName(*entries);
  ASSERT_EQ(tensors.size(), 2u);
  test::ExpectTensorEq<float>(tensors["shard_a"], {0, 1, 2, 3, 4, 5}, TensorShape({2, 3}));
  test::ExpectTensorEq<int64_t>(tensors["shard_b"], {3, 1, 4}, TensorShape({3}));
}

// tf.compat.v1.fixed_size_partitioner(2) saved `part` [6, 2] (all 1.5) as
// two row slices: it is read whole.
TEST(TfBundle, AssemblesPartitionedVariablesFromTheirSlices) {
  auto entries = ReadBundle((kData / "partitioned").string());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  auto tensors = ByName(*entries);
  ASSERT_EQ(tensors.size(), 1u);
  test::ExpectTensorEq<float>(tensors["part"], std::vector<float>(12, 1.5f), TensorShape({6, 2}));
}

// The keys TensorFlow's EncodeTensorNameSlice gave slices of
// tests/interop/data/partitioned.index (read from that file): emb's first
// slice, rows [0, 3) of its 3 columns, and big's first, rows [0, 65), whose
// length takes two bytes. A whole dimension (length -1) is one byte, 0x7f.
TEST(TfBundle, SliceKeysAreTensorFlowsOrderedCode) {
  EXPECT_EQ(SliceKey("emb", {{0, 3}, {0, 3}}), std::string("\0emb\0\x01\x01\x02\x80\x83\x80\x83", 12));
  EXPECT_EQ(SliceKey("big", {{0, 65}, {0, 2}}), std::string("\0big\0\x01\x01\x02\x80\xc0\x41\x80\x82", 13));
  EXPECT_EQ(SliceKey("a", {{0, -1}}), std::string("\0a\0\x01\x01\x01\x80\x7f", 8));
}

TEST(TfBundle, PartitionedVariableWithAMissingOrMisshapenSliceIsRefused) {
  Index index;
  IndexEntry full;
  full.name = "v";
  full.dtype = DType::kF32;
  full.shape = TensorShape({4});
  full.slices = {{{0, 2}}, {{2, 2}}};
  IndexEntry part = full;
  part.slices.clear();
  part.shape = TensorShape({2});
  index.slice_entries[SliceKey("v", {{0, 2}})] = part;
  auto decode = [](const IndexEntry& e) -> Result<Tensor> { return test::MakeTensor<float>({7, 8}, e.shape); };
  test::ExpectError(AssembleSlices(full, index, decode), Code::kDataLoss, "no entry for slice 1");
  index.slice_entries[SliceKey("v", {{2, 2}})] = part;
  auto whole = AssembleSlices(full, index, decode);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  test::ExpectTensorEq<float>(*whole, {7, 8, 7, 8}, TensorShape({4}));
  full.slices = {{{0, 2}}, {{0, 2}}};
  test::ExpectError(AssembleSlices(full, index, decode), Code::kDataLoss, "overlap");
  full.slices = {{{0, 2}}};
  test::ExpectError(AssembleSlices(full, index, decode), Code::kDataLoss, "do not cover");
  full.slices = {{{3, 2}}};
  test::ExpectError(AssembleSlices(full, index, decode), Code::kDataLoss, "runs past dimension 0");
}

TEST(TfBundle, CheckpointReadFindsTheBundleByPrefixOrIndexFile) {
  for (const std::string name : {"mlp", "mlp.index"}) {
    auto entries = checkpoint::Read((kData / name).string());
    ASSERT_TRUE(entries.ok()) << entries.status().ToString();
    EXPECT_EQ(entries->size(), 11u);
  }
  EXPECT_EQ(BundlePrefixOf((kData / "nothing").string()), "");
}

// Written from the same tensors, tfg's files are TensorFlow's, byte for byte.
TEST(TfBundle, EncodesByteForByteWhatTensorFlowWrites) {
  auto entries = ReadBundle((kData / "sharded").string());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  auto mlp = ReadBundle((kData / "mlp").string());
  ASSERT_TRUE(mlp.ok()) << mlp.status().ToString();
  auto encoded = EncodeBundle(*mlp);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_EQ(encoded->index, Slurp(kData / "mlp.index"));
  EXPECT_EQ(encoded->data, Slurp(kData / "mlp.data-00000-of-00001"));
}

std::vector<Entry> EveryDType() {
  return {
      {"f16", test::MakeHalf({0.5f, -2.0f, 65504.0f}, {3})},
      {"f32", test::MakeTensor<float>({1.5f, -0.0f, 3.25f, 1e-30f, 7.0f, 8.0f}, {2, 3})},
      {"f64", test::MakeTensor<double>({3.141592653589793}, {})},
      {"i32", test::MakeTensor<int32_t>({-2147483647 - 1, 0, 7}, {3, 1})},
      {"i64", test::MakeTensor<int64_t>({9223372036854775807LL, -1}, {2})},
      {"bool", test::MakeTensor<bool>({true, false, true, true}, {2, 2})},
      {"string", test::MakeStrings({"", "hello", std::string("nul\0byte", 8), std::string(300, 'x')}, {4})},
      {"empty", test::MakeTensor<float>({}, {0, 5})},
      {"empty_strings", test::MakeStrings({}, {3, 0})},
  };
}

Result<std::vector<Entry>> DecodeAll(const Encoded& bytes) {
  TFG_ASSIGN_OR_RETURN(Index index, DecodeIndex(bytes.index));
  std::vector<Entry> out;
  for (const IndexEntry& e : index.entries) {
    TFG_ASSIGN_OR_RETURN(Tensor t, DecodeTensor(e, bytes.data));
    out.push_back({e.name, std::move(t)});
  }
  return out;
}

TEST(TfBundle, RoundTripsEveryDType) {
  auto encoded = EncodeBundle(EveryDType());
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  auto decoded = DecodeAll(*encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  auto got = ByName(*decoded);
  ASSERT_EQ(got.size(), EveryDType().size());
  for (const Entry& e : EveryDType()) ExpectSameTensor(got[e.name], e.value, e.name);
}

TEST(TfBundle, RefusesDuplicateAndEmptyNames) {
  test::ExpectError(EncodeBundle({{"a", test::MakeTensor<float>({1}, {1})}, {"a", test::MakeTensor<float>({2}, {1})}}),
                    Code::kInvalidArgument, "two tensors are both named 'a'");
  test::ExpectError(EncodeBundle({{"", test::MakeTensor<float>({1}, {1})}}), Code::kInvalidArgument, "needs a name");
}

// Every truncation is refused; a flipped byte is refused or, where the
// format has unchecked padding (the footer), changes nothing.
TEST(TfBundle, RefusesTruncatedOrCorruptedIndexAndData) {
  auto encoded = EncodeBundle(EveryDType());
  ASSERT_TRUE(encoded.ok());
  for (size_t n = 0; n < encoded->index.size(); ++n) {
    Encoded cut{encoded->index.substr(0, n), encoded->data};
    EXPECT_FALSE(DecodeAll(cut).ok()) << "index cut at " << n;
  }
  for (size_t n = 0; n < encoded->data.size(); ++n) {
    Encoded cut{encoded->index, encoded->data.substr(0, n)};
    EXPECT_FALSE(DecodeAll(cut).ok()) << "data cut at " << n;
  }
  const size_t padding_from = encoded->index.size() - sstable::kFooterBytes;
  for (size_t i = 0; i < encoded->index.size(); ++i) {
    Encoded bad = *encoded;
    bad.index[i] = static_cast<char>(bad.index[i] ^ 0x20);
    auto r = DecodeAll(bad);
    if (i < padding_from) {
      EXPECT_FALSE(r.ok()) << "index byte " << i;
    } else if (r.ok()) {
      EXPECT_EQ(r->size(), EveryDType().size());
    }
  }
  for (size_t i = 0; i < encoded->data.size(); ++i) {
    Encoded bad = *encoded;
    bad.data[i] = static_cast<char>(bad.data[i] ^ 0x01);
    auto r = DecodeAll(bad);
    ASSERT_FALSE(r.ok()) << "data byte " << i;
    EXPECT_EQ(r.status().code(), Code::kDataLoss) << r.status().ToString();
  }
}

TEST(TfBundle, ChecksumErrorsNameTheTensor) {
  auto encoded = EncodeBundle({{"w", test::MakeTensor<float>({1, 2, 3}, {3})}});
  ASSERT_TRUE(encoded.ok());
  encoded->data[5] ^= 1;
  test::ExpectError(DecodeAll(*encoded), Code::kDataLoss, "tensor 'w': its data (bytes 0..+12) fails its checksum");
}

TEST(SsTable, RoundTripsManyBlocksWithSharedPrefixes) {
  sstable::KeyValues entries;
  for (int i = 0; i < 3000; ++i) entries.emplace_back(fmt::format("layer/{:06d}/kernel", i), std::string(200, 'a' + i % 26));
  auto file = sstable::WriteTable(entries);
  ASSERT_TRUE(file.ok());
  EXPECT_GT(file->size(), 600000u);  // over two 256 KiB blocks
  auto back = sstable::ReadTable(*file);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, entries);
}

TEST(SsTable, RefusesCompressedBlocksAsNotSupported) {
  auto file = sstable::WriteTable({{"a", "1"}});
  ASSERT_TRUE(file.ok());
  // The data block is first: its trailer's type byte follows its bytes.
  const size_t block = 1 + 1 + 1 + 1 + 1 + 4 + 4;  // lengths, key, value, one restart, count
  (*file)[block] = 1;  // snappy
  test::ExpectError(sstable::ReadTable(*file), Code::kDataLoss, "fails its checksum");
  const uint32_t crc = MaskCrc(Crc32c(file->data(), block + 1));
  std::memcpy(file->data() + block + 1, &crc, 4);
  test::ExpectError(sstable::ReadTable(*file), Code::kUnimplemented, "compressed tables are not supported");
}

class TfBundleFiles : public test::TempDirTest {};

TEST_F(TfBundleFiles, WritesFilesThatReadBack) {
  const std::string prefix = (dir_ / "sub" / "model").string();
  ASSERT_TRUE(WriteBundle(prefix, EveryDType()).ok());
  EXPECT_TRUE(fs::exists(prefix + ".index"));
  EXPECT_TRUE(fs::exists(prefix + ".data-00000-of-00001"));
  auto back = checkpoint::Read(prefix);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->size(), EveryDType().size());
}

TEST_F(TfBundleFiles, AMissingDataFileIsNamed) {
  const std::string prefix = (dir_ / "model").string();
  ASSERT_TRUE(WriteBundle(prefix, {{"w", test::MakeTensor<float>({1}, {1})}}).ok());
  fs::remove(prefix + ".data-00000-of-00001");
  auto r = ReadBundle(prefix);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("model.data-00000-of-00001"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace tfg::tf_bundle
