// warp_shared_reduce: the sum of an array of unsigned ints (modulo 2^32).
// Each thread adds up its elements with a grid-stride loop, each warp
// folds its 32 partial sums in shared memory (lanes below offset add the
// value offset lanes above, offset = 16, 8, 4, 2, 1), and lane 0 of every
// warp adds the warp's sum into the single result with one atomicAdd.
// The fold is the Fermi-era warp-synchronous idiom of the CUDA SDK's
// reduction sample (volatile shared memory, no barrier: the 32 lanes of a
// warp execute in lockstep). Written for gpusim's held-out correlation set
// in place of a __shfl_down_sync version, which GPGPU-Sim's GTX480
// configuration cannot run (and __syncwarp, which gpusim does not parse).

#define BLOCK 256

extern "C" __global__ void warp_shared_reduce(unsigned *result, const unsigned *in, int n)
{
    __shared__ unsigned partial[BLOCK];
    volatile unsigned *vpartial = partial;
    unsigned tid = threadIdx.x;
    unsigned lane = tid & 31;
    unsigned sum = 0;
    int stride = BLOCK * gridDim.x;
    for (int i = blockIdx.x * BLOCK + tid; i < n; i += stride)
        sum += in[i];
    vpartial[tid] = sum;
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        if (lane < offset)
            vpartial[tid] += vpartial[tid + offset];
    }
    if (lane == 0)
        atomicAdd(result, vpartial[tid]);
}
