// libFuzzer entry for the readers of TensorFlow's formats: the tensor
// bundle's .index table and its tensors (ops/io/sstable.cc,
// ops/io/tf_bundle_format.cc), and tf.train.Example records
// (ops/io/example_proto.cc), which share the protobuf wire reader
// (ops/io/proto_wire.cc). Any bytes must decode or come back as an error
// value, never crash, read out of bounds or allocate from a length the
// input does not back.
//
// Each input is read three ways: as an .index file (its tensors then read
// from the input itself as the data shard); as the data of one tensor of
// each dtype, with a valid checksum so that the fuzzer reaches the tensor
// decoders without forging CRCs; and as an Example. A bundle that decodes
// must encode and decode back to the same tensors.
//
// With TFG_TF_BUNDLE_SEEDS=DIR set, the binary instead writes a few valid
// .index files and Examples into DIR, the seeds scripts/fuzz starts from,
// and exits.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "ops/io/crc32c.h"
#include "ops/io/example_proto.h"
#include "ops/io/tf_bundle_format.h"

namespace {

using tfg::Tensor;
using tfg::TensorShape;
using tfg::checkpoint::Entry;
namespace tb = tfg::tf_bundle;

std::vector<std::vector<Entry>> Seeds() {
  return {
      {},
      {{"dense/kernel", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))}},
      {{"global_step", Tensor::Scalar<int64_t>(42)},
       {"flags", Tensor::FromVector<bool>({true, false}, TensorShape({2}))},
       {"words", Tensor::FromVector<std::string>({"", "ab", "a longer string"}, TensorShape({3}))},
       {"d", Tensor::FromVector<double>({}, TensorShape({0, 4}))},
       {"i", Tensor::FromVector<int32_t>({-1, 7}, TensorShape({2, 1}))}},
  };
}

void WriteSeeds(const char* dir) {
  int n = 0;
  for (const auto& entries : Seeds()) {
    auto encoded = tb::EncodeBundle(entries);
    if (!encoded.ok()) {
      std::fprintf(stderr, "tf_bundle_fuzz: cannot encode a seed: %s\n", encoded.status().ToString().c_str());
      std::exit(1);
    }
    // The data after the index: the fuzzer reads the input as both.
    std::ofstream(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary) << encoded->index;
    std::ofstream(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary) << encoded->data;
  }
  tfg::example::Feature ints{tfg::example::Feature::Kind::kInt64, {}, {}, {1, -2, 1LL << 40}};
  tfg::example::Feature floats{tfg::example::Feature::Kind::kFloat, {}, {0.5f, -1.0f}, {}};
  tfg::example::Feature bytes{tfg::example::Feature::Kind::kBytes, {"a", "", "bc"}, {}, {}};
  std::ofstream(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary)
      << tfg::example::EncodeExample({{"a", ints}, {"b", floats}, {"c", bytes}});
  std::exit(0);
}

// The bundle's tensors, read from `shard`; an error stops at the first.
bool DecodeAll(std::string_view index_bytes, std::string_view shard, std::vector<Entry>& out) {
  auto index = tb::DecodeIndex(index_bytes);
  if (!index.ok()) return false;
  for (const tb::IndexEntry& e : index->entries) {
    auto t = tb::DecodeTensor(e, shard);
    if (!t.ok()) return false;
    out.push_back({e.name, std::move(t).value()});
  }
  return true;
}

bool SameTensors(const std::vector<Entry>& a, const std::vector<Entry>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Tensor& x = a[i].value;
    const Tensor& y = b[i].value;
    if (a[i].name != b[i].name || x.dtype() != y.dtype() || x.shape() != y.shape()) return false;
    if (x.dtype() == tfg::DType::kString) {
      for (int64_t k = 0; k < x.num_elements(); ++k) {
        if (x.data<std::string>()[k] != y.data<std::string>()[k]) return false;
      }
    } else if (x.bytes() > 0 && std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) != 0) {
      return false;
    }
  }
  return true;
}

void CheckIndex(std::string_view bytes) {
  std::vector<Entry> entries;
  if (!DecodeAll(bytes, bytes, entries)) return;
  auto encoded = tb::EncodeBundle(entries);
  if (!encoded.ok()) std::abort();
  std::vector<Entry> again;
  if (!DecodeAll(encoded->index, encoded->data, again) || !SameTensors(entries, again)) std::abort();
}

// The input as one tensor's data, of each dtype; its shape from the first
// byte (a vector of that many elements).
void CheckTensorData(std::string_view bytes) {
  if (bytes.empty()) return;
  const auto count = static_cast<int64_t>(static_cast<uint8_t>(bytes[0]));
  const std::string_view data = bytes.substr(1);
  for (tfg::DType dtype : tfg::kAllDTypes) {
    tb::IndexEntry e;
    e.name = "t";
    e.dtype = dtype;
    e.shape = TensorShape({count});
    e.size = data.size();
    e.masked_crc = tfg::MaskCrc(tfg::Crc32c(data.data(), data.size()));
    (void)tb::DecodeTensor(e, data);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TFG_TF_BUNDLE_SEEDS")) WriteSeeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  CheckIndex(bytes);
  CheckTensorData(bytes);
  for (const char* key : {"a", "b", "c"}) (void)tfg::example::FindFeature(bytes, key);
  return 0;
}

// Lengths in the input must come back as errors, not abort on allocation.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1:detect_leaks=0"; }
