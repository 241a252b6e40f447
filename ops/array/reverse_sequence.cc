// reverse_sequence(input, seq_lengths, seq_axis, batch_axis=0): for every
// index b along batch_axis, the first seq_lengths[b] slices along seq_axis
// are reversed and the rest are copied unchanged, as tf.reverse_sequence.
// The usual use is reversing padded sequences for the backward half of a
// bidirectional RNN. Axes may be negative (counted from the end).
//
// Gradient: the same reversal of the output gradient (a permutation is its
// own inverse here); seq_lengths gets none.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg::array::reverse_sequence {
namespace {

constexpr const char* kOp = "reverse_sequence";

struct Axes {
  int seq = 0, batch = 0;
};

// Both axes in [0, rank) and distinct.
Result<Axes> ResolveAxes(const AttrMap& attrs, int rank) {
  TFG_ASSIGN_OR_RETURN(int64_t seq, RequiredAttr<int64_t>(attrs, kOp, "seq_axis"));
  TFG_ASSIGN_OR_RETURN(int64_t batch, RequiredAttr<int64_t>(attrs, kOp, "batch_axis"));
  if (rank < 2) return InvalidArgument("{}: input must have rank >= 2, got rank {}", kOp, rank);
  Axes a;
  TFG_ASSIGN_OR_RETURN(a.seq, NormalizeAxis(kOp, seq, rank));
  TFG_ASSIGN_OR_RETURN(a.batch, NormalizeAxis(kOp, batch, rank));
  if (a.seq == a.batch) return InvalidArgument("{}: seq_axis and batch_axis are both axis {}", kOp, a.seq);
  return a;
}

Status ReverseSequenceShapeFn(ShapeContext& c) {
  const PartialShape& in = c.input(0);
  const PartialShape& lengths = c.input(1);
  if (lengths.known_rank() && lengths.rank() != 1) {
    return InvalidArgument("{}: seq_lengths must be a vector, got shape {}", kOp, lengths.ToString());
  }
  if (in.known_rank()) {
    TFG_ASSIGN_OR_RETURN(Axes a, ResolveAxes(c.attrs(), in.rank()));
    const int64_t batch = in.dim(a.batch);
    if (lengths.known_rank() && batch >= 0 && lengths.dim(0) >= 0 && lengths.dim(0) != batch) {
      return InvalidArgument("{}: seq_lengths has {} entries but input shape {} has {} along batch_axis {}", kOp,
                             lengths.dim(0), in.ToString(), batch, a.batch);
    }
  }
  c.set_output(0, in);
  return Status::OK();
}

// The lengths as i64, each checked against the sequence axis.
template <typename I>
Result<std::vector<int64_t>> ReadLengths(const Tensor& t, int64_t max_len) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  const I* p = t.data<I>();
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t v = static_cast<int64_t>(p[i]);
    if (v < 0 || v > max_len) {
      return InvalidArgument("{}: seq_lengths[{}] = {} is outside [0, {}] (the size of seq_axis)", kOp, i, v, max_len);
    }
    out[i] = v;
  }
  return out;
}

// out[i] = in[source of i]: element i sits at batch index b and sequence
// index s; when s < len[b] its source is at sequence index len[b] - 1 - s.
template <typename T>
void Reverse(const OpKernelContext& ctx, const T* in, T* out, int64_t n, const std::vector<int64_t>& len,
             int64_t seq_dim, int64_t seq_stride, int64_t batch_dim, int64_t batch_stride) {
  ctx.ParallelFor(n, 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t s = (i / seq_stride) % seq_dim;
      const int64_t l = len[static_cast<size_t>((i / batch_stride) % batch_dim)];
      out[i] = s < l ? in[i + (l - 1 - 2 * s) * seq_stride] : in[i];
    }
  });
}

class ReverseSequenceKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    attrs_ = *c.attrs;
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& lengths = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(Axes a, ResolveAxes(attrs_, x.rank()));
    if (lengths.rank() != 1 || lengths.dim(0) != x.dim(a.batch)) {
      return InvalidArgument("{}: seq_lengths of shape {} must be a vector of {} entries (input shape {}, batch_axis {})",
                             kOp, lengths.shape().ToString(), x.dim(a.batch), x.shape().ToString(), a.batch);
    }
    const int64_t seq_dim = x.dim(a.seq);
    std::vector<int64_t> len;
    if (lengths.dtype() == DType::kI32) {
      TFG_ASSIGN_OR_RETURN(len, ReadLengths<int32_t>(lengths, seq_dim));
    } else {
      TFG_ASSIGN_OR_RETURN(len, ReadLengths<int64_t>(lengths, seq_dim));
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    const int64_t n = x.num_elements();
    if (n == 0) return Status::OK();
    const std::vector<int64_t>& dims = x.shape().dims();
    const int64_t seq_stride = DimProduct(dims, a.seq + 1, x.rank());
    const int64_t batch_stride = DimProduct(dims, a.batch + 1, x.rank());
    const int64_t batch_dim = x.dim(a.batch);
    bool handled = TFG_DISPATCH_ALL(x.dtype(), T, {
      Reverse<T>(ctx, x.data<T>(), out->data<T>(), n, len, seq_dim, seq_stride, batch_dim, batch_stride);
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(x.dtype()));
    return Status::OK();
  }

 private:
  AttrMap attrs_;
};

Status ReverseSequenceGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(int64_t seq, RequiredAttr<int64_t>(g.node->attrs(), kOp, "seq_axis"));
  TFG_ASSIGN_OR_RETURN(int64_t batch, RequiredAttr<int64_t>(g.node->attrs(), kOp, "batch_axis"));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(kOp, {dy, g.input(1)}, {{"seq_axis", seq}, {"batch_axis", batch}}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("input", "T")
                    .Input("seq_lengths", "Tlen")
                    .Attr("seq_axis", AttrType::kInt, std::nullopt, "the axis whose slices are reversed")
                    .Attr("batch_axis", AttrType::kInt, int64_t{0}, "the axis seq_lengths runs along")
                    .TypeAttr("T", AllTypes())
                    .TypeAttr("Tlen", {DType::kI32, DType::kI64})
                    .Output("output", "T")
                    .SetShapeFn(ReverseSequenceShapeFn)
                    .SetGradFn(ReverseSequenceGrad)
                    .Doc("Reverses the first `seq_lengths[b]` slices along `seq_axis` of every batch entry `b` "
                         "(along `batch_axis`) and keeps the rest, as tf.reverse_sequence: "
                         "`reverse_sequence(x, lengths, seq_axis=1)`. Each length must be in [0, size of "
                         "seq_axis]. Gradient: the same reversal of the output gradient."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<ReverseSequenceKernel>());

}  // namespace tfg::array::reverse_sequence
