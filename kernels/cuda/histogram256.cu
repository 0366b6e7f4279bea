// histogram256: 256-bin byte histogram. Each block privatises the histogram
// in shared memory (atom.shared.add), then merges its non-zero bins into the
// global histogram (atom.global.add).
// Features: block-strided shared-memory initialisation loop, bar.sync,
// grid-stride loop over the input, shared atomics, global atomics,
// u8 loads (ld.global.u8), guarded atomic.
#include "cuda_shim.h"

__global__ void histogram256(const unsigned char *data, unsigned n,
                             unsigned *hist) {
  __shared__ unsigned local_hist[256];
  for (unsigned b = tid_x(); b < 256; b += ntid_x())
    local_hist[b] = 0;
  __syncthreads();

  unsigned stride = nctaid_x() * ntid_x();
  for (unsigned i = ctaid_x() * ntid_x() + tid_x(); i < n; i += stride)
    atomicAdd(&local_hist[data[i]], 1u);
  __syncthreads();

  for (unsigned b = tid_x(); b < 256; b += ntid_x()) {
    unsigned c = local_hist[b];
    if (c != 0)
      atomicAdd(&hist[b], c);
  }
}
