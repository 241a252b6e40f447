// The op reference (docs/ops.md), generated from the op registry so it can
// never drift from the ops themselves: `tfg doc ops` prints it and
// scripts/gen-docs writes it; a test fails when the committed copy is stale.
#pragma once

#include <string>

#include "ops/core/op_registry.h"

namespace tfg {

// How a script calls the op: `matmul(a, b, transpose_a=false, transpose_b=false)`.
// Parameters in OpDef::params order; attrs with defaults as `name=value`.
// Type attrs inferred from the inputs are keyword-only and not shown.
std::string OpSignature(const OpDef& op);

// The whole reference in Markdown: an index, then one section per op in
// name order with signature, doc, inputs, outputs, attrs, gradient,
// statefulness and kernels per device. Deterministic for a given registry.
std::string OpReferenceMarkdown(const OpRegistry& registry);

}  // namespace tfg
