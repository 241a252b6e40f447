#include "interp/runtime/scalar_loop.h"

#include <unordered_map>

#include "interp/runtime/plan.h"
#include "ops/core/control_flow.h"
#include "ops/core/dtype_traits.h"

namespace tfg {

namespace {

ScalarValue FromTensor(const Tensor& t) {
  ScalarValue v{};
  switch (t.dtype()) {
    case DType::kF32: v.set(t.data<float>()[0]); break;
    case DType::kF64: v.set(t.data<double>()[0]); break;
    case DType::kI32: v.set(t.data<int32_t>()[0]); break;
    case DType::kI64: v.set(t.data<int64_t>()[0]); break;
    default: v.set(t.data<bool>()[0]); break;
  }
  return v;
}

}  // namespace

// ---- compiling a frame

// Where a node's inputs come from, gathered from the plan's edges (which
// run from producer to consumer).
struct Sources {
  std::vector<std::pair<int32_t, int32_t>> data;  // (plan index, output) by input; -1: none
  std::vector<int32_t> control;                   // plan indices
};

class ScalarLoopCompiler {
 public:
  ScalarLoopCompiler(const Plan& plan, int32_t frame) : plan_(plan), frame_(frame) {}

  std::unique_ptr<const ScalarLoop> Compile() {
    loop_ = std::make_unique<ScalarLoop>();
    if (!GatherSources() || !AddEnters()) return nullptr;
    // Loop headers first: they read last iteration's values, which the
    // next_iterations of this one overwrite.
    for (int32_t i : members_) {
      if (IsHeader(i) && !AddHeader(i)) return nullptr;
    }
    for (int32_t i : members_) {
      if (!IsHeader(i) && !AddNode(i)) return nullptr;
    }
    return std::move(loop_);
  }

 private:
  using Kind = ScalarLoop::Kind;

  bool InFrame(const PlanNode& pn) const { return pn.frame == frame_; }
  bool EntersFrame(const PlanNode& pn) const { return pn.kind == NodeKind::kEnter && pn.enter_frame == frame_; }

  bool GatherSources() {
    const int32_t n = static_cast<int32_t>(plan_.nodes.size());
    sources_.resize(n);
    for (int32_t i = 0; i < n; ++i) {
      const PlanNode& pn = plan_.nodes[i];
      if (InFrame(pn)) {
        members_.push_back(i);
        sources_[i].data.assign(pn.num_inputs, {-1, 0});
      }
    }
    for (int32_t i = 0; i < n; ++i) {
      const PlanNode& src = plan_.nodes[i];
      if (!InFrame(src) && !EntersFrame(src)) continue;
      for (int32_t e = src.edges_begin; e < src.edges_end; ++e) {
        const PlanEdge& edge = plan_.edges[e];
        // An exit's consumers (or fetches) are in the parent.
        if (edge.dst_node < 0 || !InFrame(plan_.nodes[edge.dst_node])) continue;
        const PlanNode& dst = plan_.nodes[edge.dst_node];
        sources_[edge.dst_node].data[edge.dst_slot - dst.input_start] = {i, edge.src_output};
      }
      for (int32_t c = src.control_begin; c < src.control_end; ++c) {
        if (InFrame(plan_.nodes[plan_.control_edges[c]])) sources_[plan_.control_edges[c]].control.push_back(i);
      }
    }
    return true;
  }

  // A new register for output `output` of a node, when it is a scalar of a
  // type registers hold.
  int32_t NewRegister(const Node& node, int output) {
    const DType dtype = node.output_types()[output];
    if (!IsScalarValueType(dtype) || node.output_shapes()[output].rank() != 0) return -1;
    loop_->dtype_.push_back(dtype);
    return static_cast<int32_t>(loop_->dtype_.size()) - 1;
  }

  bool AddEnters() {
    for (size_t i = 0; i < plan_.nodes.size(); ++i) {
      const PlanNode& pn = plan_.nodes[i];
      if (!EntersFrame(pn)) continue;
      const int32_t reg = NewRegister(*pn.node, 0);
      if (reg < 0) return false;
      reg_of_[static_cast<int32_t>(i)] = reg;
      loop_->enters_.push_back({static_cast<int32_t>(i), reg});
    }
    return true;
  }

  // A merge of a loop variable's enter and its next_iteration.
  bool IsHeader(int32_t i) const {
    const PlanNode& pn = plan_.nodes[i];
    if (pn.kind != NodeKind::kMerge || pn.num_inputs != 2) return false;
    int enters = 0, nexts = 0;
    for (auto [src, output] : sources_[i].data) {
      if (src < 0) return false;
      enters += EntersFrame(plan_.nodes[src]);
      nexts += plan_.nodes[src].kind == NodeKind::kNextIteration && InFrame(plan_.nodes[src]);
    }
    return enters == 1 && nexts == 1;
  }

