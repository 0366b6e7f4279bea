// compute_fma: compute-bound, almost no memory (one load, one store per
// thread). Each thread runs `iters` rounds of five fp32 FMAs: four
// independent chains x0..x3 (x = x * a + b, instruction-level parallelism)
// and one chain y that depends on x0 of the same round (a dependent
// chain). Written for gpusim's correlation set.

extern "C" __global__ void compute_fma(float *out, const float *in, float a, float b,
                                       int iters, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    float x0 = x, x1 = x + 1.0f, x2 = x + 2.0f, x3 = x + 3.0f;
    float y = x;
    for (int k = 0; k < iters; k++) {
        x0 = fmaf(x0, a, b);
        x1 = fmaf(x1, a, b);
        x2 = fmaf(x2, a, b);
        x3 = fmaf(x3, a, b);
        y = fmaf(y, a, x0);
    }
    out[i] = ((x0 + x1) + (x2 + x3)) + y;
}
