// lstm_block_cell(gates, c_prev, forget_bias): the elementwise half of an
// LSTM step in one kernel, as TensorFlow's LSTMBlockCell fuses it. `gates`
// [batch, 4 * units] is [x, h] @ kernel + bias with the gates in
// TensorFlow's order i, j, f, o; with s = sigmoid,
//   c = s(f + forget_bias) * c_prev + s(i) * tanh(j)
//   h = s(o) * tanh(c)
// Outputs [c, h]. The matmul stays a separate (BLAS) op, so one step is
// concat, matmul, bias_add and this kernel instead of a dozen small ops.
//
// lstm_block_cell_grad(gates, c_prev, dc, dh, forget_bias) -> [dgates,
// dc_prev] recomputes the activations from its inputs (cheaper than saving
// five more tensors per step on a while loop's stacks). Unfused, the same
// step's gradient is a dozen kernels.
#include <Eigen/Core>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"

namespace tfg {
namespace {

constexpr const char* kOp = "lstm_block_cell";
constexpr const char* kGradOp = "lstm_block_cell_grad";

// Cycles of work per row and unit, for ParallelFor (5 vectorized tanh).
constexpr int64_t kCostPerUnit = 40;

// Checks gates [batch, 4 * units] against c_prev (and the grad op's dc, dh)
// [batch, units]; sets every output but dgates to c_prev's shape.
Status LstmShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  const PartialShape& gates = c.input(0);
  PartialShape state = c.input(1);
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.input(i).known_rank() && c.input(i).rank() != 2) {
      return InvalidArgument("{}: input {} must be a matrix [batch, units], got shape {}", op, c.op().inputs[i].name,
                             c.input(i).ToString());
    }
  }
  for (int i = 2; i < c.num_inputs(); ++i) {
    auto merged = state.Merge(c.input(i));
    if (!merged.ok()) {
      return InvalidArgument("{}: {} has shape {} but c_prev has shape {}", op, c.op().inputs[i].name,
                             c.input(i).ToString(), c.input(1).ToString());
    }
    state = *merged;
  }
  if (gates.known_rank() && state.known_rank()) {
    const int64_t g0 = gates.dim(0), g1 = gates.dim(1), s0 = state.dim(0), s1 = state.dim(1);
    if ((g0 >= 0 && s0 >= 0 && g0 != s0) || (g1 >= 0 && g1 % 4 != 0) || (g1 >= 0 && s1 >= 0 && g1 / 4 != s1)) {
      return InvalidArgument("{}: gates must be [batch, 4 * units] for c_prev [batch, units]; got gates {} and c_prev {}",
                             op, gates.ToString(), state.ToString());
    }
  }
  if (op == kGradOp) {
    c.set_output(0, gates);
    c.set_output(1, state);
  } else {
    c.set_output(0, state);
    c.set_output(1, state);
  }
  return Status::OK();
}

// The kernel's own check of the same rule (shapes may be unknown when the
// graph is built, and eager calls skip the shape function's graph).
Status CheckShapes(const OpKernelContext& ctx) {
  const TensorShape& g = ctx.input(0).shape();
  const TensorShape& s = ctx.input(1).shape();
  if (g.rank() != 2 || s.rank() != 2 || g.dim(0) != s.dim(0) || g.dim(1) % 4 != 0 ||
      g.dim(1) / 4 != s.dim(1)) {  // not 4 * units: units may be near 2**63
    return InvalidArgument("{}: gates must be [batch, 4 * units] for c_prev [batch, units]; got gates {} and c_prev {}",
                           nn::OpName(ctx), g.ToString(), s.ToString());
  }
  for (int i = 2; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).shape() != s) {
      return InvalidArgument("{}: {} has shape {} but c_prev has shape {}", nn::OpName(ctx),
                             ctx.info().op->inputs[i].name, ctx.input(i).shape().ToString(), s.ToString());
    }
  }
  return Status::OK();
}

