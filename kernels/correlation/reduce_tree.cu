// reduce_tree: barrier-heavy shared-memory tree reduction with interleaved
// addressing (the first kernel of the CUDA SDK reduction sample's series):
// 256 threads load one float each, then at stride s = 1, 2, ..., 128 the
// threads whose index is a multiple of 2 s add the element s above them,
// with __syncthreads() after every level; thread 0 writes the CTA's sum.
// Written for gpusim's correlation set.

#define BLOCK 256

extern "C" __global__ void reduce_tree(float *partial, const float *in, int n)
{
    __shared__ float sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < (unsigned)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        if ((tid & (2 * s - 1)) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}
