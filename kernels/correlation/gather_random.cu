// gather_random: out[i] = src[idx[i]] with idx uniformly random over a
// source array larger than the L2: the index load is coalesced, the
// gathered loads of a warp touch up to 32 different lines (uncoalesced,
// mostly DRAM misses). Written for gpusim's correlation set.

extern "C" __global__ void gather_random(float *out, const float *src, const int *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = src[idx[i]];
}
