// estimate_pi: Monte Carlo estimation of pi after the CUDA SDK's
// MC_EstimatePiInlineP (LFWS Table 2 "EPP"), written for gpusim after the
// published algorithm, with its own generator (xorshift_jump.cuh) in
// place of cuRAND. Two launches, as in the sample: initRNG gives each
// thread its subsequence by skip-ahead (jump matrices read from global
// memory, the bulk of the long operations, as curand_init's are), then
// computeValue draws `numSims` points over a grid-stride loop, counts the
// ones inside the unit circle (x*x + y*y < 1), reduces the counts of its
// 128-thread CTA in shared memory and writes one count per CTA.

#include "xorshift_jump.cuh"

#define BLOCK 128

extern "C" __global__ void computeValue(unsigned *__restrict__ results,
                                        const uint4 *__restrict__ states,
                                        unsigned numSims)
{
    __shared__ unsigned partial[BLOCK];
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned step = gridDim.x * blockDim.x;
    uint4 s = states[tid];
    unsigned inside = 0;
    for (unsigned i = tid; i < numSims; i += step) {
        float x = xs128_uniform(s);
        float y = xs128_uniform(s);
        if (x * x + y * y < 1.0f)
            inside++;
    }
    partial[threadIdx.x] = inside;
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        results[blockIdx.x] = partial[0];
}
