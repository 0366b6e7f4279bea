// reduce_sum: sum of a float array. Each thread accumulates a grid-stride
// partial sum, the block reduces in shared memory down to 32 values, the
// first warp finishes with shfl.sync.down, and lane 0 adds the block total
// into *out with a global float atomic. Requires blockDim.x a power of two,
// 64 <= blockDim.x <= 1024.
// Features: dynamic-trip tree reduction with bar.sync inside a loop,
// shfl.sync.down.b32 on f32 (kernel marked target("ptx60")), warp-uniform
// branch on tid < 32, atom.global.add.f32.
#include "cuda_shim.h"

__global__ void PTX60 reduce_sum(const float *in, unsigned n, float *out) {
  __shared__ float sdata[1024];
  unsigned tid = tid_x();
  unsigned stride = nctaid_x() * ntid_x();
  float sum = 0.0f;
  for (unsigned i = ctaid_x() * ntid_x() + tid; i < n; i += stride)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();

  for (unsigned s = ntid_x() / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }

  if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync_f(FULL_MASK, v, off);
    if (tid == 0)
      atomicAdd(out, v);
  }
}
