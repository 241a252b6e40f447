#include "interp/runtime/session.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <new>
#include <unordered_map>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/remote_tasks.h"
#include "devices/cuda/cuda_devices.h"
#include "devices/device_copy.h"
#include "interp/runtime/device_set.h"
#include "interp/runtime/executor.h"
#include "interp/runtime/partition.h"
#include "interp/runtime/partitioned_run.h"
#include "interp/runtime/graph_optimizer.h"
#include "interp/runtime/placement_log.h"
#include "interp/runtime/placer.h"
#include "interp/runtime/plan.h"
#include "interp/runtime/run_signature.h"
#include "ops/core/memory_budget.h"
#include "interp/runtime/fuse_placed.h"
#include "interp/runtime/run_stats.h"
#include "interp/runtime/thread_pool.h"
#include "interp/runtime/trace.h"
#include "ops/math/blas_config.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

// A run signature: fetches, feeds and targets by node id and output index.
using PlanKey = std::vector<int32_t>;

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the ints
    for (int32_t v : k) h = (h ^ static_cast<uint32_t>(v)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

PlanKey MakeKey(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                const std::vector<Node*>& targets) {
  PlanKey key;
  key.reserve(3 + 2 * (feeds.size() + fetches.size()) + targets.size());
  key.push_back(static_cast<int32_t>(fetches.size()));
  for (const Output& o : fetches) key.insert(key.end(), {o.node->id(), o.index});
  key.push_back(static_cast<int32_t>(feeds.size()));
  for (const Output& o : feeds) key.insert(key.end(), {o.node->id(), o.index});
  key.push_back(static_cast<int32_t>(targets.size()));
  for (const Node* n : targets) key.push_back(n->id());
  return key;
}

// Run arguments must be nodes of this graph before their ids mean anything.
Status CheckMembership(const Graph& g, const std::vector<std::pair<Output, Tensor>>& feeds,
                       const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  for (const auto& f : feeds) {
    if (!InGraph(g, f.first.node)) return InvalidArgument("a feed refers to a node that is not in this graph");
  }
  for (const Output& f : fetches) {
    if (!InGraph(g, f.node)) return InvalidArgument("a fetch refers to a node that is not in this graph");
  }
  for (const Node* t : targets) {
    if (!InGraph(g, t)) return InvalidArgument("a run target refers to a node that is not in this graph");
  }
  return Status::OK();
}

}  // namespace

Status ValidateFeed(const Output& o, const Tensor& value) {
  if (o.index < 0 || o.index >= o.node->num_outputs()) return Status::OK();  // reported by BuildPlan
  const Node& n = *o.node;
  std::string what = o.index == 0 ? fmt::format("{} '{}'", n.op_name(), n.name())
                                  : fmt::format("{} '{}:{}'", n.op_name(), n.name(), o.index);
  DType dtype = o.dtype();
  const PartialShape& shape = o.shape();
  Status s;
  if (!value.IsInitialized()) {
    s = InvalidArgument("feed for {}: expected {}, got an empty value", what, state::TypeAndShape(dtype, shape));
  } else if (value.dtype() != dtype || !shape.IsCompatibleWith(value.shape())) {
    s = InvalidArgument("feed for {}: expected {}, got {}", what, state::TypeAndShape(dtype, shape),
                        value.DebugString());
  }
  if (!s.ok()) s.AddNote(n.span(), fmt::format("'{}' is declared here", n.name()));
  return s;
}

// What a run signature needs: one plan, or one per device when its graph
// is placed on several.
struct PreparedRun {
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<const PartitionedPlan> parts;
  // A GPU, when the whole of `plan` runs on one: feeds are copied there
  // and fetches back to host memory. Null: host memory.
  Device* device = nullptr;
  int64_t graph_edits() const { return plan ? plan->graph_edits : parts->graph_edits; }
};

