#include "ops/math/sgemm.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>

#include "ops/core/kernel.h"
#include "ops/math/sgemm_tiles_avx512.h"

namespace tfg {
namespace {

using avx512::kTileCols;
using avx512::kTileRows;

// A panel of packed op(a) (depth x kTileRows floats) must stay in L1
// (32 KB here) while the panels of op(b) stream past it: 768 x 8 floats
// is 24 KB.
constexpr int64_t kMaxDepthBlock = 768;
// Columns of op(b) packed at once, per depth block: the block the tiles
// of one panel of a read from L2.
constexpr int64_t kColumnBlock = 480;
static_assert(kColumnBlock % kTileCols == 0, "column blocks are whole panels");
// Packed op(a) kept at once, in floats (32 MB): larger products take c's
// rows in chunks, each of which packs op(b) again. Depth blocks per pass:
// a longer depth (k > 49152 here) is taken in passes, so that a chunk
// still holds at least 170 rows.
constexpr int64_t kPackedBudget = int64_t{8} << 20;
constexpr int64_t kPassBlocks = 64;

// The depth in blocks of equal size, none over kMaxDepthBlock.
struct DepthBlocks {
  int64_t size;
  explicit DepthBlocks(int64_t k) {
    const int64_t count = (k + kMaxDepthBlock - 1) / kMaxDepthBlock;
    size = (k + count - 1) / count;
  }
};

// An uninitialized float buffer aligned for AVX-512 loads.
class AlignedFloats {
 public:
  AlignedFloats() = default;
  explicit AlignedFloats(int64_t n) { Reset(n); }
  void Reset(int64_t n) {
    storage_.reset(new float[static_cast<size_t>(n) + 16]);
    const auto address = reinterpret_cast<uintptr_t>(storage_.get());
    data_ = storage_.get() + ((64 - address % 64) % 64) / sizeof(float);
    size_ = n;
  }
  float* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  std::unique_ptr<float[]> storage_;
  float* data_ = nullptr;
  int64_t size_ = 0;
};

// Packed operands live in buffers each thread keeps between products, up
// to kKeptFloats each: allocating fresh ones every call cost an MLP's
// small products more than it saved (a step went 0.76 -> 0.87 ms when the
// packed b buffer was merely sized to the band, which changed how malloc
// handed it out). Larger buffers are allocated for the call.
constexpr int64_t kKeptFloats = int64_t{1} << 19;
static_assert(kMaxDepthBlock * kColumnBlock <= kKeptFloats, "a block of packed b is always kept");
enum class Scratch { kPackedA, kPackedB };

class ScratchFloats {
 public:
  ScratchFloats(Scratch use, int64_t n) {
    if (n > kKeptFloats) {
      own_.Reset(n);
      data_ = own_.data();
      return;
    }
    thread_local AlignedFloats kept[2];
    AlignedFloats& buffer = kept[static_cast<int>(use)];
    if (buffer.size() < n) buffer.Reset(n);
    data_ = buffer.data();
  }
  float* data() const { return data_; }

 private:
  AlignedFloats own_;
  float* data_;
};

class TiledProduct {
 public:
  TiledProduct(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld,
               const OpKernelContext* ctx, int64_t threads)
      : g_(g), a_(a), b_(b), beta_(beta), c_(c), ld_(ld), ctx_(ctx), threads_(std::max<int64_t>(threads, 1)),
        depth_(g.k) {}

  // Packed op(a) is bounded by kPackedBudget: the depth goes in passes of
  // at most kPassBlocks blocks, each adding to c, and c's rows in chunks.
  void Run() {
    const int64_t pass = std::min(g_.k, kPassBlocks * depth_.size);
    const int64_t chunk = std::max(kTileRows, kPackedBudget / pass / kTileRows * kTileRows);
    for (int64_t r0 = 0; r0 < g_.m; r0 += chunk) {
      for (int64_t d0 = 0; d0 < g_.k; d0 += pass) {
        RunRows(Rows{r0, std::min(chunk, g_.m - r0)}, Depth{d0, std::min(pass, g_.k - d0)}, d0 == 0 ? beta_ : 1.0f);
      }
    }
  }

 private:
  // Where op(a)[row, p] and op(b)[p, col] are stored.
  const float* AAt(int64_t row, int64_t p) const {
    return g_.transpose_a ? a_ + p * ld_.lda + row : a_ + row * ld_.lda + p;
  }
  const float* BAt(int64_t p, int64_t col) const {
    return g_.transpose_b ? b_ + col * ld_.ldb + p : b_ + p * ld_.ldb + col;
  }

  void Parallel(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn) const {
    if (ctx_ != nullptr && threads_ > 1) {
      ctx_->ParallelFor(total, cost_per_unit, fn);
    } else {
      fn(0, total);
    }
  }

