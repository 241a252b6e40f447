// random_shuffle_queue(capacity, min_after_dequeue, dtypes, shapes, seed,
// shared_name, container): a queue that hands out its elements in random
// order.
#include "ops/core/op_registry.h"
#include "ops/queue/queue_kinds.h"
#include "ops/queue/queue_op_util.h"

#include <random>

namespace tfg {
namespace {

class RandomShuffleQueueKernel : public queue::MakeQueueKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_RETURN_IF_ERROR(MakeQueueKernel::Init(c));
    const auto* after = c.attr<int64_t>("min_after_dequeue");
    const auto* seed = c.attr<int64_t>("seed");
    if (!after || !seed) return Internal("random_shuffle_queue: missing attributes");
    min_after_dequeue_ = *after;
    seed_ = *seed;
    node_name_ = c.node_name;
    return Status::OK();
  }

 protected:
  std::string kind() const override { return "random_shuffle_queue"; }
  // Seeded like the random ops: the graph seed (--seed) and the op seed fix
  // the order; with neither it differs from run to run of the script.
  std::shared_ptr<QueueBase> Make(const OpKernelContext& ctx, QueueConfig config) const override {
    uint64_t key;
    if (ctx.step().graph_seed == 0 && seed_ == 0) {
      std::random_device device;
      key = random::Join(device(), device());
    } else {
      key = random::DeriveKey(ctx.step().graph_seed, seed_, node_name_);
    }
    return std::make_shared<RandomShuffleQueue>(std::move(config), min_after_dequeue_, key);
  }

 private:
  int64_t min_after_dequeue_ = 0;
  int64_t seed_ = 0;
  std::string node_name_;
};

}  // namespace

TFG_REGISTER_OP(queue::QueueMakerOp(OpDefBuilder("random_shuffle_queue")
                    .Attr("capacity", AttrType::kInt, std::nullopt, "most elements held at once")
                    .Attr("min_after_dequeue", AttrType::kInt, std::nullopt,
                          "elements kept back while the queue is open, so each pick has that many to choose from")
                    .Attr("dtypes", AttrType::kTypeList, std::nullopt, "dtype of each component")
                    .Attr("shapes", AttrType::kShapeList, std::vector<PartialShape>{},
                          "shape of each component; empty: any")
                    .Attr("seed", AttrType::kInt, int64_t{0}, "op seed; with the graph seed (--seed) fixes the order"))
                    .Doc("A queue whose dequeues take a uniformly random stored element. While open it keeps at "
                         "least min_after_dequeue elements back (a dequeue waits until it can), so consecutive "
                         "elements mix; once closed it hands out the rest. Outputs the queue's handle."));
TFG_REGISTER_KERNEL(KernelDef("random_shuffle_queue", DeviceType::kCpu).Create<RandomShuffleQueueKernel>());

}  // namespace tfg
