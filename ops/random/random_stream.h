// Seeding and streams of the random ops (TensorFlow's seed semantics).
//
// The exact stream, so results are reproducible across processes, thread
// counts and versions:
//  * Key. With graph seed g (--seed; 0 = none) and op seed s (the op's
//    `seed` attr): if both are 0 the key comes from std::random_device
//    (nondeterministic). Otherwise g' = g, or 87654321 (TensorFlow's
//    default graph seed) when g is 0; s' = s, or the 64-bit FNV-1a hash of
//    the node name when s is 0; key = SplitMix64(SplitMix64(g') ^ s'), its
//    low 32 bits the Philox key word 0 and its high 32 bits word 1.
//  * Runs. Each node keeps a run counter r in the ResourceMgr (resource
//    "__rng__/<node name>" in the default container), starting at 0 and
//    advanced once per execution, so every run draws new numbers.
//  * Blocks. Block b of run r is Philox4x32-10 of the counter
//    (lo32(b), hi32(b), lo32(r), hi32(r)) under the key: four 32-bit words.
//  How each op turns blocks into values is documented at the op.
#pragma once

#include <cstdint>
#include <string>

#include "ops/core/dtype_traits.h"
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/random/philox.h"

namespace tfg::random {

class RandomStream {
 public:
  RandomStream(uint64_t key, uint64_t run) : key_{static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)},
                                              run_lo_(static_cast<uint32_t>(run)), run_hi_(static_cast<uint32_t>(run >> 32)) {}
  PhiloxCounter Block(uint64_t b) const {
    return Philox4x32({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), run_lo_, run_hi_}, key_);
  }

 private:
  PhiloxKey key_;
  uint32_t run_lo_, run_hi_;
};

// The deterministic key for (graph seed, op seed, node name); see above.
// Only meaningful when graph_seed or op_seed is non-zero.
uint64_t DeriveKey(uint64_t graph_seed, int64_t op_seed, const std::string& node_name);

// The stream for this execution of the kernel: derives the key and takes
// the node's next run number from the ResourceMgr.
Result<RandomStream> BeginRun(const OpKernelContext& ctx, int64_t op_seed);

// Uniform values in [0, 1) from random bits.
inline float Uniform01(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }
inline double Uniform01(uint64_t x) { return static_cast<double>(x >> 11) * 0x1p-53; }
inline uint64_t Join(uint32_t lo, uint32_t hi) { return uint64_t{lo} | (uint64_t{hi} << 32); }

// Box-Muller: two standard normals from u1 in (0, 1] and u2 in [0, 1).
struct NormalPair {
  double z0, z1;
};
NormalPair BoxMuller(double u1, double u2);

// Standard normals from one block: four (two pairs from 32-bit uniforms:
// words 0,1 then 2,3) when `wide` is false; two (one pair from the 64-bit
// uniforms Join(w0,w1), Join(w2,w3)) when true, for f64. In each pair u1 is
// (bits + 1) * 2^-32 (resp. ((bits >> 11) + 1) * 2^-53) and u2 is
// Uniform01(bits).
int NormalsFromBlock(const PhiloxCounter& w, bool wide, double out[4]);

// Writes out[i] for i in [0, n) from the stream, kPerBlock elements per
// block: block_fn(stream.Block(b), vals) fills vals[0..kPerBlock), which
// become out[b*kPerBlock ...]. Blocks are spread over the intra-op threads;
// the result does not depend on how.
template <int kPerBlock, typename T, typename BlockFn>
void FillFromBlocks(const OpKernelContext& ctx, const RandomStream& stream, int64_t n, T* out, BlockFn block_fn) {
  const int64_t blocks = (n + kPerBlock - 1) / kPerBlock;
  ctx.ParallelFor(blocks, 200, [&](int64_t begin, int64_t end) {
    T vals[kPerBlock];
    for (int64_t b = begin; b < end; ++b) {
      block_fn(stream.Block(static_cast<uint64_t>(b)), vals);
      for (int j = 0; j < kPerBlock && b * kPerBlock + j < n; ++j) out[b * kPerBlock + j] = vals[j];
    }
  });
}

// The attrs of random_normal and truncated_normal.
struct NormalParams {
  TensorShape shape;
  double mean = 0, stddev = 1;
  int64_t seed = 0;
};
Result<NormalParams> ReadNormalParams(const KernelConstruction& c);

// Shape function of the random ops: the `shape` attr.
Status RandomShapeFn(ShapeContext& c);

// The declaration random_normal and truncated_normal share (shape, mean,
// stddev, dtype, seed; stateful, no gradient); `stddev_doc` says what the
// standard deviation is of.
OpDefBuilder NormalOpDef(const char* name, const char* stddev_doc, const char* doc);

// The kernel of random_normal and truncated_normal, which differ only in how
// they turn the stream into values: Fill::kOp names the op, and
// Fill::Run<T>(ctx, stream, params, out) fills an f16, f32 or f64 output.
template <typename Fill>
class NormalKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(params_, ReadNormalParams(c));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(RandomStream stream, BeginRun(ctx, params_.seed));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, params_.shape));
    switch (out->dtype()) {
      case DType::kF16: Fill::template Run<half>(ctx, stream, params_, *out); break;
      case DType::kF32: Fill::template Run<float>(ctx, stream, params_, *out); break;
      case DType::kF64: Fill::template Run<double>(ctx, stream, params_, *out); break;
      default: return Internal("{}: unsupported dtype {}", Fill::kOp, DTypeName(out->dtype()));
    }
    return Status::OK();
  }

 private:
  NormalParams params_;
};

}  // namespace tfg::random
