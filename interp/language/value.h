// Host values of the tfg language. A Value is what an expression evaluates
// to: a Python-like host value (none, bool, int, float, string, list, dict,
// range), a host tensor (computed already), or a handle on the graph (a
// graph tensor, an op, a variable). Functions, builtins, registry ops,
// modules, dtypes and `with` contexts are values too.
//
// Values are cheap to copy: containers (lists, dicts) and closures are
// shared by reference, like Python objects; tensors share their buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {

namespace ast {
struct FunctionDef;
}

class Value;
struct Env;
struct BuiltinDef;

// The order matches Value::Rep's alternatives: kind() is the index.
enum class ValueKind {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kList,
  kDict,
  kTensor,       // host tensor
  kGraphTensor,  // one output of a graph node
  kOp,           // a node used for its effect (no_op, group, an update)
  kVariable,     // a graph tensor that also knows its variable
  kFunction,     // a closure written in tfg
  kBuiltin,      // a function implemented by the interpreter
  kOpFunction,   // a registry op called as a function (`relu`)
  kModule,
  kDType,
  kRange,
  kContext,      // device(...), scope(...), deps(...), container(...)
};

// "int", "graph tensor", ... as messages name them.
const char* KindName(ValueKind kind);

// Lists, dicts and functions free what they hold with a loop, not by
// recursion (value_teardown.cc): `x = [x]` run 150,000 times must not
// overflow the stack when the outermost list goes.
struct List {
  ~List();
  std::vector<Value> items;
};

// Insertion-ordered. Keys are host scalars, strings, dtypes or graph tensors
// (compared by identity); 1, 1.0 and true are the same key, as in Python.
class Dict {
 public:
  ~Dict();
  friend class Value;  // ReleaseContentsInto empties a dict being freed
  Value* Find(const Value& key);
  const Value* Find(const Value& key) const;
  // Error for keys that cannot be hashed (lists, tensors, ...).
  Status Set(const Value& key, Value value);
  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }
  size_t size() const;  // out of line: Value is incomplete here

 private:
  std::vector<std::pair<Value, Value>> entries_;
  std::unordered_map<std::string, size_t> index_;
};

// Python's range: start, stop, step (never 0).
struct Range {
  int64_t start = 0;
  int64_t stop = 0;
  int64_t step = 1;
  int64_t size() const;
  int64_t at(int64_t i) const { return start + i * step; }
};

struct OpRef {
  Node* node = nullptr;
};

// What `variable(...)` made: the variable node (reading it gives the value)
// and the assign node that initializes it.
struct VariableInfo {
  Node* node = nullptr;
  Node* init = nullptr;
  std::string shared_name;
  std::string container;
  bool trainable = true;
  // The initial value reads other variables, so init() must run this
  // initializer after theirs.
  bool init_reads_variables = false;
  Output output() const { return Output{node, 0}; }
  DType dtype() const { return node->output_types()[0]; }
  const PartialShape& shape() const { return node->output_shapes()[0]; }
};

struct Function {
  std::shared_ptr<const ast::FunctionDef> def;
  std::shared_ptr<Env> closure;
  // One per parameter; nullopt for a required one. Evaluated when the
  // function was defined, as in Python.
  std::vector<std::optional<Value>> defaults;
  ~Function();
};

struct Module {
  std::string name;
  std::string path;
  std::shared_ptr<Env> globals;
};

// A builtin function as a value. It carries the builtin's name so that
// printing a value needs nothing from the builtins, which sit above values.
struct BuiltinRef {
  const BuiltinDef* def;
  const std::string* name;  // the def's own
};

class ReplicaDeviceSetter;

struct ContextValue {
  enum class Kind { kDevice, kScope, kDeps, kContainer, kColocate };
  Kind kind;
  std::string text;          // device spec, scope name, container name or the node to colocate with
  std::vector<Node*> nodes;  // for deps
  std::shared_ptr<ReplicaDeviceSetter> setter;  // a device context made by replica_device_setter(...)
};

class Value {
 public:
  using Rep = std::variant<std::monostate, bool, int64_t, double, std::string, std::shared_ptr<List>,
                           std::shared_ptr<Dict>, Tensor, Output, OpRef, std::shared_ptr<VariableInfo>,
                           std::shared_ptr<Function>, BuiltinRef, const OpDef*, std::shared_ptr<Module>,
                           DType, Range, std::shared_ptr<ContextValue>>;

