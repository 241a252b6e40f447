// libFuzzer entry for every op in the registry: the input picks one op,
// its attrs (from op_fuzz_input.h's tables of extreme values), its input
// dtypes and small tensors (extreme dims on empty tensors, extreme values in
// index inputs), then runs what graph building and the executor would run
// on them: ResolveSignature, the shape function (on the tensors' shapes,
// partly unknown, or on other shapes a graph could hold; constant inputs
// give their values) and the CPU kernel (Init, then Compute), as
// tests/ops/op_test_util.cc does. Errors are fine; a crash, a hang, a
// sanitizer report or an exception other than bad_alloc (which the
// executor turns into ResourceExhausted) is a finding.
//
// The ops' code comes uninstrumented from the main build's archives, so
// libFuzzer sees little of their coverage; instead each outcome (op, stage,
// error code and the message with its numbers stripped) counts as a
// feature, so inputs that reach a new error path or a success are kept.
//
// Environment:
//   TFG_OP_FUZZ_SEEDS=DIR  write a few seeds per op into DIR and exit;
//   TFG_OP_FUZZ_LIST=1     list the fuzzed ops with their indices and exit;
//   TFG_OP_FUZZ_VERBOSE=1  print each call and its outcome (to turn a
//                          finding into a regression test);
//   TFG_OP_FUZZ_STRICT=1   also abort when a kernel's outputs disagree with
//                          its declared dtypes or its shape function.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "ops/core/checked_size.h"
#include "ops/core/device.h"
#include "ops/core/graph.h"
#include "ops/core/kernel.h"
#include "ops/core/memory_budget.h"
#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"
#include "tests/fuzz/op_fuzz_input.h"

// One byte per outcome class: libFuzzer treats a new (index, count bucket)
// as new coverage.
__attribute__((used, section("__libfuzzer_extra_counters"))) uint8_t tfg_op_fuzz_outcomes[1 << 16];

