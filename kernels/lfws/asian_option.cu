// asian_option: Monte Carlo pricing of an arithmetic-average Asian option
// after the CUDA SDK's MC_SingleAsianOptionP (LFWS Table 2 "SAOP"),
// written for gpusim after the published algorithm, with its own
// generator (xorshift_jump.cuh) in place of cuRAND. Three launches, as in
// the sample: initRNG (skip-ahead to each thread's subsequence, jump
// matrices read from global memory); generatePaths, where each thread
// walks its simulations over a grid-stride loop, steps the normalised
// price s *= exp(drift + diffusion * z) with Box-Muller normals z and
// stores every step to the `paths` matrix (step-major: coalesced); and
// computeValue, where each thread reads its paths back, averages them,
// takes the call payoff max(avg * spot / steps - strike, 0), and the
// 128-thread CTA sums its payoffs in shared memory into one partial per
// CTA (the host averages and discounts them).

#include "xorshift_jump.cuh"

#define BLOCK 128

// The option, in global memory as in the sample.
struct AsianOption {
    float spot;
    float strike;
    float r;
    float sigma;
    float dt;
};

// A standard normal from Box-Muller; the second value of each pair is
// kept for the next call (as curand_normal does).
struct Normal {
    uint4 s;
    float cached;
    bool has;
};

__device__ __forceinline__ float next_normal(Normal &n)
{
    if (n.has) {
        n.has = false;
        return n.cached;
    }
    float u1 = xs128_uniform(n.s);
    float u2 = xs128_uniform(n.s);
    float rad = sqrtf(-2.0f * __logf(u1));
    float theta = 6.28318530717958647692f * u2;
    n.cached = rad * __sinf(theta);
    n.has = true;
    return rad * __cosf(theta);
}

extern "C" __global__ void generatePaths(float *__restrict__ paths,
                                         const uint4 *__restrict__ states,
                                         const AsianOption *__restrict__ option,
                                         unsigned numSims, unsigned numTimesteps)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned step = gridDim.x * blockDim.x;
    float drift = (option->r - 0.5f * option->sigma * option->sigma) * option->dt;
    float diffusion = option->sigma * sqrtf(option->dt);
    Normal n;
    n.s = states[tid];
    n.has = false;
    n.cached = 0.0f;
    for (unsigned i = tid; i < numSims; i += step) {
        float *out = paths + i;
        float s = 1.0f;
        for (unsigned t = 0; t < numTimesteps; t++, out += numSims) {
            s *= __expf(drift + diffusion * next_normal(n));
            *out = s;
        }
    }
}

extern "C" __global__ void computeValue(float *__restrict__ values,
                                        const float *__restrict__ paths,
                                        const AsianOption *__restrict__ option,
                                        unsigned numSims, unsigned numTimesteps)
{
    __shared__ float partial[BLOCK];
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned step = gridDim.x * blockDim.x;
    float spot = option->spot;
    float strike = option->strike;
    float sum = 0.0f;
    for (unsigned i = tid; i < numSims; i += step) {
        const float *p = paths + i;
        float avg = 0.0f;
        for (unsigned t = 0; t < numTimesteps; t++, p += numSims)
            avg += *p;
        avg = avg * spot / (float)numTimesteps;
        float payoff = avg - strike;
        sum += fmaxf(payoff, 0.0f);
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        values[blockIdx.x] = partial[0];
}
