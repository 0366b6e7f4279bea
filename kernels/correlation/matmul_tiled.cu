// matmul_tiled: C = A * B for n x n row-major floats, one 16x16 CTA per
// 16x16 tile of C; the A and B tiles are staged through shared memory with
// __syncthreads() before and after each tile's 16 FMAs. Elements past n
// load as 0 and are not stored, so any n works (the correlation run uses a
// multiple of 16, where no guard fails).
// Parameters as kernels/matmul.ptx (A, B, C, n), so the `matmul` workload
// drives it. Written for gpusim's correlation set.

#define TILE 16

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
