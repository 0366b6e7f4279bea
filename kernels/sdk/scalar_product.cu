// scalarProd: the CUDA SDK sample's scalar products of vectorN vector pairs,
// written for gpusim after the public algorithm.
//
// Each CTA takes pairs blockIdx.x, +gridDim.x, ...; for one pair, ACCUM_N
// = 1024 shared accumulators each sum every 1024th product (thread i takes
// accumulators i, i + blockDim.x, ...), then a shared-memory tree halves
// them to one with a barrier per level; thread 0 writes the result.
//
// The sample multiplies indices with IMUL = __mul24, kept here (nvcc 13.5
// -O3 for sm_75 emits an ordinary multiply for it, no mul24 instruction).

#define ACCUM_N 1024

#define IMUL(a, b) __mul24(a, b)

extern "C" __global__ void scalarProdGPU(float *d_C, const float *d_A, const float *d_B,
                                         int vectorN, int elementN)
{
    __shared__ float accumResult[ACCUM_N];

    for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
        int vectorBase = IMUL(elementN, vec);
        int vectorEnd = vectorBase + elementN;

        for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
            float sum = 0;
            for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
                sum += d_A[pos] * d_B[pos];
            accumResult[iAccum] = sum;
        }

        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
                accumResult[iAccum] += accumResult[stride + iAccum];
        }

        __syncthreads();
        if (threadIdx.x == 0)
            d_C[vec] = accumResult[0];
    }
}
