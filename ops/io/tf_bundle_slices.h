// Partitioned variables in TensorFlow V2 checkpoints: a variable saved by a
// partitioner (tf.compat.v1 partitioned variables, save_slice_info) has an
// index entry with its full dtype and shape and the list of its slices, and
// each slice is an entry of its own under a binary key TensorFlow builds
// with its "ordered code" (EncodeTensorNameSlice). Reading one assembles
// the full tensor from its slices.
#pragma once

#include <functional>
#include <string>

#include "ops/core/status.h"
#include "ops/core/tensor.h"
#include "ops/io/tf_bundle_format.h"

namespace tfg::tf_bundle {

// The index key of slice `slice` of tensor `name`, byte for byte as
// TensorFlow's EncodeTensorNameSlice writes it.
std::string SliceKey(const std::string& name, const TensorSlice& slice);

// The full tensor of partitioned entry `e`: each slice is looked up in
// `index.slice_entries` and read with `decode`, and must have the slice's
// shape, lie inside the tensor and cover it exactly once with the others.
Result<Tensor> AssembleSlices(const IndexEntry& e, const Index& index,
                              const std::function<Result<Tensor>(const IndexEntry&)>& decode);

}  // namespace tfg::tf_bundle
