// The clock of the transport's time limits and rates (handshakes,
// silences, answers to strangers): steady, in nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

namespace tfg::net {

inline int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace tfg::net
