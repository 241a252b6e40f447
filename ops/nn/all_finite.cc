#include "ops/nn/all_finite.h"

#include <atomic>
#include <cstring>

namespace tfg::nn {

// A NaN or Inf has an exponent of all ones: integer tests, so the loop
// vectorizes.
bool AllFinite(const float* p, int64_t n) {
  uint32_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, p + i, sizeof bits);
    bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}

bool AllFinite(const OpKernelContext& ctx, const float* p, int64_t n) {
  std::atomic<bool> finite{true};
  ctx.ParallelFor(n, 1, [&](int64_t s, int64_t e) {
    if (!AllFinite(p + s, e - s)) finite.store(false, std::memory_order_relaxed);
  });
  return finite.load();
}

}  // namespace tfg::nn
