// The op reference (docs/ops.md), generated from the op registry so it can
// never drift from the ops themselves: `tfg doc ops` prints it and
// scripts/gen-docs writes it; a test fails when the committed copy is stale.
#pragma once

#include <string>

#include "interp/language/op_doc_text.h"
#include "ops/core/op_registry.h"

namespace tfg {

// The whole reference in Markdown: an index, then one section per op in
// name order with signature, doc, inputs, outputs, attrs, gradient,
// statefulness and kernels per device. Deterministic for a given registry.
std::string OpReferenceMarkdown(const OpRegistry& registry);

}  // namespace tfg
