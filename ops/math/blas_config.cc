#include "ops/math/blas_config.h"

#include <cblas.h>

namespace tfg {

void SetBlasThreads(int threads) { openblas_set_num_threads(threads < 1 ? 1 : threads); }

}  // namespace tfg
