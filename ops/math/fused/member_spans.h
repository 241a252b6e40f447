// Script locations of the nodes a fused kernel stands for. A node's attrs
// hold only plain values, so the fusion pass (interp/runtime/
// fuse_elementwise.cc) interns each member's SourceSpan here and stores
// the number in the fused node's `spans` attr; the kernel looks it up to
// put an error at the member's line, as the member would have failed
// unfused. The table lives as long as the process (a few dozen bytes and
// a reference to the script text per distinct location).
#pragma once

#include <cstdint>

#include "ops/core/source.h"

namespace tfg::fused {

// A number for `span`; the same span gets the same number.
int64_t InternSpan(const SourceSpan& span);
// The span numbered `id`; a span that points nowhere for an unknown id
// (e.g. an attr a script wrote by hand).
SourceSpan SpanOf(int64_t id);

}  // namespace tfg::fused
