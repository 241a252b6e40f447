// The process's memory budget (`--memory-limit`, docs/cli.md): the most
// bytes the host allocator hands out for tensors at once. An allocation
// beyond it fails (nullptr from the allocator, so ResourceExhausted at the
// node's line) instead of ending the process; the readers also bound a
// single line or record by it. The default is what the machine can give:
// its physical memory, or the address-space limit (ulimit -v) when lower.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/core/status.h"

namespace tfg {

// The budget in bytes (always > 0).
int64_t MemoryLimit();
// Sets the budget; `bytes` <= 0 restores the machine's default.
void SetMemoryLimit(int64_t bytes);
// Physical memory, or RLIMIT_AS when lower.
int64_t DefaultMemoryLimit();
// Bytes the host allocators hold now (what counts against the budget).
int64_t MemoryInUse();

// Counts `bytes` against the budget; false (nothing counted) when they do
// not fit. Every successful reservation is released with ReleaseMemory.
bool ReserveMemory(size_t bytes);
void ReleaseMemory(size_t bytes);

// The error of a kernel that ran out of memory (a std::bad_alloc caught
// where kernels are invoked): ResourceExhausted naming the budget.
Status OutOfMemoryError();

// "4096", "512K", "64M", "2G", "1T" (powers of 1024; a trailing "B" or
// "iB" is allowed) as bytes; InvalidArgument for anything else or 0.
Result<int64_t> ParseByteSize(std::string_view text);
// 67108864 -> "64 MiB", 1500 -> "1500 bytes": for messages.
std::string FormatByteSize(int64_t bytes);

}  // namespace tfg
