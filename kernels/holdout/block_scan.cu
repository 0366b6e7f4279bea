// block_scan: inclusive prefix sum of every 512-element block of an array
// of unsigned ints, one 512-thread CTA per block (Hillis-Steele scan in
// double-buffered shared memory): at offset d = 1, 2, ..., 256 each thread
// adds the element d below its own, with __syncthreads() after every step.
// Sums wrap modulo 2^32. Written for gpusim's held-out correlation set.

#define BLOCK 512

extern "C" __global__ void block_scan(unsigned *out, const unsigned *in, int n)
{
    __shared__ unsigned buf[2][BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int cur = 0;
    buf[cur][tid] = (i < (unsigned)n) ? in[i] : 0u;
    __syncthreads();
    for (unsigned d = 1; d < BLOCK; d *= 2) {
        unsigned v = buf[cur][tid];
        if (tid >= d)
            v += buf[cur][tid - d];
        cur ^= 1;
        buf[cur][tid] = v;
        __syncthreads();
    }
    if (i < (unsigned)n)
        out[i] = buf[cur][tid];
}
