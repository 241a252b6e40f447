// einsum(equation, inputs): tf.einsum over one or more operands, with
// NumPy's "..." broadcasting and implicit output (ops/math/einsum_spec.h).
// The CPU kernel is one loop nest: each output element sums, over the
// labels left out of the output, the product of the operands' elements
// (integers wrap around, f16 accumulates in f32). It is a general
// contraction rather than TensorFlow's transpose + batched matmul, so a
// large product ("ij,jk->ik" with big matrices) is slower than matmul.
//
// Gradient: d operand k = einsum(dy and the other operands -> term k). A
// term with a letter found nowhere else, a repeated letter, or a "..." only
// it has adds ones_like(operand k) as one more operand, so that every label
// of the result has a size (and a repeated letter writes the diagonal).
// "..." dims broadcast in the forward pass are summed back with unbroadcast.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/einsum_spec.h"

namespace tfg::math::einsum {
namespace {

Result<EquationText> EquationAttr(const AttrMap& attrs) {
  const std::string* equation = FindAttr<std::string>(attrs, "equation");
  if (equation == nullptr) return InvalidArgument("einsum: the equation attr is missing");
  return ParseEquation(*equation);
}

Status EinsumShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(EquationText eq, EquationAttr(c.attrs()));
  std::vector<int> ranks;
  std::vector<PartialShape> shapes;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.input(i).known_rank()) {
      const bool fixed_rank = eq.output.find("...") == std::string::npos;
      c.set_output(0, fixed_rank ? PartialShape::UnknownOfRank(static_cast<int>(eq.output.size())) : PartialShape());
      return Status::OK();
    }
    ranks.push_back(c.input(i).rank());
    shapes.push_back(c.input(i));
  }
  TFG_ASSIGN_OR_RETURN(BoundEquation b, Bind(eq, ranks));
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, LabelSizes(*c.attr<std::string>("equation"), b, shapes));
  c.set_output(0, PartialShape(OutputDims(b, sizes)));
  return Status::OK();
}

template <typename T> struct EinsumAccOf { using type = T; };
template <> struct EinsumAccOf<half> { using type = float; };

// Element strides of every label in one operand (a repeated label adds its
// dims' strides: the diagonal; a size-1 dim broadcast against n: 0).
std::vector<int64_t> LabelStrides(const std::vector<int>& labels, const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 0);
  int64_t stride = 1;
  for (int d = static_cast<int>(labels.size()) - 1; d >= 0; --d) {
    const size_t label = static_cast<size_t>(labels[d]);
    if (dims[d] == sizes[label]) strides[label] += stride;
    stride *= dims[d];
  }
  return strides;
}

// The loop nest, split into the labels of the output (`free`, one output
// element each) and the labels summed over (`summed`).
struct Contraction {
  std::vector<int> free, summed;
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides;  // per operand, per label
  std::vector<int64_t> out_strides;           // per label
  int64_t free_count = 1, summed_count = 1;
};

Contraction PlanContraction(const BoundEquation& b, std::vector<int64_t> sizes, const std::vector<const Tensor*>& xs,
                            const std::vector<int64_t>& out_dims) {
  Contraction c;
  std::vector<bool> used(sizes.size(), false), in_output(sizes.size(), false);
  for (int label : b.output) {
    if (!in_output[static_cast<size_t>(label)]) c.free.push_back(label);
    in_output[static_cast<size_t>(label)] = true;
  }
  for (const std::vector<int>& term : b.inputs) {
    for (int label : term) {
      if (!in_output[static_cast<size_t>(label)] && !used[static_cast<size_t>(label)]) c.summed.push_back(label);
      used[static_cast<size_t>(label)] = true;
    }
  }
  for (int label : c.free) c.free_count *= sizes[static_cast<size_t>(label)];
  for (int label : c.summed) c.summed_count *= sizes[static_cast<size_t>(label)];
  for (size_t k = 0; k < xs.size(); ++k) c.strides.push_back(LabelStrides(b.inputs[k], xs[k]->shape().dims(), sizes));
  c.out_strides = LabelStrides(b.output, out_dims, sizes);
  c.sizes = std::move(sizes);
  return c;
}

