// Page View Rank (BAWS Table 2 "PVR", after Mars' PVR): ranks URLs by their
// page views. Mars' PVR maps each (URL, views) record of Page View Count's
// output to (views, URL) and sorts by views; here each thread block of 256
// threads (8 warps, the paper's warps per TB) takes 512 records and
//   1. sorts them by views, descending, ties by URL ascending (a bitonic
//      sort of the 64-bit keys views << 32 | ~URL in shared memory, a
//      barrier per step),
//   2. gives every record its competition rank within the chunk ("1224":
//      one plus the number of records with more views) by an inclusive
//      max-scan of the positions where the view count changes
//      (Hillis-Steele, two barriers per step),
//   3. writes the ranked URLs, views and ranks.
//
// Written for gpusim after the algorithm (not Mars' framework code). The
// last chunk is padded with key 0 (views 0, URL 0xFFFFFFFF), which sorts
// last and is not written.
#define CHUNK 512u
#define THREADS (CHUNK / 2)

typedef unsigned int uint;
typedef unsigned long long u64;

extern "C" __global__ void pageViewRank(const uint *d_Url, const uint *d_Views, uint n,
                                        uint *d_RankUrl, uint *d_RankViews, uint *d_Rank)
{
    __shared__ u64 s_key[CHUNK];
    __shared__ uint s_rank[CHUNK];

    const uint tid = threadIdx.x;
    const uint base = blockIdx.x * CHUNK;
    for (uint h = 0; h < 2; h++) {
        uint i = base + tid + h * THREADS;
        s_key[tid + h * THREADS] = i < n ? ((u64)d_Views[i] << 32) | (u64)(~d_Url[i]) : 0ull;
    }

    // 1. Bitonic sort, descending. (The size loop stays rolled: 17
    // registers, 6 CTAs per SM on gtx480; unrolled, ptxas used 32.)
#pragma unroll 1
    for (uint size = 2; size <= CHUNK; size <<= 1) {
        uint descending = size == CHUNK || (tid & (size / 2)) == 0;
        for (uint stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            uint pos = 2 * tid - (tid & (stride - 1));
            u64 a = s_key[pos], b = s_key[pos + stride];
            if ((a < b) == descending) {
                s_key[pos] = b;
                s_key[pos + stride] = a;
            }
        }
    }
    __syncthreads();

    // 2. Competition ranks: position + 1 where the views change, carried
    // forward by a max-scan.
    uint views[2];
    for (uint h = 0; h < 2; h++) {
        uint i = tid + h * THREADS;
        views[h] = (uint)(s_key[i] >> 32);
        uint prev = i > 0 ? (uint)(s_key[i - 1] >> 32) : ~views[h];
        s_rank[i] = prev != views[h] ? i + 1 : 0;
    }
    for (uint offset = 1; offset < CHUNK; offset <<= 1) {
        __syncthreads();
        uint m0 = tid >= offset ? s_rank[tid - offset] : 0;
        uint m1 = s_rank[tid + THREADS - offset];
        __syncthreads();
        s_rank[tid] = max(s_rank[tid], m0);
        s_rank[tid + THREADS] = max(s_rank[tid + THREADS], m1);
    }
    __syncthreads();

    // 3. Write the chunk's ranking.
    for (uint h = 0; h < 2; h++) {
        uint i = tid + h * THREADS;
        if (base + i < n) {
            d_RankUrl[base + i] = ~(uint)s_key[i];
            d_RankViews[base + i] = views[h];
            d_Rank[base + i] = s_rank[i];
        }
    }
}
