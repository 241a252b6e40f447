// Moving between elements and batches of queue tuples: enqueue_many cuts a
// batch into elements along dimension 0; dequeue_many stacks elements into
// a batch along a new dimension 0, padding unknown dimensions for
// padding_fifo_queue.
#pragma once

#include <vector>

#include "ops/core/tensor.h"

namespace tfg::queue {

using Tuple = std::vector<Tensor>;

// The n elements of a batch whose components all have dimension 0 of size
// n (checked by the caller). Each slice is a fresh copy.
Result<std::vector<Tuple>> Unbatch(const Tuple& batch, int64_t n);

// Stacks component `c` of each element. All must have the same shape
// unless `pad`: then each dimension takes the largest size among the
// elements and the rest is filled with zeros (empty strings). Ranks must
// agree either way. `what` names the queue in errors.
Result<Tensor> Stack(const std::vector<Tuple>& elements, size_t c, bool pad, const std::string& what);

// The error Stack would give for some component of `elements`, checked
// before they leave the queue so that a batch that cannot be made loses
// nothing.
Status CheckStackable(const std::vector<Tuple>& elements, bool pad, const std::string& what);

}  // namespace tfg::queue
