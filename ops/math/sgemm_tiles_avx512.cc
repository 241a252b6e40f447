#include "ops/math/sgemm_tiles_avx512.h"

#include <immintrin.h>

// This file is compiled with AVX-512 enabled. It instantiates no template
// shared with other files (no std:: algorithms or containers), so the linker
// can never pick an AVX-512 copy of a function that plain x86-64 code calls.

namespace tfg::avx512 {
namespace {

static_assert(kTileRows == 8 && kTileCols == 32, "the packing transposes 8 x 8 blocks and the tile holds two vectors");

int64_t Min(int64_t x, int64_t y) { return x < y ? x : y; }

// Eight vectors of eight floats, transposed in place: afterwards r[j]
// holds element j of each input vector, in their order.
inline void Transpose8x8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// out[p * out_stride + i] = src[i * ld + p] for `rows` rows i of src and p
// in [0, depth), zero for rows up to `width`: rows stored along the depth,
// written depth-major.
void PackRowsAcross(const float* src, int64_t ld, int64_t rows, int64_t depth, float* out, int64_t out_stride,
                    int64_t width) {
  for (int64_t p = 0; p < depth; ++p) {
    for (int64_t i = 0; i < width; ++i) out[p * out_stride + i] = i < rows ? src[i * ld + p] : 0.0f;
  }
}

// The same for exactly eight rows, eight steps of the depth at a time
// through a register transpose.
void PackEightRowsAcross(const float* src, int64_t ld, int64_t depth, float* out, int64_t out_stride) {
  int64_t p = 0;
  for (; p + 8 <= depth; p += 8) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ld + p);
    Transpose8x8(r);
    for (int q = 0; q < 8; ++q) _mm256_storeu_ps(out + (p + q) * out_stride, r[q]);
  }
  PackRowsAcross(src + p, ld, 8, depth - p, out + p * out_stride, out_stride, 8);
}

// The mask of a vector's first n lanes (none for n <= 0, all for n >= 16).
__mmask16 FirstLanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// out[p * kWidth + j] = src[p * ld + j] for j < cols, zero up to kWidth.
template <int kWidth>
void PackRowsAlong(const float* src, int64_t ld, int64_t cols, int64_t depth, float* out) {
  if constexpr (kWidth == 8) {
    const __mmask8 mask = static_cast<__mmask8>(FirstLanes(cols));
    for (int64_t p = 0; p < depth; ++p) _mm256_storeu_ps(out + p * kWidth, _mm256_maskz_loadu_ps(mask, src + p * ld));
    return;
  }
  for (int64_t v = 0; v < kWidth; v += 16) {
    const __mmask16 mask = FirstLanes(cols - v);
    for (int64_t p = 0; p < depth; ++p) {
      _mm512_storeu_ps(out + p * kWidth + v, _mm512_maskz_loadu_ps(mask, src + p * ld + v));
    }
  }
}

// Depth steps left when the tile starts fetching its part of c, so those
// lines arrive in L1 in time and are not pushed out by packed b streaming
// through it first.
constexpr int64_t kFetchCBefore = 64;
// How far ahead (in depth steps) packed b is prefetched.
constexpr int64_t kPrefetchB = 16;

// kVectors of the panel's two: a last panel of at most 16 columns uses only
// its first, at half the multiply-adds.
template <int kVectors>
inline void Step(const float* pa, const float* pb, __m512 acc[kTileRows][2]) {
  __m512 b[kVectors];
  for (int v = 0; v < kVectors; ++v) {
    b[v] = _mm512_load_ps(pb + 16 * v);
    _mm_prefetch(reinterpret_cast<const char*>(pb + kPrefetchB * kTileCols + 16 * v), _MM_HINT_T0);
  }
#pragma GCC unroll 8
  for (int i = 0; i < kTileRows; ++i) {
    const __m512 a = _mm512_set1_ps(pa[i]);
    for (int v = 0; v < kVectors; ++v) acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]);
  }
}

