#include "ops/math/fused/fused_program.h"

#include <algorithm>
#include <cmath>

#include "ops/core/dtype_traits.h"
#include "ops/core/graph.h"
#include "ops/core/op_registry.h"
#include "ops/math/fused/member_spans.h"

namespace tfg::fused {

bool IsFusableReduction(const std::string& op) {
  return op == "sum" || op == "mean" || op == "max" || op == "min" || op == "prod";
}

namespace {

int DispatchInput(const std::string& op) { return op == "where" ? 1 : 0; }

template <typename T>
void CountNonFinite(const T* p, int64_t n, int64_t& nan, int64_t& inf) {
  for (int64_t i = 0; i < n; ++i) {
    // half has no isnan of its own: it is tested as the float it widens to.
    using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const Wide v = static_cast<Wide>(p[i]);
    nan += std::isnan(v);
    inf += std::isinf(v);
  }
}

Status AtMember(Status s, const Member& m) {
  const std::string who = fmt::format("{} '{}'", m.op, m.name);
  if (s.message().rfind(who, 0) != 0) s.Prepend(who + ": ");
  s.WithSpan(m.span);
  return s;
}

}  // namespace

std::string NonFiniteMessage(const Tensor& t) {
  int64_t nan = 0, inf = 0;
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DType::kF16: CountNonFinite(t.data<half>(), n, nan, inf); break;
    case DType::kF32: CountNonFinite(t.data<float>(), n, nan, inf); break;
    case DType::kF64: CountNonFinite(t.data<double>(), n, nan, inf); break;
    default: return "";
  }
  if (nan == 0 && inf == 0) return "";
  const char* produced = nan == 0 ? "Inf" : inf == 0 ? "NaN" : "NaN and Inf";
  return fmt::format("produced {} (output 0 has {} NaN, {} Inf of {} values)", produced, nan, inf, n);
}

Status Program::Init(const KernelConstruction& c) {
  const auto* ops = c.attr<std::vector<std::string>>("ops");
  const auto* names = c.attr<std::vector<std::string>>("names");
  const auto* types = c.attr<std::vector<DType>>("types");
  const auto* args = c.attr<std::vector<int64_t>>("args");
  const auto* spans = c.attr<std::vector<int64_t>>("spans");
  if (!ops || !names || !types || !args || !spans || ops->empty() || names->size() != ops->size() ||
      types->size() != ops->size() || spans->size() != ops->size()) {
    return InvalidArgument("fused_elementwise: ops, names, types and spans must be lists of one length, at least 1");
  }
  const auto* params = c.attr<std::vector<double>>("params");
  if (params != nullptr && !params->empty() && params->size() != ops->size()) {
    return InvalidArgument("fused_elementwise: params must be empty or one per member");
  }
  input_types_ = c.input_types;
  num_inputs_ = static_cast<int>(c.input_types.size());
  if (const bool* check = c.attr<bool>("check_numerics")) check_numerics_ = *check;
  size_t next_arg = 0;
  for (size_t k = 0; k < ops->size(); ++k) TFG_RETURN_IF_ERROR(AddMember(c, k, *args, next_arg));
  if (next_arg != args->size()) return InvalidArgument("fused_elementwise: {} args left over", args->size() - next_arg);
  if (c.output_types.empty() || c.output_types[0] != last().type) {
    return InvalidArgument("fused_elementwise: Tout must be the last member's dtype, {}", DTypeName(last().type));
  }
  TFG_RETURN_IF_ERROR(ReadExports(c));
  for (auto& m : members_) TFG_RETURN_IF_ERROR(MakeKernel(c, *m));
  PlanSteps();
  AssignSlots();
  return Status::OK();
}

