// stream_triad: STREAM's triad a[i] = b[i] + s * c[i] over n floats, one
// element per thread: memory-bound, fully coalesced streaming (two loads,
// one store, one fma per element). Written for gpusim's correlation set.

extern "C" __global__ void stream_triad(float *a, const float *b, const float *c,
                                        float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] + s * c[i];
}