  bool AddHeader(int32_t i) {
    const Sources& s = sources_[i];
    const bool enter_first = EntersFrame(plan_.nodes[s.data[0].first]);
    const int32_t enter = s.data[enter_first ? 0 : 1].first;
    const int32_t next = s.data[enter_first ? 1 : 0].first;
    ScalarLoop::Instr in;
    in.kind = Kind::kHeaderMerge;
    in.out = NewRegister(*plan_.nodes[i].node, 0);
    in.carried = NewRegister(*plan_.nodes[i].node, 0);
    if (in.out < 0 || !s.control.empty() || carried_of_.count(next)) return false;
    carried_of_[next] = in.carried;
    in.args_begin = static_cast<int32_t>(loop_->args_.size());
    in.num_data = 1;
    loop_->args_.push_back(reg_of_.at(enter));
    return Emit(i, in);
  }

  bool AddNode(int32_t i) {
    const PlanNode& pn = plan_.nodes[i];
    ScalarLoop::Instr in;
    switch (pn.kind) {
      case NodeKind::kSwitch:
        in.kind = Kind::kSwitch;
        in.out = NewRegister(*pn.node, 0);
        if (NewRegister(*pn.node, 1) < 0 || NewRegister(*pn.node, 0) < 0) return false;
        break;
      case NodeKind::kMerge:
        in.kind = Kind::kMerge;
        if (!sources_[i].control.empty()) return false;
        in.out = NewRegister(*pn.node, 0);
        break;
      case NodeKind::kExit:
        in.kind = Kind::kForward;
        in.out = NewRegister(*pn.node, 0);
        loop_->exits_.push_back({i, in.out});
        break;
      case NodeKind::kNextIteration: {
        auto it = carried_of_.find(i);
        if (it == carried_of_.end()) return false;
        in.kind = Kind::kNextIteration;
        in.carried = it->second;
        in.out = it->second;
        break;
      }
      case NodeKind::kOp:
        if (!AddOp(pn, in)) return false;
        break;
      default:
        return false;
    }
    if (in.out < 0) return false;
    if (!AddArgs(i, in)) return false;
    return Emit(i, in);
  }

  bool AddOp(const PlanNode& pn, ScalarLoop::Instr& in) {
    const Node& n = *pn.node;
    if (n.num_outputs() != 1) return false;
    if (n.op_name() == "identity" || IsLoopCond(n)) {
      in.kind = Kind::kForward;
    } else if (n.op_name() == "constant") {
      // In a loop only through control inputs (a cond branch's pivot).
      const Tensor* value = n.attr<Tensor>("value");
      in.kind = Kind::kConstant;
      in.out = NewRegister(n, 0);
      if (value == nullptr || in.out < 0 || value->dtype() != loop_->dtype_[in.out]) return false;
      loop_->constants_.push_back({in.out, FromTensor(*value)});
      return true;
    } else {
      if (pn.num_inputs < 1 || pn.num_inputs > 2) return false;
      in.kind = Kind::kCompute;
      const std::string op = n.op_name() == "cast" ? CastScalarOp(n.output_types()[0]) : n.op_name();
      in.fn = FindScalarFn(op, n.input_types()[0]);
      if (in.fn == nullptr) return false;
    }
    in.out = NewRegister(n, 0);
    return true;
  }

  bool AddArgs(int32_t i, ScalarLoop::Instr& in) {
    in.args_begin = static_cast<int32_t>(loop_->args_.size());
    for (auto [src, output] : sources_[i].data) {
      auto it = reg_of_.find(src);
      if (it == reg_of_.end()) return false;  // not a value of this frame
      // A switch's outputs are consecutive registers; nothing else has two.
      const bool is_switch = plan_.nodes[src].kind == NodeKind::kSwitch;
      if (output != 0 && !is_switch) return false;
      loop_->args_.push_back(it->second + output);
    }
    in.num_data = static_cast<int32_t>(sources_[i].data.size());
    for (int32_t src : sources_[i].control) {
      auto it = node_reg_.find(src);
      if (it == node_reg_.end()) return false;
      loop_->args_.push_back(it->second);
    }
    in.num_control = static_cast<int32_t>(sources_[i].control.size());
    return true;
  }

  bool Emit(int32_t i, ScalarLoop::Instr& in) {
    in.node = i;
    loop_->program_.push_back(in);
    if (in.kind == Kind::kNextIteration) return true;  // read only by its header
    reg_of_[i] = in.out;
    // The register whose dead bit is the node's own (for control edges).
    node_reg_[i] = in.kind == Kind::kSwitch ? in.out + 2 : in.out;
    return true;
  }

