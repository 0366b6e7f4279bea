// bitonic_sort_shared: every CTA sorts its 512 unsigned keys ascending in
// shared memory with a bitonic sorting network, one thread per key: for
// each stage (size k = 2 .. 512, distance j = k/2 .. 1) the thread whose
// partner tid ^ j lies above it compares the two keys and swaps them when
// they are out of order for the direction of its k-sized run, and all
// threads meet at __syncthreads() before the next stage. The sorted keys
// are written back in place. Written for gpusim's held-out correlation set.

#define BLOCK 512

extern "C" __global__ void bitonic_sort_shared(unsigned *keys)
{
    __shared__ unsigned s[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned base = blockIdx.x * BLOCK;
    s[tid] = keys[base + tid];
    __syncthreads();
    for (unsigned k = 2; k <= BLOCK; k *= 2) {
        for (unsigned j = k / 2; j > 0; j /= 2) {
            unsigned partner = tid ^ j;
            if (partner > tid) {
                unsigned a = s[tid];
                unsigned b = s[partner];
                if ((tid & k) == 0) {
                    if (a > b) {
                        s[tid] = b;
                        s[partner] = a;
                    }
                } else {
                    if (a < b) {
                        s[tid] = b;
                        s[partner] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    keys[base + tid] = s[tid];
}
