// warp_shuffle_reduce: the sum of an array of unsigned ints (modulo 2^32).
// Each thread adds up its elements with a grid-stride loop, each warp
// reduces its 32 partial sums with __shfl_down_sync, and lane 0 of every
// warp adds the warp's sum into the single result with one atomicAdd.
// Written for gpusim's held-out correlation set.

extern "C" __global__ void warp_shuffle_reduce(unsigned *result, const unsigned *in, int n)
{
    unsigned sum = 0;
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        sum += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(result, sum);
}
