// matmul(a, b, transpose_a=false, transpose_b=false): the product of the
// last two dimensions; leading (batch) dimensions broadcast NumPy-style.
#include <string>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_cost.h"
#include "ops/core/op_registry.h"
#include "ops/math/broadcast.h"
#include "ops/math/gemm.h"
#include "ops/math/matmul.h"

namespace tfg {
namespace {

struct MatMulDims {
  std::vector<int64_t> a_batch, b_batch;
  int64_t m, ka, kb, n;
};

// Splits shapes of rank >= 2 into batch dims and the matrix dims as seen
// after the transposes.
template <typename Shape>
MatMulDims SplitDims(const Shape& a, const Shape& b, bool ta, bool tb) {
  const int ra = a.rank(), rb = b.rank();
  MatMulDims d;
  d.a_batch.assign(a.dims().begin(), a.dims().end() - 2);
  d.b_batch.assign(b.dims().begin(), b.dims().end() - 2);
  d.m = ta ? a.dim(ra - 1) : a.dim(ra - 2);
  d.ka = ta ? a.dim(ra - 2) : a.dim(ra - 1);
  d.kb = tb ? b.dim(rb - 1) : b.dim(rb - 2);
  d.n = tb ? b.dim(rb - 2) : b.dim(rb - 1);
  return d;
}

std::string TransposeNote(bool ta, bool tb) {
  if (!ta && !tb) return "";
  if (ta && tb) return " (transpose_a=true, transpose_b=true)";
  return ta ? " (transpose_a=true)" : " (transpose_b=true)";
}

Status RankError(const std::string& op, const std::string& a, const std::string& b) {
  return InvalidArgument("{}: inputs must have rank >= 2: a is {}, b is {}", op, a, b);
}

Status InnerDimsError(const std::string& op, const std::string& a, const std::string& b, bool ta, bool tb) {
  return InvalidArgument("{}: inner dimensions differ: a is {}, b is {}{}", op, a, b, TransposeNote(ta, tb));
}

Status BatchError(const std::string& op, const std::string& a, const std::string& b) {
  return InvalidArgument("{}: batch dimensions do not broadcast: a is {}, b is {}", op, a, b);
}

}  // namespace

MatMulAttrs ReadMatMulAttrs(const AttrMap& attrs) {
  const bool* ta = FindAttr<bool>(attrs, "transpose_a");
  const bool* tb = FindAttr<bool>(attrs, "transpose_b");
  return {ta && *ta, tb && *tb};
}

Result<MatMulGeometry> ComputeMatMulGeometry(const std::string& op, const TensorShape& a, const TensorShape& b,
                                             const MatMulAttrs& attrs) {
  const bool ta = attrs.transpose_a, tb = attrs.transpose_b;
  if (a.rank() < 2 || b.rank() < 2) return RankError(op, a.ToString(), b.ToString());
  const MatMulDims d = SplitDims(a, b, ta, tb);
  if (d.ka != d.kb) return InnerDimsError(op, a.ToString(), b.ToString(), ta, tb);
  MatMulGeometry g;
  g.a_batch = TensorShape(d.a_batch);
  g.b_batch = TensorShape(d.b_batch);
  auto batch = BroadcastShapes(g.a_batch, g.b_batch);
  if (!batch.ok()) return BatchError(op, a.ToString(), b.ToString());
  g.out_batch = *batch;
  g.m = d.m;
  g.k = d.ka;
  g.n = d.n;
  std::vector<int64_t> out = batch->dims();
  out.push_back(d.m);
  out.push_back(d.n);
  g.out = TensorShape(std::move(out));
  return g;
}

namespace {

Status MatMulShape(ShapeContext& c) {
  const PartialShape& a = c.input(0);
  const PartialShape& b = c.input(1);
  const std::string& op = c.op().name;
  if ((a.known_rank() && a.rank() < 2) || (b.known_rank() && b.rank() < 2)) {
    return RankError(op, a.ToString(), b.ToString());
  }
  if (!a.known_rank() || !b.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const MatMulAttrs t = ReadMatMulAttrs(c.attrs());
  const bool ta = t.transpose_a, tb = t.transpose_b;
  MatMulDims d = SplitDims(a, b, ta, tb);
  if (d.ka >= 0 && d.kb >= 0 && d.ka != d.kb) return InnerDimsError(op, a.ToString(), b.ToString(), ta, tb);
  auto batch = BroadcastShapes(PartialShape(d.a_batch), PartialShape(d.b_batch));
  if (!batch.ok()) return BatchError(op, a.ToString(), b.ToString());
  std::vector<int64_t> out = batch->dims();
  out.push_back(d.m);
  out.push_back(d.n);
  c.set_output(0, PartialShape(std::move(out)));
  return Status::OK();
}

// One batch of products; `a_batch`/`b_batch` broadcast to `out_batch`.
template <typename T>
void RunBatches(OpKernelContext& ctx, const GemmShape& g, const TensorShape& a_batch, const TensorShape& b_batch,
                const TensorShape& out_batch, const T* a, const T* b, T* c) {
  const int64_t batch = out_batch.num_elements();
  if (batch == 0 || g.m == 0 || g.n == 0) return;
  const int64_t a_mat = g.m * g.k, b_mat = g.k * g.n, c_mat = g.m * g.n;
  if (batch == 1) {
    Gemm(g, a, b, c, &ctx);
  } else if (b_batch.num_elements() == 1 && !g.transpose_a) {
    // b is shared by every batch: one tall product [batch * m, k] @ op(b).
    GemmShape tall = g;
    tall.m = g.m * batch;
    Gemm(tall, a, b, c, &ctx);
  } else {
    const BroadcastPlan plan(out_batch, {&a_batch, &b_batch});
    const int64_t sa = plan.inner_stride(0), sb = plan.inner_stride(1);
    auto range = [&](int64_t s, int64_t e) {
      plan.ForEachRun(s, e, [&](int64_t o, const auto& off, int64_t len) {
        for (int64_t j = 0; j < len; ++j) {
          Gemm(g, a + (off[0] + j * sa) * a_mat, b + (off[1] + j * sb) * b_mat, c + (o + j) * c_mat, &ctx);
        }
      });
    };
    // Small products run in parallel here; a big one is split by Gemm.
    if (IsSmallGemm(g)) {
      ctx.ParallelFor(batch, 2 * a_mat * g.n + 1, range);
    } else {
      range(0, batch);
    }
  }
}

class MatMulKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    attrs_ = ReadMatMulAttrs(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const std::string& op = ctx.info().op ? ctx.info().op->name : ctx.info().node_name;
    TFG_ASSIGN_OR_RETURN(MatMulGeometry d, ComputeMatMulGeometry(op, a.shape(), b.shape(), attrs_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, d.out));
    const GemmShape g{attrs_.transpose_a, attrs_.transpose_b, d.m, d.n, d.k};
    if (a.dtype() == DType::kF16) return ComputeHalf(ctx, g, d.a_batch, d.b_batch, d.out_batch, out);
    bool handled = TFG_DISPATCH_NUMBER(a.dtype(), T, {
      if constexpr (!std::is_same_v<T, half>) {
        RunBatches<T>(ctx, g, d.a_batch, d.b_batch, d.out_batch, a.data<T>(), b.data<T>(), out->data<T>());
      }
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(a.dtype()));
    return Status::OK();
  }

 private:
  // f16 products are computed in f32 and rounded once at the end.
  static Status ComputeHalf(OpKernelContext& ctx, const GemmShape& g, const TensorShape& a_batch,
                            const TensorShape& b_batch, const TensorShape& out_batch, Tensor* out) {
    auto widen = [](const Tensor& t) {
      std::vector<float> v(static_cast<size_t>(t.num_elements()));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(t.data<half>()[i]);
      return v;
    };
    const std::vector<float> a = widen(ctx.input(0)), b = widen(ctx.input(1));
    std::vector<float> c(static_cast<size_t>(out->num_elements()));
    RunBatches<float>(ctx, g, a_batch, b_batch, out_batch, a.data(), b.data(), c.data());
    for (size_t i = 0; i < c.size(); ++i) out->data<half>()[i] = static_cast<half>(c[i]);
    return Status::OK();
  }

  MatMulAttrs attrs_;
};

Result<Output> Product(GradContext& g, Output a, Output b, bool ta, bool tb) {
  return g.Op("matmul", {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}});
}

// For c = op(a) @ op(b): dop(a) = g @ op(b)ᵀ and dop(b) = op(a)ᵀ @ g, each
// arranged so no transpose is materialized. Broadcast batch dims are summed
// back to each input's shape.
Status MatMulGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dc, g.OutputGrad(0));
  const MatMulAttrs t = ReadMatMulAttrs(g.node->attrs());
  const bool ta = t.transpose_a, tb = t.transpose_b;
  const Output a = g.input(0), b = g.input(1);
  Result<Output> da = !ta ? Product(g, dc, b, false, !tb) : Product(g, b, dc, tb, true);
  if (!da.ok()) return da.status();
  Result<Output> db = !tb ? Product(g, a, dc, !ta, false) : Product(g, dc, a, true, ta);
  if (!db.ok()) return db.status();
  if (a.shape().rank() == 2 && b.shape().rank() == 2) {  // no batch dims to undo
    g.input_grads[0] = *da;
    g.input_grads[1] = *db;
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Unbroadcast(*da, a));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Unbroadcast(*db, b));
  return Status::OK();
}

// 2·m·n·k: k is the inner dimension of a, m·n (and the batch) the product's.
double MatMulCost(const Node& node) {
  const PartialShape& a = node.inputs()[0].shape();
  const int rank = a.known_rank() ? a.rank() : 2;
  const double k = KnownDim(a, ReadMatMulAttrs(node.attrs()).transpose_a ? rank - 2 : rank - 1);
  return 2 * k * KnownElements(node.output_shapes()[0]);
}

TFG_REGISTER_OP(OpDefBuilder("matmul")
                    .Input("a", "T")
                    .Input("b", "T")
                    .Output("product", "T")
                    .TypeAttr("T", NumberTypes())
                    .Attr("transpose_a", AttrType::kBool, false)
                    .Attr("transpose_b", AttrType::kBool, false)
                    .SetShapeFn(MatMulShape)
                    .SetCostFn(MatMulCost)
                    .SetGradFn(MatMulGrad)
                    .Doc("Matrix product of the last two dimensions of a and b (each optionally transposed); "
                         "leading dimensions are batch dimensions and broadcast NumPy-style."));
TFG_REGISTER_KERNEL(KernelDef("matmul", DeviceType::kCpu).Create<MatMulKernel>());

}  // namespace
}  // namespace tfg
