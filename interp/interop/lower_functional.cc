#include "interp/interop/lower_functional.h"

#include <charconv>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interp/interop/function_inliner.h"

namespace tfg::interop {
namespace {

// Bounds on what a (possibly hostile) library can make the lowering build.
constexpr int kMaxNesting = 64;
// Inlined nodes allowed: a base plus a multiple of the input's size, so a
// small file cannot make a huge graph (If branches calling If branches).
constexpr int64_t kBaseNodeBudget = 200'000;
constexpr int64_t kNodeBudgetPerInputNode = 16;

Status Fail(const tf::NodeDef& n, const std::string& why) {
  return Status(Code::kInvalidArgument, fmt::format("import_graph_def: node '{}' ({}): {}", n.name(), n.op(), why));
}

class Lowering {
 public:
  explicit Lowering(tf::GraphDef& def) : def_(def), names_(def), depth_(def.node_size(), 0) {
    int64_t input_nodes = def.node_size();
    for (const tf::FunctionDef& f : def.library().function()) {
      functions_.emplace(f.signature().name(), &f);
      input_nodes += f.node_def_size();
    }
    max_nodes_ = kBaseNodeBudget + kNodeBudgetPerInputNode * input_nodes;
  }

  Result<LoweredOutputs> Run() {
    int top_level = def_.node_size();
    LoweredOutputs top;
    // Lowering appends nodes (the bodies), which may hold If/While nodes of their own.
    for (int i = 0; i < def_.node_size(); ++i) {
      if (!IsFunctionalControlFlow(def_.node(i).op())) continue;
      if (def_.node_size() > max_nodes_) {
        return Fail(def_.node(i), fmt::format("its functions expand to more than {} nodes", max_nodes_));
      }
      if (depth_[i] >= kMaxNesting) {
        return Fail(def_.node(i), fmt::format("functions nest more than {} deep (is {} recursive?)", kMaxNesting,
                                              CalledNames(def_.node(i))));
      }
      TFG_ASSIGN_OR_RETURN(std::vector<std::string> outs, Lower(i));
      const std::string& name = def_.node(i).name();
      for (size_t k = 0; k < outs.size(); ++k) {
        std::string from = fmt::format("{}:{}", name, k);
        renames_[from] = outs[k];
        if (i < top_level) top.emplace_back(from, outs[k]);
      }
      depth_.resize(def_.node_size(), depth_[i] + 1);
    }
    Rewire();
    return top;
  }

 private:
  // "'f' or 'g'": the functions a node calls, for errors.
  static std::string CalledNames(const tf::NodeDef& n) {
    std::vector<std::string> names;
    for (const char* attr : {"then_branch", "else_branch", "cond", "body"}) {
      auto a = n.attr().find(attr);
      if (a != n.attr().end() && a->second.value_case() == tf::AttrValue::kFunc) {
        names.push_back("'" + a->second.func().name() + "'");
      }
    }
    if (auto b = n.attr().find("branches"); b != n.attr().end()) {
      for (const tf::NameAttrList& f : b->second.list().func()) names.push_back("'" + f.name() + "'");
    }
    return fmt::format("{}", fmt::join(names, " or "));
  }

  tf::NodeDef* Add(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                   const std::string& device) {
    tf::NodeDef* n = def_.add_node();
    n->set_name(names_.Fresh(name));
    n->set_op(op);
    n->set_device(device);
    for (std::string& in : inputs) n->add_input(std::move(in));
    return n;
  }

  Result<const tf::FunctionDef*> Function(const tf::NodeDef& n, const char* attr) {
    auto a = n.attr().find(attr);
    if (a == n.attr().end() || a->second.value_case() != tf::AttrValue::kFunc) {
      return Fail(n, fmt::format("attr '{}' naming a function is missing", attr));
    }
    auto f = functions_.find(a->second.func().name());
    if (f == functions_.end()) {
      return Fail(n, fmt::format("its {} '{}' is not in the graph's function library", attr, a->second.func().name()));
    }
    return f->second;
  }