// One tile over the whole depth block. kWhole: all kTileRows x kTileCols
// values lie inside c; otherwise `rows` (<= kTileRows) rows and the
// columns in the masks.
template <bool kWhole, int kVectors>
void Tile(const float* pa, const float* pb, int64_t depth, float beta, float* c, int64_t ldc, int64_t rows,
          const __mmask16 mask[2]) {
  __m512 acc[kTileRows][2];
  for (int i = 0; i < kTileRows; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p < depth - kFetchCBefore; ++p, pa += kTileRows, pb += kTileCols) Step<kVectors>(pa, pb, acc);
  for (int64_t i = 0; i < rows; ++i) {
    for (int v = 0; v < kVectors; ++v) _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16 * v), _MM_HINT_ET0);
  }
  for (; p < depth; ++p, pa += kTileRows, pb += kTileCols) Step<kVectors>(pa, pb, acc);
  const __m512 scale = _mm512_set1_ps(beta);
  if constexpr (kWhole) {
#pragma GCC unroll 8
    for (int i = 0; i < kTileRows; ++i) {
      float* row = c + i * ldc;
      for (int v = 0; v < kVectors; ++v) {
        if (beta != 0.0f) acc[i][v] = _mm512_fmadd_ps(_mm512_loadu_ps(row + 16 * v), scale, acc[i][v]);
        _mm512_storeu_ps(row + 16 * v, acc[i][v]);
      }
    }
    return;
  }
  for (int i = 0; i < kTileRows; ++i) {
    if (i >= rows) break;
    float* row = c + i * ldc;
    for (int v = 0; v < kVectors; ++v) {
      if (beta != 0.0f) acc[i][v] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask[v], row + 16 * v), scale, acc[i][v]);
      _mm512_mask_storeu_ps(row + 16 * v, mask[v], acc[i][v]);
    }
  }
}

}  // namespace

void PackRowPanels(bool ta, const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  for (int64_t r = 0; r < rows; r += kTileRows, out += depth * kTileRows) {
    const int64_t n = Min(kTileRows, rows - r);
    if (ta) {
      PackRowsAlong<kTileRows>(a + r, lda, n, depth, out);
    } else if (n == kTileRows) {
      PackEightRowsAcross(a + r * lda, lda, depth, out, kTileRows);
    } else {
      PackRowsAcross(a + r * lda, lda, n, depth, out, kTileRows, kTileRows);
    }
  }
}

void PackColPanels(bool tb, const float* b, int64_t ldb, int64_t depth, int64_t cols, float* out) {
  for (int64_t j = 0; j < cols; j += kTileCols, out += depth * kTileCols) {
    const int64_t n = Min(kTileCols, cols - j);
    if (!tb) {
      PackRowsAlong<kTileCols>(b + j, ldb, n, depth, out);
      continue;
    }
    // op(b)ᵀ is stored: eight of its rows at a time are eight columns.
    int64_t g = 0;
    for (; g + 8 <= n; g += 8) PackEightRowsAcross(b + (j + g) * ldb, ldb, depth, out + g, kTileCols);
    if (g < kTileCols) PackRowsAcross(b + (j + g) * ldb, ldb, n - g, depth, out + g, kTileCols, kTileCols - g);
  }
}

void MultiplyPanels(const float* packed_a, int64_t rows, const float* packed_b, int64_t cols, int64_t depth,
                    float beta, float* c, int64_t ldc) {
  // Each panel of a (depth x 8 values) stays in L1 while every panel of b
  // streams past it from L2.
  for (int64_t i = 0; i < rows; i += kTileRows, packed_a += depth * kTileRows) {
    const int64_t tile_rows = Min(kTileRows, rows - i);
    const float* pb = packed_b;
    for (int64_t j = 0; j < cols; j += kTileCols, pb += depth * kTileCols) {
      float* tile = c + i * ldc + j;
      const int64_t tile_cols = cols - j;
      const __mmask16 mask[2] = {FirstLanes(tile_cols), FirstLanes(tile_cols - 16)};
      if (tile_rows == kTileRows && tile_cols >= kTileCols) {
        Tile<true, 2>(packed_a, pb, depth, beta, tile, ldc, kTileRows, mask);
      } else if (tile_cols > 16) {
        Tile<false, 2>(packed_a, pb, depth, beta, tile, ldc, tile_rows, mask);
      } else {
        Tile<false, 1>(packed_a, pb, depth, beta, tile, ldc, tile_rows, mask);
      }
    }
  }
}

}  // namespace tfg::avx512