namespace tfg::fuzz {
namespace {

bool Flag(const char* name) { return std::getenv(name) != nullptr && std::getenv(name)[0] == '1'; }

// Ops that block (dequeue on an empty queue, taking from an accumulator),
// touch files (readers, save, restore) or belong to the executor.
bool Skipped(const OpDef& op) {
  static const char* const kNames[] = {"dequeue", "dequeue_many", "dequeue_up_to", "enqueue", "enqueue_many",
                                       "accumulator_take_gradient", "read", "read_up_to", "save_variables",
                                       "restore_variables", "sleep"};
  for (const char* n : kNames) {
    if (op.name == n) return true;
  }
  const auto contains = [&op](const char* part) { return op.name.find(part) != std::string::npos; };
  return op.name.rfind('_', 0) == 0 || op.name.rfind("test_", 0) == 0 || contains("reader") ||
         contains("save") || contains("restore") || contains("write") ||
         OpRegistry::Global().KernelsFor(op.name).empty();
}

const std::vector<const OpDef*>& FuzzedOps() {
  static const std::vector<const OpDef*> ops = [] {
    std::vector<const OpDef*> out;
    for (const OpDef* op : OpRegistry::Global().ListOps()) {
      if (!Skipped(*op)) out.push_back(op);
    }
    return out;
  }();
  return ops;
}

// Host memory, and a ParallelFor that splits the range into up to three
// shards run one after the other: shard boundaries are exercised without
// threads (which would make runs slower and less reproducible).
class InlineCpuDevice final : public Device {
 public:
  InlineCpuDevice() : Device("/job:localhost/task:0/device:cpu:0", DeviceType::kCpu) {}
  Allocator* allocator() override { return HostAllocator(); }
  void ParallelFor(int64_t total, int64_t, const std::function<void(int64_t, int64_t)>& fn) override {
    if (total <= 0) return;
    const int64_t block = total / 3 + 1;
    for (int64_t begin = 0; begin < total; begin += block) fn(begin, std::min(total, begin + block));
  }
};

// One call of an op as a graph would make it.
struct Call {
  const OpDef* op = nullptr;
  AttrMap attrs;
  std::vector<Tensor> inputs;
  std::vector<PartialShape> graph_shapes;  // what the shape function sees
  std::vector<bool> constant;              // inputs whose values it sees
  // The variables the op updates (OpDef::variables), made in the kernel's
  // ResourceMgr before it runs; an uninitialized Tensor leaves one unset.
  std::vector<Tensor> variables;
};

enum Stage { kSignature, kShapeFn, kShapeCheck, kKernelInit, kCompute, kOutputs };

void Record(size_t op_index, Stage stage, const Status& s) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(op_index);
  mix(stage);
  mix(static_cast<uint64_t>(s.code()));
  // Numbers, quoted names and bracketed shapes vary with the input, the
  // path does not: only the rest of the message tells outcomes apart (else
  // every fuzzed string echoed in a message would count as new coverage).
  int kept = 0, depth = 0;
  bool quoted = false;
  for (char c : s.message()) {
    if (c == '\'' || c == '"') quoted = !quoted;
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (quoted || depth > 0 || (c >= '0' && c <= '9')) continue;
    if (++kept > 80) break;
    mix(static_cast<unsigned char>(c));
  }
  uint8_t& counter = tfg_op_fuzz_outcomes[h % sizeof(tfg_op_fuzz_outcomes)];
  if (counter < 255) ++counter;
}

// The dtypes of input `arg`'s `count` tensors: its fixed dtype, or its type
// attr's (chosen once per attr, as a graph's inputs agree), sometimes (1 in
// 16) another to reach the signature's checks.
std::vector<DType> InputDTypes(FuzzInput& in, const OpDef& op, const ArgDef& arg, int count,
                               std::map<std::string, DType>& bound) {
  std::vector<DType> out;
  const AttrDef* type_attr = op.FindAttr(arg.type);
  for (int k = 0; k < count; ++k) {
    if (auto fixed = DTypeFromName(arg.type); fixed && in.Byte() % 16 != 15) {
      out.push_back(*fixed);
    } else if (type_attr && type_attr->type == AttrType::kTypeList) {
      out.push_back(in.AnyDType());
    } else if (type_attr && in.Byte() % 16 != 15) {
      auto it = bound.find(arg.type);
      if (it == bound.end()) it = bound.emplace(arg.type, in.DTypeFrom(type_attr->allowed_types)).first;
      out.push_back(it->second);
    } else {
      out.push_back(in.AnyDType());
    }
  }
  return out;
}

// The shape function's view of one input: the tensor's shape, the same
// with some dims unknown, an unknown rank, or another shape a graph can hold.
PartialShape GraphShape(FuzzInput& in, const TensorShape& actual) {
  switch (in.Byte() % 8) {
    case 5: {
      std::vector<int64_t> dims = actual.dims();
      for (int64_t& d : dims) d = in.Bit() ? -1 : d;
      return PartialShape(std::move(dims));
    }
    case 6: return PartialShape::Unknown();
    case 7: return in.GraphShape();
    default: return actual;
  }
}

Call BuildCall(FuzzInput& in) {
  const auto& ops = FuzzedOps();
  Call call;
  call.op = ops[in.U16() % ops.size()];
  const OpDef& op = *call.op;
  for (const AttrDef& a : op.attrs) {
    const bool set = a.inferred ? in.Byte() % 32 == 31 : !a.default_value || in.Bit();
    if (set) call.attrs[a.name] = in.Attr(a.type, a.allowed_types);
  }
  std::map<std::string, DType> bound;
  for (const ArgDef& arg : op.inputs) {
    const int count = !arg.is_list ? 1 : in.Byte() % 16 == 15 ? 40 : in.Byte() % 4;
    for (DType d : InputDTypes(in, op, arg, count, bound)) {
      call.inputs.push_back(in.SmallTensor(d));
      call.graph_shapes.push_back(GraphShape(in, call.inputs.back().shape()));
      call.constant.push_back(call.graph_shapes.back() == PartialShape(call.inputs.back().shape()) && in.Bit());
    }
  }
  for (size_t i = 0; i < op.variables.size(); ++i) {
    const DType* declared = FindAttr<DType>(call.attrs, op.variable_types[i]);
    auto it = bound.find(op.variable_types[i]);
    const DType dtype = declared ? *declared : it != bound.end() && in.Byte() % 8 != 7 ? it->second : in.AnyDType();
    call.variables.push_back(in.Byte() % 8 == 7 ? Tensor() : in.SmallTensor(dtype));
  }
  if (in.Byte() % 32 == 31 && !call.inputs.empty()) {  // an input too many or too few
    if (in.Bit()) {
      call.inputs.pop_back();
      call.graph_shapes.pop_back();
      call.constant.pop_back();
    } else {
      call.inputs.push_back(call.inputs.front());
      call.graph_shapes.push_back(call.graph_shapes.front());
      call.constant.push_back(false);
    }
  }
  return call;
}

void Print(const Call& call) {
  std::fprintf(stderr, "op_fuzz: %s(", call.op->name.c_str());
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    std::fprintf(stderr, "%s%s%s as %s", i ? ", " : "", call.inputs[i].DebugString().c_str(),
                 call.constant[i] ? " (constant)" : "", call.graph_shapes[i].ToString().c_str());
  }
  for (const auto& [name, value] : call.attrs) {
    const std::string text = AttrValueToString(value);
    std::fprintf(stderr, ", %s=%.300s%s", name.c_str(), text.c_str(), text.size() > 300 ? "..." : "");
  }
  for (size_t i = 0; i < call.variables.size(); ++i) {
    std::fprintf(stderr, ", variable %s=%s", call.op->variables[i].c_str(), call.variables[i].DebugString().c_str());
  }
  std::fprintf(stderr, ")\n");
}

