// restore_variables(filename): sets variables from a checkpoint (the white
// paper's Restore node, §3.3). All or nothing: the whole file is read and
// verified, and every variable checked against it, before any is assigned,
// so a refused restore leaves every variable as it was.
#include <map>

#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"
#include "ops/io/checkpoint_file.h"
#include "ops/io/checkpoint_vars.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

// What is wrong between a checkpoint and the variables asked for.
struct Mismatches {
  std::vector<std::string> missing;     // variables the file lacks
  std::vector<std::string> wrong_type;  // one sentence each
  std::vector<std::string> unused;      // tensors no variable takes

  bool empty() const { return missing.empty() && wrong_type.empty() && unused.empty(); }
  std::string Message(const std::string& path) const {
    std::vector<std::string> parts;
    if (!missing.empty()) parts.push_back("not in the file: " + checkpoint::NameList(missing));
    for (size_t i = 0; i < wrong_type.size() && i < 5; ++i) parts.push_back(wrong_type[i]);
    if (wrong_type.size() > 5) parts.push_back(fmt::format("{} more mismatched variables", wrong_type.size() - 5));
    if (!unused.empty()) {
      parts.push_back("in the file but matching no variable: " + checkpoint::NameList(unused) +
                      " (pass vars= to restore a subset)");
    }
    std::string out = fmt::format("restore: checkpoint '{}' does not fit the variables, nothing was restored", path);
    for (const std::string& p : parts) out += "; " + p;
    return out;
  }
};

class RestoreVariablesKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_RETURN_IF_ERROR(vars_.Init(c));
    const auto* dtypes = c.attr<std::vector<DType>>("dtypes");
    const auto* shapes = c.attr<std::vector<PartialShape>>("shapes");
    if (!dtypes || !shapes || dtypes->size() != vars_.size() || shapes->size() != vars_.size()) {
      return InvalidArgument("restore_variables: dtypes and shapes must have one entry per variable");
    }
    dtypes_ = *dtypes;
    shapes_ = *shapes;
    if (const bool* b = c.attr<bool>("allow_unused")) allow_unused_ = *b;
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::string path, checkpoint::FileNameInput(ctx, "restore"));
    if (ctx.resources() == nullptr) return Internal("restore: this run has no resource manager holding variables");
    auto entries = checkpoint::Read(path);
    if (!entries.ok()) return Status(entries.status()).Prepend("restore: ");
    std::vector<const Tensor*> values(vars_.size(), nullptr);
    Mismatches problems = Match(*entries, values);
    if (!problems.empty()) return InvalidArgument("{}", problems.Message(path));
    // Every variable is found before any is assigned, so a lookup error
    // cannot leave some of them restored.
    std::vector<std::shared_ptr<Variable>> targets;
    for (size_t i = 0; i < vars_.size(); ++i) {
      TFG_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var, Lookup(ctx, i));
      targets.push_back(std::move(var));
    }
    for (size_t i = 0; i < vars_.size(); ++i) {
      // The decoded tensor is held by nobody else: the variable takes it.
      std::lock_guard<std::mutex> lock(targets[i]->mu);
      targets[i]->value = *values[i];
    }
    return Status::OK();
  }

 private:
  // Pairs each variable with its tensor in the file; what does not fit.
  Mismatches Match(const std::vector<checkpoint::Entry>& entries, std::vector<const Tensor*>& values) const {
    std::map<std::string, const Tensor*> by_name;
    for (const checkpoint::Entry& e : entries) by_name[e.name] = &e.value;
    Mismatches m;
    for (size_t i = 0; i < vars_.size(); ++i) {
      auto it = by_name.find(vars_.names[i]);
      if (it == by_name.end()) {
        m.missing.push_back(vars_.names[i]);
        continue;
      }
      const Tensor& t = *it->second;
      if (t.dtype() != dtypes_[i] || !shapes_[i].IsCompatibleWith(t.shape())) {
        m.wrong_type.push_back(fmt::format("'{}' is {} in the file but the variable is {}", vars_.names[i],
                                           t.DebugString(), state::TypeAndShape(dtypes_[i], shapes_[i])));
      }
      values[i] = &t;
      by_name.erase(it);
    }
    if (!allow_unused_) {
      for (const auto& [name, t] : by_name) m.unused.push_back(name);
    }
    return m;
  }

  Result<std::shared_ptr<Variable>> Lookup(OpKernelContext& ctx, size_t i) const {
    return ctx.resources()->LookupOrCreate<Variable>(vars_.containers[i], vars_.shared_names[i],
                                                     [] { return std::make_shared<Variable>(); });
  }

  checkpoint::VariableList vars_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
  bool allow_unused_ = false;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("restore_variables")
                    .Input("filename", "string")
                    .Attr("tensor_names", AttrType::kStringList, std::nullopt, "the name of each variable in the file")
                    .Attr("shared_names", AttrType::kStringList, std::nullopt, "the variables' shared names")
                    .Attr("containers", AttrType::kStringList, std::nullopt, "the variables' containers")
                    .Attr("dtypes", AttrType::kTypeList, std::nullopt, "the variables' dtypes")
                    .Attr("shapes", AttrType::kShapeList, std::nullopt, "the variables' declared shapes")
                    .Attr("allow_unused", AttrType::kBool, false,
                          "whether tensors of the file that no variable takes are allowed")
                    .Stateful()
                    .SetShapeFn(checkpoint::FileNameShapeFn)
                    .NoGradient("assigns variables from a file; it computes nothing to differentiate")
                    .Doc("Sets the named variables from the checkpoint `filename`, initializing those not "
                         "initialized yet. All or nothing: the file is verified (checksums, sizes) and every "
                         "variable's presence, dtype and shape checked before any is assigned. Scripts call "
                         "restore(path, vars) instead."));
TFG_REGISTER_KERNEL(KernelDef("restore_variables", DeviceType::kCpu).Create<RestoreVariablesKernel>());

}  // namespace tfg