  Result<std::vector<std::string>> Lower(int i) {
    tf::NodeDef n = def_.node(i);  // a copy: adding nodes may move the others
    std::vector<std::string> data, controls;
    for (const std::string& in : n.input()) (in.empty() || in[0] != '^' ? data : controls).push_back(in);
    std::vector<std::string> outs;
    if (n.op() == "If" || n.op() == "StatelessIf") {
      TFG_ASSIGN_OR_RETURN(outs, LowerIf(n, data, controls));
    } else if (n.op() == "Case" || n.op() == "StatelessCase") {
      TFG_ASSIGN_OR_RETURN(outs, LowerCase(n, data, controls));
    } else {
      TFG_ASSIGN_OR_RETURN(outs, LowerWhile(n, data, controls));
    }
    // The node stays, as a NoOp, for readers that wait on it ("^node").
    tf::NodeDef& stay = *def_.mutable_node(i);
    stay.set_op("NoOp");
    stay.clear_input();
    stay.clear_attr();
    for (const std::string& o : outs) stay.add_input("^" + o.substr(0, o.rfind(':')));
    if (outs.empty()) {
      for (const std::string& in : data) stay.add_input("^" + in.substr(0, in.rfind(':')));
    }
    return outs;
  }

  Result<std::vector<std::string>> LowerIf(const tf::NodeDef& n, const std::vector<std::string>& data,
                                           const std::vector<std::string>& controls) {
    if (data.empty()) return Fail(n, "an If without a condition input");
    if (auto t = n.attr().find("Tcond"); t != n.attr().end() && t->second.type() != tf::DT_BOOL) {
      return Fail(n, "an If on a condition that is not a bool is not supported yet");
    }
    TFG_ASSIGN_OR_RETURN(const tf::FunctionDef* then_fn, Function(n, "then_branch"));
    TFG_ASSIGN_OR_RETURN(const tf::FunctionDef* else_fn, Function(n, "else_branch"));
    const std::string& p = n.name();
    const std::string& dev = n.device();
    std::vector<std::string> pred_in = {data[0], data[0]};
    pred_in.insert(pred_in.end(), controls.begin(), controls.end());
    std::string pred = Add(p + "/switch_pred", "Switch", pred_in, dev)->name();
    std::string pivot_t = Add(p + "/pivot_t", "Identity", {pred + ":1"}, dev)->name();
    std::string pivot_f = Add(p + "/pivot_f", "Identity", {pred + ":0"}, dev)->name();
    InlineRequest then_req{then_fn, p + "/then/", {}, pivot_t, dev};
    InlineRequest else_req{else_fn, p + "/else/", {}, pivot_f, dev};
    for (size_t k = 1; k < data.size(); ++k) {
      std::vector<std::string> in = {data[k], data[0]};
      in.insert(in.end(), controls.begin(), controls.end());
      std::string sw = Add(fmt::format("{}/switch_{}", p, k - 1), "Switch", in, dev)->name();
      else_req.args.push_back(sw + ":0");
      then_req.args.push_back(sw + ":1");
    }
    TFG_ASSIGN_OR_RETURN(std::vector<std::string> then_out, InlineFunction(then_req, names_, def_));
    TFG_ASSIGN_OR_RETURN(std::vector<std::string> else_out, InlineFunction(else_req, names_, def_));
    if (then_out.size() != else_out.size()) {
      return Fail(n, fmt::format("its branches '{}' and '{}' return {} and {} outputs", then_fn->signature().name(),
                                 else_fn->signature().name(), then_out.size(), else_out.size()));
    }
    std::vector<std::string> outs;
    for (size_t k = 0; k < then_out.size(); ++k) {
      outs.push_back(Add(fmt::format("{}/merge_{}", p, k), "Merge", {then_out[k], else_out[k]}, dev)->name() + ":0");
    }
    return outs;
  }

