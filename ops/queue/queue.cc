// LookupQueue and the handle format.
#include "ops/queue/queue.h"

#include "ops/core/kernel.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace queue {
namespace {

// Container names are free text, so the separator is a control character
// no scope or node name contains.
constexpr char kSeparator = '\x1f';

}  // namespace

std::string MakeHandle(const std::string& container, const std::string& name) {
  return container.empty() ? name : container + kSeparator + name;
}

Result<std::shared_ptr<QueueInterface>> LookupQueueIn(ResourceMgr* resources, const Tensor& handle) {
  if (handle.dtype() != DType::kString || handle.num_elements() != 1) {
    return InvalidArgument("a queue handle is a string scalar (the output of fifo_queue(...) and the like), got {}",
                           handle.DebugString());
  }
  if (resources == nullptr) return Internal("queues need a resource manager");
  const std::string& text = handle.data<std::string>()[0];
  const size_t sep = text.find(kSeparator);
  const std::string container = sep == std::string::npos ? "" : text.substr(0, sep);
  const std::string name = sep == std::string::npos ? text : text.substr(sep + 1);
  std::shared_ptr<QueueInterface> q = resources->Lookup<QueueInterface>(container, name);
  if (!q) {
    return NotFound("queue '{}'{} does not exist (was its container reset?)", name,
                    container.empty() ? "" : " in container '" + container + "'");
  }
  return q;
}

}  // namespace queue

Result<std::shared_ptr<QueueInterface>> LookupQueue(OpKernelContext& ctx, const Tensor& handle) {
  return queue::LookupQueueIn(ctx.resources(), handle);
}

}  // namespace tfg