struct Session::Impl {
  Impl(const SessionOptions& o)
      : device(std::make_unique<CpuDevice>(o.intra_op_threads)),
        pool(std::make_unique<ThreadPool>(o.inter_op_threads)),
        stats(o.collect_stats ? std::make_unique<RunStats>() : nullptr),
        tracer(o.trace ? std::make_unique<Tracer>() : nullptr),
        optimize(o.optimize),
        check_numerics(o.check_numerics),
        default_device_type(o.default_device_type),
        placement_log(o.placement_log) {
    SetBlasThreads(device->num_threads());
    AddLocalDevices(o.local_cpu_devices);
    AddCudaDevices();
  }
  // One CPU device is the session's own; several are named views of it.
  void AddLocalDevices(int cpus) {
    if (cpus <= 1) {
      devices.Add(device.get());
      return;
    }
    for (int i = 0; i < cpus; ++i) {
      devices.AddOwned(std::make_unique<LocalCpuDevice>(LocalDeviceName("cpu", i), device.get()));
    }
  }
  // Every GPU there is (none on a machine without one): the placer puts a
  // node there when its op has a GPU kernel for its dtype and the cost
  // model expects it to finish sooner.
  void AddCudaDevices() {
    for (std::unique_ptr<Device>& gpu : CreateCudaDevices()) devices.AddOwned(std::move(gpu));
  }
  // Steps abandoned at a deadline may still run kernels that use the pool,
  // the device and the resources: wait for them first.
  ~Impl() { live_steps.WaitForZero(); }

  Result<PreparedRun> GetPlan(const Graph& g, const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                           const std::vector<Node*>& targets);
  Result<PreparedRun> Prepare(const Graph& g, const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                           const std::vector<Node*>& targets);
  Result<std::shared_ptr<Plan>> PrepareOne(const Graph& g, const std::vector<Output>& feeds,
                                           const std::vector<Output>& fetches, const std::vector<Node*>& targets);
  Result<PreparedRun> PreparePlaced(const Graph& g, const std::vector<Output>& feeds,
                                              const std::vector<Output>& fetches, const std::vector<Node*>& targets);
  Status CheckPlaceable(const Plan& plan) const;

  std::unique_ptr<CpuDevice> device;  // declared first: destroyed after the pool
  DeviceSet devices;                  // placement's choices; device (or views of it) first
  std::unique_ptr<ThreadPool> pool;
  StepCounter live_steps;
  std::mutex mu;
  std::unordered_map<PlanKey, PreparedRun, PlanKeyHash> plans;                    // guarded by mu
  int64_t plans_edits = 0;                                                     // guarded by mu
  std::atomic<int64_t> plans_built{0};
  std::atomic<int64_t> runs{0};
  std::atomic<int64_t> next_step_id{1};
  std::atomic<int64_t> async_done{0};  // asynchronous kernels finished, for the hang watchdog
  std::unique_ptr<RunStats> stats;  // --stats only
  std::unique_ptr<Tracer> tracer;   // --trace only
  bool optimize;
  bool check_numerics;  // fused kernels check their members (fuse_elementwise.h)
  std::string default_device_type;
  bool cluster_declared = false;
  std::vector<ClusterTask> cluster_tasks;
  std::shared_ptr<RemoteTasks> cluster;  // worker mode; declared last: closed first
  std::ostream* placement_log;
  std::mutex placement_log_mu;  // runs on several threads may build plans at once
  void LogPlacement(std::vector<std::pair<const Node*, std::string>> placed) {
    if (placement_log == nullptr) return;
    std::string lines = FormatPlacement(std::move(placed));
    std::lock_guard<std::mutex> lock(placement_log_mu);
    *placement_log << lines << std::flush;
  }
};

