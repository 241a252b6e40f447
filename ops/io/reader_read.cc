// read(reader, filename_queue) and read_up_to(reader, filename_queue, n):
// the next record(s) of a reader, which takes a new file from the filename
// queue whenever its current one is exhausted. Asynchronous: a read waiting
// for a filename holds no thread.
#include "ops/core/cancellation.h"
#include "ops/io/reader_state.h"

namespace tfg::io {
namespace {

class ReadKernel : public OpKernel {
 public:
  explicit ReadKernel(bool up_to) : up_to_(up_to) {}

  Status Init(const KernelConstruction& c) override {
    if (!up_to_) return Status::OK();
    n_ = *c.attr<int64_t>("n");
    if (n_ <= 0) return InvalidArgument("read_up_to: n must be positive, got {}", n_);
    return Status::OK();
  }
  bool IsAsync() const override { return true; }
  Status Compute(OpKernelContext&) override { return Internal("read runs asynchronously"); }

  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    Result<std::shared_ptr<ReaderState>> reader = LookupReader(ctx.resources(), ctx.input(0));
    if (!reader.ok()) return done(reader.status());
    Result<std::shared_ptr<QueueInterface>> queue = LookupQueue(ctx, ctx.input(1));
    if (!queue.ok()) return done(queue.status());
    if ((*queue)->component_types() != std::vector<DType>{DType::kString}) {
      return done(InvalidArgument("the filename queue '{}' must hold strings (dtypes=[string]), it holds {} "
                                  "component(s)",
                                  (*queue)->name(), (*queue)->component_types().size()));
    }
    ReaderState::Request request;
    request.filenames = *queue;
    request.cancellation = ctx.step().cancellation;
    request.max_records = n_;
    request.done = [this, &ctx, done = std::move(done)](Result<Records> records) {
      done(records.ok() ? SetOutputs(ctx, *records) : records.status());
    };
    (*reader)->Read(std::move(request));
  }

  std::string BlockedOn(const OpKernelContext& ctx) const override {
    Result<std::shared_ptr<ReaderState>> reader = LookupReader(ctx.resources(), ctx.input(0));
    return reader.ok() ? (*reader)->WaitDescription() : std::string();
  }

 private:
  Status SetOutputs(OpKernelContext& ctx, const Records& records) const {
    TensorShape shape = up_to_ ? TensorShape{static_cast<int64_t>(records.values.size())} : TensorShape{};
    TFG_ASSIGN_OR_RETURN(Tensor * keys, ctx.allocate_output(0, shape));
    TFG_ASSIGN_OR_RETURN(Tensor * values, ctx.allocate_output(1, shape));
    for (size_t i = 0; i < records.values.size(); ++i) {
      keys->data<std::string>()[i] = records.keys[i];
      values->data<std::string>()[i] = records.values[i];
    }
    return Status::OK();
  }

  bool up_to_;
  int64_t n_ = 1;
};

KernelFactory ReadKernelFactory(bool up_to) {
  return [up_to](const KernelConstruction& c) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<ReadKernel>(up_to);
    TFG_RETURN_IF_ERROR(k->Init(c));
    return std::unique_ptr<OpKernel>(std::move(k));
  };
}

Status ReadShape(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  c.set_output(1, PartialShape::Scalar());
  return Status::OK();
}

Status ReadUpToShape(ShapeContext& c) {
  if (*c.attr<int64_t>("n") <= 0) return InvalidArgument("n must be positive, got {}", *c.attr<int64_t>("n"));
  c.set_output(0, PartialShape{PartialShape::kUnknown});
  c.set_output(1, PartialShape{PartialShape::kUnknown});
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("read")
                    .Input("reader", "string")
                    .Input("filename_queue", "string")
                    .Output("key", "string")
                    .Output("value", "string")
                    .Stateful()
                    .SetShapeFn(ReadShape)
                    .NoGradient("records are strings read from files")
                    .Doc("The next record of a reader: key (\"file:index\") and value. When the reader's file is "
                         "exhausted it takes the next filename from filename_queue (a queue of strings), waiting "
                         "without holding a thread; OutOfRange once that queue is closed and empty."));
TFG_REGISTER_KERNEL(KernelDef("read", DeviceType::kCpu).Factory(ReadKernelFactory(false)));

TFG_REGISTER_OP(OpDefBuilder("read_up_to")
                    .Input("reader", "string")
                    .Input("filename_queue", "string")
                    .Attr("n", AttrType::kInt, std::nullopt, "most records per read")
                    .Output("keys", "string")
                    .Output("values", "string")
                    .Stateful()
                    .SetShapeFn(ReadUpToShape)
                    .NoGradient("records are strings read from files")
                    .Doc("Like read, but up to n records at once, as vectors: all from one file (fewer than n "
                         "when the file ends first)."));
TFG_REGISTER_KERNEL(KernelDef("read_up_to", DeviceType::kCpu).Factory(ReadKernelFactory(true)));

}  // namespace tfg::io