template <typename T>
void Contract(const OpKernelContext& ctx, const Contraction& c, const std::vector<const T*>& xs, T* out) {
  using A = typename EinsumAccOf<T>::type;
  const size_t n = xs.size();
  const int64_t cost = std::max<int64_t>(c.summed_count, 1) * static_cast<int64_t>(n + 1);
  ctx.ParallelFor(c.free_count, cost, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> offsets(n), base(n), counter(c.summed.size());
    for (int64_t u = begin; u < end; ++u) {
      int64_t rest = u, out_offset = 0;
      std::fill(base.begin(), base.end(), 0);
      for (int i = static_cast<int>(c.free.size()) - 1; i >= 0; --i) {
        const size_t label = static_cast<size_t>(c.free[i]);
        const int64_t v = rest % c.sizes[label];
        rest /= c.sizes[label];
        out_offset += v * c.out_strides[label];
        for (size_t k = 0; k < n; ++k) base[k] += v * c.strides[k][label];
      }
      offsets = base;
      std::fill(counter.begin(), counter.end(), 0);
      A acc = A(0);
      for (int64_t r = 0; r < c.summed_count; ++r) {
        A product = static_cast<A>(xs[0][offsets[0]]);
        for (size_t k = 1; k < n; ++k) product = functor::WrapMul(product, static_cast<A>(xs[k][offsets[k]]));
        acc = functor::WrapAdd(acc, product);
        for (int i = static_cast<int>(c.summed.size()) - 1; i >= 0; --i) {  // next summed index, last fastest
          const size_t label = static_cast<size_t>(c.summed[i]);
          for (size_t k = 0; k < n; ++k) offsets[k] += c.strides[k][label];
          if (++counter[i] < c.sizes[label]) break;
          for (size_t k = 0; k < n; ++k) offsets[k] -= c.sizes[label] * c.strides[k][label];
          counter[i] = 0;
        }
      }
      out[out_offset] = static_cast<T>(acc);
    }
  });
}

class EinsumKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(eq_, EquationAttr(*c.attrs));
    equation_ = *FindAttr<std::string>(*c.attrs, "equation");
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    std::vector<int> ranks;
    std::vector<PartialShape> shapes;
    std::vector<const Tensor*> xs;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      xs.push_back(&ctx.input(i));
      ranks.push_back(ctx.input(i).rank());
      shapes.emplace_back(ctx.input(i).shape());
    }
    TFG_ASSIGN_OR_RETURN(BoundEquation b, Bind(eq_, ranks));
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, LabelSizes(equation_, b, shapes));
    const std::vector<int64_t> out_dims = OutputDims(b, sizes);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(out_dims)));
    const Contraction plan = PlanContraction(b, std::move(sizes), xs, out_dims);
    bool handled = TFG_DISPATCH_NUMBER(out->dtype(), T, {
      std::fill_n(out->data<T>(), out->num_elements(), T(0));  // a repeated output label leaves the rest 0
      std::vector<const T*> data;
      for (const Tensor* x : xs) data.push_back(x->data<T>());
      Contract<T>(ctx, plan, data, out->data<T>());
    });
    if (!handled) return Unimplemented("einsum: no CPU kernel for dtype {}", DTypeName(out->dtype()));
    return Status::OK();
  }

 private:
  EquationText eq_;
  std::string equation_;
};

std::string Letters(const std::string& term) {
  std::string s;
  for (char ch : term) {
    if (ch != '.') s += ch;
  }
  return s;
}

bool TermHasEllipsis(const std::string& term) { return term.find("...") != std::string::npos; }