// The plan runs an optimized copy of the pruned graph (common
// subexpressions merged, constants folded), which it keeps alive; whether
// it is stale is still judged by the script's graph.
Result<PreparedRun> Session::Impl::Prepare(const Graph& g, const std::vector<Output>& feeds,
                                        const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  if (devices.size() > 1 || !default_device_type.empty()) return PreparePlaced(g, feeds, fetches, targets);
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, PrepareOne(g, feeds, fetches, targets));
  TFG_RETURN_IF_ERROR(CheckPlaceable(*plan));
  if (placement_log != nullptr) {
    // The optimized graph (pruned to the run) has the fed placeholders too,
    // as a placed run lists them; without optimization, the plan's nodes.
    std::vector<std::pair<const Node*, std::string>> placed;
    if (plan->graph != nullptr) {
      for (const auto& node : plan->graph->nodes()) placed.emplace_back(node.get(), device->name());
    } else {
      for (const PlanNode& pn : plan->nodes) placed.emplace_back(pn.node, device->name());
    }
    LogPlacement(std::move(placed));
  }
  return PreparedRun{std::move(plan), nullptr};
}

Result<std::shared_ptr<Plan>> Session::Impl::PrepareOne(const Graph& g, const std::vector<Output>& feeds,
                                                        const std::vector<Output>& fetches,
                                                        const std::vector<Node*>& targets) {
  if (!optimize) return BuildPlan(g, feeds, fetches, targets, device.get());
  OptimizeOptions options;
  options.check_numerics = check_numerics;
  TFG_ASSIGN_OR_RETURN(OptimizedGraph opt, OptimizeGraph(g, feeds, fetches, targets, options, device.get()));
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan,
                       BuildPlan(*opt.graph, opt.feeds, opt.fetches, opt.targets, device.get()));
  plan->graph_edits = g.edits();
  plan->graph = std::shared_ptr<const Graph>(std::move(opt.graph));
  return plan;
}

// With the only device, placement has nothing to choose; a request it
// cannot meet (a gpu, another job) still fails, at the node's line.
Status Session::Impl::CheckPlaceable(const Plan& plan) const {
  for (const PlanNode& pn : plan.nodes) TFG_RETURN_IF_ERROR(tfg::CheckPlaceable(*pn.node, devices));
  return Status::OK();
}

// Several devices: the pruned graph (optimized unless turned off) is
// placed; a plan whose nodes all land on one device runs there, else it
// is split into one plan per device.
Result<PreparedRun> Session::Impl::PreparePlaced(const Graph& g, const std::vector<Output>& feeds,
                                              const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  OptimizeOptions options;
  options.constant_folding = optimize;
  options.common_subexpression_elimination = optimize;
  // Before placement, fusion knows no devices: only where all are the host's.
  // With a GPU, the placed graph is fused (FusePlacedGraph); with another
  // task, nothing is.
  options.fuse_elementwise = optimize && std::all_of(devices.devices().begin(), devices.devices().end(), [](Device* d) {
    return UsesHostMemory(*d) && dynamic_cast<RemoteDevice*>(d) == nullptr;
  });
  options.check_numerics = check_numerics;
  TFG_ASSIGN_OR_RETURN(OptimizedGraph opt, OptimizeGraph(g, feeds, fetches, targets, options, device.get()));
  TFG_ASSIGN_OR_RETURN(std::vector<int32_t> device_of, PlaceGraph(*opt.graph, devices, default_device_type));
  for (const auto& node : opt.graph->nodes()) node->set_assigned_device(devices.device(device_of[node->id()])->name());
  const bool local = std::none_of(devices.devices().begin(), devices.devices().end(),
                                  [](Device* d) { return dynamic_cast<RemoteDevice*>(d) != nullptr; });
  if (optimize && !options.fuse_elementwise && local) {
    TFG_ASSIGN_OR_RETURN(device_of, FusePlacedGraph(opt, devices, check_numerics, device.get()));
  }
  std::vector<std::pair<const Node*, std::string>> placed;
  for (const auto& node : opt.graph->nodes()) placed.emplace_back(node.get(), node->assigned_device());
  LogPlacement(std::move(placed));
  const bool one_device = std::all_of(device_of.begin(), device_of.end(),
                                      [&](int32_t d) { return d == device_of.front(); });
  // A graph wholly on another task still runs there, as a run of one part.
  const bool remote = std::any_of(device_of.begin(), device_of.end(), [&](int32_t d) {
    return dynamic_cast<RemoteDevice*>(devices.device(d)) != nullptr;
  });
  if (!one_device || remote) {
    TFG_ASSIGN_OR_RETURN(PartitionedGraph split,
                         PartitionGraph(*opt.graph, device_of, devices, opt.feeds, opt.fetches, opt.targets));
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<PartitionedPlan> parts,
                         BuildPartitionedPlan(std::move(split), devices, static_cast<int>(fetches.size()),
                                              cluster.get()));
    parts->graph_edits = g.edits();
    return PreparedRun{nullptr, std::move(parts)};
  }
  Device* on = devices.device(device_of.empty() ? 0 : device_of.front());
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, BuildPlan(*opt.graph, opt.feeds, opt.fetches, opt.targets, on));
  plan->graph_edits = g.edits();
  plan->graph = std::shared_ptr<const Graph>(std::move(opt.graph));
  return PreparedRun{std::move(plan), nullptr, UsesHostMemory(*on) ? nullptr : on};
}

