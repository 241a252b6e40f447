// More of tfg's gradient helpers as TensorFlow compositions (see
// export_composite.h): softmax_grad, log_softmax_grad, max_grad/min_grad,
// prod_grad, pad_grad, strided_slice_grad and gather_grad along an axis
// other than 0, each following TensorFlow's own gradient of the forward
// op; and forward ops whose TensorFlow ops take other inputs or attrs:
// softmax/log_softmax (TensorFlow's take only the last axis), pad
// (paddings a matrix; MirrorPad for REFLECT/SYMMETRIC) and
// index_table_find (a vocabulary file's hash table).
#pragma once

#include <optional>
#include <string>

#include "interp/interop/export_composer.h"

namespace tfg::interop {

// The shape dy of a reduction of x (whose shape is the tensor `x_shape`)
// must be reshaped to so that it broadcasts against x: x's shape with 1 at
// each reduced axis. None when dy already broadcasts (keepdims, or every
// axis reduced to a scalar).
Result<std::optional<std::string>> KeptShape(Composer& c, const std::string& x_shape);

Status SoftmaxAlongAxis(Composer& c, const std::string& tf_op);
Status SoftmaxGrad(Composer& c);
Status LogSoftmaxGrad(Composer& c);
Status SelectGrad(Composer& c);
Status ProdGrad(Composer& c);
Status PadGrad(Composer& c);
Status GatherGradAlongAxis(Composer& c, int64_t axis);
Status StridedSliceGrad(Composer& c);
Status Pad(Composer& c);
Status VocabularyLookup(Composer& c);

}  // namespace tfg::interop
