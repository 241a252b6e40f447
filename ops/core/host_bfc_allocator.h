// The host allocator's cache of large blocks (CpuAllocator hands it every
// request of kLargeBlock bytes or more): a best-fit allocator with
// coalescing, after TensorFlow's BFC allocator, over memory mapped from
// the system in regions.
//
// Why: a fresh malloc of a 64 MiB tensor is an mmap whose every page
// faults on first touch, and its free is a munmap, so an elementwise op on
// 16M floats paid ~16k page faults each time it ran. Here a freed block
// stays mapped (and its pages resident) for the next tensor of about its
// size, in this step or the next.
//
// Allocate rounds a request up to whole pages and takes the smallest free
// chunk that fits (free chunks are kept ordered by size, then address: one
// bin per size); a chunk larger than the request is split and the rest
// stays free. Deallocate merges the freed chunk with its free neighbours in
// the same region. When nothing fits, a new region of the request's size
// (at least kMinRegion) is mapped. Memory goes back to the system a whole
// region at a time: when the free regions hold more than the cache bound,
// when a new region would take the process past its memory budget
// (--memory-limit, ops/core/memory_budget.h) counting what is cached, and
// when the system refuses a mapping. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace tfg {

class HostBfcAllocator {
 public:
  // Requests from this size on come here; smaller ones go to malloc and
  // CpuAllocator's per-thread cache, which serve them without faults.
  static constexpr size_t kLargeBlock = size_t{256} << 10;
  static constexpr size_t kPage = 4096;                     // chunk granularity
  static constexpr size_t kMinRegion = size_t{2} << 20;     // one huge page
  static constexpr size_t kHugePage = size_t{2} << 20;

  struct Options {
    size_t cache_bound = size_t{1} << 30;  // the most bytes kept in wholly free regions
    bool huge_pages = false;               // madvise(MADV_HUGEPAGE) on regions of >= 2 MiB
    // What else the process holds against its budget (MemoryInUse()) and
    // the budget (MemoryLimit()); replaced in tests.
    int64_t (*memory_in_use)() = nullptr;
    int64_t (*memory_limit)() = nullptr;
  };
  struct Stats {
    size_t bytes_in_use = 0;    // in chunks handed out (whole pages)
    size_t bytes_mapped = 0;    // taken from the system
    size_t bytes_cached = 0;    // mapped and free: bytes_mapped - bytes_in_use
    size_t num_regions = 0;
    size_t num_chunks = 0;      // free and in use
    int64_t num_allocs = 0;
    int64_t num_reused = 0;     // allocations served without mapping a region
    int64_t regions_mapped = 0;    // over the allocator's life
    int64_t regions_released = 0;  // given back to the system
  };

  explicit HostBfcAllocator(Options options);
  ~HostBfcAllocator();
  HostBfcAllocator(const HostBfcAllocator&) = delete;
  HostBfcAllocator& operator=(const HostBfcAllocator&) = delete;

  // 64-byte (in fact page-) aligned; nullptr when the system has no memory.
  void* Allocate(size_t bytes);
  // `ptr` must come from Allocate (a pointer that does not is ignored).
  void Deallocate(void* ptr);

  Stats GetStats() const;
  // The size of the chunk behind a pointer Allocate returned (0 when it is
  // not one in use).
  size_t ChunkSize(const void* ptr) const;
  // Gives every wholly free region back to the system; returns the bytes.
  size_t ReleaseCached();
  void SetCacheBound(size_t bytes);

 private:
  using Address = uintptr_t;
  struct Chunk {
    size_t size = 0;
    bool in_use = false;
    Address region = 0;  // chunks merge only within their region
  };

  Address FindBestFit(size_t size) const;  // 0 when no free chunk fits
  bool AddRegion(size_t min_bytes);
  void* MapRegion(size_t bytes);
  void MarkFree(Address a, Chunk& c);
  void Unfree(Address a, const Chunk& c);
  void SplitIfLarger(Address a, size_t size);
  Address Coalesce(Address a);
  size_t ReleaseFreeRegions(size_t keep);
  void ReleaseRegion(Address a);

  Options options_;
  mutable std::mutex mu_;
  std::map<Address, Chunk> chunks_;          // every chunk of every region, by address
  std::set<std::pair<size_t, Address>> free_;  // free chunks by (size, address)
  std::map<Address, size_t> regions_;        // base -> bytes
  std::set<Address> free_regions_;           // regions that are one free chunk
  Stats stats_;
};

// The process's instance (CpuAllocator's), configured from the
// environment on first use: TFG_HOST_CACHE=<size> sets the cache bound
// (e.g. 256M; 0 returns each region as soon as it is free), and
// TFG_HUGE_PAGES=1 asks for transparent huge pages. Never destroyed.
HostBfcAllocator& HostBlockCache();
// False when TFG_HOST_ALLOCATOR=malloc: every request goes to malloc, as
// before the cache existed (for comparisons).
bool HostBlockCacheEnabled();

}  // namespace tfg