// Signatures a REPL session can pile up are bounded by dropping the cache.
constexpr size_t kMaxCachedPlans = 1024;

Result<PreparedRun> Session::Impl::GetPlan(const Graph& g, const std::vector<Output>& feeds,
                                        const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  PlanKey key = MakeKey(feeds, fetches, targets);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (plans_edits != g.edits()) {  // an existing node changed: every plan is stale
      plans.clear();
      plans_edits = g.edits();
    }
    auto it = plans.find(key);
    if (it != plans.end()) return it->second;
  }
  TFG_ASSIGN_OR_RETURN(PreparedRun plan, Prepare(g, feeds, fetches, targets));
  plans_built.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu);
  if (plans.size() >= kMaxCachedPlans) plans.clear();
  if (plan.graph_edits() == plans_edits) plans[key] = plan;
  return plan;
}

Session::Session(const Graph* graph, SessionOptions options)
    : graph_(graph), options_(options), impl_(std::make_unique<Impl>(options_)) {}

Session::~Session() = default;

Device* Session::cpu_device() { return impl_->device.get(); }
const DeviceSet& Session::devices() const { return impl_->devices; }
RemoteTasks* Session::cluster() const { return impl_->cluster.get(); }
const std::vector<ClusterTask>& Session::cluster_tasks() const { return impl_->cluster_tasks; }

Status Session::AttachCluster(const ClusterSpec& tasks, std::shared_ptr<RemoteTasks> cluster) {
  if (impl_->cluster_declared) {
    return FailedPrecondition("the cluster is declared already (cluster() or --cluster, once per run)");
  }
  impl_->cluster_declared = true;
  impl_->cluster_tasks = tasks;
  for (size_t i = 0; i < tasks.size(); ++i) {
    impl_->devices.AddOwned(std::make_unique<RemoteDevice>(tasks[i].name + "/device:cpu:0", static_cast<int>(i)));
  }
  impl_->cluster = std::move(cluster);
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->plans.clear();
  return Status::OK();
}
void Session::ForgetTask(int task) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (auto it = impl_->plans.begin(); it != impl_->plans.end();) {
    const PartitionedPlan* parts = it->second.parts.get();
    const bool on_task = parts != nullptr && std::any_of(parts->parts.begin(), parts->parts.end(),
                                                         [task](const auto& p) { return p.remote_task == task; });
    it = on_task ? impl_->plans.erase(it) : std::next(it);
  }
}

int64_t Session::plans_built() const { return impl_->plans_built.load(std::memory_order_relaxed); }
int64_t Session::runs() const { return impl_->runs.load(std::memory_order_relaxed); }
const RunStats* Session::stats() const { return impl_->stats.get(); }
const Tracer* Session::tracer() const { return impl_->tracer.get(); }