  const Plan& plan_;
  const int32_t frame_;
  std::unique_ptr<ScalarLoop> loop_;
  std::vector<int32_t> members_;  // plan indices of the frame's nodes, in order
  std::vector<Sources> sources_;  // by plan index
  std::unordered_map<int32_t, int32_t> reg_of_;       // plan index -> first output register
  std::unordered_map<int32_t, int32_t> node_reg_;     // plan index -> register of its deadness
  std::unordered_map<int32_t, int32_t> carried_of_;   // next_iteration -> its carried register
};

std::unique_ptr<const ScalarLoop> ScalarLoop::Compile(const Plan& plan, int32_t frame) {
  return ScalarLoopCompiler(plan, frame).Compile();
}

// ---- running it

ScalarLoop::Registers ScalarLoop::MakeRegisters() const {
  Registers r;
  r.value.resize(dtype_.size());
  r.dead.assign(dtype_.size(), 1);
  for (const auto& [reg, value] : constants_) r.value[reg] = value;
  return r;
}

namespace {

Tensor ToTensor(DType dtype, ScalarValue v) {
  switch (dtype) {
    case DType::kF32: return Tensor::Scalar(v.f32);
    case DType::kF64: return Tensor::Scalar(v.f64);
    case DType::kI32: return Tensor::Scalar(v.i32);
    case DType::kI64: return Tensor::Scalar(v.i64);
    default: return Tensor::Scalar(v.b);
  }
}

}  // namespace

bool ScalarLoop::Load(int32_t enter_node, const Tensor& value, Registers& r) const {
  for (const Slot& s : enters_) {
    if (s.node != enter_node) continue;
    if (!value.IsInitialized()) {
      r.dead[s.reg] = 1;
      return true;
    }
    if (value.dtype() != dtype_[s.reg] || value.shape().dims().size() != 0) return false;
    r.value[s.reg] = FromTensor(value);
    r.dead[s.reg] = 0;
    return true;
  }
  return false;
}

bool ScalarLoop::ControlDead(const Instr& in, const Registers& r) const {
  const int32_t* c = args_.data() + in.args_begin + in.num_data;
  for (int32_t k = 0; k < in.num_control; ++k) {
    if (r.dead[c[k]]) return true;
  }
  return false;
}

void ScalarLoop::RunMerge(const Instr& in, Registers& r) const {
  const int32_t* a = args_.data() + in.args_begin;
  r.dead[in.out] = 1;
  for (int32_t k = 0; k < in.num_data; ++k) {
    if (!r.dead[a[k]]) {
      r.value[in.out] = r.value[a[k]];
      r.dead[in.out] = 0;
      return;
    }
  }
}

// Iterations between two reports of progress to the hang watchdog.
constexpr int64_t kProgressEvery = 1024;

int32_t ScalarLoop::Run(Registers& r, const std::atomic<bool>& cancelled, std::atomic<int64_t>* progress) const {
  ScalarValue* value = r.value.data();
  uint8_t* dead = r.dead.data();
  for (int64_t iteration = 0;; ++iteration) {
    const bool first = iteration == 0;
    bool more = false;
    for (const Instr& in : program_) {
      const int32_t* a = args_.data() + in.args_begin;
      switch (in.kind) {
        case Kind::kCompute: {
          bool d = dead[a[0]] || (in.num_data > 1 && dead[a[1]]) || (in.num_control > 0 && ControlDead(in, r));
          dead[in.out] = d;
          if (d) break;
          ScalarValue args[2] = {value[a[0]], in.num_data > 1 ? value[a[1]] : ScalarValue{}};
          if (!in.fn(args, &value[in.out])) return in.node;
          break;
        }
        case Kind::kConstant:
          dead[in.out] = in.num_control > 0 && ControlDead(in, r);
          break;
        case Kind::kForward:
          value[in.out] = value[a[0]];
          dead[in.out] = dead[a[0]] || (in.num_control > 0 && ControlDead(in, r));
          break;
        case Kind::kSwitch: {
          const bool d = dead[a[0]] || dead[a[1]] || (in.num_control > 0 && ControlDead(in, r));
          const bool pred = value[a[1]].b;
          value[in.out] = value[in.out + 1] = value[a[0]];
          dead[in.out] = d || pred;
          dead[in.out + 1] = d || !pred;
          dead[in.out + 2] = d;
          break;
        }
        case Kind::kMerge:
          RunMerge(in, r);
          break;
        case Kind::kHeaderMerge: {
          const int32_t src = first ? a[0] : in.carried;
          value[in.out] = value[src];
          dead[in.out] = dead[src];
          break;
        }
        case Kind::kNextIteration:
          value[in.carried] = value[a[0]];
          dead[in.carried] = dead[a[0]] || (in.num_control > 0 && ControlDead(in, r));
          more = more || !dead[in.carried];
          break;
      }
    }
    if (progress && iteration % kProgressEvery == 0) progress->fetch_add(1, std::memory_order_relaxed);
    if (!more || cancelled.load(std::memory_order_relaxed)) return -1;
  }
}

std::vector<Tensor> ScalarLoop::Inputs(int32_t node, const Registers& r) const {
  std::vector<Tensor> inputs;
  for (const Instr& in : program_) {
    if (in.node != node) continue;
    for (int32_t k = 0; k < in.num_data; ++k) {
      const int32_t reg = args_[in.args_begin + k];
      inputs.push_back(ToTensor(dtype_[reg], r.value[reg]));
    }
  }
  return inputs;
}

std::vector<ScalarLoop::ExitValue> ScalarLoop::Exits(const Registers& r) const {
  std::vector<ExitValue> out;
  for (const Slot& s : exits_) {
    out.push_back({s.node, r.dead[s.reg] ? Tensor() : ToTensor(dtype_[s.reg], r.value[s.reg])});
  }
  return out;
}

}  // namespace tfg
