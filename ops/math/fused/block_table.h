// The table behind FindBlockOp (block_ops.cc), filled once per instruction
// set by block_ops_impl.h.
#pragma once

#include <string>
#include <unordered_map>

#include "ops/math/fused/block_ops.h"

namespace tfg::fused {

using BlockTable = std::unordered_map<std::string, BlockOp>;

// "add/f32/f32": op, dispatch dtype, output dtype.
std::string BlockKey(const std::string& op, DType in, DType out);

using PairTable = std::unordered_map<std::string, PairRun>;
std::string PairKey(const std::string& first, const std::string& second, DType t, PairForm form);
// The key of the same pair's loop that sums instead of storing (PairSumRun).
std::string PairSumKey(const std::string& first, const std::string& second, DType t, PairForm form);

// The loops compiled for the baseline instruction set, and for AVX2 (an
// empty table where the compiler cannot target it).
void FillBaselineTable(BlockTable& table);
void FillAvx2Table(BlockTable& table);
void FillBaselinePairs(PairTable& table);
void FillAvx2Pairs(PairTable& table);

}  // namespace tfg::fused
