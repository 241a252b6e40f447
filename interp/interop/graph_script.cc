#include "interp/interop/graph_script.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "interp/data/npy.h"
#include "interp/language/builtins/builtins.h"

namespace tfg::interop {
namespace {

namespace fs = std::filesystem;

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string Number(double d) { return std::isfinite(d) ? fmt::format("{}", d) : (d > 0 ? "inf" : d < 0 ? "-inf" : "nan"); }

std::string ShapeLiteral(const PartialShape& s) {
  if (!s.known_rank()) return "none";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + (s.dim(i) < 0 ? std::string("?") : fmt::format("{}", s.dim(i)));
  return out + "]";
}

Result<std::string> AttrLiteral(const AttrValue& v) {
  struct Visitor {
    Result<std::string> operator()(std::monostate) { return std::string("none"); }
    Result<std::string> operator()(int64_t i) { return fmt::format("{}", i); }
    Result<std::string> operator()(double d) { return Number(d); }
    Result<std::string> operator()(bool b) { return std::string(b ? "true" : "false"); }
    Result<std::string> operator()(const std::string& s) { return Quote(s); }
    Result<std::string> operator()(DType d) { return std::string(DTypeName(d)); }
    Result<std::string> operator()(const PartialShape& s) { return ShapeLiteral(s); }
    Result<std::string> operator()(const std::vector<int64_t>& l) { return "[" + fmt::format("{}", fmt::join(l, ", ")) + "]"; }
    Result<std::string> operator()(const std::vector<double>& l) {
      std::vector<std::string> items;
      for (double d : l) items.push_back(Number(d));
      return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
    }
    Result<std::string> operator()(const std::vector<DType>& l) {
      std::vector<std::string> items;
      for (DType d : l) items.emplace_back(DTypeName(d));
      return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
    }
    Result<std::string> operator()(const std::vector<PartialShape>& l) {
      std::vector<std::string> items;
      for (const PartialShape& s : l) items.push_back(ShapeLiteral(s));
      return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
    }
    Result<std::string> operator()(const std::vector<std::string>& l) {
      std::vector<std::string> items;
      for (const std::string& s : l) items.push_back(Quote(s));
      return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
    }
    Result<std::string> operator()(const Tensor&) {
      return Status(Code::kUnimplemented, "a tensor attr other than a constant's value");
    }
  };
  return std::visit(Visitor{}, v);
}

// A host literal for a small tensor: nested lists of its elements.
std::string TensorLiteral(const Tensor& t, int dim, int64_t& at) {
  if (dim == t.rank()) {
    int64_t i = at++;
    switch (t.dtype()) {
      case DType::kF32: {
        float f = t.data<float>()[i];
        return std::isfinite(f) ? fmt::format("{}", f) : Number(f);  // the shortest text that reads back as f
      }
      case DType::kF64: return Number(t.data<double>()[i]);
      case DType::kI32: return fmt::format("{}", t.data<int32_t>()[i]);
      case DType::kI64: return fmt::format("{}", t.data<int64_t>()[i]);
      case DType::kBool: return t.data<bool>()[i] ? "true" : "false";
      case DType::kString: return Quote(t.data<std::string>()[i]);
      default: return "0";
    }
  }
  std::string out = "[";
  for (int64_t k = 0; k < t.dim(dim); ++k) out += (k ? ", " : "") + TensorLiteral(t, dim + 1, at);
  return out + "]";
}

bool AllFinite(const Tensor& t) {
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double v = t.dtype() == DType::kF32 ? t.data<float>()[i] : t.dtype() == DType::kF64 ? t.data<double>()[i] : 0;
    if (!std::isfinite(v)) return false;
  }
  return true;
}

class ScriptWriter {
 public:
  ScriptWriter(const std::string& path, const ScriptOptions& opts) : path_(path), opts_(opts) {
    fs::path p(path);
    data_dir_name_ = p.stem().string() + "_data";
    data_dir_ = (p.parent_path() / data_dir_name_).string();
  }

  Status Write(const Graph& g) {
    for (const auto& n : g.nodes()) TFG_RETURN_IF_ERROR(Writable(*n));
    std::string text = opts_.header;
    for (const auto& n : g.nodes()) {
      TFG_ASSIGN_OR_RETURN(std::string stmt, Statement(*n));
      text += stmt + "\n";
    }
    std::ofstream out(path_, std::ios::trunc);
    if (!out || !(out << text) || !out.flush()) return Status(Code::kPermissionDenied, fmt::format("cannot write '{}'", path_));
    return Status::OK();
  }

