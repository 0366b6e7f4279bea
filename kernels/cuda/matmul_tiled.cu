// matmul_tiled: C = A * B for square n x n row-major matrices, 16x16 tiles
// staged through shared memory. n need not be a multiple of the tile: the
// out-of-range elements of a tile are loaded as 0.
// Features: 2-D thread/block indices (.x and .y), two __shared__ tiles
// (clang demotes them to function-scope .shared), bar.sync 0 twice per tile,
// 64-bit shared addresses from `mov.u64 %rd, var`, fully unrolled inner
// product (16 fma.rn.f32 with [reg+imm] shared addresses), guarded global
// loads (LLVM emits branches and a loop-carried register), and.pred/or.pred.
#include "cuda_shim.h"

#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = tid_x(), ty = tid_y();
  int row = ctaid_y() * TILE + ty;
  int col = ctaid_x() * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    int ac = t + tx, br = t + ty;
    As[ty][tx] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
    Bs[ty][tx] = (br < n && col < n) ? B[br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++)
      acc = __builtin_fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < n && col < n)
    C[row * n + col] = acc;
}
