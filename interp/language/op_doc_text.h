// One op's reference text, generated from the op registry: the section
// docs/ops.md has for it (interp/app/op_docs.h assembles the whole page)
// and what help(op) prints.
#pragma once

#include <string>

#include "ops/core/op_registry.h"

namespace tfg {

// How a script calls the op: `matmul(a, b, transpose_a=false, transpose_b=false)`.
// Parameters in OpDef::params order; attrs with defaults as `name=value`.
// Type attrs inferred from the inputs are keyword-only and not shown.
std::string OpSignature(const OpDef& op);

// The op's section of docs/ops.md in Markdown: signature, doc, inputs,
// outputs, attrs, gradient, statefulness and kernels per device.
std::string OpDocSection(const OpDef& op, const OpRegistry& registry);

}  // namespace tfg
