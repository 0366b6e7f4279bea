// saxpy: y[i] = a * x[i] + y[i] with a single-rounding fused multiply-add,
// over a grid-stride loop.
// Features: fma.rn.f32 (explicit __builtin_fmaf), grid-stride loop using
// %nctaid.x, unsigned loop counter, f32 kernel parameter.
#include "cuda_shim.h"

__global__ void saxpy(unsigned n, float a, const float *x, float *y) {
  unsigned stride = nctaid_x() * ntid_x();
  for (unsigned i = ctaid_x() * ntid_x() + tid_x(); i < n; i += stride)
    y[i] = __builtin_fmaf(a, x[i], y[i]);
}