// Whether term k's gradient needs operand k's shape as an extra operand.
bool NeedsShapeOperand(const EquationText& eq, size_t k) {
  const std::string& term = eq.inputs[k];
  std::string elsewhere = eq.output;
  for (size_t j = 0; j < eq.inputs.size(); ++j) {
    if (j != k) elsewhere += eq.inputs[j];
  }
  const std::string letters = Letters(term);
  for (size_t i = 0; i < letters.size(); ++i) {
    if (letters.find(letters[i], i + 1) != std::string::npos) return true;
    if (elsewhere.find(letters[i]) == std::string::npos) return true;
  }
  return TermHasEllipsis(term) && !TermHasEllipsis(elsewhere);
}

Result<Output> Einsum(GradContext& g, const std::vector<std::string>& terms, const std::string& out,
                      std::vector<Output> operands) {
  return g.Op("einsum", std::move(operands), {{"equation", JoinEquation(terms, out)}});
}

Status EinsumGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(EquationText eq, EquationAttr(g.node->attrs()));
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  for (size_t k = 0; k < eq.inputs.size(); ++k) {
    const std::string& term = eq.inputs[k];
    const Output x = g.input(static_cast<int>(k));
    std::vector<std::string> terms = {eq.output};
    std::vector<Output> operands = {dy};
    for (size_t j = 0; j < eq.inputs.size(); ++j) {
      if (j == k) continue;
      terms.push_back(eq.inputs[j]);
      operands.push_back(g.input(static_cast<int>(j)));
    }
    if (NeedsShapeOperand(eq, k)) {
      terms.push_back(term);
      TFG_ASSIGN_OR_RETURN(Output ones, g.Op("ones_like", {x}));
      operands.push_back(ones);
    }
    Output& dx = g.input_grads[k];
    if (!TermHasEllipsis(term)) {
      TFG_ASSIGN_OR_RETURN(dx, Einsum(g, terms, term, std::move(operands)));
    } else if (term.rfind("...", 0) == 0) {
      TFG_ASSIGN_OR_RETURN(Output full, Einsum(g, terms, term, std::move(operands)));
      TFG_ASSIGN_OR_RETURN(dx, g.Unbroadcast(full, x));
    } else {  // "..." moved to the front, where unbroadcast aligns the dims
      const std::string front = "..." + Letters(term);
      TFG_ASSIGN_OR_RETURN(Output full, Einsum(g, terms, front, std::move(operands)));
      TFG_ASSIGN_OR_RETURN(Output like, Einsum(g, {term}, front, {x}));
      TFG_ASSIGN_OR_RETURN(Output summed, g.Unbroadcast(full, like));
      TFG_ASSIGN_OR_RETURN(dx, Einsum(g, {front}, term, {summed}));
    }
  }
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("einsum")
                    .Attr("equation", AttrType::kString, std::nullopt,
                          "one term of letters per operand, '...' for broadcast dims, then '->' and the output "
                          "term (implicit without '->': '...' and the letters used once, sorted)")
                    .InputList("inputs", "T")
                    .Output("output", "T")
                    .TypeAttr("T", NumberTypes())
                    .SetShapeFn(EinsumShapeFn)
                    .SetGradFn(EinsumGrad)
                    .Doc("Einstein summation, as tf.einsum: `einsum(\"ij,jk->ik\", [a, b])` is a @ b, "
                         "`einsum(\"ii->\", [a])` the trace, `einsum(\"...ij,...jk->...ik\", [a, b])` a batched "
                         "product whose '...' dims broadcast. Labels left out of the output are summed; a label "
                         "repeated in one input takes its diagonal (and repeated in the output writes one, the "
                         "rest 0, which TensorFlow refuses). Integers wrap around; f16 accumulates in f32. One "
                         "loop nest, not a matmul: prefer `matmul` for large products."));
TFG_REGISTER_KERNEL(KernelDef("einsum", DeviceType::kCpu).Create<EinsumKernel>());

}  // namespace tfg::math::einsum