  // Case(index, args; branches b0..bn-1) as a cascade of Switches:
  // level k sends the arguments to bk when index == k and on to level k+1
  // otherwise; the last branch gets what no level took (TensorFlow runs
  // it for an index out of range too). A Merge per output.
  Result<std::vector<std::string>> LowerCase(const tf::NodeDef& n, const std::vector<std::string>& data,
                                             const std::vector<std::string>& controls) {
    if (data.empty()) return Fail(n, "a Case without a branch index input");
    auto b = n.attr().find("branches");
    if (b == n.attr().end() || b->second.list().func_size() == 0) return Fail(n, "attr 'branches' is missing");
    const std::string& p = n.name();
    const std::string& dev = n.device();
    const std::string& index = data[0];
    std::vector<std::string> args(data.begin() + 1, data.end());
    std::string token = index;  // live on the side no level has taken yet
    std::string index_live;
    std::vector<std::vector<std::string>> rets;
    int branches = b->second.list().func_size();
    for (int k = 0; k < branches; ++k) {
      const std::string& fn_name = b->second.list().func(k).name();
      auto f = functions_.find(fn_name);
      if (f == functions_.end()) {
        return Fail(n, fmt::format("its branch {} '{}' is not in the graph's function library", k, fn_name));
      }
      InlineRequest req{f->second, fmt::format("{}/branch_{}/", p, k), {}, "", dev};
      if (k + 1 < branches) {
        if (index_live.empty()) {
          // What the constants wait for, to be in the index's frame and branch.
          std::vector<std::string> in = {index};
          in.insert(in.end(), controls.begin(), controls.end());
          index_live = Add(p + "/index_live", "Identity", in, dev)->name();
        }
        tf::NodeDef* kconst = Add(fmt::format("{}/index_{}", p, k), "Const", {"^" + index_live}, dev);
        (*kconst->mutable_attr())["dtype"].set_type(tf::DT_INT32);
        tf::TensorProto* value = (*kconst->mutable_attr())["value"].mutable_tensor();
        value->set_dtype(tf::DT_INT32);
        value->add_int_val(k);
        std::string pred = Add(fmt::format("{}/is_{}", p, k), "Equal", {index, kconst->name() + ":0"}, dev)->name();
        std::string sel = Add(fmt::format("{}/select_{}", p, k), "Switch", {token, pred}, dev)->name();
        req.pivot = Add(fmt::format("{}/pivot_{}", p, k), "Identity", {sel + ":1"}, dev)->name();
        token = sel + ":0";
        for (size_t a = 0; a < args.size(); ++a) {
          std::string sw = Add(fmt::format("{}/switch_{}_{}", p, k, a), "Switch", {args[a], pred}, dev)->name();
          req.args.push_back(sw + ":1");
          args[a] = sw + ":0";
        }
      } else {
        std::vector<std::string> in = {token};
        in.insert(in.end(), controls.begin(), controls.end());
        req.pivot = Add(fmt::format("{}/pivot_{}", p, k), "Identity", in, dev)->name();
        req.args = args;
      }
      TFG_ASSIGN_OR_RETURN(std::vector<std::string> r, InlineFunction(req, names_, def_));
      if (!rets.empty() && r.size() != rets[0].size()) {
        return Fail(n, fmt::format("its branches return {} and {} outputs", rets[0].size(), r.size()));
      }
      rets.push_back(std::move(r));
    }
    std::vector<std::string> outs;
    for (size_t j = 0; j < rets[0].size(); ++j) {
      std::vector<std::string> in;
      for (const auto& r : rets) in.push_back(r[j]);
      outs.push_back(Add(fmt::format("{}/merge_{}", p, j), "Merge", in, dev)->name() + ":0");
    }
    return outs;
  }