namespace {

Result<std::vector<Tensor>> RunOnePlan(PreparedRun& plan, std::vector<Tensor> feeds, const ExecutorEnv& env,
                                       const StepInfo& info, const RunOptions& options) {
  if (plan.device == nullptr) {
    return RunStep(std::move(plan.plan), feeds, env, info, options.timeout_seconds, options.cancellation);
  }
  TFG_ASSIGN_OR_RETURN(std::vector<Tensor> here, TensorsFromHost(plan.device, std::move(feeds)));
  TFG_ASSIGN_OR_RETURN(std::vector<Tensor> fetched,
                       RunStep(std::move(plan.plan), here, env, info, options.timeout_seconds, options.cancellation));
  return TensorsToHost(plan.device, std::move(fetched));
}

}  // namespace

Result<std::vector<Tensor>> Session::Run(const std::vector<std::pair<Output, Tensor>>& feeds,
                                         const std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                         const RunOptions& options) {
  std::shared_lock<std::shared_mutex> graph_lock(graph_mu_);
  TFG_RETURN_IF_ERROR(CheckMembership(*graph_, feeds, fetches, targets));
  std::vector<Output> fed;
  // Copies share buffers with the caller's tensors, so no kernel ever
  // treats a fed buffer as its own to overwrite.
  std::vector<Tensor> values;
  fed.reserve(feeds.size());
  values.reserve(feeds.size());
  for (const auto& [output, value] : feeds) {
    fed.push_back(output);
    values.push_back(value);
  }
  TFG_ASSIGN_OR_RETURN(PreparedRun plan, impl_->GetPlan(*graph_, fed, fetches, targets));
  graph_lock.unlock();
  for (const auto& [output, value] : feeds) TFG_RETURN_IF_ERROR(ValidateFeed(output, value));
  ExecutorEnv env{impl_->pool.get(), &resources_,         &impl_->live_steps, options_.check_numerics,
                  impl_->stats.get(),    impl_->tracer.get(), options_.hang_timeout_seconds, &impl_->async_done};
  StepInfo info{impl_->next_step_id.fetch_add(1, std::memory_order_relaxed), options_.seed};
  const int64_t start = impl_->tracer ? NowNanos() : 0;
  auto result = plan.plan ? RunOnePlan(plan, std::move(values), env, info, options)
                          : RunPartitioned(*plan.parts, values, env, info.step_id, impl_->next_step_id, info.graph_seed,
                                           options.timeout_seconds, options.cancellation, impl_->cluster.get());
  if (impl_->tracer) impl_->tracer->Step(info.step_id, start, NowNanos());
  impl_->runs.fetch_add(1, std::memory_order_relaxed);
  return result;
}