  Value() = default;  // none
  static Value None() { return Value(); }
  static Value Bool(bool b) { return Value(Rep(b)); }
  static Value Int(int64_t i) { return Value(Rep(i)); }
  static Value Float(double d) { return Value(Rep(d)); }
  static Value Str(std::string s) { return Value(Rep(std::move(s))); }
  static Value NewList(std::vector<Value> items = {});
  static Value NewDict() { return Value(Rep(std::make_shared<Dict>())); }
  static Value HostTensor(Tensor t) { return Value(Rep(std::move(t))); }
  static Value Graph(Output o) { return Value(Rep(o)); }
  static Value Op(Node* n) { return Value(Rep(OpRef{n})); }
  static Value Variable(std::shared_ptr<VariableInfo> v) { return Value(Rep(std::move(v))); }
  static Value Fn(std::shared_ptr<Function> f) { return Value(Rep(std::move(f))); }
  // `name` is b->name (builtins.h), which must outlive the value.
  static Value Builtin(const BuiltinDef* b, const std::string& name) { return Value(Rep(BuiltinRef{b, &name})); }
  static Value OpFunction(const OpDef* op) { return Value(Rep(op)); }
  static Value Mod(std::shared_ptr<Module> m) { return Value(Rep(std::move(m))); }
  static Value Type(DType d) { return Value(Rep(d)); }
  static Value RangeOf(Range r) { return Value(Rep(r)); }
  static Value Context(std::shared_ptr<ContextValue> c) { return Value(Rep(std::move(c))); }

  ValueKind kind() const { return static_cast<ValueKind>(rep_.index()); }
  bool is(ValueKind k) const { return kind() == k; }
  bool is_none() const { return is(ValueKind::kNone); }
  // int or float (bool excluded).
  bool is_number() const { return is(ValueKind::kInt) || is(ValueKind::kFloat); }
  // A graph tensor or a variable: anything that builds nodes when used.
  bool is_graph() const { return is(ValueKind::kGraphTensor) || is(ValueKind::kVariable); }

  bool as_bool() const { return std::get<bool>(rep_); }
  int64_t as_int() const { return std::get<int64_t>(rep_); }
  double as_float() const { return std::get<double>(rep_); }
  // An int or float as a double.
  double as_number() const { return is(ValueKind::kInt) ? static_cast<double>(as_int()) : as_float(); }
  const std::string& as_string() const { return std::get<std::string>(rep_); }
  List& as_list() const { return *std::get<std::shared_ptr<List>>(rep_); }
  Dict& as_dict() const { return *std::get<std::shared_ptr<Dict>>(rep_); }
  const Tensor& as_tensor() const { return std::get<Tensor>(rep_); }
  const Output& as_output() const { return std::get<Output>(rep_); }
  Node* as_op() const { return std::get<OpRef>(rep_).node; }
  const std::shared_ptr<VariableInfo>& as_variable() const { return std::get<std::shared_ptr<VariableInfo>>(rep_); }
  const std::shared_ptr<Function>& as_function() const { return std::get<std::shared_ptr<Function>>(rep_); }
  const BuiltinDef* as_builtin() const { return std::get<BuiltinRef>(rep_).def; }
  const std::string& builtin_name() const { return *std::get<BuiltinRef>(rep_).name; }
  const OpDef* as_op_function() const { return std::get<const OpDef*>(rep_); }
  const std::shared_ptr<Module>& as_module() const { return std::get<std::shared_ptr<Module>>(rep_); }
  DType as_dtype() const { return std::get<DType>(rep_); }
  const Range& as_range() const { return std::get<Range>(rep_); }
  const ContextValue& as_context() const { return *std::get<std::shared_ptr<ContextValue>>(rep_); }

  // The graph output a graph tensor or variable stands for.
  Output graph_output() const { return is(ValueKind::kVariable) ? as_variable()->output() : as_output(); }
  // Same object (containers and closures) or equal scalar.
  bool SameObject(const Value& other) const;
  // When this value is the last owner of a list, dict or function: moves
  // the values that holds into `out`, leaving it empty (teardown's loop).
  void ReleaseContentsInto(std::vector<Value>& out);

 private:
  explicit Value(Rep rep) : rep_(std::move(rep)) {}
  Rep rep_;
};

// A scope of names: a function call's locals or a module's globals.
// Lookups walk `parent` (the defining scope) outwards.
struct Env {
  std::unordered_map<std::string, Value> vars;
  std::shared_ptr<Env> parent;
  Value* Lookup(const std::string& name);
};

// "an int", "a graph tensor f32[?, 784]", "a host tensor i32[2]", "none":
// for messages.
std::string Describe(const Value& v);
// True when `v` holds a graph tensor or variable anywhere (lists, dicts).
bool ContainsGraph(const Value& v);
// Python truthiness; graph tensors and multi-element tensors have none.
Result<bool> Truthy(const Value& v);

// Python's repr of a float: "0.1", "3.0", "1e-05", "inf".
std::string FormatFloat(double d);
// How print() shows a value: strings raw, everything else as Repr.
std::string ToDisplayString(const Value& v);
// Like ToDisplayString but strings quoted: how values inside lists print.
std::string Repr(const Value& v);
// "x:0" for output 0 of node x.
std::string OutputName(const Output& o);
// A string's characters, as len(), indexing, slicing and for count them
// (Python's): a character of several UTF-8 bytes is one.
std::vector<std::string_view> Characters(std::string_view s);

}  // namespace tfg
