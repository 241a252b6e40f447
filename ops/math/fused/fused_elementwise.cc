// fused_elementwise: a group of elementwise ops (and a trailing reduction)
// that the fusion pass (interp/runtime/fuse_elementwise.cc) joined into one
// node. The kernel makes one pass over memory: the output is cut into
// blocks of kBlock elements, split over the intra-op threads, and every
// member runs its loop (fused/block_ops.h) on the block while it is in
// cache. Whatever the loop does not handle, and every error, goes to the
// members' own kernels run one after the other (Program::RunUnfused), which
// report it as the member would have unfused.
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>

#include "ops/core/dtype_traits.h"
#include "ops/core/forward_input.h"
#include "ops/core/op_registry.h"
#include "ops/math/fused/block_gather.h"
#include "ops/math/fused/fused_program.h"
#include "ops/math/reduce_functors.h"
#include "ops/math/reduction.h"
#include "ops/nn/bias_add.h"

namespace tfg::fused {
namespace {

// Elements per block: every member's block stays in the L1 cache (a loop
// is bound by its stores, one per element and member, and L1 takes them
// fastest; measured on the 8-op chain: 1024 beats 512 and 4096; on its
// sum, 1024 beats 512 by 12% and 2048 by 38%, and prefetching the next
// block's inputs by software made it 30% slower, not faster). It
// divides the reductions' row block, so a reduction sees its operand in the
// same pieces as its own kernel would.
constexpr int64_t kBlock = 1024;
static_assert(reduce::kRowBlock % kBlock == 0 && kBlock % reduce::kLanes<int8_t> == 0);
// A scratch block holds up to kBlock elements of up to 8 bytes, plus a
// stagger so that blocks do not sit a multiple of 4 KiB apart (loads from
// one and stores to another would then falsely look dependent to the CPU).
int64_t SlotBytes(int64_t elements) { return (std::min(elements, kBlock) * 8 + 63) / 64 * 64 + 256; }

bool AllFinite(DType t, const void* p, int64_t n) {
  bool ok = true;
  switch (t) {
    case DType::kF16: for (int64_t i = 0; i < n; ++i) ok &= std::isfinite(static_cast<float>(static_cast<const half*>(p)[i])); break;
    case DType::kF32: for (int64_t i = 0; i < n; ++i) ok &= std::isfinite(static_cast<const float*>(p)[i]); break;
    case DType::kF64: for (int64_t i = 0; i < n; ++i) ok &= std::isfinite(static_cast<const double*>(p)[i]); break;
    default: break;
  }
  return ok;
}

// One thread's scratch blocks: the members' results, then one per input
// (a gathered block, or a one-element input spread over a whole block for
// a pair loop, which reads its first operand with stride 1).
class Scratch {
 public:
  // For blocks of up to `elements` elements; not zeroed: every block is
  // written before it is read.
  Scratch(int slots, const std::vector<InputView>& inputs, int first_input_slot, int64_t elements)
      : slot_bytes_(SlotBytes(elements)), bytes_(new char[slots * slot_bytes_ + 64]), base_(Align(bytes_.get())) {
    const int64_t spread = std::min(elements, kBlock);
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i].Spread(slot(first_input_slot + static_cast<int>(i)), spread);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  char* slot(int k) { return base_ + k * slot_bytes_; }

 private:
  static char* Align(char* p) { return p + ((64 - reinterpret_cast<uintptr_t>(p) % 64) % 64); }
  int64_t slot_bytes_;
  std::unique_ptr<char[]> bytes_;
  char* base_;
};

// One run of the program over an output of `n` elements.
class BlockRunner {
 public:
  // `exported[k]`: where member k's values go when they are an output of
  // the node (its element 0), else null.
  BlockRunner(const Program& p, std::vector<InputView> inputs, std::vector<char*> exported, int64_t n,
              std::atomic<bool>& failed)
      : p_(p), inputs_(std::move(inputs)), exported_(std::move(exported)), n_(n), failed_(failed) {}

  Scratch MakeScratch() const {
    return Scratch(p_.num_member_slots() + p_.num_inputs(), inputs_, p_.num_member_slots(), n_);
  }

