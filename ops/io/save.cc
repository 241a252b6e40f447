// save_variables(filename): writes the current values of variables to a
// checkpoint (the white paper's Save node, §3.3). The variables are named by
// attrs and read from the ResourceMgr, as the `variable` op reads them, so
// one node saves variables of any mix of dtypes. The interpreter's save()
// builds one node per set of variables and runs it at once.
#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"
#include "ops/io/checkpoint_file.h"
#include "ops/io/checkpoint_vars.h"
#include "ops/io/tf_bundle_file.h"

namespace tfg {
namespace {

class SaveVariablesKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const std::string* f = c.attr<std::string>("format")) {
      if (*f != "tfg" && *f != "tensorflow") {
        return InvalidArgument("save: format must be \"tfg\" or \"tensorflow\", got \"{}\"", *f);
      }
      tensorflow_ = *f == "tensorflow";
    }
    return vars_.Init(c);
  }

  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::string path, checkpoint::FileNameInput(ctx, "save"));
    if (ctx.resources() == nullptr) return Internal("save: this run has no resource manager holding variables");
    std::vector<checkpoint::Entry> entries;
    std::vector<std::string> uninitialized;
    for (size_t i = 0; i < vars_.size(); ++i) {
      Tensor value = Current(*ctx.resources(), i);
      if (!value.IsInitialized()) {
        uninitialized.push_back(vars_.names[i]);
        continue;
      }
      entries.push_back({vars_.names[i], std::move(value)});
    }
    if (!uninitialized.empty()) {
      return FailedPrecondition("save: {} variable(s) have no value yet: {}; call init() (or restore) first",
                                uninitialized.size(), checkpoint::NameList(uninitialized));
    }
    return tensorflow_ ? tf_bundle::WriteBundle(path, entries) : checkpoint::Write(path, entries);
  }

 private:
  // The variable's value (sharing its buffer), or an uninitialized tensor.
  Tensor Current(ResourceMgr& resources, size_t i) const {
    std::shared_ptr<Variable> var = resources.Lookup<Variable>(vars_.containers[i], vars_.shared_names[i]);
    if (!var) return Tensor();
    std::lock_guard<std::mutex> lock(var->mu);
    return var->value;
  }

  checkpoint::VariableList vars_;
  bool tensorflow_ = false;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("save_variables")
                    .Input("filename", "string")
                    .Attr("tensor_names", AttrType::kStringList, std::nullopt, "the name of each variable in the file")
                    .Attr("shared_names", AttrType::kStringList, std::nullopt, "the variables' shared names")
                    .Attr("containers", AttrType::kStringList, std::nullopt, "the variables' containers")
                    .Attr("format", AttrType::kString, std::string("tfg"),
                          "\"tfg\" (one file) or \"tensorflow\" (a V2 checkpoint: filename.index and "
                          "filename.data-00000-of-00001, as tf.train.Saver writes)")
                    .Stateful()
                    .SetShapeFn(checkpoint::FileNameShapeFn)
                    .NoGradient("writes a file; it computes nothing to differentiate")
                    .Doc("Writes the current values of the named variables to the checkpoint `filename` "
                         "atomically (a temporary file, then rename), creating its directories. Scripts call "
                         "save(path, vars) instead; docs/checkpoints.md gives the file format."));
TFG_REGISTER_KERNEL(KernelDef("save_variables", DeviceType::kCpu).Create<SaveVariablesKernel>());

}  // namespace tfg