Status Program::AddMember(const KernelConstruction& c, size_t k, const std::vector<int64_t>& args, size_t& next_arg) {
  auto m = std::make_unique<Member>();
  m->op = (*c.attr<std::vector<std::string>>("ops"))[k];
  m->name = (*c.attr<std::vector<std::string>>("names"))[k];
  m->type = (*c.attr<std::vector<DType>>("types"))[k];
  m->span = SpanOf((*c.attr<std::vector<int64_t>>("spans"))[k]);
  const OpDef* def = OpRegistry::Global().Find(m->op);
  const bool reduction = IsFusableReduction(m->op);
  if (def == nullptr) return InvalidArgument("fused_elementwise: unknown op '{}'", m->op);
  if (reduction && k + 1 != c.attr<std::vector<std::string>>("ops")->size()) {
    return InvalidArgument("fused_elementwise: only the last member may be a reduction, not {}", m->op);
  }
  std::vector<DType> in_types;
  for (size_t i = 0; i < def->inputs.size(); ++i) {
    if (next_arg >= args.size()) return InvalidArgument("fused_elementwise: too few args for member {}", k);
    const int64_t a = args[next_arg++];
    if (a >= num_inputs_ || a < -static_cast<int64_t>(k)) {
      return InvalidArgument("fused_elementwise: member {} takes arg {}, which is not an input or an earlier member",
                             k, a);
    }
    if (reduction && a >= 0) return InvalidArgument("fused_elementwise: a reduction must take a member's result");
    m->args.push_back(static_cast<int>(a));
    in_types.push_back(TypeOf(static_cast<int>(a)));
  }
  if (m->op == "cast") m->attrs["DstT"] = m->type;
  if (reduction) {
    auto axis = c.attrs->find("axis");
    if (axis != c.attrs->end()) m->attrs["axis"] = axis->second;
    if (const bool* keep = c.attr<bool>("keepdims")) m->attrs["keepdims"] = *keep;
  }
  auto sig = ResolveSignature(*def, in_types, m->attrs);
  if (!sig.ok()) {
    Status s = sig.status();
    return s.Prepend("fused_elementwise: ");
  }
  if (sig->output_types.size() != 1 || sig->output_types[0] != m->type) {
    return InvalidArgument("fused_elementwise: member {} ({}) does not produce {}", k, m->op, DTypeName(m->type));
  }
  if (!reduction) {
    m->block = FindBlockOp(m->op, in_types[DispatchInput(m->op)], m->type);
    if (m->block == nullptr) {
      return InvalidArgument("fused_elementwise: {} on {} cannot be fused", m->op,
                             DTypeName(in_types[DispatchInput(m->op)]));
    }
    cost_ += m->block->cost;
    const auto* params = c.attr<std::vector<double>>("params");
    if (params != nullptr && k < params->size()) m->param = (*params)[k];
    SetBlockParam(*m->block, m->param, m->attrs);
  } else if (k == 0) {
    return InvalidArgument("fused_elementwise: a reduction needs an elementwise member before it");
  }
  m->construction.op = def;
  m->construction.input_types = std::move(in_types);
  m->construction.output_types = {m->type};
  m->construction.node_name = m->name;
  m->construction.span = m->span;
  m->construction.device = c.device;
  members_.push_back(std::move(m));
  return Status::OK();
}

Status Program::ReadExports(const KernelConstruction& c) {
  const auto* exports = c.attr<std::vector<int64_t>>("exports");
  const size_t count = exports == nullptr ? 0 : exports->size();
  if (c.output_types.size() != 1 + count) {
    return InvalidArgument("fused_elementwise: {} outputs for {} exports", c.output_types.size(), count);
  }
  for (size_t i = 0; i < count; ++i) {
    const int64_t k = (*exports)[i];
    if (k < 0 || k > elementwise_root() || members_[k]->output >= 0 || members_[k]->type != c.output_types[i + 1]) {
      return InvalidArgument("fused_elementwise: export {} is not a distinct elementwise member of dtype {}", k,
                             DTypeName(c.output_types[i + 1]));
    }
    members_[k]->output = static_cast<int>(i) + 1;
    exports_.push_back(static_cast<int>(k));
  }
  return Status::OK();
}

Status Program::MakeKernel(const KernelConstruction& c, Member& m) {
  m.construction.attrs = &m.attrs;  // the member outlives its kernel: both are owned by the program
  TFG_ASSIGN_OR_RETURN(const KernelDef* def,
                       OpRegistry::Global().FindKernel(*m.construction.op, DeviceType::kCpu, m.attrs));
  auto kernel = def->factory(m.construction);
  if (!kernel.ok()) return AtMember(kernel.status(), m);
  if ((*kernel)->IsAsync()) return InvalidArgument("fused_elementwise: {} runs asynchronously", m.op);
  m.kernel = std::move(*kernel);
  (void)c;
  return Status::OK();
}