  Result<std::vector<std::string>> LowerWhile(const tf::NodeDef& n, const std::vector<std::string>& data,
                                              const std::vector<std::string>& controls) {
    if (data.empty()) return Fail(n, "a While without loop variables");
    TFG_ASSIGN_OR_RETURN(const tf::FunctionDef* cond_fn, Function(n, "cond"));
    TFG_ASSIGN_OR_RETURN(const tf::FunctionDef* body_fn, Function(n, "body"));
    const std::string& p = n.name();
    const std::string& dev = n.device();
    int64_t parallel = 10;
    if (auto a = n.attr().find("parallel_iterations"); a != n.attr().end() && a->second.i() > 0) {
      parallel = a->second.i();
    }
    std::vector<std::string> merges, nexts;
    for (size_t k = 0; k < data.size(); ++k) nexts.push_back(names_.Fresh(fmt::format("{}/next_{}", p, k)));
    for (size_t k = 0; k < data.size(); ++k) {
      std::vector<std::string> in = {data[k]};
      in.insert(in.end(), controls.begin(), controls.end());
      tf::NodeDef* enter = Add(fmt::format("{}/enter_{}", p, k), "Enter", in, dev);
      (*enter->mutable_attr())["frame_name"].set_s(p);
      (*enter->mutable_attr())["is_constant"].set_b(false);
      (*enter->mutable_attr())["parallel_iterations"].set_i(parallel);
      std::string enter_name = enter->name();
      merges.push_back(Add(fmt::format("{}/merge_{}", p, k), "Merge", {enter_name, nexts[k]}, dev)->name());
    }
    InlineRequest cond_req{cond_fn, p + "/cond/", {}, merges[0], dev};
    for (const std::string& m : merges) cond_req.args.push_back(m + ":0");
    TFG_ASSIGN_OR_RETURN(std::vector<std::string> cond_out, InlineFunction(cond_req, names_, def_));
    if (cond_out.size() != 1) {
      return Fail(n, fmt::format("its cond '{}' returns {} outputs, not 1", cond_fn->signature().name(), cond_out.size()));
    }
    std::string loop_cond = Add(p + "/loop_cond", "LoopCond", {cond_out[0]}, dev)->name();
    InlineRequest body_req{body_fn, p + "/body/", {}, "", dev};
    std::vector<std::string> exits;
    for (size_t k = 0; k < data.size(); ++k) {
      std::string sw = Add(fmt::format("{}/switch_{}", p, k), "Switch", {merges[k], loop_cond}, dev)->name();
      exits.push_back(Add(fmt::format("{}/exit_{}", p, k), "Exit", {sw + ":0"}, dev)->name() + ":0");
      body_req.args.push_back(Add(fmt::format("{}/body_in_{}", p, k), "Identity", {sw + ":1"}, dev)->name() + ":0");
    }
    body_req.pivot = body_req.args[0].substr(0, body_req.args[0].rfind(':'));
    TFG_ASSIGN_OR_RETURN(std::vector<std::string> body_out, InlineFunction(body_req, names_, def_));
    if (body_out.size() != data.size()) {
      return Fail(n, fmt::format("its body '{}' returns {} outputs for {} loop variables", body_fn->signature().name(),
                                 body_out.size(), data.size()));
    }
    for (size_t k = 0; k < data.size(); ++k) {
      tf::NodeDef* next = def_.add_node();
      next->set_name(nexts[k]);
      next->set_op("NextIteration");
      next->set_device(dev);
      next->add_input(body_out[k]);
    }
    return exits;
  }

  // Readers of a lowered node's outputs read what computes them now.
  void Rewire() {
    if (renames_.empty()) return;
    for (tf::NodeDef& n : *def_.mutable_node()) {
      for (std::string& in : *n.mutable_input()) {
        std::string key = in.find(':') == std::string::npos ? in + ":0" : in;
        // Several hops: an If in a body is lowered after the body's readers are copied.
        for (auto it = renames_.find(key); it != renames_.end(); it = renames_.find(key)) key = in = it->second;
      }
    }
  }

  tf::GraphDef& def_;
  NodeNames names_;
  std::vector<int> depth_;
  int64_t max_nodes_ = 0;
  std::unordered_map<std::string, const tf::FunctionDef*> functions_;
  std::unordered_map<std::string, std::string> renames_;
};

}  // namespace

bool IsFunctionalControlFlow(const std::string& tf_op) {
  return tf_op == "If" || tf_op == "StatelessIf" || tf_op == "While" || tf_op == "StatelessWhile" ||
         tf_op == "Case" || tf_op == "StatelessCase";
}

Result<LoweredOutputs> LowerFunctionalControlFlow(tf::GraphDef& def) {
  bool any = false;
  for (const tf::NodeDef& n : def.node()) any = any || IsFunctionalControlFlow(n.op());
  if (!any) return LoweredOutputs{};
  return Lowering(def).Run();
}

}  // namespace tfg::interop
