#include "devices/cuda/bfc_allocator.h"

#include <algorithm>
#include <bit>

namespace tfg {

namespace {

size_t RoundUp(size_t bytes) {
  size_t chunks = (bytes + BfcAllocator::kMinChunk - 1) / BfcAllocator::kMinChunk;
  return std::max<size_t>(chunks, 1) * BfcAllocator::kMinChunk;
}

}  // namespace

BfcAllocator::BfcAllocator(std::string name, std::unique_ptr<SubAllocator> sub, Options options)
    : name_(std::move(name)), sub_(std::move(sub)), options_(options),
      next_region_(RoundUp(options.initial_region)) {}

BfcAllocator::~BfcAllocator() {
  for (auto& [ptr, bytes] : regions_) sub_->Free(ptr, bytes);
}

// Bin i holds free chunks of [kMinChunk << i, kMinChunk << (i + 1)) bytes;
// the last bin everything larger.
int BfcAllocator::BinFor(size_t size) {
  int bin = std::bit_width(size / kMinChunk) - 1;
  return std::clamp(bin, 0, kNumBins - 1);
}

void* BfcAllocator::Allocate(size_t bytes) {
  size_t size = RoundUp(bytes);
  if (size < bytes) return nullptr;  // wrapped around: no such memory
  std::lock_guard<std::mutex> lock(mu_);
  Address a = FindBestFit(size);
  if (a == 0) {
    if (!AddRegion(size)) return nullptr;
    a = FindBestFit(size);
  }
  Chunk& c = chunks_.at(a);
  Unfree(a, c);
  c.in_use = true;
  SplitIfLarger(a, size);
  stats_.bytes_in_use += size;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  ++stats_.num_allocs;
  RecordAllocate(bytes);
  return reinterpret_cast<void*>(a);
}

void BfcAllocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chunks_.find(reinterpret_cast<Address>(ptr));
  // Not a chunk of ours, or freed twice: a bug in tfg, and nothing to free.
  if (it == chunks_.end() || !it->second.in_use) return;
  stats_.bytes_in_use -= it->second.size;
  RecordDeallocate(bytes);
  it->second.in_use = false;
  Address merged = Coalesce(it->first);
  MarkFree(merged, chunks_.at(merged));
}

// The smallest free chunk of at least `size` bytes: the first fit in the
// lowest bin that has one (bins above hold only larger chunks).
BfcAllocator::Address BfcAllocator::FindBestFit(size_t size) {
  for (int bin = BinFor(size); bin < kNumBins; ++bin) {
    auto it = bins_[bin].lower_bound({size, 0});
    if (it != bins_[bin].end()) return it->second;
  }
  return 0;
}

bool BfcAllocator::AddRegion(size_t min_bytes) {
  size_t room = options_.memory_limit - std::min(options_.memory_limit, stats_.bytes_reserved);
  if (min_bytes > room) return false;
  size_t bytes = std::min(std::max(next_region_, min_bytes), room);
  void* ptr = sub_->Alloc(bytes);
  if (ptr == nullptr && bytes > min_bytes) {
    bytes = min_bytes;  // the device is fuller than the limit says: take only what is asked
    ptr = sub_->Alloc(bytes);
  }
  if (ptr == nullptr) return false;
  int region = static_cast<int>(regions_.size());
  regions_.emplace_back(ptr, bytes);
  stats_.bytes_reserved += bytes;
  next_region_ = std::max(next_region_, bytes * 2);
  Address a = reinterpret_cast<Address>(ptr);
  Chunk& c = chunks_[a];
  c = Chunk{bytes, false, region};
  MarkFree(a, c);
  return true;
}

void BfcAllocator::MarkFree(Address a, Chunk& c) {
  c.in_use = false;
  bins_[BinFor(c.size)].insert({c.size, a});
}

void BfcAllocator::Unfree(Address a, const Chunk& c) { bins_[BinFor(c.size)].erase({c.size, a}); }

// Keeps the first `size` bytes of the in-use chunk at `a`; a rest of at
// least kMinChunk becomes a free chunk of its own.
void BfcAllocator::SplitIfLarger(Address a, size_t size) {
  Chunk& c = chunks_.at(a);
  if (c.size - size < kMinChunk) return;
  Address rest = a + size;
  Chunk& r = chunks_[rest];
  r = Chunk{c.size - size, false, c.region};
  c.size = size;
  MarkFree(rest, r);
}

// Merges the free (and not yet binned) chunk at `a` with its free
// neighbours in the same region; returns the merged chunk's address.
BfcAllocator::Address BfcAllocator::Coalesce(Address a) {
  auto it = chunks_.find(a);
  auto next = std::next(it);
  if (next != chunks_.end() && !next->second.in_use && next->second.region == it->second.region &&
      it->first + it->second.size == next->first) {
    Unfree(next->first, next->second);
    it->second.size += next->second.size;
    chunks_.erase(next);
  }
  if (it != chunks_.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.in_use && prev->second.region == it->second.region &&
        prev->first + prev->second.size == it->first) {
      Unfree(prev->first, prev->second);
      prev->second.size += it->second.size;
      chunks_.erase(it);
      return prev->first;
    }
  }
  return a;
}

BfcAllocator::Stats BfcAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.num_regions = regions_.size();
  s.num_chunks = chunks_.size();
  for (int bin = kNumBins - 1; bin >= 0; --bin) {
    if (!bins_[bin].empty()) {
      s.largest_free_chunk = bins_[bin].rbegin()->first;
      break;
    }
  }
  size_t free_bytes = s.bytes_reserved - s.bytes_in_use;
  s.fragmentation = free_bytes == 0 ? 0.0 : 1.0 - static_cast<double>(s.largest_free_chunk) / free_bytes;
  return s;
}

size_t BfcAllocator::ChunkSize(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chunks_.find(reinterpret_cast<Address>(ptr));
  return it == chunks_.end() || !it->second.in_use ? 0 : it->second.size;
}

}  // namespace tfg
