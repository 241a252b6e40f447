// Host index tensors for feeding batches: arange(n) and permutation(n, seed).
// permutation follows the random ops' seeding (ops/random/random_stream.h):
// with --seed or a seed= it is repeatable, each call of the same seed
// drawing the next permutation; with neither it differs every run.
#include <numeric>
#include <random>

#include "ops/core/allocator.h"
#include "interp/language/builtins/builtins.h"
#include "ops/random/random_stream.h"

namespace tfg {
namespace {

Result<Tensor> Indices(const BoundArgs& args, int64_t n) {
  if (n < 0) {
    return Status(Code::kInvalidArgument, fmt::format("{}: n must be >= 0, got {}", args.def->name, n), args.spans[0]);
  }
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), DType::kI64, TensorShape({n})));
  std::iota(t.data<int64_t>(), t.data<int64_t>() + n, int64_t{0});
  return t;
}

Result<Value> Arange(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(int64_t n, IntArg(args, 0));
  TFG_ASSIGN_OR_RETURN(Tensor t, Indices(args, n));
  return Value::HostTensor(std::move(t));
}

uint64_t PermutationKey(BuiltinContext& ev, int64_t seed) {
  if (ev.options().session.seed == 0 && seed == 0) {
    std::random_device rd;
    return (uint64_t{rd()} << 32) | rd();
  }
  return random::DeriveKey(ev.options().session.seed, seed, "permutation");
}

// Fisher-Yates, drawing one 64-bit word per swap from the Philox stream.
Result<Value> Permutation(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(int64_t n, IntArg(args, 0));
  TFG_ASSIGN_OR_RETURN(int64_t seed, IntArg(args, 1));
  TFG_ASSIGN_OR_RETURN(Tensor t, Indices(args, n));
  random::RandomStream stream(PermutationKey(ev, seed), ev.NextCallCount("permutation/" + std::to_string(seed)));
  int64_t* p = t.data<int64_t>();
  for (int64_t i = n - 1; i > 0; --i) {
    uint64_t block = static_cast<uint64_t>(i) / 2;
    random::PhiloxCounter w = stream.Block(block);
    uint64_t bits = i % 2 ? random::Join(w[0], w[1]) : random::Join(w[2], w[3]);
    std::swap(p[i], p[bits % static_cast<uint64_t>(i + 1)]);
  }
  return Value::HostTensor(std::move(t));
}

const BuiltinRegistrar kIndexBuiltins({
    {"arange", {BuiltinParam{"n", std::nullopt}}, "0, 1, ..., n-1 as an i64 host tensor.", Arange},
    {"permutation",
     {BuiltinParam{"n", std::nullopt}, BuiltinParam{"seed", Value::Int(0)}},
     "A random permutation of 0..n-1 as an i64 host tensor (for shuffling host data: xs[permutation(len(xs))]). "
     "Repeatable with --seed or seed=; successive calls draw new permutations.",
     Permutation},
});

}  // namespace
}  // namespace tfg