  // Computes elements [start, start + len) (len <= kBlock); the elementwise
  // root writes to `out` when given. Returns the root's values, or null
  // when a member's check failed (the group then runs unfused).
  const void* Run(int64_t start, int64_t len, Scratch& scratch, void* out) const {
    for (const Step& step : p_.steps()) {
      if (!RunStep(step, start, len, scratch, out)) return nullptr;
    }
    return (out != nullptr) ? out : Values(p_.elementwise_root(), start, scratch);
  }

  // Adds the root's values on elements [start, start + len) into the
  // lanes of a sum (`lanes`, of the root's dtype) when the last step has a
  // loop for that (Step::pair_sum), without storing them; false when it
  // has none or a member's check failed (Run then tells which).
  bool RunIntoSum(int64_t start, int64_t len, Scratch& scratch, void* lanes) const {
    const Step& last = p_.steps().back();
    if (last.pair_sum == nullptr) return false;
    const auto& steps = p_.steps();
    for (size_t k = 0; k + 1 < steps.size(); ++k) {
      if (!RunStep(steps[k], start, len, scratch, nullptr)) return false;
    }
    const void* operand[3];
    int64_t stride[3];
    PairOperands(last, *p_.members()[last.member], start, len, scratch, operand, stride);
    last.pair_sum(operand, stride, lanes, len);
    return true;
  }

  bool failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  // Argument `a` of a member on this block, and its stride (0 or 1).
  const void* Operand(int a, int64_t start, int64_t len, Scratch& scratch, int64_t& stride) const {
    if (a < 0) {
      stride = 1;
      return Values(-a - 1, start, scratch);
    }
    return inputs_[a].Block(start, len, scratch.slot(p_.num_member_slots() + a), stride);
  }

  // Where member k's values on the block from `start` are: its output's
  // elements when it is exported, else its scratch block.
  char* Values(int k, int64_t start, Scratch& scratch) const {
    const Member& m = *p_.members()[k];
    if (exported_[k] != nullptr) return exported_[k] + start * static_cast<int64_t>(DTypeSize(m.type));
    return scratch.slot(m.slot);
  }

  // One step on a block; its result goes to `out` when it is the
  // elementwise root and `out` is given. False when a member's check
  // failed (the group then runs unfused).
  bool RunStep(const Step& step, int64_t start, int64_t len, Scratch& scratch, void* out) const {
    const Member* root = p_.members()[p_.elementwise_root()].get();
    const Member& m = *p_.members()[step.member];
    const Member& result = *p_.members()[step.result()];
    void* dst = (&result == root && out != nullptr) ? out : Values(step.result(), start, scratch);
    const void* operand[3];
    int64_t stride[3];
    if (step.pair != nullptr) {
      PairOperands(step, m, start, len, scratch, operand, stride);
      step.pair(operand, stride, dst, len);
      return true;
    }
    for (size_t i = 0; i < m.args.size(); ++i) operand[i] = Operand(m.args[i], start, len, scratch, stride[i]);
    if (m.block->check != nullptr &&
        !m.block->check(operand[m.block->check_operand], stride[m.block->check_operand], len)) {
      failed_.store(true, std::memory_order_relaxed);
      return false;
    }
    m.block->run(operand, stride, dst, len, m.param);
    if (p_.check_numerics() && !AllFinite(m.type, dst, len)) {
      failed_.store(true, std::memory_order_relaxed);
      return false;
    }
    return true;
  }

  // A pair reads its first operand with stride 1: a one-element input is
  // read from its spread block.
  void PairOperands(const Step& step, const Member& first, int64_t start, int64_t len, Scratch& scratch,
                    const void** operand, int64_t* stride) const {
    stride[0] = stride[1] = stride[2] = 1;
    operand[0] = Operand(first.args[0], start, len, scratch, stride[0]);
    if (stride[0] == 0) {
      operand[0] = scratch.slot(p_.num_member_slots() + first.args[0]);
      stride[0] = 1;
    }
    operand[1] = Operand(first.args[1], start, len, scratch, stride[1]);
    operand[2] = step.form == PairForm::kBoth ? operand[0] : Operand(step.other, start, len, scratch, stride[2]);
  }

