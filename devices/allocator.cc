#include "devices/allocator.h"

#include <cstdlib>

namespace tfg {

void Allocator::RecordAllocate(size_t bytes) {
  int64_t now = in_use_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) + bytes;
  total_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

namespace {

// Scalars and other tiny tensors (a while_loop's counters, a loss) are
// allocated and freed millions of times: each thread keeps a few freed
// one-line blocks to hand out again instead of going to malloc.
class SmallBlockCache {
 public:
  ~SmallBlockCache() {
    for (size_t i = 0; i < size_; ++i) std::free(blocks_[i]);
  }
  void* Take() { return size_ == 0 ? nullptr : blocks_[--size_]; }
  bool Keep(void* p) {
    if (size_ == kCapacity) return false;
    blocks_[size_++] = p;
    return true;
  }

 private:
  static constexpr size_t kCapacity = 64;
  void* blocks_[kCapacity];
  size_t size_ = 0;
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

}  // namespace

void* CpuAllocator::Allocate(size_t bytes) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* p = kCacheSmallBlocks && rounded == kAlignment ? ThreadCache().Take() : nullptr;
  if (p == nullptr) p = std::aligned_alloc(kAlignment, rounded);
  if (p) RecordAllocate(bytes);
  return p;
}

void CpuAllocator::Deallocate(void* ptr, size_t bytes) {
  if (!ptr) return;
  RecordDeallocate(bytes);
  if (kCacheSmallBlocks && bytes <= kAlignment && ThreadCache().Keep(ptr)) return;
  std::free(ptr);
}

Allocator* HostAllocator() {
  static CpuAllocator* allocator = new CpuAllocator();  // never destroyed: outlives every tensor
  return allocator;
}

}  // namespace tfg
