// A reader's state across runs (after TensorFlow's ReaderBase): the file it
// is in and its position there, kept in the session's ResourceMgr under the
// reader op's (container, shared_name). `read` and `read_up_to` ask it for
// records; when the current file is exhausted it takes the next filename
// from the filename queue, asynchronously, so no thread waits for it.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"
#include "ops/io/reader_source.h"
#include "ops/queue/queue.h"

namespace tfg::io {

struct Records {
  std::vector<std::string> keys;    // "filename:index", index counting from 0 in each file
  std::vector<std::string> values;
};

class ReaderState : public Resource, public std::enable_shared_from_this<ReaderState> {
 public:
  using Callback = std::function<void(Result<Records>)>;
  struct Request {
    std::shared_ptr<QueueInterface> filenames;
    CancellationManager* cancellation = nullptr;  // of the step asking
    int64_t max_records = 1;
    Callback done;
  };

  ReaderState(std::string name, std::unique_ptr<RecordSource> source)
      : name_(std::move(name)), source_(std::move(source)) {}
  std::string DebugString() const override { return "reader '" + name_ + "'"; }

  // Requests are served one at a time in arrival order; `done` gets between
  // 1 and max_records records, all from one file, or the error that ended
  // the request (OutOfRange once the filename queue is closed and empty).
  // It may run before Read returns or later on another thread.
  void Read(Request request);
  // "reader 'r' waiting for a filename", for the hang watchdog.
  std::string WaitDescription() const;

 private:
  void Pump();
  void OnFilename(Result<QueueInterface::Tuple> element);
  Result<Records> ReadFromFile(int64_t max_records);
  void FinishFront(Result<Records> result);

  const std::string name_;
  mutable std::mutex mu_;            // guards pending_, busy_, waiting_
  std::deque<Request> pending_;
  bool busy_ = false;                // some thread is serving pending_.front()
  bool waiting_ = false;             // for a filename
  // Touched only by the thread serving the front request.
  std::unique_ptr<RecordSource> source_;
  bool file_open_ = false;
  std::string file_;
  int64_t next_index_ = 0;
};

// The reader a handle (the string[2] {container, name} a reader op outputs)
// names. NotFound when there is none (any more: reset()).
Result<std::shared_ptr<ReaderState>> LookupReader(ResourceMgr* resources, const Tensor& handle);

// What a reader op's file contributes: its attrs checked, a maker of its
// source. The shared kernel handles container/shared_name/compression.
using SourceMaker = std::function<std::unique_ptr<RecordSource>()>;
using SourceMakerFactory = std::function<Result<SourceMaker>(const KernelConstruction&, Compression)>;
KernelFactory ReaderKernelFactory(SourceMakerFactory make);

// Declares a reader op's common tail: compression, container, shared_name,
// the handle output, statefulness, shape and the no-gradient reason.
OpDefBuilder& AddReaderCommon(OpDefBuilder& builder);

}  // namespace tfg::io