  const Program& p_;
  std::vector<InputView> inputs_;
  std::vector<char*> exported_;
  int64_t n_;  // elements of the elementwise root
  std::atomic<bool>& failed_;
};

// Whole blocks per thread, so every block but the last starts 64-byte
// aligned when the output does.
void RunElementwise(OpKernelContext& ctx, const BlockRunner& r, int64_t n, char* out, size_t elem_size,
                    int64_t cost) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  ctx.ParallelFor(blocks, cost * kBlock, [&](int64_t s, int64_t e) {
    Scratch scratch = r.MakeScratch();
    for (int64_t b = s; b < e && !r.failed(); ++b) {
      const int64_t start = b * kBlock;
      r.Run(start, std::min(kBlock, n - start), scratch, out + start * elem_size);
    }
  });
}

// Elements [begin, begin + count) reduced row block by row block from
// `begin`, as reduce::ReduceRow reduces a row in memory; each row block is
// made in pieces of kBlock (multiples of the lanes, as BlockLanes needs).
template <typename R, typename T>
typename R::Acc ReduceRange(const BlockRunner& r, Scratch& scratch, int64_t begin, int64_t count) {
  typename R::Acc total = R::Init();
  for (int64_t b = 0; b < count; b += reduce::kRowBlock) {
    const int64_t row_len = std::min(reduce::kRowBlock, count - b);
    reduce::BlockLanes<R, T> lanes;
    for (int64_t p = 0; p < row_len; p += kBlock) {
      const int64_t len = std::min(kBlock, row_len - p);
      // A sum whose last step adds into the lanes itself (same order).
      if constexpr (std::is_base_of_v<reduce::SumR<T>, R> && std::is_same_v<typename R::Acc, T>) {
        if (r.RunIntoSum(begin + b + p, len, scratch, lanes.lanes())) continue;
        if (r.failed()) return total;
      }
      const void* values = r.Run(begin + b + p, len, scratch, nullptr);
      if (values == nullptr) return total;
      lanes.Add(static_cast<const T*>(values), len);
    }
    total = R::Combine(total, lanes.Total());
  }
  return total;
}

// ReduceSimple's two cases with inner == 1 (reduction_ops.cc), in its order.
template <typename R, typename T>
void ReduceRows(OpKernelContext& ctx, const BlockRunner& r, const ReductionLayout& l, int64_t cost, T* out) {
  using Acc = typename R::Acc;
  const int64_t red = l.reduce;
  if (l.outer == 1) {
    const int64_t parts = (red + reduce::kPartBlock - 1) / reduce::kPartBlock;
    std::vector<Acc> partial(parts, R::Init());
    ctx.ParallelFor(parts, reduce::kPartBlock * cost, [&](int64_t s, int64_t e) {
      Scratch scratch = r.MakeScratch();
      for (int64_t b = s; b < e && !r.failed(); ++b) {
        const int64_t begin = b * reduce::kPartBlock;
        partial[b] = ReduceRange<R, T>(r, scratch, begin, std::min(reduce::kPartBlock, red - begin));
      }
    });
    Acc acc = R::Init();
    for (Acc v : partial) acc = R::Combine(acc, v);
    out[0] = R::Finish(acc, red);
    return;
  }
  ctx.ParallelFor(l.outer, red * cost, [&](int64_t s, int64_t e) {
    Scratch scratch = r.MakeScratch();
    for (int64_t o = s; o < e && !r.failed(); ++o) {
      out[o] = R::Finish(ReduceRange<R, T>(r, scratch, o * red, red), red);
    }
  });
}

template <template <typename> class RT>
bool DispatchReduce(OpKernelContext& ctx, const BlockRunner& r, const ReductionLayout& l, int64_t cost,
                    Tensor* out) {
  return TFG_DISPATCH_NUMBER(out->dtype(), T, { ReduceRows<RT<T>, T>(ctx, r, l, cost, out->data<T>()); });
}

class FusedElementwiseKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override { return program_.Init(c); }

