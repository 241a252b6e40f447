// libFuzzer entry for the checkpoint reader: any bytes must decode to
// tensors or come back as an error value, never crash, read out of bounds or
// allocate from a length the file does not back. A checkpoint that decodes
// must encode back to the same bytes (the format has one encoding).
// Each input is also decoded as the body of one record, with valid
// checksums around it, so that the fuzzer reaches the record parser's
// bounds checks without having to forge CRCs.
//
// With TFG_CHECKPOINT_SEEDS=DIR set, the binary instead writes a few valid
// checkpoints into DIR, the seeds scripts/fuzz starts from, and exits.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "ops/io/checkpoint_format.h"
#include "ops/io/crc32c.h"

namespace {

using tfg::Tensor;
using tfg::TensorShape;
using tfg::checkpoint::Entry;

std::vector<std::vector<Entry>> Seeds() {
  Tensor strings = Tensor::FromVector<std::string>({"", "ab", "a longer string"}, TensorShape({3}));
  Tensor half(tfg::HostAllocator(), tfg::DType::kF16, TensorShape({2}));
  half.data<tfg::half>()[0] = tfg::half(1.5f);
  half.data<tfg::half>()[1] = tfg::half(-2.0f);
  return {
      {},
      {{"w", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))}},
      {{"step", Tensor::Scalar<int64_t>(42)}, {"flags", Tensor::FromVector<bool>({true, false}, TensorShape({2}))}},
      {{"names", strings}, {"h", half}, {"d", Tensor::FromVector<double>({}, TensorShape({0, 4}))},
       {"i", Tensor::FromVector<int32_t>({-1, 7}, TensorShape({2, 1}))}},
  };
}

void WriteSeeds(const char* dir) {
  int n = 0;
  for (const auto& entries : Seeds()) {
    auto bytes = tfg::checkpoint::Encode(entries);
    if (!bytes.ok()) {
      std::fprintf(stderr, "checkpoint_fuzz: cannot encode a seed: %s\n", bytes.status().ToString().c_str());
      std::exit(1);
    }
    std::ofstream(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary) << *bytes;
    if (entries.size() == 1) {  // its record's body alone, for the second decode
      const size_t skip = tfg::checkpoint::kHeaderBytes + sizeof(uint64_t);
      const size_t body = bytes->size() - skip - sizeof(uint32_t) - tfg::checkpoint::kFooterBytes;
      std::ofstream(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary) << bytes->substr(skip, body);
    }
  }
  std::exit(0);
}

template <typename T>
void Append(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// A checkpoint whose only record has `body` as its body, checksums right.
std::string AsRecordBody(std::string_view body) {
  std::string out(tfg::checkpoint::kMagic, sizeof(tfg::checkpoint::kMagic));
  Append<uint32_t>(out, tfg::checkpoint::kVersion);
  const size_t start = out.size();
  Append<uint64_t>(out, body.size());
  out.append(body);
  Append<uint32_t>(out, tfg::MaskCrc(tfg::Crc32c(out.data() + start, out.size() - start)));
  Append<uint64_t>(out, 1);
  Append<uint32_t>(out, tfg::MaskCrc(tfg::Crc32c(out.data(), out.size())));
  out.append(tfg::checkpoint::kEndMagic, sizeof(tfg::checkpoint::kEndMagic));
  return out;
}

// Decodes; a checkpoint that decodes must encode to the same bytes.
void CheckOne(std::string_view bytes) {
  auto entries = tfg::checkpoint::Decode(bytes);
  if (!entries.ok()) return;
  auto again = tfg::checkpoint::Encode(*entries);
  if (!again.ok() || *again != bytes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TFG_CHECKPOINT_SEEDS")) WriteSeeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  CheckOne(bytes);
  CheckOne(AsRecordBody(bytes));
  return 0;
}

// Lengths in the input must come back as errors, not abort on allocation.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1:detect_leaks=0"; }
