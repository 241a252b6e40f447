// Allocators hand out raw device memory for tensor buffers. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tfg {

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string name() const = 0;
  // Returns nullptr when out of memory; callers turn that into a
  // ResourceExhausted error. `bytes` may be 0.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  // Statistics for --stats.
  int64_t bytes_in_use() const { return in_use_.load(std::memory_order_relaxed); }
  int64_t peak_bytes_in_use() const { return peak_.load(std::memory_order_relaxed); }
  int64_t total_allocated() const { return total_.load(std::memory_order_relaxed); }

 protected:
  void RecordAllocate(size_t bytes);
  void RecordDeallocate(size_t bytes) { in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> total_{0};
};

// 64-byte aligned host memory (cache line and AVX-512 friendly).
class CpuAllocator final : public Allocator {
 public:
  static constexpr size_t kAlignment = 64;
  std::string name() const override { return "cpu"; }
  void* Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
};

// The process-wide host allocator: used for host values and the CPU device.
Allocator* HostAllocator();

}  // namespace tfg
