// The op registry: every op is declared once, in its own file under ops/,
// with its signature, attrs, shape function, gradient, doc and kernels:
//
//   TFG_REGISTER_OP(OpDefBuilder("matmul")
//       .Input("a", "T").Input("b", "T").Output("product", "T")
//       .TypeAttr("T", NumberTypes())
//       .Attr("transpose_a", AttrType::kBool, false)
//       .Attr("transpose_b", AttrType::kBool, false)
//       .SetShapeFn(MatMulShape)
//       .SetCostFn(MatMulCost)
//       .Doc("Matrix product of the last two dimensions; leading ones batch."));
//   TFG_REGISTER_KERNEL(KernelDef("matmul", DeviceType::kCpu).Create<MatMulKernel>());
//
// Op names are the names scripts call them by (snake_case); the language
// exposes every registered op as a function. A call binds its positional
// arguments to the op's parameters in declaration order: inputs and
// attributes interleaved as declared, except type attributes that are
// inferred from inputs (those are keyword-only, e.g. `dtype=`).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/core/device_type.h"
#include "ops/core/attr.h"
#include "ops/core/status.h"

namespace tfg {

class ShapeContext;
class Node;
class OpKernel;
struct KernelConstruction;
struct GradContext;  // defined with autodiff

using ShapeFn = std::function<Status(ShapeContext&)>;
using GradFn = std::function<Status(GradContext&)>;
// The work of one run of a node, in arithmetic operations (ops/core/op_cost.h):
// what the placer's cost model prices a node by.
using CostFn = std::function<double(const Node&)>;
using KernelFactory = std::function<Result<std::unique_ptr<OpKernel>>(const KernelConstruction&)>;

struct ArgDef {
  std::string name;
  // Either a dtype name ("bool", "i64") or the name of a type attr ("T").
  std::string type;
  // A list input/output: inputs take a list of tensors (count stored in the
  // int attr `count_attr`, set automatically for inputs); outputs produce
  // `count_attr` tensors (e.g. split's num).
  bool is_list = false;
  std::string count_attr;
};

struct AttrDef {
  std::string name;
  AttrType type;
  std::optional<AttrValue> default_value;  // nullopt: required
  DTypeSet allowed_types;                  // for kType attrs; empty = any
  bool inferred = false;                   // type attr inferred from inputs
  std::string doc;
};

// A parameter of the script-level call, in declaration order.
struct ParamRef {
  bool is_input;
  int index;  // into OpDef::inputs, OpDef::attrs, or (is_variable) OpDef::variables
  bool is_variable = false;
};

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  std::vector<ParamRef> params;
  // Variable parameters (VariableInput): the script passes a variable; the
  // node refers to it by the string attrs `<name>` (its shared name) and
  // `<name>_container`, and its kernel finds it in the ResourceMgr.
  std::vector<std::string> variables;
  std::vector<std::string> variable_types;  // the type attr each variable's dtype binds
  ShapeFn shape_fn;       // null: outputs of unknown shape
  CostFn cost_fn;         // null: ElementwiseCost, one operation per element read or written
  GradFn grad_fn;         // null: see no_gradient_reason
  std::string no_gradient_reason;  // "integer output", "stateful", ... or empty
  // Stateful ops (variables, random, placeholders, queues) are never
  // evaluated eagerly, constant-folded or merged by CSE.
  bool stateful = false;
  std::string doc;