 private:
  // A script name for a node: its graph name with '/' and '.' as '_'.
  std::string VarName(const Node& n) {
    std::string v;
    for (char c : n.name()) v += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (v.empty() || std::isdigit(static_cast<unsigned char>(v[0]))) v = "n_" + v;
    std::string unique = v;
    for (int k = 1; !used_.insert(unique).second; ++k) unique = fmt::format("{}_{}", v, k);
    return unique;
  }

  // Loops (their back edge reads a node defined later), conditionals (a
  // script's merge() call cannot be given merge's N) and variables (the
  // script's variable() is a builtin with an initial value) are refused
  // before anything is written.
  static Status Writable(const Node& n) {
    const OpDef& op = n.op();
    if (op.name == "next_iteration" || op.name == "merge" || op.name == "variable" || !op.variables.empty() ||
        (op.name != "constant" && BuiltinRegistry::Global().Find(op.name))) {
      return Status(Code::kUnimplemented,
                    fmt::format("tfg import: node '{}' ({}) can not be written as a script statement yet (while "
                                "loops, conditionals and variables import with import_graph_def only)",
                                n.name(), op.name));
    }
    return Status::OK();
  }

  // Nodes are written in creation order, so every input is defined above
  // its reader (loops, the one exception, are refused by Writable).
  std::string Ref(const Output& o) {
    const std::string& var = vars_.at(o.node);
    return o.node->num_outputs() == 1 ? var : fmt::format("{}[{}]", var, o.index);
  }

  Result<std::string> ConstantCall(const Node& n, const std::string& var) {
    const Tensor* t = n.attr<Tensor>("value");
    if (!t) return Status(Code::kInvalidArgument, fmt::format("constant '{}' has no value", n.name()));
    std::string value;
    if (t->num_elements() <= opts_.inline_limit && AllFinite(*t) && t->dtype() != DType::kF16) {
      int64_t at = 0;
      value = TensorLiteral(*t, 0, at);
    } else {
      std::error_code ec;
      fs::create_directories(data_dir_, ec);
      std::string file = var + ".npy";
      TFG_RETURN_IF_ERROR(data::WriteNpyFile((fs::path(data_dir_) / file).string(), *t));
      value = fmt::format("load_npy({})", Quote(data_dir_name_ + "/" + file));
    }
    return fmt::format("constant({}, {}, name={})", value, DTypeName(t->dtype()), Quote(n.name()));
  }

  Result<std::string> OpCall(const Node& n) {
    const OpDef& op = n.op();
    std::vector<std::string> args;
    size_t next = 0;
    std::set<std::string> counts;
    for (const ArgDef& a : op.inputs) {
      if (!a.is_list) {
        args.push_back(Ref(n.inputs().at(next++)));
        continue;
      }
      counts.insert(a.count_attr);
      const int64_t* count = n.attr<int64_t>(a.count_attr);
      std::vector<std::string> items;
      for (int64_t k = 0; count && k < *count; ++k) items.push_back(Ref(n.inputs().at(next++)));
      args.push_back("[" + fmt::format("{}", fmt::join(items, ", ")) + "]");
    }
    for (const AttrDef& ad : op.attrs) {
      auto it = n.attrs().find(ad.name);
      if (ad.inferred || counts.count(ad.name) || it == n.attrs().end()) continue;
      if (ad.default_value && AttrValuesEqual(*ad.default_value, it->second)) continue;
      TFG_ASSIGN_OR_RETURN(std::string lit, AttrLiteral(it->second));
      args.push_back(ad.name + "=" + lit);
    }
    args.push_back("name=" + Quote(n.name()));
    return fmt::format("{}({})", op.name, fmt::join(args, ", "));
  }

  Result<std::string> Statement(const Node& n) {
    std::string var = VarName(n);
    std::string call;
    if (n.op_name() == "constant") {
      TFG_ASSIGN_OR_RETURN(call, ConstantCall(n, var));
    } else {
      TFG_ASSIGN_OR_RETURN(call, OpCall(n));
    }
    vars_[&n] = var;
    std::string stmt = var + " = " + call;
    if (!n.control_inputs().empty()) {
      std::vector<std::string> deps;
      for (const Node* c : n.control_inputs()) deps.push_back(vars_.at(c));
      stmt = fmt::format("with deps({}) {{ {} }}", fmt::join(deps, ", "), stmt);
    }
    if (!n.requested_device().empty()) stmt = fmt::format("with device({}) {{ {} }}", Quote(n.requested_device()), stmt);
    return stmt;
  }

  std::string path_;
  const ScriptOptions& opts_;
  std::string data_dir_name_;
  std::string data_dir_;
  std::set<std::string> used_;
  std::unordered_map<const Node*, std::string> vars_;
};

}  // namespace

Status WriteGraphScript(const Graph& graph, const std::string& script_path, const ScriptOptions& opts) {
  ScriptWriter w(script_path, opts);
  return w.Write(graph);
}

}  // namespace tfg::interop
