#include "ops/io/reader_state.h"

#include <new>

#include "ops/core/memory_budget.h"

namespace tfg::io {
namespace {

// Reading runs on whichever thread delivers a filename, not always inside
// a kernel the executor guards: memory running out there is an error of
// the read, not the end of the process.
Status OutOfMemoryReading(const std::string& path) {
  return Error(Code::kResourceExhausted, "out of memory while reading '{}' (the memory limit is {}; see --memory-limit)",
               path, FormatByteSize(MemoryLimit()));
}

}  // namespace

void ReaderState::Read(Request request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::move(request));
    if (busy_) return;
    busy_ = true;
  }
  Pump();
}

// Serves requests until none is left or one must wait for a filename; then
// OnFilename, called by the queue, carries on.
void ReaderState::Pump() {
  for (;;) {
    Request* front = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) {
        busy_ = false;
        return;
      }
      front = &pending_.front();  // stays valid: only this thread pops
      waiting_ = !file_open_;
    }
    if (!file_open_) {
      auto self = shared_from_this();
      front->filenames->TryDequeue(front->cancellation, [self](Result<QueueInterface::Tuple> element) {
        self->OnFilename(std::move(element));
      });
      return;
    }
    Result<Records> records = ReadFromFile(front->max_records);
    if (records.ok() && records->values.empty()) continue;  // the file ended: take the next one
    FinishFront(std::move(records));
  }
}

void ReaderState::OnFilename(Result<QueueInterface::Tuple> element) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    waiting_ = false;
  }
  if (!element.ok()) {
    FinishFront(element.status());
  } else if (element->size() != 1 || (*element)[0].dtype() != DType::kString || (*element)[0].num_elements() != 1) {
    FinishFront(InvalidArgument("reader '{}': the filename queue must hold string scalars, got an element of {} "
                                "component(s), the first {}",
                                name_, element->size(), element->empty() ? "none" : (*element)[0].DebugString()));
  } else {
    const std::string& path = (*element)[0].data<std::string>()[0];
    Status s;
    try {
      s = source_->Open(path);
    } catch (const std::bad_alloc&) {
      s = OutOfMemoryReading(path);
    }
    if (s.ok()) {
      file_open_ = true;
      file_ = path;
      next_index_ = 0;
    } else {
      FinishFront(std::move(s));
    }
  }
  Pump();
}

Result<Records> ReaderState::ReadFromFile(int64_t max_records) {
  Records out;
  while (static_cast<int64_t>(out.values.size()) < max_records) {
    Result<std::optional<std::string>> next = std::optional<std::string>();
    try {
      next = source_->Next();
      if (next.ok() && next->has_value()) {
        out.keys.push_back(file_ + ":" + std::to_string(next_index_));
        out.values.push_back(std::move(**next));
      }
    } catch (const std::bad_alloc&) {
      next = OutOfMemoryReading(file_);
    }
    // After an error the rest of the file cannot be trusted: move on.
    if (!next.ok() || !next->has_value()) file_open_ = false;
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    ++next_index_;
  }
  return out;
}

void ReaderState::FinishFront(Result<Records> result) {
  Callback done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done = std::move(pending_.front().done);
    pending_.pop_front();
  }
  done(std::move(result));
}

std::string ReaderState::WaitDescription() const {
  std::shared_ptr<QueueInterface> queue;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!waiting_ || pending_.empty()) return DebugString();
    queue = pending_.front().filenames;
  }
  // Asked outside mu_: the queue may hold its own lock while calling back.
  return DebugString() + " waiting for a filename from " + queue->WaitDescription();
}

Result<std::shared_ptr<ReaderState>> LookupReader(ResourceMgr* resources, const Tensor& handle) {
  if (handle.dtype() != DType::kString || handle.shape() != TensorShape{2}) {
    return InvalidArgument("a reader handle is a string[2] made by a reader op, got {}", handle.DebugString());
  }
  const std::string* parts = handle.data<std::string>();
  std::shared_ptr<ReaderState> reader = resources ? resources->Lookup<ReaderState>(parts[0], parts[1]) : nullptr;
  if (!reader) return NotFound("reader '{}' does not exist (was its container reset?)", parts[1]);
  return reader;
}

namespace {

// The kernel of every reader op: makes the reader's state on its first run
// and outputs the handle naming it.
class ReaderKernel : public OpKernel {
 public:
  ReaderKernel(SourceMaker maker, std::string container, std::string name)
      : maker_(std::move(maker)), container_(std::move(container)), name_(std::move(name)) {}

  Status Compute(OpKernelContext& ctx) override {
    if (ctx.resources() == nullptr) return FailedPrecondition("a reader needs a session to keep its state in");
    TFG_RETURN_IF_ERROR(ctx.resources()
                            ->LookupOrCreate<ReaderState>(container_, name_,
                                                          [&] { return std::make_shared<ReaderState>(name_, maker_()); })
                            .status());
    TFG_ASSIGN_OR_RETURN(Tensor * handle, ctx.allocate_output(0, TensorShape{2}));
    handle->data<std::string>()[0] = container_;
    handle->data<std::string>()[1] = name_;
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  SourceMaker maker_;
  std::string container_;
  std::string name_;
};

Status ReaderHandleShape(ShapeContext& c) {
  const std::string* compression = c.attr<std::string>("compression");
  TFG_RETURN_IF_ERROR(ParseCompression(compression ? *compression : "").status());
  c.set_output(0, PartialShape{2});
  return Status::OK();
}

}  // namespace

KernelFactory ReaderKernelFactory(SourceMakerFactory make) {
  return [make](const KernelConstruction& c) -> Result<std::unique_ptr<OpKernel>> {
    const std::string* compression_name = c.attr<std::string>("compression");
    TFG_ASSIGN_OR_RETURN(Compression compression, ParseCompression(compression_name ? *compression_name : ""));
    const std::string* container = c.attr<std::string>("container");
    const std::string* shared_name = c.attr<std::string>("shared_name");
    std::string name = shared_name && !shared_name->empty() ? *shared_name : c.node_name;
    TFG_ASSIGN_OR_RETURN(SourceMaker maker, make(c, compression));
    return std::unique_ptr<OpKernel>(new ReaderKernel(std::move(maker), container ? *container : "", name));
  };
}

OpDefBuilder& AddReaderCommon(OpDefBuilder& builder) {
  return builder.Attr("compression", AttrType::kString, std::string(), "\"\" or \"gzip\"")
      .Attr("container", AttrType::kString, std::string(), "reset(container) clears the reader's state")
      .Attr("shared_name", AttrType::kString, std::string(),
            "name the state is kept under; empty: the node's name")
      .Output("reader", "string")
      .Stateful()
      .SetShapeFn(ReaderHandleShape)
      .NoGradient("a reader outputs a handle, not a differentiable value");
}

}  // namespace tfg::io
