// The one error for a GPU request that cannot be met, whether tfg was built
// with CUDA or not.
#include "devices/cuda/cuda_devices.h"

namespace tfg {

Status NoCudaDeviceError(int requested_ordinal) {
  int count = CudaDeviceCount();
  if (count == 0) {
    return Error(Code::kUnavailable, "no CUDA device available for /device:gpu:{} ({})", requested_ordinal,
                 CudaUnavailableReason());
  }
  return Error(Code::kUnavailable, "no CUDA device available for /device:gpu:{} (this machine has {} GPU{})",
               requested_ordinal, count, count == 1 ? "" : "s");
}

}  // namespace tfg