  const AttrDef* FindAttr(const std::string& attr_name) const;
  int FindInput(const std::string& input_name) const;  // -1 when absent
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  OpDefBuilder& Input(std::string name, std::string type);
  // A list of tensors of one type; the count goes into int attr `name`_count
  // unless `count_attr` is given.
  OpDefBuilder& InputList(std::string name, std::string type, std::string count_attr = "");
  OpDefBuilder& Output(std::string name, std::string type);
  // A variable the op reads or updates in place (optimizer apply ops,
  // scatter updates). `type` names the type attr bound to the variable's
  // dtype (keyword-only, like an inferred type attr).
  OpDefBuilder& VariableInput(std::string name, std::string type);
  // `count_attr` (an int attr declared on the op) gives the number of outputs.
  OpDefBuilder& OutputList(std::string name, std::string type, std::string count_attr);
  // A dtype attribute. When some input is declared with this type it is
  // inferred from that input (and keyword-only); otherwise it is an ordinary
  // positional parameter (placeholder(f32, ...), cast(x, f64)).
  OpDefBuilder& TypeAttr(std::string name, DTypeSet allowed, std::optional<DType> default_type = std::nullopt);
  OpDefBuilder& Attr(std::string name, AttrType type, std::optional<AttrValue> default_value = std::nullopt,
                     std::string doc = "");
  OpDefBuilder& Stateful();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& SetCostFn(CostFn fn);
  OpDefBuilder& SetGradFn(GradFn fn);
  OpDefBuilder& NoGradient(std::string reason);
  OpDefBuilder& Doc(std::string doc);

  OpDef Build() &&;

 private:
  OpDef def_;
};

struct KernelDef {
  KernelDef(std::string op, DeviceType device) : op(std::move(op)), device(device) {}
  // Restricts the kernel to these values of type attr `attr` (default: the
  // op's first type attr). Empty: every dtype the op allows.
  KernelDef& TypeConstraint(DTypeSet types, std::string attr = "");
  template <typename K>
  KernelDef& Create();  // K has a default constructor and OpKernel's virtuals
  KernelDef& Factory(KernelFactory f) {
    factory = std::move(f);
    return *this;
  }

  std::string op;
  DeviceType device;
  std::string type_attr;
  DTypeSet types;
  KernelFactory factory;
};

class OpRegistry {
 public:
  static OpRegistry& Global();
  // Registration errors are programming errors in tfg itself: reported on
  // stderr at start-up and the op is skipped.
  void Register(OpDef def);
  void RegisterKernel(KernelDef def);

  const OpDef* Find(const std::string& name) const;  // nullptr when unknown
  std::vector<const OpDef*> ListOps() const;         // sorted by name
  // The kernel for a node's op on `device` given its attrs; error names the
  // op, the device and the dtype when there is none.
  Result<const KernelDef*> FindKernel(const OpDef& op, DeviceType device, const AttrMap& attrs) const;
  std::vector<const KernelDef*> KernelsFor(const std::string& op) const;
  // Closest registered op names, for "unknown op 'matmull'; did you mean 'matmul'?".
  std::vector<std::string> Suggest(const std::string& name) const;

 private:
  std::vector<std::unique_ptr<OpDef>> ops_;
  std::vector<std::unique_ptr<KernelDef>> kernels_;
};

struct OpRegistrar {
  OpRegistrar(OpDefBuilder& b) { OpRegistry::Global().Register(std::move(b).Build()); }   // NOLINT
  OpRegistrar(OpDefBuilder&& b) { OpRegistry::Global().Register(std::move(b).Build()); }  // NOLINT
};
struct KernelRegistrar {
  KernelRegistrar(KernelDef& k) { OpRegistry::Global().RegisterKernel(std::move(k)); }  // NOLINT
  KernelRegistrar(KernelDef&& k) { OpRegistry::Global().RegisterKernel(std::move(k)); }  // NOLINT
};

}  // namespace tfg

#define TFG_REG_CONCAT_INNER(a, b) a##b
#define TFG_REG_CONCAT(a, b) TFG_REG_CONCAT_INNER(a, b)
#define TFG_REGISTER_OP(builder) \
  static ::tfg::OpRegistrar TFG_REG_CONCAT(tfg_op_registrar_, __COUNTER__)(builder)
#define TFG_REGISTER_KERNEL(kernel_def) \
  static ::tfg::KernelRegistrar TFG_REG_CONCAT(tfg_kernel_registrar_, __COUNTER__)(kernel_def)

#include "ops/core/kernel.h"

template <typename K>
tfg::KernelDef& tfg::KernelDef::Create() {
  factory = [](const KernelConstruction& c) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<K>();
    TFG_RETURN_IF_ERROR(k->Init(c));
    return std::unique_ptr<OpKernel>(std::move(k));
  };
  return *this;
}
