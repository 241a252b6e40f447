#include "ops/math/fused/block_ops.h"

#include <algorithm>
#include <variant>

#include <fmt/format.h>

#include "ops/math/fused/block_ops_headers.h"

#define TFG_BLOCK_NS baseline
#define TFG_BLOCK_FILL FillBaseline
#define TFG_PAIR_FILL FillBaselinePairs
#include "ops/math/fused/block_ops_impl.h"
#include "ops/math/fused/pair_ops_impl.h"
#undef TFG_BLOCK_NS
#undef TFG_BLOCK_FILL
#undef TFG_PAIR_FILL

namespace tfg::fused {

std::string BlockKey(const std::string& op, DType in, DType out) {
  return fmt::format("{}/{}/{}", op, DTypeName(in), DTypeName(out));
}

std::string PairKey(const std::string& first, const std::string& second, DType t, PairForm form) {
  return fmt::format("{}+{}/{}/{}", first, second, DTypeName(t), static_cast<int>(form));
}

std::string PairSumKey(const std::string& first, const std::string& second, DType t, PairForm form) {
  return PairKey(first, second, t, form) + "/sum";
}

void FillBaselineTable(BlockTable& table) { baseline::FillBaseline(table); }
void FillBaselinePairs(PairTable& table) { baseline::FillBaselinePairs(table); }

namespace {

bool CpuHasAvx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

const BlockTable& Table() {
  static const BlockTable table = [] {
    BlockTable t;
    FillBaselineTable(t);
    if (CpuHasAvx2()) {
      BlockTable wide;
      FillAvx2Table(wide);
      for (auto& [key, op] : wide) t[key] = op;
    }
    return t;
  }();
  return table;
}

const PairTable& Pairs() {
  static const PairTable table = [] {
    PairTable t;
    FillBaselinePairs(t);
    if (CpuHasAvx2()) {
      PairTable wide;
      FillAvx2Pairs(wide);
      for (auto& [key, run] : wide) t[key] = run;
    }
    return t;
  }();
  return table;
}

}  // namespace

PairRun FindPairOp(const std::string& first, const std::string& second, DType t, PairForm form) {
  auto it = Pairs().find(PairKey(first, second, t, form));
  return it == Pairs().end() ? nullptr : it->second;
}

PairSumRun FindPairSumOp(const std::string& first, const std::string& second, DType t, PairForm form) {
  auto it = Pairs().find(PairSumKey(first, second, t, form));
  return it == Pairs().end() ? nullptr : it->second;  // the same signature as PairRun
}

const BlockOp* FindBlockOp(const std::string& op, DType in, DType out) {
  auto it = Table().find(BlockKey(op, in, out));
  return it == Table().end() ? nullptr : &it->second;
}

double BlockParam(const BlockOp& op, const AttrMap& attrs) {
  if (op.param_attr == nullptr) return 0;
  auto it = attrs.find(op.param_attr);
  if (it == attrs.end()) return 0;
  if (const bool* b = std::get_if<bool>(&it->second)) return *b ? 1 : 0;
  if (const double* d = std::get_if<double>(&it->second)) return *d;
  return 0;
}

void SetBlockParam(const BlockOp& op, double param, AttrMap& attrs) {
  if (op.param_attr == nullptr) return;
  if (op.param_is_bool) {
    attrs[op.param_attr] = param != 0;
  } else {
    attrs[op.param_attr] = param;
  }
}

std::vector<std::string> FusableOps() {
  std::vector<std::string> ops;
  for (const auto& [key, op] : Table()) {
    std::string name = key.substr(0, key.find('/'));
    if (std::find(ops.begin(), ops.end(), name) == ops.end()) ops.push_back(name);
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace tfg::fused
