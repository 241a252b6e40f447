// The script's graph as a GraphDef for TensorBoard's Graphs tab: node names
// keep their scopes as "/"-paths (TensorBoard groups by them), inputs are
// "node:index" ("node" for output 0) and "^node" for control edges, the
// device is the placed one (else the requested one), and the attrs carry
// dtypes, shapes, the output shapes (`_output_shapes`) and the script line
// that built the node (`_source`).
#pragma once

#include "ops/core/graph.h"
#include "proto/graph.pb.h"

namespace tfg::summary {

pb::DataType ToProtoDType(DType dtype);
pb::TensorShapeProto ToProtoShape(const PartialShape& shape);
pb::GraphDef ToGraphDef(const Graph& graph);

}  // namespace tfg::summary
