// strided_copy: out[i] = in[i * stride] for n floats, one element per
// thread. With stride > 1 a warp's loads spread over stride times as many
// lines as its stores (partially coalesced loads, coalesced stores).
// Written for gpusim's held-out correlation set.

extern "C" __global__ void strided_copy(float *out, const float *in, int stride, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i * stride];
}
