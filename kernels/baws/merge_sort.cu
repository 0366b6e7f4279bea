// Merge Sort (BAWS Table 2 "MS", from the CUDA SDK mergeSort sample): the
// shared-memory stage mergeSortSharedKernel, which sorts independent chunks
// of SHARED_SIZE_LIMIT key/value pairs. Each of the log2(SHARED_SIZE_LIMIT)
// merge steps doubles the sorted run length: every thread takes one element
// of each of the two runs it belongs to, finds its rank in the other run by
// a binary search (exclusive for the left run, inclusive for the right run,
// so equal keys keep their order: the sort is stable), and scatters both
// elements to their merged positions. __syncthreads() separates the reads
// from the writes of every step.
//
// Written for gpusim after the sample's algorithm; ascending order only
// (the sample's sortDir = 1). SHARED_SIZE_LIMIT = 512 keys: 256 threads
// per block = 8 warps, the paper's warps per TB.
#define SHARED_SIZE_LIMIT 512u

typedef unsigned int uint;

__device__ __forceinline__ uint rank_exclusive(uint val, const uint *data, uint len, uint stride)
{
    // Number of elements of data[0..len) strictly below val.
    if (len == 0) return 0;
    uint pos = 0;
    for (; stride > 0; stride >>= 1) {
        uint next = min(pos + stride, len);
        if (data[next - 1] < val) pos = next;
    }
    return pos;
}

__device__ __forceinline__ uint rank_inclusive(uint val, const uint *data, uint len, uint stride)
{
    // Number of elements of data[0..len) at or below val.
    if (len == 0) return 0;
    uint pos = 0;
    for (; stride > 0; stride >>= 1) {
        uint next = min(pos + stride, len);
        if (data[next - 1] <= val) pos = next;
    }
    return pos;
}

extern "C" __global__ void mergeSortSharedKernel(uint *d_DstKey, uint *d_DstVal,
                                                 const uint *d_SrcKey, const uint *d_SrcVal,
                                                 uint arrayLength)
{
    __shared__ uint s_key[SHARED_SIZE_LIMIT];
    __shared__ uint s_val[SHARED_SIZE_LIMIT];

    const uint base = blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    const uint half = SHARED_SIZE_LIMIT / 2;
    s_key[threadIdx.x] = d_SrcKey[base];
    s_val[threadIdx.x] = d_SrcVal[base];
    s_key[threadIdx.x + half] = d_SrcKey[base + half];
    s_val[threadIdx.x + half] = d_SrcVal[base + half];

    for (uint stride = 1; stride < arrayLength; stride <<= 1) {
        uint lane = threadIdx.x & (stride - 1);
        uint *runKey = s_key + 2 * (threadIdx.x - lane);
        uint *runVal = s_val + 2 * (threadIdx.x - lane);

        __syncthreads();
        uint keyA = runKey[lane];
        uint valA = runVal[lane];
        uint keyB = runKey[lane + stride];
        uint valB = runVal[lane + stride];
        uint posA = rank_exclusive(keyA, runKey + stride, stride, stride) + lane;
        uint posB = rank_inclusive(keyB, runKey, stride, stride) + lane;

        __syncthreads();
        runKey[posA] = keyA;
        runVal[posA] = valA;
        runKey[posB] = keyB;
        runVal[posB] = valB;
    }

    __syncthreads();
    d_DstKey[base] = s_key[threadIdx.x];
    d_DstVal[base] = s_val[threadIdx.x];
    d_DstKey[base + half] = s_key[threadIdx.x + half];
    d_DstVal[base + half] = s_val[threadIdx.x + half];
}