  struct Rows {
    int64_t begin, count;
  };
  struct Depth {
    int64_t begin, count;
  };

  // Packed op(a) for a chunk of rows and a pass of the depth: per depth
  // block [p0, p0 + kc) of the pass, all the chunk's row panels, one after
  // another.
  struct PackedRows {
    float* data;
    int64_t panels;
    int64_t first_depth;
    float* At(int64_t p0, int64_t kc, int64_t panel) const {
      return data + ((p0 - first_depth) * panels + panel * kc) * kTileRows;
    }
  };

  // c[rows] = op(a)[rows, depth] @ op(b)[depth, :] + beta * c[rows].
  void RunRows(Rows rows, Depth depth, float beta) {
    const int64_t panels = avx512::RowPanels(rows.count);
    ScratchFloats storage(Scratch::kPackedA, panels * kTileRows * depth.count);
    const PackedRows packed{storage.data(), panels, depth.begin};
    Parallel(panels, kTileRows * depth.count, [&](int64_t s, int64_t e) {
      const int64_t count = std::min(rows.count, e * kTileRows) - s * kTileRows;
      ForEachDepthBlock(depth, [&](int64_t p0, int64_t kc) {
        avx512::PackRowPanels(g_.transpose_a, AAt(rows.begin + s * kTileRows, p0), ld_.lda, count, kc,
                              packed.At(p0, kc, s));
      });
    });
    // Bands of columns share the packed rows; a c too narrow to give every
    // thread two column panels is cut along its row panels instead.
    const int64_t col_pieces = std::clamp<int64_t>(avx512::ColPanels(g_.n) / 2, 1, threads_);
    const int64_t row_pieces = std::clamp<int64_t>(panels / 4, 1, threads_ / col_pieces);
    const int64_t band_cols = avx512::ColPanels(g_.n) / col_pieces * kTileCols;
    const int64_t band_panels = (panels + row_pieces - 1) / row_pieces;
    const int64_t pieces = col_pieces * row_pieces;
    Parallel(pieces, 2 * rows.count * g_.n * depth.count / pieces + 1, [&](int64_t s, int64_t e) {
      for (int64_t piece = s; piece < e; ++piece) {
        const int64_t cp = piece % col_pieces, rp = piece / col_pieces;
        const int64_t c0 = cp * band_cols, c1 = cp + 1 == col_pieces ? g_.n : c0 + band_cols;
        const int64_t q0 = rp * band_panels, q1 = std::min(panels, q0 + band_panels);
        if (q0 >= q1) continue;
        const Rows band{rows.begin + q0 * kTileRows, std::min(rows.count, q1 * kTileRows) - q0 * kTileRows};
        RunBand(packed, q0, band, depth, beta, c0, c1);
      }
    });
  }

  // c[rows, c0:c1] over one pass of the depth; the rows' packed panels
  // start at panel q0 of `packed`.
  void RunBand(const PackedRows& packed, int64_t q0, Rows rows, Depth depth, float beta, int64_t c0,
               int64_t c1) const {
    const int64_t block_cols = std::min(kColumnBlock, avx512::ColPanels(c1 - c0) * kTileCols);
    ScratchFloats packed_b(Scratch::kPackedB, depth_.size * block_cols);
    float* c = c_ + rows.begin * ld_.ldc;
    ForEachDepthBlock(depth, [&](int64_t p0, int64_t kc) {
      const float block_beta = p0 == depth.begin ? beta : 1.0f;
      for (int64_t j = c0; j < c1; j += kColumnBlock) {
        const int64_t cols = std::min(kColumnBlock, c1 - j);
        avx512::PackColPanels(g_.transpose_b, BAt(p0, j), ld_.ldb, kc, cols, packed_b.data());
        avx512::MultiplyPanels(packed.At(p0, kc, q0), rows.count, packed_b.data(), cols, kc, block_beta, c + j,
                               ld_.ldc);
      }
    });
  }

  template <typename Fn>
  void ForEachDepthBlock(Depth depth, const Fn& fn) const {
    const int64_t end = depth.begin + depth.count;
    for (int64_t p0 = depth.begin; p0 < end; p0 += depth_.size) fn(p0, std::min(depth_.size, end - p0));
  }

  const GemmShape g_;
  const float* a_;
  const float* b_;
  const float beta_;
  float* c_;
  const Strides ld_;
  const OpKernelContext* ctx_;
  const int64_t threads_;
  const DepthBlocks depth_;
};

}  // namespace

void TiledSgemm(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld,
                const OpKernelContext* ctx, int64_t threads) {
  if (g.m == 0 || g.n == 0 || g.k == 0) return;
  TiledProduct(g, a, b, beta, c, ld, ctx, threads).Run();
}

}  // namespace tfg
