// histogram256: the CUDA SDK sample's 256-bin byte histogram (per-warp
// shared sub-histograms, then a merge kernel), written for gpusim after the
// public algorithm.
//
// histogram256Kernel: CTAs of 6 warps (192 threads); each warp owns a
// 256-bin sub-histogram in shared memory; the grid strides over the data as
// 32-bit words, each word adding its four bytes with shared atomics; then
// every CTA sums its 6 sub-histograms into its row of d_PartialHistograms.
// mergeHistogram256Kernel: one 256-thread CTA per bin sums that bin over
// the partial histograms (strided loop, then a shared tree).
// Host (the sample's histogram256()): histogram256Kernel with
// PARTIAL_HISTOGRAM256_COUNT = 240 CTAs, then mergeHistogram256Kernel with
// 256 CTAs.  Index arithmetic uses __umul24 as in the sample.

#define HISTOGRAM256_BIN_COUNT 256
#define LOG2_WARP_SIZE 5U
#define WARP_COUNT 6
#define HISTOGRAM256_THREADBLOCK_SIZE (WARP_COUNT << LOG2_WARP_SIZE)
#define HISTOGRAM256_THREADBLOCK_MEMORY (WARP_COUNT * HISTOGRAM256_BIN_COUNT)
#define MERGE_THREADBLOCK_SIZE 256

#define UMUL(a, b) __umul24((a), (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

typedef unsigned int uint;

__device__ __forceinline__ void add_byte(uint *warp_hist, uint bin)
{
    atomicAdd(warp_hist + bin, 1);
}

__device__ __forceinline__ void add_word(uint *warp_hist, uint word)
{
    add_byte(warp_hist, (word >> 0) & 0xFFU);
    add_byte(warp_hist, (word >> 8) & 0xFFU);
    add_byte(warp_hist, (word >> 16) & 0xFFU);
    add_byte(warp_hist, (word >> 24) & 0xFFU);
}

extern "C" __global__ void histogram256Kernel(uint *d_PartialHistograms, const uint *d_Data,
                                              uint dataCount)
{
    __shared__ uint s_Hist[HISTOGRAM256_THREADBLOCK_MEMORY];
    uint *warp_hist = s_Hist + (threadIdx.x >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT;

    for (uint i = 0; i < HISTOGRAM256_THREADBLOCK_MEMORY / HISTOGRAM256_THREADBLOCK_SIZE; i++)
        s_Hist[threadIdx.x + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0;
    __syncthreads();

    for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount;
         pos += UMUL(blockDim.x, gridDim.x))
        add_word(warp_hist, d_Data[pos]);
    __syncthreads();

    for (uint bin = threadIdx.x; bin < HISTOGRAM256_BIN_COUNT; bin += HISTOGRAM256_THREADBLOCK_SIZE) {
        uint sum = 0;
        for (uint i = 0; i < WARP_COUNT; i++)
            sum += s_Hist[bin + i * HISTOGRAM256_BIN_COUNT];
        d_PartialHistograms[blockIdx.x * HISTOGRAM256_BIN_COUNT + bin] = sum;
    }
}

extern "C" __global__ void mergeHistogram256Kernel(uint *d_Histogram,
                                                   const uint *d_PartialHistograms,
                                                   uint histogramCount)
{
    uint sum = 0;
    for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE)
        sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM256_BIN_COUNT];

    __shared__ uint data[MERGE_THREADBLOCK_SIZE];
    data[threadIdx.x] = sum;

    for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride)
            data[threadIdx.x] += data[threadIdx.x + stride];
    }

    if (threadIdx.x == 0)
        d_Histogram[blockIdx.x] = data[0];
}
