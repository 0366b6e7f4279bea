// vector_add: c[i] = a[i] + b[i], one element per thread, bounds-guarded.
// Features: 1-D global index (ctaid*ntid+tid), guard branch, f32 add,
// cvta.to.global, ld/st.global.
#include "cuda_shim.h"

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = ctaid_x() * ntid_x() + tid_x();
  if (i < n)
    c[i] = a[i] + b[i];
}