  Status Compute(OpKernelContext& ctx) override {
    std::vector<TensorShape> in_shapes;
    for (int i = 0; i < ctx.num_inputs(); ++i) in_shapes.push_back(ctx.input(i).shape());
    auto shapes = MemberShapes(in_shapes);
    // A shape mismatch, nothing to compute (where a member's checks still
    // apply to its own smaller operands), or an extra output smaller than
    // the result (a broadcast member): as unfused.
    if (!shapes.ok() || shapes->back().num_elements() == 0) return program_.RunUnfused(ctx);
    const TensorShape* shape = &shapes->back();
    std::vector<char*> exported(program_.members().size(), nullptr);
    for (int k : program_.exports()) {
      if ((*shapes)[k] != *shape) return program_.RunUnfused(ctx);
      TFG_ASSIGN_OR_RETURN(Tensor * extra, ctx.allocate_output(program_.members()[k]->output, *shape));
      exported[k] = static_cast<char*>(extra->raw_data());
    }
    const int64_t n = shape->num_elements();
    std::vector<InputView> views;
    for (int i = 0; i < ctx.num_inputs(); ++i) views.emplace_back(ctx.input(i), *shape);
    std::atomic<bool> failed{false};
    BlockRunner runner(program_, std::move(views), std::move(exported), n, failed);
    Status s = program_.reduces() ? Reduce(ctx, runner, *shape) : Elementwise(ctx, runner, *shape, n);
    if (!s.ok() || failed.load()) return program_.RunUnfused(ctx);
    return Status::OK();
  }

 private:
  // Each elementwise member's shape, the root's last: its operands
  // broadcast, or as its kernel takes them (BlockOp::shapes); an error
  // sends the group to the members' kernels, which report it.
  Result<std::vector<TensorShape>> MemberShapes(const std::vector<TensorShape>& inputs) const {
    std::vector<TensorShape> shapes;
    for (int k = 0; k <= program_.elementwise_root(); ++k) {
      const Member& m = *program_.members()[k];
      auto shape_of = [&](int a) -> const TensorShape& { return a >= 0 ? inputs[a] : shapes[-a - 1]; };
      TensorShape s = shape_of(m.args[0]);
      for (size_t i = 1; i < m.args.size(); ++i) {
        const TensorShape& next = shape_of(m.args[i]);
        if (m.block->shapes == ShapeRule::kBroadcast) {
          TFG_ASSIGN_OR_RETURN(s, BroadcastShapes(s, next));
        } else if (m.block->shapes == ShapeRule::kSame) {
          if (next != s) return InvalidArgument("operand shapes differ");
        } else if (m.block->shapes == ShapeRule::kToFirst) {
          TFG_ASSIGN_OR_RETURN(TensorShape b, BroadcastShapes(s, next));
          if (b != s) return InvalidArgument("an operand does not broadcast to the first's shape");
        } else {
          TFG_RETURN_IF_ERROR(nn::BiasAddLayout(s, next).status());
        }
      }
      shapes.push_back(std::move(s));
    }
    return shapes;
  }

  Status Elementwise(OpKernelContext& ctx, const BlockRunner& r, const TensorShape& shape, int64_t n) {
    TFG_ASSIGN_OR_RETURN(Tensor * out, Output(ctx, shape));
    RunElementwise(ctx, r, n, static_cast<char*>(out->raw_data()), DTypeSize(out->dtype()), program_.cost());
    return Status::OK();
  }

