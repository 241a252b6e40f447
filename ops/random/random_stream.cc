#include "ops/random/random_stream.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <numbers>
#include <random>

#include <fmt/ranges.h>

#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"

namespace tfg::random {
namespace {

constexpr uint64_t kDefaultGraphSeed = 87654321;

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

// A node's run counter; lives as long as the ResourceMgr's default container.
class RngState : public Resource {
 public:
  std::string DebugString() const override { return "random generator state (run " + std::to_string(runs.load()) + ")"; }
  std::atomic<uint64_t> runs{0};
};

}  // namespace

uint64_t DeriveKey(uint64_t graph_seed, int64_t op_seed, const std::string& node_name) {
  const uint64_t g = graph_seed != 0 ? graph_seed : kDefaultGraphSeed;
  const uint64_t s = op_seed != 0 ? static_cast<uint64_t>(op_seed) : Fnv1a64(node_name);
  return SplitMix64(SplitMix64(g) ^ s);
}

Result<RandomStream> BeginRun(const OpKernelContext& ctx, int64_t op_seed) {
  const std::string& node = ctx.info().node_name;
  ResourceMgr* resources = ctx.resources();
  if (resources == nullptr) return Internal("{}: random ops need a resource manager for their state", node);
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<RngState> state,
                       resources->LookupOrCreate<RngState>("", "__rng__/" + node,
                                                           [] { return std::make_shared<RngState>(); }));
  const uint64_t run = state->runs.fetch_add(1, std::memory_order_relaxed);
  const uint64_t graph_seed = ctx.step().graph_seed;
  if (graph_seed == 0 && op_seed == 0) {
    std::random_device device;
    return RandomStream(Join(device(), device()), run);
  }
  return RandomStream(DeriveKey(graph_seed, op_seed, node), run);
}

NormalPair BoxMuller(double u1, double u2) {
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * std::numbers::pi * u2;
  return {r * std::cos(theta), r * std::sin(theta)};
}

int NormalsFromBlock(const PhiloxCounter& w, bool wide, double out[4]) {
  if (wide) {
    const uint64_t a = Join(w[0], w[1]), b = Join(w[2], w[3]);
    const NormalPair p = BoxMuller((static_cast<double>(a >> 11) + 1.0) * 0x1p-53, Uniform01(b));
    out[0] = p.z0;
    out[1] = p.z1;
    return 2;
  }
  for (int k = 0; k < 2; ++k) {
    const NormalPair p =
        BoxMuller((static_cast<double>(w[2 * k]) + 1.0) * 0x1p-32, static_cast<double>(w[2 * k + 1]) * 0x1p-32);
    out[2 * k] = p.z0;
    out[2 * k + 1] = p.z1;
  }
  return 4;
}

Result<NormalParams> ReadNormalParams(const KernelConstruction& c) {
  const auto* dims = c.attr<std::vector<int64_t>>("shape");
  const double* mean = c.attr<double>("mean");
  const double* stddev = c.attr<double>("stddev");
  const int64_t* seed = c.attr<int64_t>("seed");
  if (!dims || !mean || !stddev || !seed) return Internal("{}: missing attributes", c.op->name);
  for (int64_t d : *dims) {
    if (d < 0) return InvalidArgument("{}: shape [{}] has a negative dimension", c.op->name, fmt::join(*dims, ", "));
  }
  return NormalParams{TensorShape(*dims), *mean, *stddev, *seed};
}

Status RandomShapeFn(ShapeContext& c) {
  const auto* dims = c.attr<std::vector<int64_t>>("shape");
  if (dims == nullptr) return Internal("{}: attribute 'shape' is missing", c.op().name);
  for (int64_t d : *dims) {
    if (d < 0) return InvalidArgument("{}: shape [{}] has a negative dimension", c.op().name, fmt::join(*dims, ", "));
  }
  c.set_output(0, PartialShape(*dims));
  return Status::OK();
}

OpDefBuilder NormalOpDef(const char* name, const char* stddev_doc, const char* doc) {
  OpDefBuilder b(name);
  b.Attr("shape", AttrType::kIntList, std::nullopt, "the output shape")
      .Attr("mean", AttrType::kFloat, 0.0, "mean of the distribution")
      .Attr("stddev", AttrType::kFloat, 1.0, stddev_doc)
      .TypeAttr("dtype", FloatTypes(), DType::kF32)
      .Attr("seed", AttrType::kInt, int64_t{0}, "op seed; with the graph seed (--seed) fixes the stream")
      .Output("y", "dtype")
      .Stateful()
      .SetShapeFn(RandomShapeFn)
      .NoGradient("random")
      .Doc(doc);
  return b;
}

}  // namespace tfg::random
