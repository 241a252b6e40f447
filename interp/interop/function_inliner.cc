#include "interp/interop/function_inliner.h"

#include <charconv>
#include <unordered_map>

#include <fmt/format.h>

#include "interp/interop/tf_tables.h"

namespace tfg::interop {
namespace {

bool IsFunctionalOp(const std::string& op) {
  return op == "If" || op == "StatelessIf" || op == "While" || op == "StatelessWhile" || op == "Case" ||
         op == "StatelessCase";
}

Status Fail(const InlineRequest& req, const std::string& node, const std::string& why) {
  return Status(Code::kInvalidArgument, fmt::format("import_graph_def: function '{}', node '{}': {}",
                                                    req.fn->signature().name(), node, why));
}

// How many tensors one output arg of a node is.
Result<int> ArgCount(const tf::NodeDef& node, const TfArg& arg) {
  auto attr = [&](const std::string& name) -> const tf::AttrValue* {
    auto it = node.attr().find(name);
    return it == node.attr().end() ? nullptr : &it->second;
  };
  if (!arg.number_attr.empty()) {
    const tf::AttrValue* a = attr(arg.number_attr);
    if (!a || a->i() < 0) return Status(Code::kInvalidArgument, fmt::format("attr '{}' is missing", arg.number_attr));
    return static_cast<int>(a->i());
  }
  if (!arg.list_attr.empty()) {
    const tf::AttrValue* a = attr(arg.list_attr);
    if (!a) return Status(Code::kInvalidArgument, fmt::format("attr '{}' is missing", arg.list_attr));
    return a->list().type_size();
  }
  return 1;
}

// A function's node, by name, for its op and attrs.
using NodeIndex = std::unordered_map<std::string, const tf::NodeDef*>;

class Inliner {
 public:
  Inliner(const InlineRequest& req, NodeNames& names, tf::GraphDef& def) : req_(req), names_(names), def_(def) {}

  Result<std::vector<std::string>> Run() {
    const tf::FunctionDef& fn = *req_.fn;
    const auto& in_args = fn.signature().input_arg();
    if (in_args.size() != static_cast<int>(req_.args.size())) {
      return Fail(req_, "(its signature)", fmt::format("called with {} input(s), takes {}", req_.args.size(),
                                                       in_args.size()));
    }
    for (int i = 0; i < in_args.size(); ++i) args_[in_args[i].name()] = req_.args[i];
    for (const tf::NodeDef& n : fn.node_def()) {
      if (!nodes_.emplace(n.name(), &n).second) return Fail(req_, n.name(), "two nodes have this name");
      renamed_[n.name()] = names_.Fresh(req_.prefix + n.name());
    }
    for (const tf::NodeDef& n : fn.node_def()) TFG_RETURN_IF_ERROR(Copy(n));
    std::vector<std::string> rets;
    for (const auto& out : fn.signature().output_arg()) {
      auto it = fn.ret().find(out.name());
      if (it == fn.ret().end()) return Fail(req_, "(its signature)", fmt::format("output '{}' has no ret", out.name()));
      TFG_ASSIGN_OR_RETURN(std::string t, Translate(it->second, "(its ret)"));
      if (t[0] == '^') return Fail(req_, "(its ret)", fmt::format("output '{}' is a control edge", out.name()));
      rets.push_back(std::move(t));
    }
    return rets;
  }

 private:
  Status Copy(const tf::NodeDef& n) {
    for (const auto& [name, value] : n.attr()) {
      if (value.value_case() == tf::AttrValue::kPlaceholder) {
        return Fail(req_, n.name(), fmt::format("attr '{}' is a placeholder of a polymorphic function", name));
      }
    }
    tf::NodeDef* out = def_.add_node();
    *out = n;
    out->set_name(renamed_.at(n.name()));
    if (out->device().empty()) out->set_device(req_.device);
    out->clear_input();
    bool has_input = false;
    for (const std::string& in : n.input()) {
      TFG_ASSIGN_OR_RETURN(std::string t, Translate(in, n.name()));
      out->add_input(std::move(t));
      has_input = true;
    }
    // A node with no inputs would run outside the branch or loop frame.
    if (!has_input && !req_.pivot.empty()) out->add_input("^" + req_.pivot);
    return Status::OK();
  }

  // "arg", "node:out_arg:k" or "^node" of the function -> the GraphDef's.
  Result<std::string> Translate(const std::string& in, const std::string& where) {
    bool control = !in.empty() && in[0] == '^';
    std::string body = control ? in.substr(1) : in;
    if (auto a = args_.find(body); a != args_.end()) {
      if (!control) return a->second;
      return "^" + a->second.substr(0, a->second.rfind(':'));
    }
    size_t c1 = body.find(':');
    std::string node = body.substr(0, c1);
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return Fail(req_, where, fmt::format("input '{}' names no node or argument", in));
    if (control) return "^" + renamed_.at(node);
    if (c1 == std::string::npos) return renamed_.at(node) + ":0";
    size_t c2 = body.find(':', c1 + 1);
    if (c2 == std::string::npos) return Fail(req_, where, fmt::format("input '{}' is not node:output:index", in));
    int k = 0;
    const char* first = body.data() + c2 + 1;
    const char* last = body.data() + body.size();
    auto [p, ec] = std::from_chars(first, last, k);
    if (ec != std::errc() || p != last || k < 0) {
      return Fail(req_, where, fmt::format("input '{}' has a bad output index", in));
    }
    Result<int> flat = FlatOutputIndex(*it->second, body.substr(c1 + 1, c2 - c1 - 1), k);
    if (!flat.ok()) return Fail(req_, where, fmt::format("input '{}': {}", in, flat.status().message()));
    return fmt::format("{}:{}", renamed_.at(node), *flat);
  }

  const InlineRequest& req_;
  NodeNames& names_;
  tf::GraphDef& def_;
  std::unordered_map<std::string, std::string> args_;
  NodeIndex nodes_;
  std::unordered_map<std::string, std::string> renamed_;
};

}  // namespace

NodeNames::NodeNames(const tf::GraphDef& def) {
  for (const tf::NodeDef& n : def.node()) used_.insert(n.name());
}

std::string NodeNames::Fresh(const std::string& wanted) {
  std::string name = wanted;
  for (int k = 1; used_.count(name); ++k) name = fmt::format("{}_{}", wanted, k);
  used_.insert(name);
  return name;
}

Result<int> FlatOutputIndex(const tf::NodeDef& node, const std::string& out_arg, int index) {
  // The functional ops have one output list, "output".
  if (IsFunctionalOp(node.op()) && out_arg == "output") return index;
  const TfOpSignature* sig = TfTables::Get().Signature(node.op());
  if (!sig) return Status(Code::kUnimplemented, fmt::format("tfg does not know the outputs of op {}", node.op()));
  int base = 0;
  for (const TfArg& arg : sig->outputs) {
    TFG_ASSIGN_OR_RETURN(int count, ArgCount(node, arg));
    if (arg.name == out_arg) {
      if (index >= count) {
        return Status(Code::kInvalidArgument, fmt::format("output '{}' of {} has {} tensor(s)", out_arg, node.op(), count));
      }
      return base + index;
    }
    base += count;
  }
  return Status(Code::kInvalidArgument, fmt::format("op {} has no output '{}'", node.op(), out_arg));
}

Result<std::vector<std::string>> InlineFunction(const InlineRequest& req, NodeNames& names, tf::GraphDef& def) {
  return Inliner(req, names, def).Run();
}

}  // namespace tfg::interop
