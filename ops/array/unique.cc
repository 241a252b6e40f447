// unique(x, out_idx=i32) -> (y, idx): tf.unique. y holds the distinct
// elements of the vector x in the order of their first occurrence, and
// idx[i] is the position of x[i] in y, so x == gather(y, idx). Elements
// compare with ==: 0.0 and -0.0 are one element (the first one seen is
// kept), every NaN is its own. CPU kernel only (no GPU kernel yet).
// Gradient (TensorFlow registers none): dx = gather(dy, idx), every copy
// of an element getting its element's dy — the derivative where the
// elements are distinct, and for repeated elements the convention that
// they move together.
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg::array::unique {
namespace {

constexpr const char* kOp = "unique";

Status UniqueShapeFn(ShapeContext& c) {
  const PartialShape& x = c.input(0);
  if (x.known_rank() && x.rank() != 1) {
    return InvalidArgument("{}: x must be a vector, got shape {}", kOp, x.ToString());
  }
  c.set_output(0, PartialShape({PartialShape::kUnknown}));
  c.set_output(1, x.known_rank() ? x : PartialShape::UnknownOfRank(1));
  return Status::OK();
}

// The hash key of an element: f16 hashes as f32 (same == relation).
template <typename T> struct KeyOf { using type = T; };
template <> struct KeyOf<half> { using type = float; };

// Fills idx and returns, for each distinct element, where it first occurs.
template <typename T, typename I>
std::vector<int64_t> FirstOccurrences(const T* x, int64_t n, I* idx) {
  using K = typename KeyOf<T>::type;
  std::unordered_map<K, I> position;
  std::vector<int64_t> first;
  for (int64_t i = 0; i < n; ++i) {
    const K key = static_cast<K>(x[i]);
    auto [it, inserted] = position.try_emplace(key, static_cast<I>(first.size()));
    if (inserted) first.push_back(i);
    idx[i] = it->second;
  }
  return first;
}

class UniqueKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 1) return InvalidArgument("{}: x must be a vector, got shape {}", kOp, x.shape().ToString());
    TFG_ASSIGN_OR_RETURN(Tensor * idx, ctx.allocate_output(1, x.shape()));
    const int64_t n = x.num_elements();
    Status status;
    bool ok = TFG_DISPATCH_ALL(x.dtype(), T, {
      const T* px = x.data<T>();
      const std::vector<int64_t> first = idx->dtype() == DType::kI32
                                             ? FirstOccurrences(px, n, idx->data<int32_t>())
                                             : FirstOccurrences(px, n, idx->data<int64_t>());
      auto y = ctx.allocate_output(0, TensorShape({static_cast<int64_t>(first.size())}));
      if (!y.ok()) {
        status = y.status();
      } else {
        T* py = (*y)->template data<T>();
        for (size_t k = 0; k < first.size(); ++k) py[k] = px[first[k]];
      }
    });
    if (!ok) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(x.dtype()));
    return status;
  }
};

Status UniqueGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("gather", {dy, g.output(1)}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("x", "T")
                    .Output("y", "T")
                    .Output("idx", "out_idx")
                    .TypeAttr("T", AllTypes())
                    .TypeAttr("out_idx", {DType::kI32, DType::kI64}, DType::kI32)
                    .SetShapeFn(UniqueShapeFn)
                    .SetGradFn(UniqueGrad)
                    .Doc("tf.unique: y = the distinct elements of the vector x in the order they first occur, "
                         "idx = the position in y of each element of x (so x == gather(y, idx)). Elements compare "
                         "with == (0.0 and -0.0 are one; every NaN is its own). Gradient (TensorFlow has none): "
                         "gather(dy, idx), every copy of an element getting its dy."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<UniqueKernel>());

}  // namespace tfg::array::unique
