// random_normal(shape, mean=0.0, stddev=1.0, dtype=f32, seed=0): normally
// distributed values.
//
// Stream (see random_stream.h): f16 and f32 take elements 4b..4b+3 from the
// four normals NormalsFromBlock(block b, wide=false) gives; f64 takes
// elements 2b, 2b+1 from NormalsFromBlock(block b, wide=true). Each is
// mean + stddev * z computed in double, then rounded to the dtype.
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/random/random_stream.h"

namespace tfg {
namespace {

// f64 takes two normals per block, f16 and f32 four.
struct FillNormal {
  static constexpr const char* kOp = "random_normal";
  template <typename T>
  static void Run(const OpKernelContext& ctx, const random::RandomStream& stream, const random::NormalParams& p,
                  Tensor& out) {
    constexpr int kPerBlock = std::is_same_v<T, double> ? 2 : 4;
    random::FillFromBlocks<kPerBlock>(ctx, stream, out.num_elements(), out.data<T>(),
                                      [&](const random::PhiloxCounter& w, T* v) {
                                        double z[4];
                                        random::NormalsFromBlock(w, kPerBlock == 2, z);
                                        for (int j = 0; j < kPerBlock; ++j) {
                                          v[j] = static_cast<T>(p.mean + p.stddev * z[j]);
                                        }
                                      });
  }
};

}  // namespace

TFG_REGISTER_OP(random::NormalOpDef("random_normal", "standard deviation of the distribution",
                                    "Random values from a normal distribution. Each run draws new values; a "
                                    "non-zero seed or --seed makes the sequence of runs reproducible."));
TFG_REGISTER_KERNEL(KernelDef("random_normal", DeviceType::kCpu).Create<random::NormalKernel<FillNormal>>());

}  // namespace tfg
