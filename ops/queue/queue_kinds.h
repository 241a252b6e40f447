// The three kinds of queue (white paper §4.6): first-in first-out, random
// shuffling (dequeue takes a uniformly random stored element, keeping at
// least min_after_dequeue behind while open, so batches mix well), and
// padding FIFO (dequeue_many pads dimensions declared `?` to the largest
// element of the batch).
#pragma once

#include "ops/queue/queue_base.h"
#include "ops/random/random_stream.h"

namespace tfg {

class FifoQueue : public QueueBase {
 public:
  using QueueBase::QueueBase;
  std::string kind() const override { return "fifo_queue"; }
};

class PaddingFifoQueue : public QueueBase {
 public:
  using QueueBase::QueueBase;
  std::string kind() const override { return "padding_fifo_queue"; }

 protected:
  bool pads() const override { return true; }
};

class RandomShuffleQueue : public QueueBase {
 public:
  // `key` seeds the Philox stream the picks come from (see
  // ops/random/random_stream.h for how ops derive keys from seeds).
  RandomShuffleQueue(QueueConfig config, int64_t min_after_dequeue, uint64_t key)
      : QueueBase(std::move(config)), min_after_dequeue_(min_after_dequeue), stream_(key, 0) {}
  std::string kind() const override { return "random_shuffle_queue"; }

 protected:
  // Uniform over the stored elements: one 64-bit draw per pick (the modulo
  // bias is below 2^-40 for any queue that fits in memory).
  size_t PickIndex(size_t size) override;
  int64_t min_after_dequeue() const override { return min_after_dequeue_; }
  std::string Settings() const override;

 private:
  const int64_t min_after_dequeue_;
  random::RandomStream stream_;
  uint64_t next_block_ = 0;  // under the queue's lock, like every pick
};

}  // namespace tfg