// Rows [b0, b1) of a [batch, width] row-major matrix, or of one gate's
// block of columns in gates [batch, 4 * units] (Eigen vectorizes the
// elementwise math along each row; tanh and the sigmoid, written with tanh,
// use Eigen's packet functions).
template <typename T>
using Rows = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstBlock = Eigen::Map<const Rows<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using Block = Eigen::Map<Rows<T>, 0, Eigen::OuterStride<>>;

template <typename T>
ConstBlock<T> In(const T* base, int64_t b0, int64_t b1, int64_t units, int64_t width, int64_t col = 0) {
  return ConstBlock<T>(base + b0 * width + col, b1 - b0, units, Eigen::OuterStride<>(width));
}
template <typename T>
Block<T> Out(T* base, int64_t b0, int64_t b1, int64_t units, int64_t width, int64_t col = 0) {
  return Block<T>(base + b0 * width + col, b1 - b0, units, Eigen::OuterStride<>(width));
}

template <typename T, typename E>
Rows<T> Sigmoid(const E& x) {
  return T(0.5) * (T(0.5) * x).tanh() + T(0.5);
}

// The activations of rows [b0, b1).
template <typename T>
struct Gates {
  Rows<T> i, j, f, o;
  Gates(const T* gates, int64_t b0, int64_t b1, int64_t units, T forget_bias)
      : i(Sigmoid<T>(In(gates, b0, b1, units, 4 * units, 0))),
        j(In(gates, b0, b1, units, 4 * units, units).tanh()),
        f(Sigmoid<T>(In(gates, b0, b1, units, 4 * units, 2 * units) + forget_bias)),
        o(Sigmoid<T>(In(gates, b0, b1, units, 4 * units, 3 * units))) {}
};

template <typename T>
void Forward(const OpKernelContext& ctx, int64_t batch, int64_t units, T forget_bias, Tensor* c_out, Tensor* h_out) {
  const T* gates = ctx.input(0).data<T>();
  const T* c_prev = ctx.input(1).data<T>();
  T* c = c_out->data<T>();
  T* h = h_out->data<T>();
  ctx.ParallelFor(batch, kCostPerUnit * units, [&](int64_t b0, int64_t b1) {
    const Gates<T> a(gates, b0, b1, units, forget_bias);
    Block<T> c_rows = Out(c, b0, b1, units, units);
    c_rows = a.f * In(c_prev, b0, b1, units, units) + a.i * a.j;
    Out(h, b0, b1, units, units) = a.o * c_rows.tanh();
  });
}

template <typename T>
void Backward(const OpKernelContext& ctx, int64_t batch, int64_t units, T forget_bias, Tensor* dgates_out,
              Tensor* dc_prev_out) {
  const T* gates = ctx.input(0).data<T>();
  const T* c_prev = ctx.input(1).data<T>();
  const T* dc = ctx.input(2).data<T>();
  const T* dh = ctx.input(3).data<T>();
  T* dgates = dgates_out->data<T>();
  T* dc_prev = dc_prev_out->data<T>();
  const int64_t w = 4 * units;
  ctx.ParallelFor(batch, kCostPerUnit * units, [&](int64_t b0, int64_t b1) {
    const Gates<T> a(gates, b0, b1, units, forget_bias);
    const ConstBlock<T> cp = In(c_prev, b0, b1, units, units);
    const ConstBlock<T> dh_rows = In(dh, b0, b1, units, units);
    const Rows<T> tc = (a.f * cp + a.i * a.j).tanh();
    const Rows<T> dc_total = In(dc, b0, b1, units, units) + dh_rows * a.o * (T(1) - tc * tc);
    Out(dgates, b0, b1, units, w, 0) = dc_total * a.j * a.i * (T(1) - a.i);
    Out(dgates, b0, b1, units, w, units) = dc_total * a.i * (T(1) - a.j * a.j);
    Out(dgates, b0, b1, units, w, 2 * units) = dc_total * cp * a.f * (T(1) - a.f);
    Out(dgates, b0, b1, units, w, 3 * units) = dh_rows * tc * a.o * (T(1) - a.o);
    Out(dc_prev, b0, b1, units, units) = dc_total * a.f;
  });
}

