// blackscholes: the CUDA SDK's Black-Scholes call/put pricing per option
// (polynomial cumulative normal distribution), with the full-precision
// expf, logf and sqrtf and true divisions instead of the SDK's intrinsics;
// float arrays, grid-stride loop. Unlike the SDK's, cnd's polynomial takes
// its coefficients in reverse order (K * (A5 + K * (A4 + ...)) for the
// SDK's K * (A1 + K * (A2 + ...))): a slip of the probe, kept so that the
// kernel is the one measured; same instructions, a different (still
// increasing, 0 to 1) function.
// Written as an unseen probe, then kept unchanged for gpusim's held-out
// correlation set.

__device__ inline float cnd(float d)
{
    const float A1 = 0.31938153f;
    const float A2 = -0.356563782f;
    const float A3 = 1.781477937f;
    const float A4 = -1.821255978f;
    const float A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) *
              (K * (A5 + K * (A4 + K * (A3 + K * (A2 + K * A1)))));
    if (d > 0)
        c = 1.0f - c;
    return c;
}

extern "C" __global__ void blackscholes(float *call, float *put, const float *price,
                                        const float *strike, const float *years,
                                        float r, float v, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x) {
        float S = price[i], X = strike[i], T = years[i];
        float sqrtT = sqrtf(T);
        float d1 = (logf(S / X) + (r + 0.5f * v * v) * T) / (v * sqrtT);
        float d2 = d1 - v * sqrtT;
        float c1 = cnd(d1);
        float c2 = cnd(d2);
        float expRT = expf(-r * T);
        call[i] = S * c1 - X * expRT * c2;
        put[i] = X * expRT * (1.0f - c2) - S * (1.0f - c1);
    }
}
