// Buffer forwarding (TensorFlow's forward_input): a kernel whose output has
// the dtype and size of one of its inputs may write it into that input's
// buffer when nothing else holds the buffer.
//
// Why it is safe: a tensor's buffer is reference counted (tensor.h), and
// whatever may still read a value holds a reference to it: a variable's
// storage, a constant's kernel, the run's feeds, a fetch slot, a host value
// of the script, another consumer's input slot, a queue or stack. The
// executor moves a value into its last consumer's slot (PlanEdge::last_use)
// and the slot is the only holder once every other reader let go, so a
// count of one means the value is dead after this kernel: the kernel may
// overwrite it, as long as it reads each element before it writes the same
// one (the elementwise loops do).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "ops/core/kernel.h"

namespace tfg {

// Whether output `output` (of `shape`) may take input `input`'s buffer:
// the input is the buffer's only holder, owns memory of this node's
// allocator, and has the output's dtype and number of elements.
bool CanForwardInput(const OpKernelContext& ctx, int input, int output, const TensorShape& shape);

// Output `output` of `shape`: the buffer of the first input of `candidates`
// that CanForwardInput allows (its contents are the input's, to be
// overwritten), else a fresh allocation as allocate_output makes.
Result<Tensor*> ForwardInputOrAllocate(OpKernelContext& ctx, std::initializer_list<int> candidates, int output,
                                       const TensorShape& shape);

// How many outputs took an input's buffer in this process (for --stats and
// tests).
int64_t ForwardedInputCount();

// False when TFG_FORWARD_INPUTS=0 (for comparisons): every output is
// allocated.
bool InputForwardingEnabled();

}  // namespace tfg
