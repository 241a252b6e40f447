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

void* CpuAllocator::Allocate(size_t bytes) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (p) RecordAllocate(bytes);
  return p;
}

void CpuAllocator::Deallocate(void* ptr, size_t bytes) {
  if (!ptr) return;
  RecordDeallocate(bytes);
  std::free(ptr);
}

Allocator* HostAllocator() {
  static CpuAllocator* allocator = new CpuAllocator();  // never destroyed: outlives every tensor
  return allocator;
}

}  // namespace tfg
