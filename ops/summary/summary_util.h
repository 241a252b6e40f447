// What the summary ops share: reading a tensor's values as doubles, a
// serialized Summary as the op's string scalar output, and the dtypes a
// summary accepts.
#pragma once

#include <string>
#include <vector>

#include "ops/core/kernel.h"
#include "proto/summary.pb.h"

namespace tfg::summary {

// The numeric dtypes summaries take (f16 f32 f64 i32 i64) and bool.
const DTypeSet& SummaryValueTypes();

// Every element of a numeric or bool tensor, as doubles.
std::vector<double> ValuesAsDoubles(const Tensor& t);

// The tag input (a string scalar) or an error naming the op.
Result<std::string> ReadTag(const OpKernelContext& ctx, const char* op, int input);

// Serializes `s` into output 0, a string scalar.
Status SetSummaryOutput(OpKernelContext& ctx, const pb::Summary& s);

// Shape function of every summary op: tag inputs (scalars) checked, output
// a string scalar.
Status SummaryShapeFn(ShapeContext& c);

}  // namespace tfg::summary
