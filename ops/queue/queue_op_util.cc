#include "ops/queue/queue_op_util.h"

#include "ops/core/op_registry.h"

namespace tfg::queue {

// ------------------------------------------------------------- queue ops

Status MakeQueueKernel::Init(const KernelConstruction& c) {
  const auto* capacity = c.attr<int64_t>("capacity");
  const auto* types = c.attr<std::vector<DType>>("dtypes");
  if (!capacity || !types) return Internal("{}: missing attributes", c.op ? c.op->name : "queue");
  config_.capacity = *capacity;
  config_.types = *types;
  if (const auto* shapes = c.attr<std::vector<PartialShape>>("shapes")) config_.shapes = *shapes;
  if (const auto* container = c.attr<std::string>("container")) container_ = *container;
  const auto* shared = c.attr<std::string>("shared_name");
  config_.name = (shared && !shared->empty()) ? *shared : c.node_name;
  return Status::OK();
}

Status MakeQueueKernel::Compute(OpKernelContext& ctx) {
  if (ctx.resources() == nullptr) return Internal("{}: queues need a resource manager", kind());
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<QueueInterface> q,
                       ctx.resources()->LookupOrCreate<QueueInterface>(container_, config_.name, [&] {
                         return std::static_pointer_cast<QueueInterface>(Make(ctx, config_));
                       }));
  auto* base = dynamic_cast<QueueBase*>(q.get());
  if (base == nullptr) return FailedPrecondition("resource '{}' is not a queue made by a queue op", config_.name);
  TFG_RETURN_IF_ERROR(base->CheckCompatible(kind(), config_));
  ctx.set_output(0, Tensor::Scalar<std::string>(MakeHandle(container_, config_.name)));
  return Status::OK();
}

Status MakeQueueShapeFn(ShapeContext& c) {
  const auto* capacity = c.attr<int64_t>("capacity");
  const auto* types = c.attr<std::vector<DType>>("dtypes");
  const auto* shapes = c.attr<std::vector<PartialShape>>("shapes");
  if (capacity && *capacity < 1) return InvalidArgument("capacity must be at least 1, got {}", *capacity);
  if (types && types->empty()) return InvalidArgument("dtypes must name at least one component dtype");
  if (types && shapes && !shapes->empty() && shapes->size() != types->size()) {
    return InvalidArgument("shapes gives {} shape{} for {} dtype{}", shapes->size(), shapes->size() == 1 ? "" : "s",
                           types->size(), types->size() == 1 ? "" : "s");
  }
  const auto* after = c.attr<int64_t>("min_after_dequeue");
  if (after && capacity && (*after < 0 || *after >= *capacity)) {
    return InvalidArgument("min_after_dequeue must be in [0, capacity) = [0, {}), got {}", *capacity, *after);
  }
  c.set_output(0, PartialShape::Scalar());
  return Status::OK();
}

// ----------------------------------------------------- enqueue / dequeue

Status QueueWaitKernel::Init(const KernelConstruction& c) {
  op_ = c.op ? c.op->name : "queue op";
  return Status::OK();
}

Status QueueWaitKernel::Compute(OpKernelContext&) {
  return Internal("{}: asynchronous kernel run synchronously", op_);
}

std::string QueueWaitKernel::BlockedOn(const OpKernelContext& ctx) const {
  if (ctx.num_inputs() < 1) return "";
  auto q = LookupQueueIn(ctx.resources(), ctx.input(0));
  return q.ok() ? (*q)->WaitDescription() : "";
}

Status DequeueShapes(ShapeContext& c, std::optional<int64_t> batch) {
  const auto* shapes = c.attr<std::vector<PartialShape>>("component_shapes");
  for (int i = 0; i < c.num_outputs(); ++i) {
    PartialShape element = shapes && static_cast<size_t>(i) < shapes->size() ? (*shapes)[i] : PartialShape::Unknown();
    if (!batch || !element.known_rank()) {
      c.set_output(i, batch ? PartialShape::Unknown() : element);
      continue;
    }
    std::vector<int64_t> dims{*batch};
    dims.insert(dims.end(), element.dims().begin(), element.dims().end());
    c.set_output(i, PartialShape(std::move(dims)));
  }
  return Status::OK();
}

Status SetDequeueOutputs(OpKernelContext& ctx, const QueueInterface& q, Tuple tuple) {
  if (static_cast<int>(tuple.size()) != ctx.num_outputs()) {
    return InvalidArgument("queue '{}' holds {} components but this dequeue expects {}", q.name(), tuple.size(),
                           ctx.num_outputs());
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (tuple[i].dtype() != ctx.output_type(i)) {
      return InvalidArgument("queue '{}': component {} is {} but this dequeue expects {}", q.name(), i,
                             tuple[i].DebugString(), DTypeName(ctx.output_type(i)));
    }
    ctx.set_output(i, std::move(tuple[i]));
  }
  return Status::OK();
}

}  // namespace tfg::queue

namespace tfg::queue {

Status DequeueBatchKernel::Init(const KernelConstruction& c) {
  TFG_RETURN_IF_ERROR(QueueWaitKernel::Init(c));
  const auto* n = c.attr<int64_t>("n");
  if (!n) return Internal("{}: missing attribute n", op_);
  n_ = *n;
  return Status::OK();
}

void DequeueBatchKernel::ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) {
  auto q = LookupQueue(ctx, ctx.input(0));
  if (!q.ok()) return done(q.status());
  std::shared_ptr<QueueInterface> from = *q;
  from->TryDequeueMany(n_, allow_smaller_, ctx.step().cancellation,
                       [&ctx, from, done = std::move(done)](Result<Tuple> r) {
                         if (!r.ok()) return done(r.status());
                         done(SetDequeueOutputs(ctx, *from, std::move(*r)));
                       });
}

constexpr const char* kNoGradient = "queues pass values along; no gradient flows through them";

OpDefBuilder EnqueueOpDef(std::string name) {
  OpDefBuilder b(std::move(name));
  b.Input("handle", "string")
      .InputList("components", "component_types", "num_components")
      .Attr("component_types", AttrType::kTypeList, std::nullopt, "the dtype of each component")
      .Stateful()
      .SetShapeFn(shape_fns::NoOutputs)
      .NoGradient(kNoGradient);
  return b;
}

OpDefBuilder DequeueBatchOpDef(std::string name, const char* n_doc) {
  OpDefBuilder b(std::move(name));
  b.Input("handle", "string")
      .Attr("n", AttrType::kInt, std::nullopt, n_doc)
      .OutputList("components", "component_types", "")
      .Attr("component_types", AttrType::kTypeList, std::nullopt, "the queue's dtypes: one output per component")
      .Attr("component_shapes", AttrType::kShapeList, std::vector<PartialShape>{},
            "the queue's declared shapes, for shape inference")
      .Stateful()
      .NoGradient(kNoGradient);
  return b;
}

OpDefBuilder& QueueMakerOp(OpDefBuilder& b, ShapeFn shape_fn) {
  return b.Attr("shared_name", AttrType::kString, std::string(), "name the queue is kept under; empty: the node's name")
      .Attr("container", AttrType::kString, std::string(), "reset(container) drops it")
      .Output("handle", "string")
      .Stateful()
      .SetShapeFn(std::move(shape_fn))
      .NoGradient("a queue handle is not differentiable");
}

}  // namespace tfg::queue
