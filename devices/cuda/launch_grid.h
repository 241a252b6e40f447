// The launch shape of the CUDA kernels that give each element a thread:
// blocks of kThreads, and as many blocks as the elements need up to a
// grid-size cap, beyond which the kernels' grid-stride loops cover the rest.
#pragma once

#include <cstdint>

namespace tfg::cuda {

inline constexpr int kThreads = 256;

inline unsigned Blocks(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 ? blocks : 65535);
}

}  // namespace tfg::cuda