[[noreturn]] void Finding(const Call& call, const std::string& what) {
  Print(call);
  std::fprintf(stderr, "op_fuzz: %s: %s\n", call.op->name.c_str(), what.c_str());
  std::abort();
}

void Report(size_t op_index, Stage stage, const Status& s) {
  Record(op_index, stage, s);
  if (Flag("TFG_OP_FUZZ_VERBOSE")) std::fprintf(stderr, "op_fuzz:   stage %d: %s\n", stage, s.ToString().c_str());
}

// The shape function as Graph::AddNode calls it, and its outputs checked
// as graph building checks them.
Result<std::vector<PartialShape>> InferShapes(const Call& call, AttrMap& attrs, const Signature& sig) {
  std::vector<const Tensor*> values;
  for (size_t i = 0; i < call.inputs.size(); ++i) values.push_back(call.constant[i] ? &call.inputs[i] : nullptr);
  const int num_outputs = static_cast<int>(sig.output_types.size());
  if (!call.op->shape_fn) return std::vector<PartialShape>(num_outputs);
  ShapeContext c(call.op, &attrs, call.graph_shapes, sig.input_types, std::move(values), num_outputs);
  TFG_RETURN_IF_ERROR(call.op->shape_fn(c));
  for (const PartialShape& shape : c.output_shapes()) TFG_RETURN_IF_ERROR(checked::CheckPartialShape("", shape));
  return c.output_shapes();
}

Status Compute(OpKernel& kernel, OpKernelContext& ctx) {
  if (!kernel.IsAsync()) return kernel.Compute(ctx);
  auto done = std::make_shared<std::promise<Status>>();
  std::future<Status> result = done->get_future();
  kernel.ComputeAsync(ctx, [done](Status s) { done->set_value(std::move(s)); });
  if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    return Status(Code::kDeadlineExceeded, "op_fuzz: an async kernel never finished");
  }
  return result.get();
}

Status CheckOutputs(const Signature& sig, const std::vector<Tensor>& outputs,
                    const std::vector<PartialShape>* inferred) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!t.IsInitialized() || t.dtype() != sig.output_types[i]) {
      return Internal("output {} is {}, declared {}", i, t.DebugString(), DTypeName(sig.output_types[i]));
    }
    if (inferred && !(*inferred)[i].IsCompatibleWith(t.shape())) {
      return Internal("output {} has shape {}, the shape function said {}", i, t.shape().ToString(),
                      (*inferred)[i].ToString());
    }
  }
  return Status::OK();
}

// The variables as the op's attrs name them (`<name>`, `<name>_container`).
bool MakeVariables(const Call& call, const AttrMap& attrs, ResourceMgr& resources) {
  for (size_t i = 0; i < call.variables.size(); ++i) {
    const std::string& param = call.op->variables[i];
    const auto* name = FindAttr<std::string>(attrs, param);
    const auto* container = FindAttr<std::string>(attrs, param + "_container");
    if (name == nullptr) continue;
    auto var = resources.LookupOrCreate<Variable>(container ? *container : "", *name,
                                                  [] { return std::make_shared<Variable>(); });
    if (!var.ok()) return false;
    (*var)->value = call.variables[i];
  }
  return true;
}

