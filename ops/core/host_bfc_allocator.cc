#include "ops/core/host_bfc_allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "ops/core/memory_budget.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define TFG_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TFG_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TFG_POISON(p, n) ((void)(p), (void)(n))
#define TFG_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace tfg {

namespace {

// Whole pages, or 0 when `bytes` is too large to round.
size_t RoundUpTo(size_t bytes, size_t unit) {
  if (bytes > SIZE_MAX - unit) return 0;
  return std::max<size_t>((bytes + unit - 1) / unit, 1) * unit;
}

void* AsPointer(uintptr_t a) { return reinterpret_cast<void*>(a); }

}  // namespace

HostBfcAllocator::HostBfcAllocator(Options options) : options_(options) {
  if (options_.memory_in_use == nullptr) options_.memory_in_use = &MemoryInUse;
  if (options_.memory_limit == nullptr) options_.memory_limit = &MemoryLimit;
}

HostBfcAllocator::~HostBfcAllocator() {
  for (auto& [base, bytes] : regions_) {
    TFG_UNPOISON(AsPointer(base), bytes);
    munmap(AsPointer(base), bytes);
  }
}

void* HostBfcAllocator::Allocate(size_t bytes) {
  const size_t size = RoundUpTo(bytes, kPage);
  if (size == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  Address a = FindBestFit(size);
  if (a != 0) {
    ++stats_.num_reused;
  } else {
    if (!AddRegion(size)) return nullptr;
    a = FindBestFit(size);
  }
  Chunk& c = chunks_.at(a);
  Unfree(a, c);
  c.in_use = true;
  free_regions_.erase(c.region);
  SplitIfLarger(a, size);
  stats_.bytes_in_use += c.size;
  ++stats_.num_allocs;
  TFG_UNPOISON(AsPointer(a), bytes);  // the rest of the chunk stays poisoned: overflows are caught
  return AsPointer(a);
}

void HostBfcAllocator::Deallocate(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chunks_.find(reinterpret_cast<Address>(ptr));
  // Not a chunk of ours, or freed twice: a bug in tfg, and nothing to free.
  if (it == chunks_.end() || !it->second.in_use) return;
  stats_.bytes_in_use -= it->second.size;
  it->second.in_use = false;
  TFG_POISON(ptr, it->second.size);
  const Address merged = Coalesce(it->first);
  Chunk& c = chunks_.at(merged);
  MarkFree(merged, c);
  if (merged == c.region && c.size == regions_.at(c.region)) {
    free_regions_.insert(c.region);
    ReleaseFreeRegions(options_.cache_bound);
  }
}

HostBfcAllocator::Address HostBfcAllocator::FindBestFit(size_t size) const {
  auto it = free_.lower_bound({size, 0});
  return it == free_.end() ? 0 : it->second;
}

// A region for at least `min_bytes`: first making room for it under the
// budget by giving back what is cached, and once more when the system
// refuses the mapping.
bool HostBfcAllocator::AddRegion(size_t min_bytes) {
  const size_t bytes = std::max(min_bytes, kMinRegion);
  const int64_t cached = static_cast<int64_t>(stats_.bytes_mapped - stats_.bytes_in_use);
  const int64_t limit = options_.memory_limit();
  if (options_.memory_in_use() + cached > limit - static_cast<int64_t>(bytes)) ReleaseFreeRegions(0);
  void* p = MapRegion(bytes);
  if (p == nullptr && ReleaseFreeRegions(0) > 0) p = MapRegion(bytes);
  if (p == nullptr) return false;
  const Address base = reinterpret_cast<Address>(p);
  regions_[base] = bytes;
  stats_.bytes_mapped += bytes;
  ++stats_.regions_mapped;
  Chunk& c = chunks_[base];
  c = Chunk{bytes, false, base};
  TFG_POISON(p, bytes);
  MarkFree(base, c);
  free_regions_.insert(base);
  return true;
}

// Anonymous pages: zero-filled by the system on first touch, resident from
// then on. With huge pages the region starts on a 2 MiB boundary, so the
// kernel can back it with whole huge pages.
void* HostBfcAllocator::MapRegion(size_t bytes) {
  const bool huge = options_.huge_pages && bytes >= kHugePage;
  const size_t slack = huge ? kHugePage : 0;
  void* p = mmap(nullptr, bytes + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (!huge) return p;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (aligned > start) munmap(p, aligned - start);
  const uintptr_t end = start + bytes + slack;
  if (end > aligned + bytes) munmap(AsPointer(aligned + bytes), end - (aligned + bytes));
#ifdef MADV_HUGEPAGE
  madvise(AsPointer(aligned), bytes, MADV_HUGEPAGE);  // advice only: failure leaves 4 KiB pages
#endif
  return AsPointer(aligned);
}

void HostBfcAllocator::MarkFree(Address a, Chunk& c) {
  c.in_use = false;
  free_.insert({c.size, a});
}

void HostBfcAllocator::Unfree(Address a, const Chunk& c) { free_.erase({c.size, a}); }

// Keeps the first `size` bytes of the in-use chunk at `a`; the rest (whole
// pages) becomes a free chunk of its own.
void HostBfcAllocator::SplitIfLarger(Address a, size_t size) {
  Chunk& c = chunks_.at(a);
  if (c.size == size) return;
  const Address rest = a + size;
  Chunk& r = chunks_[rest];
  r = Chunk{c.size - size, false, c.region};
  c.size = size;
  MarkFree(rest, r);
}

// Merges the free (and not yet listed) chunk at `a` with its free
// neighbours in the same region; returns the merged chunk's address.
HostBfcAllocator::Address HostBfcAllocator::Coalesce(Address a) {
  auto it = chunks_.find(a);
  auto next = std::next(it);
  if (next != chunks_.end() && !next->second.in_use && next->second.region == it->second.region) {
    Unfree(next->first, next->second);
    it->second.size += next->second.size;
    chunks_.erase(next);
  }
  if (it != chunks_.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.in_use && prev->second.region == it->second.region) {
      Unfree(prev->first, prev->second);
      prev->second.size += it->second.size;
      chunks_.erase(it);
      return prev->first;
    }
  }
  return a;
}

// Gives back wholly free regions, largest first, until those left hold at
// most `keep` bytes. Returns the bytes given back.
size_t HostBfcAllocator::ReleaseFreeRegions(size_t keep) {
  size_t held = 0;
  for (Address r : free_regions_) held += regions_.at(r);
  size_t released = 0;
  while (held > keep && !free_regions_.empty()) {
    Address largest = *std::max_element(free_regions_.begin(), free_regions_.end(), [&](Address x, Address y) {
      return regions_.at(x) < regions_.at(y);
    });
    const size_t bytes = regions_.at(largest);
    ReleaseRegion(largest);
    held -= bytes;
    released += bytes;
  }
  return released;
}

void HostBfcAllocator::ReleaseRegion(Address a) {
  const size_t bytes = regions_.at(a);
  Unfree(a, chunks_.at(a));
  chunks_.erase(a);
  regions_.erase(a);
  free_regions_.erase(a);
  stats_.bytes_mapped -= bytes;
  ++stats_.regions_released;
  TFG_UNPOISON(AsPointer(a), bytes);
  munmap(AsPointer(a), bytes);
}

HostBfcAllocator::Stats HostBfcAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.bytes_cached = s.bytes_mapped - s.bytes_in_use;
  s.num_regions = regions_.size();
  s.num_chunks = chunks_.size();
  return s;
}

