// Page View Count (BAWS Table 2 "PVC", after Mars' PVC): the number of
// distinct page views per URL in a web log. A log entry is one 32-bit word,
// URL in the high 16 bits and client (IP) in the low 16 bits; a view is
// distinct when its (URL, IP) pair is new. As Mars groups a map stage's
// output by sorting it, each thread block of 256 threads (8 warps, the
// paper's warps per TB) takes a chunk of 512 entries and
//   1. sorts them in shared memory (bitonic sort, a barrier per step),
//   2. flags the first entry of every distinct (URL, IP) pair and of every
//      URL, and numbers the URLs by an inclusive scan of the URL flags
//      (Hillis-Steele, two barriers per step),
//   3. counts the distinct views of each URL with shared atomics,
//   4. writes the chunk's (URL, count) pairs and URL count, and adds the
//      counts to the global per-URL totals.
//
// Written for gpusim after the algorithm (not Mars' framework code). The
// last chunk is padded with 0xFFFFFFFF, which sorts last and counts for
// nothing; URLs must be below 0xFFFF.
#define CHUNK 512u
#define THREADS (CHUNK / 2)
#define NONE 0xFFFFFFFFu

typedef unsigned int uint;

__device__ __forceinline__ void compareSwap(uint &a, uint &b, uint ascending)
{
    if ((a > b) == ascending) {
        uint t = a;
        a = b;
        b = t;
    }
}

extern "C" __global__ void pageViewCount(const uint *d_Log, uint n, uint *d_ChunkUrl,
                                         uint *d_ChunkViews, uint *d_ChunkUrls, uint *d_Views)
{
    __shared__ uint s_key[CHUNK];
    __shared__ uint s_scan[CHUNK];
    __shared__ uint s_count[CHUNK];
    __shared__ uint s_url[CHUNK];

    const uint tid = threadIdx.x;
    const uint base = blockIdx.x * CHUNK;
    s_key[tid] = base + tid < n ? d_Log[base + tid] : NONE;
    s_key[tid + THREADS] = base + tid + THREADS < n ? d_Log[base + tid + THREADS] : NONE;
    s_count[tid] = 0;
    s_count[tid + THREADS] = 0;

    // 1. Bitonic sort, ascending.
    for (uint size = 2; size < CHUNK; size <<= 1) {
        uint ascending = (tid & (size / 2)) == 0;
        for (uint stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            uint pos = 2 * tid - (tid & (stride - 1));
            compareSwap(s_key[pos], s_key[pos + stride], ascending);
        }
    }
    for (uint stride = CHUNK / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        uint pos = 2 * tid - (tid & (stride - 1));
        compareSwap(s_key[pos], s_key[pos + stride], 1);
    }
    __syncthreads();

    // 2. Flags: entry i is a distinct view if its pair differs from entry
    // i - 1, and starts a URL if its URL does.
    uint key[2], distinct[2], start[2];
    for (int h = 0; h < 2; h++) {
        uint i = tid + h * THREADS;
        key[h] = s_key[i];
        uint prev = i > 0 ? s_key[i - 1] : NONE;
        distinct[h] = key[h] != NONE && key[h] != prev;
        start[h] = distinct[h] && (i == 0 || (key[h] >> 16) != (prev >> 16));
        s_scan[i] = start[h];
    }
    for (uint offset = 1; offset < CHUNK; offset <<= 1) {
        __syncthreads();
        uint add0 = tid >= offset ? s_scan[tid - offset] : 0;
        uint add1 = s_scan[tid + THREADS - offset];
        __syncthreads();
        s_scan[tid] += add0;
        s_scan[tid + THREADS] += add1;
    }
    __syncthreads();

    // 3. Count the distinct views of each URL (slot = its number - 1).
    for (int h = 0; h < 2; h++) {
        uint slot = s_scan[tid + h * THREADS] - 1;
        if (distinct[h]) atomicAdd(&s_count[slot], 1u);
        if (start[h]) s_url[slot] = key[h] >> 16;
    }
    __syncthreads();

    // 4. Write the chunk's URLs and counts; add them to the totals.
    uint urls = s_scan[CHUNK - 1];
    if (tid == 0) d_ChunkUrls[blockIdx.x] = urls;
    for (uint slot = tid; slot < urls; slot += THREADS) {
        d_ChunkUrl[base + slot] = s_url[slot];
        d_ChunkViews[base + slot] = s_count[slot];
        atomicAdd(&d_Views[s_url[slot]], s_count[slot]);
    }
}
