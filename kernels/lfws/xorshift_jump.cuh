// The random number generator of the Monte Carlo kernels (estimate_pi,
// asian_option), written for gpusim in the manner of cuRAND's XORWOW
// device API that the CUDA SDK samples use: a GF(2)-linear generator
// (Marsaglia's xorshift128) whose per-thread subsequences are reached by
// skip-ahead with jump matrices kept in global memory, as curand_init
// does. Thread `tid` starts from the seed state advanced by tid * 2^64
// steps: for every set bit b of tid, the state is multiplied by the jump
// matrix J_b = A^(2^(64+b)) (A: one xorshift128 step). A matrix is 128
// columns of 4 words, column c being the image of state bit c (word c/32,
// bit c%32); the product XORs the columns of the state's set bits, so it
// is a chain of data-dependent global loads.

// The xorshift128 state (x, y, z, w) lives in a uint4.
__device__ __forceinline__ unsigned xs128_next(uint4 &s)
{
    unsigned t = s.x ^ (s.x << 11);
    s.x = s.y;
    s.y = s.z;
    s.z = s.w;
    s.w = s.w ^ (s.w >> 19) ^ t ^ (t >> 8);
    return s.w;
}

// A uniform float in (0, 1]: the top 24 bits plus one, times 2^-24.
__device__ __forceinline__ float xs128_uniform(uint4 &s)
{
    return (float)((xs128_next(s) >> 8) + 1u) * 0x1p-24f;
}

// s <- M s for the 128 x 128 bit matrix `m` (128 columns of 4 words).
__device__ __forceinline__ void xs128_jump(uint4 &s, const unsigned *__restrict__ m)
{
    unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0;
    unsigned words[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
    for (int w = 0; w < 4; w++) {
        unsigned v = words[w];
        const unsigned *col = m + w * 32 * 4;
#pragma unroll 1
        for (int b = 0; b < 32; b++, v >>= 1, col += 4) {
            if (v & 1u) {
                r0 ^= col[0];
                r1 ^= col[1];
                r2 ^= col[2];
                r3 ^= col[3];
            }
        }
    }
    s = make_uint4(r0, r1, r2, r3);
}

// The skip-ahead kernel (the samples' initRNG, curand_init(seed, tid, 0)):
// state[tid] = (product of J_b over the set bits b of tid) * seed state.
// `jumps` holds `jumpCount` matrices of 512 words.
extern "C" __global__ void initRNG(uint4 *__restrict__ states,
                                   const unsigned *__restrict__ jumps,
                                   int jumpCount, unsigned s0, unsigned s1,
                                   unsigned s2, unsigned s3)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    uint4 s = make_uint4(s0, s1, s2, s3);
#pragma unroll 1
    for (int b = 0; b < jumpCount; b++) {
        if ((tid >> b) & 1u)
            xs128_jump(s, jumps + b * 512);
    }
    states[tid] = s;
}
