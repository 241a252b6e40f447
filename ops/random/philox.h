// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and
// Shaw, "Parallel Random Numbers: As Easy as 1, 2, 3" (SC 2011), written
// from the paper's description. Output block n is a pure function of (key,
// counter n), so any slice of a stream can be computed independently —
// kernels split work across threads without changing the numbers.
#pragma once

#include <array>
#include <cstdint>

namespace tfg::random {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

namespace philox_internal {
// Round multipliers and Weyl key increments from the paper.
inline constexpr uint32_t kM0 = 0xD2511F53u;
inline constexpr uint32_t kM1 = 0xCD9E8D57u;
inline constexpr uint32_t kW0 = 0x9E3779B9u;
inline constexpr uint32_t kW1 = 0xBB67AE85u;

inline void Round(PhiloxCounter& x, const PhiloxKey& k) {
  const uint64_t p0 = uint64_t{kM0} * x[0];
  const uint64_t p1 = uint64_t{kM1} * x[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  x = {hi1 ^ x[1] ^ k[0], lo1, hi0 ^ x[3] ^ k[1], lo0};
}
}  // namespace philox_internal

// Ten rounds, the key bumped by the Weyl constants between rounds.
inline PhiloxCounter Philox4x32(PhiloxCounter x, PhiloxKey k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += philox_internal::kW0;
      k[1] += philox_internal::kW1;
    }
    philox_internal::Round(x, k);
  }
  return x;
}

}  // namespace tfg::random
