// atomic_hist: a 64-bin histogram of n words built with global atomicAdd
// only (heavy contention: every warp's 32 updates hit at most 64 counters
// shared by the whole grid). Grid-stride loop: thread t counts words t,
// t + T, t + 2T, ... (T = all threads of the grid), bin = word & 63.
// Written for gpusim's correlation set.

extern "C" __global__ void atomic_hist(unsigned *bins, const unsigned *data, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[data[i] & 63u], 1u);
}