// Consecutive binary f32/f64 members where the first one's result is
// read by the second only become one step. Not with --check-numerics,
// which looks at every member's values.
void Program::PlanSteps() {
  const int root = elementwise_root();
  std::vector<int> uses(members_.size(), 0);
  for (const auto& m : members_) {
    for (int a : m->args) {
      if (a < 0) ++uses[-a - 1];
    }
  }
  for (int k = 0; k <= root;) {
    Step step;
    step.member = k;
    if (!check_numerics_ && k + 1 <= root && PairsWithNext(k, uses, step)) {
      k += 2;
    } else {
      step.pair = nullptr;
      k += 1;
    }
    steps_.push_back(step);
  }
  Step& final_step = steps_.back();
  const std::string& reduction = members_.back()->op;
  if (reduces() && final_step.pair != nullptr && (reduction == "sum" || reduction == "mean") &&
      members_[elementwise_root()]->output < 0) {
    const Member& first = *members_[final_step.member];
    final_step.pair_sum = FindPairSumOp(first.op, members_[final_step.member + 1]->op, first.type, final_step.form);
  }
}

bool Program::PairsWithNext(int k, const std::vector<int>& uses, Step& step) const {
  const Member& first = *members_[k];
  const Member& second = *members_[k + 1];
  if (first.block->arity != 2 || second.block->arity != 2 || first.block->check || second.block->check) return false;
  if (first.output >= 0) return false;  // its values are an output: stored
  if (first.type != second.type || TypeOf(first.args[0]) != first.type || TypeOf(second.args[0]) != first.type ||
      TypeOf(second.args[1]) != first.type) {
    return false;
  }
  const int self = -k - 1;
  const bool left = second.args[0] == self, right = second.args[1] == self;
  if (uses[k] != (left && right ? 2 : 1) || !(left || right)) return false;
  step.form = left && right ? PairForm::kBoth : left ? PairForm::kLeft : PairForm::kRight;
  step.other = left ? second.args[1] : second.args[0];
  step.pair = FindPairOp(first.op, second.op, first.type, step.form);
  return step.pair != nullptr;
}

// A scratch block per step result, reused once its last reader has run.
// A step's block is taken before its operands' are given back, so no
// loop writes the block it reads.
void Program::AssignSlots() {
  const int n = static_cast<int>(members_.size());
  std::vector<int> last_use(n, -1);
  auto reads = [&](const Step& s) {
    std::vector<int> args = members_[s.member]->args;
    if (s.pair && s.form != PairForm::kBoth) args.push_back(s.other);
    return args;
  };
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (int a : reads(steps_[i])) {
      if (a < 0) last_use[-a - 1] = static_cast<int>(i);
    }
  }
  std::vector<int> free;
  for (size_t i = 0; i < steps_.size(); ++i) {
    Member& m = *members_[steps_[i].result()];
    if (free.empty()) {
      m.slot = num_slots_++;
    } else {
      m.slot = free.back();
      free.pop_back();
    }
    for (int a : reads(steps_[i])) {
      const int src = -a - 1;
      if (a < 0 && last_use[src] == static_cast<int>(i)) {
        free.push_back(members_[src]->slot);
        last_use[src] = -1;  // an operand read twice is given back once
      }
    }
  }
}

bool Program::may_fall_back() const {
  if (check_numerics_) return true;
  return std::any_of(members_.begin(), members_.end(),
                     [](const auto& m) { return m->block != nullptr && m->block->check != nullptr; });
}

Status Program::RunUnfused(OpKernelContext& ctx) const {
  std::vector<Tensor> values(members_.size());
  for (size_t k = 0; k < members_.size(); ++k) {
    const Member& m = *members_[k];
    std::vector<Tensor> inputs;
    for (int a : m.args) inputs.push_back(a >= 0 ? ctx.input(a) : values[-a - 1]);
    Tensor out;
    OpKernelContext member_ctx(&m.construction, inputs.data(), static_cast<int>(inputs.size()), &out, 1,
                               ctx.resources(), &ctx.step());
    Status s = m.kernel->Compute(member_ctx);
    if (!s.ok()) return AtMember(std::move(s), m);
    if (check_numerics_) {
      std::string bad = NonFiniteMessage(out);
      if (!bad.empty()) return AtMember(InvalidArgument("{} '{}' {}", m.op, m.name, bad), m);
    }
    values[k] = std::move(out);
  }
  for (int k : exports_) ctx.set_output(members_[k]->output, values[k]);
  ctx.set_output(0, std::move(values.back()));
  return Status::OK();
}

}  // namespace tfg::fused