// kGrad: lstm_block_cell_grad, else lstm_block_cell.
template <bool kGrad>
class LstmBlockKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const double* fb = c.attr<double>("forget_bias")) forget_bias_ = *fb;
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    TFG_RETURN_IF_ERROR(CheckShapes(ctx));
    const TensorShape& state = ctx.input(1).shape();
    const int64_t batch = state.dim(0), units = state.dim(1);
    TFG_ASSIGN_OR_RETURN(Tensor * out0, ctx.allocate_output(0, kGrad ? ctx.input(0).shape() : state));
    TFG_ASSIGN_OR_RETURN(Tensor * out1, ctx.allocate_output(1, state));
    // An empty batch allows units up to 2**61: no work estimate from them.
    if (out1->num_elements() == 0) return Status::OK();
    switch (ctx.input(0).dtype()) {
      case DType::kF32: Run<float>(ctx, batch, units, out0, out1); break;
      case DType::kF64: Run<double>(ctx, batch, units, out0, out1); break;
      default:
        return Unimplemented("{}: no CPU kernel for dtype {}", nn::OpName(ctx), DTypeName(ctx.input(0).dtype()));
    }
    return Status::OK();
  }

 private:
  template <typename T>
  void Run(const OpKernelContext& ctx, int64_t batch, int64_t units, Tensor* out0, Tensor* out1) const {
    const T fb = static_cast<T>(forget_bias_);
    if constexpr (kGrad) {
      Backward<T>(ctx, batch, units, fb, out0, out1);
    } else {
      Forward<T>(ctx, batch, units, fb, out0, out1);
    }
  }
  double forget_bias_ = 1.0;
};

Status LstmBlockGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dc, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output dh, g.OutputGrad(1));
  TFG_ASSIGN_OR_RETURN(Node * n, g.OpNode(kGradOp, {g.input(0), g.input(1), dc, dh}, g.node->attrs()));
  g.input_grads[0] = n->output(0);
  g.input_grads[1] = n->output(1);
  return Status::OK();
}

const DTypeSet& LstmTypes() {
  static const DTypeSet types{DType::kF32, DType::kF64};
  return types;
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("gates", "T")
                    .Input("c_prev", "T")
                    .Output("c", "T")
                    .Output("h", "T")
                    .Attr("forget_bias", AttrType::kFloat, 1.0, "added to the forget gate before its sigmoid")
                    .TypeAttr("T", LstmTypes())
                    .SetShapeFn(LstmShapeFn)
                    .SetGradFn(LstmBlockGrad)
                    .Doc("The elementwise half of an LSTM step in one kernel (TensorFlow's LSTMBlockCell): gates "
                         "[batch, 4 * units] hold i, j, f, o; c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * "
                         "tanh(j), h = sigmoid(o) * tanh(c). Returns [c, h]."));
TFG_REGISTER_OP(OpDefBuilder(kGradOp)
                    .Input("gates", "T")
                    .Input("c_prev", "T")
                    .Input("dc", "T")
                    .Input("dh", "T")
                    .Output("dgates", "T")
                    .Output("dc_prev", "T")
                    .Attr("forget_bias", AttrType::kFloat, 1.0, "the forward op's forget_bias")
                    .TypeAttr("T", LstmTypes())
                    .SetShapeFn(LstmShapeFn)
                    .SetGradFn(nn::NoSecondDerivative(kGradOp))
                    .Doc("The gradient of lstm_block_cell: [dgates, dc_prev] from the gradients dc and dh of its "
                         "outputs, recomputing the gate activations from gates and c_prev."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<LstmBlockKernel<false>>());
TFG_REGISTER_KERNEL(KernelDef(kGradOp, DeviceType::kCpu).Create<LstmBlockKernel<true>>());

}  // namespace tfg
