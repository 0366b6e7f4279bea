// sfu_mix: special-function-unit heavy. Each thread sums, over `iters`
// steps, __sinf(t) + __expf(-t) * rsqrtf(t + 1) at t = x + k / 16 (x its
// input): sin.approx, ex2.approx and rsqrt.approx in every iteration.
// Written for gpusim's correlation set.

extern "C" __global__ void sfu_mix(float *out, const float *in, int iters, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    float acc = 0.0f;
    for (int k = 0; k < iters; k++) {
        float t = x + (float)k * 0.0625f;
        acc += __sinf(t) + __expf(-t) * rsqrtf(t + 1.0f);
    }
    out[i] = acc;
}
