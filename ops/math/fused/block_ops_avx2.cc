// The block loops again, compiled for AVX2 and picked at run time where the
// CPU has it (block_ops.cc). Deliberately not FMA: a product followed by a
// sum must round twice, as in the op's own kernel.
#include "ops/math/fused/block_ops_headers.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2")
#define TFG_BLOCK_NS avx2
#define TFG_BLOCK_FILL FillAvx2
#define TFG_PAIR_FILL FillAvx2Pairs
#include "ops/math/fused/block_ops_impl.h"
#include "ops/math/fused/pair_ops_impl.h"
#undef TFG_BLOCK_NS
#undef TFG_BLOCK_FILL
#undef TFG_PAIR_FILL
#pragma GCC pop_options

namespace tfg::fused {
void FillAvx2Table(BlockTable& table) { avx2::FillAvx2(table); }
void FillAvx2Pairs(PairTable& table) { avx2::FillAvx2Pairs(table); }
}  // namespace tfg::fused
#else
namespace tfg::fused {
void FillAvx2Table(BlockTable&) {}
void FillAvx2Pairs(PairTable&) {}
}  // namespace tfg::fused
#endif
