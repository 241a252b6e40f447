#include "ops/core/allocator.h"

#include <algorithm>
#include <cstdlib>

#include "ops/core/host_bfc_allocator.h"
#include "ops/core/memory_budget.h"

namespace tfg {

void Allocator::RecordAllocate(size_t bytes) {
  int64_t now = in_use_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) + bytes;
  total_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

namespace {

// Small tensors (a while_loop's counters, a loss, a bias received from
// another task) are allocated and freed millions of times, and glibc's
// aligned allocation of a few hundred bytes fragments its bins (each
// such request then pays to consolidate them). Each thread keeps a few
// freed blocks of every power-of-two size up to kLargestCached to hand out
// again instead.
constexpr size_t kLargestCached = 4096;
constexpr int kClasses = 7;  // 64, 128, ..., 4096 bytes

// The class of a request of `bytes` (rounded up to a power of two), or -1
// above kLargestCached.
int SizeClass(size_t bytes) {
  if (bytes > kLargestCached) return -1;
  int c = 0;
  while ((CpuAllocator::kAlignment << c) < bytes) ++c;
  return c;
}

class SmallBlockCache {
 public:
  ~SmallBlockCache() {
    for (auto& blocks : classes_) {
      for (size_t i = 0; i < blocks.size; ++i) std::free(blocks.free[i]);
    }
  }
  void* Take(int c) {
    Blocks& b = classes_[c];
    return b.size == 0 ? nullptr : b.free[--b.size];
  }
  bool Keep(int c, void* p) {
    Blocks& b = classes_[c];
    if (b.size == kCapacity) return false;
    b.free[b.size++] = p;
    return true;
  }

 private:
  static constexpr size_t kCapacity = 32;
  struct Blocks {
    void* free[kCapacity];
    size_t size = 0;
  };
  Blocks classes_[kClasses];
};

// Under AddressSanitizer blocks go straight back to malloc, so a use after
// free is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheSmallBlocks = false;
#else
constexpr bool kCacheSmallBlocks = true;
#endif

SmallBlockCache& ThreadCache() {
  thread_local SmallBlockCache cache;
  return cache;
}

// What is allocated for `bytes` of cached class `c` (-1: not cached): the
// whole class (so that the block serves any request of its class again),
// else whole alignment units.
size_t BlockBytes(size_t bytes, int c) {
  if (c >= 0) return CpuAllocator::kAlignment << c;
  return std::max((bytes + CpuAllocator::kAlignment - 1) / CpuAllocator::kAlignment, size_t{1}) *
         CpuAllocator::kAlignment;
}

// Large blocks come from the block cache (ops/core/host_bfc_allocator.h):
// it keeps their pages mapped for the next tensor instead of faulting them
// in again. The size alone decides, so Deallocate finds the same way back.
bool IsLargeBlock(size_t bytes) { return bytes >= HostBfcAllocator::kLargeBlock && HostBlockCacheEnabled(); }

}  // namespace

// Beyond the memory budget (--memory-limit) a request fails here, before
// malloc is asked: Tensor::Allocate makes that a ResourceExhausted error
// at the node's line rather than the system ending the process.
void* CpuAllocator::Allocate(size_t bytes) {
  if (!ReserveMemory(bytes)) return nullptr;
  const int c = kCacheSmallBlocks ? SizeClass(bytes) : -1;
  void* p = c >= 0 ? ThreadCache().Take(c) : nullptr;
  if (p == nullptr && IsLargeBlock(bytes)) p = HostBlockCache().Allocate(bytes);
  else if (p == nullptr) p = std::aligned_alloc(kAlignment, BlockBytes(bytes, c));
  if (p == nullptr) {
    ReleaseMemory(bytes);
    return nullptr;
  }
  RecordAllocate(bytes);
  return p;
}

void CpuAllocator::Deallocate(void* ptr, size_t bytes) {
  if (!ptr) return;
  ReleaseMemory(bytes);
  RecordDeallocate(bytes);
  if (IsLargeBlock(bytes)) {
    HostBlockCache().Deallocate(ptr);
    return;
  }
  const int c = kCacheSmallBlocks ? SizeClass(bytes) : -1;
  if (c >= 0 && ThreadCache().Keep(c, ptr)) return;
  std::free(ptr);
}

Allocator* HostAllocator() {
  static CpuAllocator* allocator = new CpuAllocator();  // never destroyed: outlives every tensor
  return allocator;
}

}  // namespace tfg
