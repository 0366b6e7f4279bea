// Octree Partitioning (BAWS Table 2 "OCTP", after Cederman and Tsigas'
// octree partitioning): particles are split recursively into the eight
// octants of their node's box until a node holds few enough. The host
// drives it level by level (a task per node to split; Cederman and Tsigas
// balance those tasks dynamically); one thread block of 256 threads
// (8 warps, the paper's warps per TB) splits one node:
//   1. counts the node's particles per octant (shared atomics), barrier,
//      and turns the counts into the octants' start offsets;
//   2. in rounds of 256 particles (coalesced), ranks every particle within
//      its octant (a ballot per octant and warp, per-warp counts in shared
//      memory, an exclusive scan over the warps by one thread per octant;
//      two barriers per round) and writes it to its place in `d_Dst`, so
//      the partition is stable;
//   3. after a barrier copies the node's range back to `d_Src` and writes
//      the octants' counts.
// Octant bits: 1 if x >= centre x, 2 if y >= centre y, 4 if z >= centre z.
//
// Written for gpusim after the algorithm (not the original code). The
// three `#pragma unroll 1` keep ptxas at 37 registers (3 CTAs per SM on
// gtx480); unrolled it used 49.
#define THREADS 256
#define WARPS (THREADS / 32)

extern "C" __global__ void octreePartition(float4 *d_Src, float4 *d_Dst, const int *d_TaskStart,
                                           const int *d_TaskCount, const float4 *d_TaskCentre,
                                           int *d_ChildCount)
{
    __shared__ int s_total[8];
    __shared__ int s_base[8];
    __shared__ int s_warp[WARPS][8];

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int start = d_TaskStart[blockIdx.x];
    const int count = d_TaskCount[blockIdx.x];
    const float4 c = d_TaskCentre[blockIdx.x];

    if (tid < 8) s_total[tid] = 0;
    __syncthreads();

    // 1. Octant counts, then start offsets.
#pragma unroll 1
    for (int i = tid; i < count; i += THREADS) {
        float4 p = d_Src[start + i];
        int o = (p.x >= c.x) | ((p.y >= c.y) << 1) | ((p.z >= c.z) << 2);
        atomicAdd(&s_total[o], 1);
    }
    __syncthreads();
    if (tid == 0) {
        int sum = 0;
        for (int o = 0; o < 8; o++) {
            s_base[o] = sum;
            sum += s_total[o];
        }
    }

    // 2. Stable scatter, a round of THREADS particles at a time.
    const unsigned lanesBelow = (1u << lane) - 1;
    for (int r = 0; r < count; r += THREADS) {
        const int i = r + tid;
        const bool live = i < count;
        float4 p = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        int o = -1;
        if (live) {
            p = d_Src[start + i];
            o = (p.x >= c.x) | ((p.y >= c.y) << 1) | ((p.z >= c.z) << 2);
        }
        unsigned mine = 0;
#pragma unroll 1
        for (int k = 0; k < 8; k++) {
            unsigned m = __ballot_sync(0xffffffffu, o == k);
            if (lane == k) s_warp[warp][k] = __popc(m);
            if (o == k) mine = m;
        }
        __syncthreads(); // per-warp counts written; s_base of the last round final
        if (tid < 8) {
            int sum = s_base[tid];
            for (int w = 0; w < WARPS; w++) {
                int n = s_warp[w][tid];
                s_warp[w][tid] = sum;
                sum += n;
            }
            s_base[tid] = sum;
        }
        __syncthreads();
        if (live) d_Dst[start + s_warp[warp][o] + __popc(mine & lanesBelow)] = p;
    }
    __syncthreads();

    // 3. Copy the split node back; report the octants' counts.
#pragma unroll 1
    for (int i = tid; i < count; i += THREADS) d_Src[start + i] = d_Dst[start + i];
    if (tid < 8) d_ChildCount[blockIdx.x * 8 + tid] = s_total[tid];
}