size_t HostBfcAllocator::ChunkSize(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chunks_.find(reinterpret_cast<Address>(ptr));
  return it == chunks_.end() || !it->second.in_use ? 0 : it->second.size;
}

size_t HostBfcAllocator::ReleaseCached() {
  std::lock_guard<std::mutex> lock(mu_);
  return ReleaseFreeRegions(0);
}

void HostBfcAllocator::SetCacheBound(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.cache_bound = bytes;
  ReleaseFreeRegions(bytes);
}

namespace {

bool EnvIs(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v != nullptr && value == v;
}

HostBfcAllocator::Options HostOptionsFromEnv() {
  HostBfcAllocator::Options o;
  // A quarter of the budget at most: the cache must not crowd out tensors.
  o.cache_bound = std::min<size_t>(o.cache_bound, static_cast<size_t>(MemoryLimit() / 4));
  if (const char* v = std::getenv("TFG_HOST_CACHE")) {
    auto bytes = std::string_view(v) == "0" ? Result<int64_t>(int64_t{0}) : ParseByteSize(v);
    if (bytes.ok()) o.cache_bound = static_cast<size_t>(*bytes);
  }
  o.huge_pages = EnvIs("TFG_HUGE_PAGES", "1");
  return o;
}

}  // namespace

HostBfcAllocator& HostBlockCache() {
  static HostBfcAllocator* cache = new HostBfcAllocator(HostOptionsFromEnv());  // outlives every tensor
  return *cache;
}

bool HostBlockCacheEnabled() {
  static const bool enabled = !EnvIs("TFG_HOST_ALLOCATOR", "malloc");
  return enabled;
}

}  // namespace tfg