namespace {

// Eager errors name the op (there is no node) and point at the call.
Status AnnotateEagerError(Status s, const OpDef& op, const SourceSpan& span) {
  if (s.message().rfind(op.name, 0) != 0) s.Prepend(op.name + ": ");
  s.WithSpan(span);
  return s;
}

// The inputs, and the outputs as the op's shape function predicts them,
// against the element limit (outputs of unknown size pass).
Status CheckEagerSize(const OpDef& op, const AttrMap& attrs, const std::vector<Tensor>& inputs, const Signature& sig,
                      int64_t limit) {
  std::vector<PartialShape> shapes;
  std::vector<const Tensor*> values;
  for (const Tensor& t : inputs) {
    if (t.num_elements() > limit) {
      return Error(Code::kResourceExhausted, "an input has {} elements, more than the limit of {}", t.num_elements(),
                   limit);
    }
    shapes.emplace_back(t.shape());
    values.push_back(&t);
  }
  if (!op.shape_fn) return Status::OK();
  ShapeContext c(&op, &attrs, std::move(shapes), sig.input_types, std::move(values),
                 static_cast<int>(sig.output_types.size()));
  TFG_RETURN_IF_ERROR(op.shape_fn(c));
  for (const PartialShape& s : c.output_shapes()) {
    if (!s.fully_defined()) continue;
    int64_t n = 1;
    bool overflow = false;
    for (int64_t d : s.dims()) overflow = overflow || __builtin_mul_overflow(n, d, &n);
    if (overflow) return Error(Code::kResourceExhausted, "the result would have more than {} elements", limit);
    if (n > limit) {
      return Error(Code::kResourceExhausted, "the result would have {} elements, more than the limit of {}", n, limit);
    }
  }
  return Status::OK();
}

// Out of memory in an eagerly run kernel is an error at its line, as in
// the executor.
Status ComputeOnce(OpKernel& kernel, OpKernelContext& ctx) {
  try {
    if (!kernel.IsAsync()) return kernel.Compute(ctx);
    std::promise<Status> done;
    std::future<Status> result = done.get_future();
    kernel.ComputeAsync(ctx, [&done](Status s) { done.set_value(std::move(s)); });
    return result.get();
  } catch (const std::bad_alloc&) {
    return OutOfMemoryError();
  }
}

}  // namespace

Result<std::vector<Tensor>> Session::RunEager(const OpDef& op, AttrMap attrs, const std::vector<Tensor>& inputs,
                                              const SourceSpan& span) {
  std::vector<DType> dtypes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].IsInitialized()) {
      return AnnotateEagerError(InvalidArgument("input {} is an empty value", i), op, span);
    }
    dtypes.push_back(inputs[i].dtype());
  }
  auto sig = ResolveSignature(op, dtypes, attrs);
  if (!sig.ok()) return AnnotateEagerError(sig.status(), op, span);
  if (options_.max_eager_elements > 0) {
    Status s = CheckEagerSize(op, attrs, inputs, *sig, options_.max_eager_elements);
    if (!s.ok()) return AnnotateEagerError(std::move(s), op, span);
  }
  auto def = OpRegistry::Global().FindKernel(op, DeviceType::kCpu, attrs);
  if (!def.ok()) return AnnotateEagerError(def.status(), op, span);
  KernelConstruction c;
  c.op = &op;
  c.attrs = &attrs;
  c.input_types = sig->input_types;
  c.output_types = sig->output_types;
  c.node_name = op.name;
  c.span = span;
  c.device = impl_->device.get();
  auto kernel = (*def)->factory(c);
  if (!kernel.ok()) return AnnotateEagerError(kernel.status(), op, span);
  // Copies share the caller's buffers, so kernels never update them in place.
  std::vector<Tensor> in = inputs;
  std::vector<Tensor> out(c.output_types.size());
  StepInfo info{impl_->next_step_id.fetch_add(1, std::memory_order_relaxed), options_.seed};
  OpKernelContext ctx(&c, in.data(), static_cast<int>(in.size()), out.data(), static_cast<int>(out.size()),
                      &resources_, &info);
  const int64_t start = NowNanos();
  Status s = ComputeOnce(**kernel, ctx);
  const int64_t end = NowNanos();
  if (impl_->stats) impl_->stats->Record(op.name, end - start);
  if (impl_->tracer) impl_->tracer->Eager(op.name, span, start, end);
  for (size_t i = 0; s.ok() && i < out.size(); ++i) {
    if (!out[i].IsInitialized() || out[i].dtype() != c.output_types[i]) {
      s = Internal("the kernel did not produce output {} as {}", i, DTypeName(c.output_types[i]));
    }
  }
  if (s.ok() && options_.check_numerics) {
    s = CheckNumerics(out.data(), static_cast<int>(out.size()));
    if (!s.ok()) s.Prepend(op.name + " ");
  }
  if (!s.ok()) return AnnotateEagerError(std::move(s), op, span);
  return out;
}

}  // namespace tfg
