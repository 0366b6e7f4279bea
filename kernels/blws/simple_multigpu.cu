// SimpleMultiGPU (BLWS Table 3, from the CUDA SDK simpleMultiGPU sample):
// reduceKernel, the sample's per-GPU reduction. Every thread sums the
// elements tid, tid + threadN, tid + 2 threadN, ... of its GPU's slice
// (threadN = all threads of the grid, so each warp's loads are coalesced
// and the grid sweeps the slice front to back) and writes its own partial
// sum; the host adds the partials. The sample launches BLOCK_N = 32 CTAs
// of THREAD_N = 256 threads (8 warps) per GPU; here one GPU's launch.
//
// Written for gpusim after the sample's algorithm (none of its code).
extern "C" __global__ void reduceKernel(float *d_Result, const float *d_Input, int N)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int threadN = gridDim.x * blockDim.x;
    float sum = 0.0f;
    for (int pos = tid; pos < N; pos += threadN) {
        sum += d_Input[pos];
    }
    d_Result[tid] = sum;
}