  // An input of the output's size and dtype that nothing else holds takes
  // the output (forward_input.h): each block is read before it is written.
  // Not when the group may have to run unfused after all (a member's
  // check, --check-numerics): that run needs the inputs as they were.
  Result<Tensor*> Output(OpKernelContext& ctx, const TensorShape& shape) const {
    if (!program_.may_fall_back()) {
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        if (!CanForwardInput(ctx, i, 0, shape) || ctx.input(i).shape() != shape) continue;
        ctx.set_output(0, ctx.input(i));
        return &ctx.output(0);
      }
    }
    return ctx.allocate_output(0, shape);
  }

  // Reductions of trailing axes (ReduceSimple with inner == 1); the others
  // run unfused (an error status here only sends them there).
  Status Reduce(OpKernelContext& ctx, const BlockRunner& r, const TensorShape& shape) {
    const Member& m = program_.last();
    TFG_ASSIGN_OR_RETURN(ReductionPlan plan, PlanReduction(m.op, ReadReductionAttrs(m.attrs), shape));
    const ReductionLayout& l = plan.layout;
    if (!l.simple || l.inner != 1 || l.reduce_count == 0 || plan.out.num_elements() == 0) {
      return Unimplemented("layout");
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, plan.out));
    const int64_t cost = program_.cost() + 1;
    bool handled = m.op == "sum"    ? DispatchReduce<reduce::SumR>(ctx, r, l, cost, out)
                   : m.op == "mean" ? DispatchReduce<reduce::MeanR>(ctx, r, l, cost, out)
                   : m.op == "max"  ? DispatchReduce<reduce::MaxR>(ctx, r, l, cost, out)
                   : m.op == "min"  ? DispatchReduce<reduce::MinR>(ctx, r, l, cost, out)
                                    : DispatchReduce<reduce::ProdR>(ctx, r, l, cost, out);
    if (!handled) return Unimplemented("dtype");
    return Status::OK();
  }

  Program program_;
};

Status FusedShapeFn(ShapeContext& c) {
  const PartialShape* shape = c.attr<PartialShape>("shape");
  c.set_output(0, shape ? *shape : PartialShape::Unknown());
  const auto* extra = c.attr<std::vector<PartialShape>>("extra_shapes");
  for (int i = 1; i < c.num_outputs(); ++i) {
    const size_t k = static_cast<size_t>(i - 1);
    c.set_output(i, extra != nullptr && k < extra->size() ? (*extra)[k] : PartialShape::Unknown());
  }
  return Status::OK();
}

TFG_REGISTER_OP(
    OpDefBuilder("fused_elementwise")
        .InputList("inputs", "Tin", "num_inputs")
        .Attr("Tin", AttrType::kTypeList, std::nullopt, "the inputs' dtypes")
        .TypeAttr("Tout", RealTypes())
        .Output("y", "Tout")
        .OutputList("extra", "Textra", "")
        .Attr("Textra", AttrType::kTypeList, std::vector<DType>{}, "the extra outputs' dtypes")
        .Attr("exports", AttrType::kIntList, std::vector<int64_t>{},
              "the members whose values are outputs 1, 2, ... as well (used outside the group)")
        .Attr("extra_shapes", AttrType::kShapeList, std::vector<PartialShape>{}, "the extra outputs' static shapes")
        .Attr("ops", AttrType::kStringList, std::nullopt, "the member ops, in dependency order")
        .Attr("names", AttrType::kStringList, std::nullopt, "the member nodes' names")
        .Attr("types", AttrType::kTypeList, std::nullopt, "each member's output dtype")
        .Attr("args", AttrType::kIntList, std::nullopt,
              "each member's operands in order: k >= 0 is input k, k < 0 the result of member -k-1")
        .Attr("spans", AttrType::kIntList, std::nullopt, "the members' script locations (interned)")
        .Attr("params", AttrType::kFloatList, std::vector<double>{},
              "each member's numeric attr (leaky_relu's alpha, gelu's approximate as 0 or 1); empty: none")
        .Attr("axis", AttrType::kIntList, AttrValue(std::monostate{}), "a trailing reduction's axes")
        .Attr("keepdims", AttrType::kBool, false, "a trailing reduction's keepdims")
        .Attr("check_numerics", AttrType::kBool, false, "fail at the first member that makes a NaN or Inf")
        .Attr("shape", AttrType::kShape, AttrValue(PartialShape::Unknown()), "the output's static shape")
        .SetShapeFn(FusedShapeFn)
        .NoGradient("made by the optimizer after gradients are built")
        .Doc("Several elementwise ops (and a reduction at the end) run as one kernel, in one pass over "
             "memory. The graph optimizer makes these (docs/graph-optimizations.md); the results are "
             "those of the member ops, bit for bit."));
TFG_REGISTER_KERNEL(KernelDef("fused_elementwise", DeviceType::kCpu).Create<FusedElementwiseKernel>());

}  // namespace
}  // namespace tfg::fused
