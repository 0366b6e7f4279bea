// Monte-Carlo (BLWS Table 3, from the CUDA SDK MonteCarlo sample): European
// call options priced by Monte Carlo simulation, MonteCarloOneBlockPerOption.
// A CTA of THREAD_N = 256 threads (8 warps) prices one option at a time
// (options blockIdx.x, blockIdx.x + gridDim.x, ...: one option per CTA when
// the grid has as many CTAs as options). Each thread walks the paths
// threadIdx.x, threadIdx.x + 256, ... of the shared table of standard-normal
// samples d_Samples (generated on the host, as the sample does with the
// cuRAND host API), turns each sample r into the option's payoff at expiry
//     max(S * exp(MuByT + VBySqrtT * r) - X, 0)
// (with __expf, the sample's fast exponential) and accumulates the payoff and
// its square; the 256 partial sums are then reduced in shared memory by a
// tree (the sample's sumReduce, a __syncthreads() per level) and thread 0
// writes the option's (sum, sum of squares). The host turns them into the
// discounted expected value and its confidence width.
//
// Written for gpusim after the sample's algorithm (none of its code).
#define THREAD_N 256

struct OptionData {
    float S;        // stock price
    float X;        // strike
    float MuByT;    // (R - 0.5 V^2) T
    float VBySqrtT; // V sqrt(T)
};

struct OptionValue {
    float Expected;   // sum of the payoffs
    float Confidence; // sum of their squares
};

__device__ __forceinline__ float endCallValue(float S, float X, float r, float MuByT, float VBySqrtT)
{
    float callValue = S * __expf(MuByT + VBySqrtT * r) - X;
    return (callValue > 0.0f) ? callValue : 0.0f;
}

extern "C" __global__ void MonteCarloOneBlockPerOption(OptionValue *d_CallValue,
                                                       const OptionData *d_OptionData,
                                                       const float *d_Samples,
                                                       int pathN, int optionN)
{
    __shared__ float s_SumCall[THREAD_N];
    __shared__ float s_Sum2Call[THREAD_N];

    for (int optionIndex = blockIdx.x; optionIndex < optionN; optionIndex += gridDim.x) {
        const float S = d_OptionData[optionIndex].S;
        const float X = d_OptionData[optionIndex].X;
        const float MuByT = d_OptionData[optionIndex].MuByT;
        const float VBySqrtT = d_OptionData[optionIndex].VBySqrtT;

        float sumCall = 0.0f;
        float sum2Call = 0.0f;
        for (int i = threadIdx.x; i < pathN; i += THREAD_N) {
            float r = d_Samples[i];
            float callValue = endCallValue(S, X, r, MuByT, VBySqrtT);
            sumCall += callValue;
            sum2Call += callValue * callValue;
        }
        s_SumCall[threadIdx.x] = sumCall;
        s_Sum2Call[threadIdx.x] = sum2Call;

        for (int stride = THREAD_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            if (threadIdx.x < stride) {
                s_SumCall[threadIdx.x] += s_SumCall[threadIdx.x + stride];
                s_Sum2Call[threadIdx.x] += s_Sum2Call[threadIdx.x + stride];
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            OptionValue t;
            t.Expected = s_SumCall[0];
            t.Confidence = s_Sum2Call[0];
            d_CallValue[optionIndex] = t;
        }
        __syncthreads();
    }
}
