// The register tiles of tfg's own f32 matrix product (ops/math/sgemm.h):
// packing of op(a) and op(b) into panels, and the tile loop that multiplies
// one depth block of packed panels into c. Compiled with AVX-512 enabled
// (sgemm_tiles_avx512.cc only); callers check avx512::Available() first.
//
// A tile is kTileRows x kTileCols of c held in registers: each step of the
// depth loads kTileCols values of packed b (two vectors) and broadcasts
// kTileRows values of packed a. Packed a is depth-major panels of kTileRows
// rows; packed b is depth-major panels of kTileCols columns. Rows and
// columns past the matrix's edge are packed as zeros and never stored.
#pragma once

#include <cstdint>

namespace tfg::avx512 {

constexpr int64_t kTileRows = 8;
constexpr int64_t kTileCols = 32;

// Panels needed for `rows` rows (or columns, with kTileCols).
constexpr int64_t RowPanels(int64_t rows) { return (rows + kTileRows - 1) / kTileRows; }
constexpr int64_t ColPanels(int64_t cols) { return (cols + kTileCols - 1) / kTileCols; }

// Packs op(a)[0:rows, 0:depth] into RowPanels(rows) panels of depth x
// kTileRows values each, one after another. `a` points at op(a)[0, 0]:
// row-major [rows, lda] when !ta, or [depth, lda] holding op(a)ᵀ when ta.
void PackRowPanels(bool ta, const float* a, int64_t lda, int64_t rows, int64_t depth, float* out);

// Packs op(b)[0:depth, 0:cols] into ColPanels(cols) panels of depth x
// kTileCols values each. `b` points at op(b)[0, 0]: [depth, ldb] when !tb,
// [cols, ldb] holding op(b)ᵀ when tb. `out` is 64-byte aligned.
void PackColPanels(bool tb, const float* b, int64_t ldb, int64_t depth, int64_t cols, float* out);

// c[0:rows, 0:cols] = packed_a @ packed_b + beta * c over one depth block,
// where packed_a holds RowPanels(rows) panels and packed_b ColPanels(cols)
// panels (64-byte aligned), both of `depth` steps. beta == 0 ignores c's
// old contents, NaNs included.
void MultiplyPanels(const float* packed_a, int64_t rows, const float* packed_b, int64_t cols, int64_t depth,
                    float beta, float* c, int64_t ldc);

}  // namespace tfg::avx512
