#include "tests/ops/grad_check_util.h"

#include <cmath>

#include "interp/runtime/session.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/graph.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::test {
namespace {

Result<Node*> Add(Graph& g, const std::string& op, std::vector<Output> in, AttrMap attrs = {}) {
  return g.AddNode({op, std::move(in), {}, std::move(attrs), "", "", {}});
}

// The graph under test: placeholders -> op -> sum_k sum(out_k * w_k).
struct CheckGraph {
  Graph g;
  std::vector<Output> inputs;
  Output loss;
};

Status BuildLoss(CheckGraph& cg, const std::string& op, const std::vector<Tensor>& inputs, const AttrMap& attrs) {
  for (const Tensor& t : inputs) {
    TFG_ASSIGN_OR_RETURN(Node * p, Add(cg.g, "placeholder", {}, {{"dtype", t.dtype()}, {"shape", PartialShape(t.shape())}}));
    cg.inputs.push_back(p->output(0));
  }
  TFG_ASSIGN_OR_RETURN(Node * node, Add(cg.g, op, cg.inputs, attrs));
  uint32_t seed = 7;
  for (int k = 0; k < node->num_outputs(); ++k) {
    if (!IsFloat(node->output_types()[k])) continue;
    // Weights make every output element matter differently, so a gradient
    // that mixes up elements is caught.
    const PartialShape& s = node->output_shapes()[k];
    TensorShape shape;
    if (s.fully_defined()) {
      shape = s.ToTensorShape();
    } else {
      // A shape the shape function cannot know from placeholders (one an
      // integer input holds, as scatter_nd's `shape`): the run-time one.
      TFG_ASSIGN_OR_RETURN(std::vector<Tensor> outs, RunGraphOp(op, inputs, attrs));
      shape = outs[k].shape();
    }
    Tensor w = RandomF64(shape, 0.5, 1.5, seed++);
    TFG_ASSIGN_OR_RETURN(Node * wc, Add(cg.g, "constant", {}, {{"value", w}, {"dtype", DType::kF64}}));
    Output out = node->output(k);
    if (out.dtype() != DType::kF64) return InvalidArgument("gradient check runs in f64; {} output {} is {}", op, k, DTypeName(out.dtype()));
    TFG_ASSIGN_OR_RETURN(Node * prod, Add(cg.g, "mul", {out, wc->output(0)}));
    TFG_ASSIGN_OR_RETURN(Node * sum, Add(cg.g, "sum", {prod->output(0)}));
    if (cg.loss.node == nullptr) {
      cg.loss = sum->output(0);
    } else {
      TFG_ASSIGN_OR_RETURN(Node * total, Add(cg.g, "add", {cg.loss, sum->output(0)}));
      cg.loss = total->output(0);
    }
  }
  if (cg.loss.node == nullptr) return InvalidArgument("{} has no float output to differentiate", op);
  return Status::OK();
}

std::vector<std::pair<Output, Tensor>> Feeds(const CheckGraph& cg, const std::vector<Tensor>& values) {
  std::vector<std::pair<Output, Tensor>> feeds;
  for (size_t i = 0; i < values.size(); ++i) feeds.emplace_back(cg.inputs[i], values[i]);
  return feeds;
}

Result<double> LossAt(Session& s, const CheckGraph& cg, const std::vector<Tensor>& values) {
  TFG_ASSIGN_OR_RETURN(std::vector<Tensor> out, s.Run(Feeds(cg, values), {cg.loss}, {}));
  return out[0].scalar<double>();
}

}  // namespace

Tensor RandomF64(const TensorShape& shape, double lo, double hi, uint32_t seed) {
  Tensor t(HostAllocator(), DType::kF64, shape);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double u = static_cast<double>(state >> 11) / 9007199254740992.0;
    t.data<double>()[i] = lo + (hi - lo) * u;
  }
  return t;
}

Result<GradCheckResult> CheckGradient(const std::string& op, const std::vector<Tensor>& inputs, const AttrMap& attrs,
                                      const GradCheckOptions& options) {
  CheckGraph cg;
  TFG_RETURN_IF_ERROR(BuildLoss(cg, op, inputs, attrs));
  std::vector<int> wrt = options.wrt;
  if (wrt.empty()) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (IsFloat(inputs[i].dtype())) wrt.push_back(static_cast<int>(i));
    }
  }
  std::vector<Output> xs;
  for (int i : wrt) xs.push_back(cg.inputs[i]);
  TFG_ASSIGN_OR_RETURN(std::vector<Output> grads, AddGradients(cg.g, {cg.loss}, xs, {}, {}));

  Session session(&cg.g, {1, 1, 1});
  TFG_ASSIGN_OR_RETURN(std::vector<Tensor> symbolic, session.Run(Feeds(cg, inputs), grads, {}));
  GradCheckResult result;
  for (size_t k = 0; k < wrt.size(); ++k) {
    int i = wrt[k];
    std::vector<Tensor> values = inputs;
    values[i] = inputs[i].DeepCopy();
    double* x = values[i].data<double>();
    for (int64_t e = 0; e < values[i].num_elements(); ++e) {
      double saved = x[e];
      x[e] = saved + options.step;
      TFG_ASSIGN_OR_RETURN(double up, LossAt(session, cg, values));
      x[e] = saved - options.step;
      TFG_ASSIGN_OR_RETURN(double down, LossAt(session, cg, values));
      x[e] = saved;
      double numeric = (up - down) / (2 * options.step);
      double sym = symbolic[k].data<double>()[e];
      double err = std::abs(sym - numeric) / (1 + std::abs(numeric));
      if (err > result.max_error || std::isnan(err)) {
        result.max_error = std::isnan(err) ? INFINITY : err;
        result.worst = fmt::format("input {} [flat {}]: symbolic {}, numeric {}", i, e, sym, numeric);
      }
    }
  }
  if (result.max_error > options.tolerance) {
    return InvalidArgument("gradient of {} is off by {} (tolerance {}) at {}", op, result.max_error,
                           options.tolerance, result.worst);
  }
  return result;
}

}  // namespace tfg::test
