// A best-fit caching allocator with coalescing, after TensorFlow's BFC
// allocator: device memory is costly to get (cudaMalloc synchronises the
// device), so it is taken from a SubAllocator in large regions and never
// returned while tfg runs; tensors get chunks of those regions.
//
// Allocate rounds a request up to kMinChunk bytes and takes the smallest
// free chunk that fits (bins by size class, each sorted by size, then
// address); a chunk much larger than the request is split and the rest
// stays free. Deallocate merges the freed chunk with free neighbours of the
// same region, so freed memory does not stay cut into small pieces. When no
// chunk fits, a new region is taken (each twice as large as the last, up
// to the memory limit). Thread-safe.
//
// Pure host code: it only does arithmetic on the addresses a SubAllocator
// returns, so it is tested on host memory on machines without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/allocator.h"

namespace tfg {

// Where the regions come from: cudaMalloc for device memory,
// cudaHostAlloc for pinned host memory, aligned host memory in tests.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // At least BfcAllocator::kMinChunk-aligned; nullptr when out of memory.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* ptr, size_t bytes) = 0;
};

class BfcAllocator final : public Allocator {
 public:
  // Every chunk is a multiple of this (and so aligned to it): CUDA's
  // alignment for any access, and the smallest piece worth keeping.
  static constexpr size_t kMinChunk = 256;

  struct Options {
    size_t memory_limit = 0;              // most bytes taken from the sub-allocator in all
    size_t initial_region = size_t{1} << 20;  // the first region; later ones double
  };
  struct Stats {
    size_t bytes_in_use = 0;       // in chunks handed out (rounded sizes)
    size_t peak_bytes_in_use = 0;
    size_t bytes_reserved = 0;     // taken from the sub-allocator
    size_t largest_free_chunk = 0;
    size_t num_regions = 0;
    size_t num_chunks = 0;         // free and in use
    int64_t num_allocs = 0;
    // 1 - largest free chunk / free bytes: 0 when the free memory is one
    // piece, near 1 when it is cut into many small ones.
    double fragmentation = 0;
  };

  BfcAllocator(std::string name, std::unique_ptr<SubAllocator> sub, Options options);
  ~BfcAllocator() override;

  std::string name() const override { return name_; }
  void* Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;

  Stats GetStats() const;
  // The size of the chunk behind a pointer Allocate returned (0 when it is
  // not one), for tests and --stats.
  size_t ChunkSize(const void* ptr) const;

 private:
  struct Chunk {
    size_t size = 0;
    bool in_use = false;
    int region = 0;  // chunks merge only within a region
  };
  using Address = uintptr_t;
  // (size, address): a bin's free chunks, smallest first.
  using FreeSet = std::set<std::pair<size_t, Address>>;

  static int BinFor(size_t size);
  Address FindBestFit(size_t size);  // 0 when no free chunk fits
  bool AddRegion(size_t min_bytes);
  void MarkFree(Address a, Chunk& c);
  void Unfree(Address a, const Chunk& c);
  void SplitIfLarger(Address a, size_t size);
  Address Coalesce(Address a);

  static constexpr int kNumBins = 24;

  const std::string name_;
  const std::unique_ptr<SubAllocator> sub_;
  const Options options_;
  mutable std::mutex mu_;
  std::map<Address, Chunk> chunks_;  // every chunk of every region, by address
  FreeSet bins_[kNumBins];
  std::vector<std::pair<void*, size_t>> regions_;
  size_t next_region_;
  Stats stats_;
};

}  // namespace tfg
