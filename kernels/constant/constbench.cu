// constbench: constant-memory microbenchmark for gpusim vs GPGPU-Sim (GTX480).
// Every thread runs `iters` dependent iterations acc += TABLE[idx(k, lane)],
// idx = ((lane % spread) * 16 + k * 16 * spread) & (N - 1):
// each warp load touches `spread` distinct 64-byte lines (16 floats each),
// and successive iterations walk on through the table.
//   spread = 1  : uniform (every lane the same address, one line)
//   spread = 32 : fully divergent (32 distinct lines per warp load)
// c4k (4 KB, 64 lines) fits GPGPU-Sim's 8 KB constant L1; c16k (16 KB,
// 256 lines) does not: walking it cyclically misses under LRU.
// no_const is the same loop with the load replaced by a conversion.

__constant__ float c4k[1024];
__constant__ float c16k[4096];

extern "C" __global__ void const4k(float *out, int iters, int spread)
{
    int lane = threadIdx.x & 31;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < iters; k++)
        acc += c4k[((lane % spread) * 16 + k * 16 * spread) & 1023];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void const16k(float *out, int iters, int spread)
{
    int lane = threadIdx.x & 31;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < iters; k++)
        acc += c16k[((lane % spread) * 16 + k * 16 * spread) & 4095];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void no_const(float *out, int iters, int spread)
{
    int lane = threadIdx.x & 31;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < iters; k++)
        acc += (float)(((lane % spread) * 16 + k * 16 * spread) & 1023);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
