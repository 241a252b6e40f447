// Process-wide OpenBLAS settings.
#pragma once

namespace tfg {

// OpenBLAS's own threads for one large product. The session sets it to the
// intra-op thread count, so --threads 1 means one thread everywhere and
// OpenBLAS threads do not spin against the executor's on small products.
void SetBlasThreads(int threads);

}  // namespace tfg