void RunKernel(const Call& call, size_t op_index, AttrMap& attrs, const Signature& sig,
               const std::vector<PartialShape>* inferred) {
  static InlineCpuDevice device;
  auto kdef = OpRegistry::Global().FindKernel(*call.op, DeviceType::kCpu, attrs);
  Report(op_index, kKernelInit, kdef.status());
  if (!kdef.ok()) return;
  KernelConstruction info;
  info.op = call.op;
  info.attrs = &attrs;
  info.input_types = sig.input_types;
  info.output_types = sig.output_types;
  info.node_name = call.op->name;
  info.device = &device;
  auto kernel = (*kdef)->factory(info);
  Report(op_index, kKernelInit, kernel.status());
  if (!kernel.ok()) return;
  std::vector<Tensor> inputs = call.inputs;
  std::vector<Tensor> outputs(sig.output_types.size());
  ResourceMgr resources;
  if (!MakeVariables(call, attrs, resources)) return;
  StepInfo step;
  OpKernelContext ctx(&info, inputs.data(), static_cast<int>(inputs.size()), outputs.data(),
                      static_cast<int>(outputs.size()), &resources, &step);
  Status s;
  try {
    s = Compute(**kernel, ctx);
  } catch (const std::bad_alloc&) {
    s = Status(Code::kResourceExhausted, "bad_alloc");
  }
  Report(op_index, kCompute, s);
  if (!s.ok()) return;
  Status checked = CheckOutputs(sig, outputs, inferred);
  Report(op_index, kOutputs, checked);
  if (!checked.ok() && Flag("TFG_OP_FUZZ_STRICT")) Finding(call, checked.ToString());
}

void Run(const Call& call, size_t op_index) {
  if (Flag("TFG_OP_FUZZ_VERBOSE")) Print(call);
  AttrMap attrs = call.attrs;
  std::vector<DType> dtypes;
  for (const Tensor& t : call.inputs) dtypes.push_back(t.dtype());
  auto sig = ResolveSignature(*call.op, dtypes, attrs);
  Report(op_index, kSignature, sig.status());
  if (!sig.ok()) return;  // no graph holds this node: nothing more runs
  auto shapes = InferShapes(call, attrs, *sig);
  Report(op_index, kShapeFn, shapes.status());
  // The kernel runs either way: with unknown shapes at build time (a fed
  // placeholder), the shape function would have let these inputs through.
  // Its outputs must then fit what it inferred, when it saw these tensors.
  bool consistent = shapes.ok();
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    consistent = consistent && call.graph_shapes[i].IsCompatibleWith(call.inputs[i].shape());
  }
  RunKernel(call, op_index, attrs, *sig, consistent ? &*shapes : nullptr);
}

void WriteSeeds(const char* dir) {
  std::mt19937 random(20);
  const size_t n = FuzzedOps().size();
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 4; ++k) {
      std::string bytes = {static_cast<char>(i & 0xff), static_cast<char>(i >> 8)};
      bytes.resize(k == 0 ? 2 : 160);  // the first: every choice ordinary (zero bytes)
      for (size_t b = 2; b < bytes.size(); ++b) bytes[b] = static_cast<char>(random());
      std::ofstream(std::string(dir) + "/" + FuzzedOps()[i]->name + "-" + std::to_string(k), std::ios::binary)
          << bytes;
    }
  }
  std::exit(0);
}

}  // namespace
}  // namespace tfg::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace tfg::fuzz;
  if (const char* dir = std::getenv("TFG_OP_FUZZ_SEEDS")) WriteSeeds(dir);
  if (Flag("TFG_OP_FUZZ_LIST")) {
    for (size_t i = 0; i < FuzzedOps().size(); ++i) std::printf("%zu %s\n", i, FuzzedOps()[i]->name.c_str());
    std::exit(0);
  }
  // Outputs that fit in int64 but not in memory are ResourceExhausted at
  // once, as under a small --memory-limit, instead of a long fill.
  tfg::SetMemoryLimit(int64_t{256} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tfg::fuzz;
  FuzzInput in(data, size);
  Call call = BuildCall(in);
  const size_t op_index = static_cast<size_t>(std::find(FuzzedOps().begin(), FuzzedOps().end(), call.op) -
                                              FuzzedOps().begin());
  try {
    Run(call, op_index);
  } catch (const std::exception& e) {
    Finding(call, std::string("uncaught exception: ") + e.what());
  }
  return 0;
}

// Huge allocations a kernel asks for must come back as errors, not abort.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1:detect_leaks=0"; }
