// The elementwise ops a fused kernel (fused_elementwise.cc) runs, one
// block of elements at a time: for each (op, input dtype, output dtype) a
// loop over `n` elements built from the same functor
// (ops/math/cwise_functors.h) and the same load/convert/store steps as the
// op's own kernel (ops/math/cwise_loops.h), so fused and unfused results
// agree bit for bit. Operand k is read at in[k][i * stride[k]], stride 0
// (one value for the whole block) or 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/dtype.h"

namespace tfg::fused {

// out[i] = op(in[0][i * stride[0]], ...) for i < n; `param` is the value
// of the op's one numeric attr (BlockOp::param_attr), 0 when it has none.
using BlockRun = void (*)(const void* const* in, const int64_t* stride, void* out, int64_t n, double param);
// The check the op's kernel makes before its loop (integer division by
// zero, negative integer exponents) on the operand `in` (stride 0 or 1):
// false when it fails, the unfused kernel then reports the error.
using BlockCheck = bool (*)(const void* in, int64_t stride, int64_t n);

// Which operand shapes the op's kernel accepts; the fused kernel checks
// them before its loop and leaves any other to the member's kernel, which
// reports it.
enum class ShapeRule {
  kBroadcast,  // NumPy broadcasting (the cwise ops)
  kSame,       // every operand of one shape (the activations' gradients)
  kBiasAdd,    // a vector as long as the value's last dimension (bias_add)
  kToFirst,    // the others broadcast to the first's shape exactly (clip_by_value)
};

struct BlockOp {
  BlockRun run = nullptr;
  BlockCheck check = nullptr;  // null: nothing to check
  int check_operand = 1;       // which operand `check` looks at
  int arity = 0;
  int dispatch_input = 0;      // the input whose dtype picks the loop (where: 1)
  int64_t cost = 1;            // rough cycles per element, as the op's kernel says
  ShapeRule shapes = ShapeRule::kBroadcast;
  // The attr the loop takes as its `param` (leaky_relu's alpha, gelu's
  // approximate as 0 or 1); null: none.
  const char* param_attr = nullptr;
  bool param_is_bool = false;  // the attr is a bool (else a float)
};

// The value of `op`'s param attr in `attrs` (0 when it has none or the
// attr is missing), and the attr written back from it, for the member's
// own kernel.
double BlockParam(const BlockOp& op, const AttrMap& attrs);
void SetBlockParam(const BlockOp& op, double param, AttrMap& attrs);

// The loop for `op` whose dispatch input has dtype `in` and whose output
// has dtype `out`; null when `op` is not fusable at those dtypes. The
// loops are compiled twice, for the baseline x86-64 and for AVX2 (without
// FMA, so no product and sum are contracted: the bits stay the same), and
// the AVX2 ones are picked where the CPU has it.
const BlockOp* FindBlockOp(const std::string& op, DType in, DType out);

// Every op name the table knows (for tests that walk the registry).
std::vector<std::string> FusableOps();

// Two binary members run as one loop (pair_ops_impl.h): where the first
// one's result goes in the second.
enum class PairForm { kLeft, kRight, kBoth };
// out[i] = second(first(a[i], b[i * stride[1]]), c[i * stride[2]]) and
// the other forms, for in = {a, b, c}; a has stride 1, c is unused for
// kBoth.
using PairRun = void (*)(const void* const* in, const int64_t* stride, void* out, int64_t n);

// The loop for `first` then `second` on dtype `t`; null when there is
// none (then they run one after the other, with the same result).
PairRun FindPairOp(const std::string& first, const std::string& second, DType t, PairForm form);

// The pair's values added into the lanes of a sum (`lanes`, of the
// pair's dtype) in reduce::BlockLanes' order, without being stored: the
// last step of a group that ends in sum or mean.
using PairSumRun = void (*)(const void* const* in, const int64_t* stride, void* lanes, int64_t n);
PairSumRun FindPairSumOp(const std::string& first, const std::string& second, DType t, PairForm form);

}  // namespace tfg::fused
