// MRI Cartesian Gridding (BAWS Table 2 "MG", after Parboil's mri-gridding):
// non-uniform k-space samples are interpolated onto a regular grid, every
// grid point summing the samples within `radius` cells weighted by a
// window of their distance. As in Parboil, the host sorts the samples by
// the grid cell (bin) they fall in, so the samples of a row of cells are
// contiguous; a 32 x 16 block (16 warps, the paper's warps per TB) owns a
// tile of grid points and walks the rows of the tile widened by the radius:
// per row it stages the row's samples in shared memory (__syncthreads()
// before and after the load) and every thread accumulates those near its
// grid point.
//
// Written for gpusim after the algorithm: 2-D rather than Parboil's 3-D,
// and the window (1 - d^2/r^2)^2 instead of Parboil's Kaiser-Bessel table.
// `size` must be a multiple of 32 (columns) and of 16 (rows).
#define TILE_X 32
#define TILE_Y 16
#define BATCH (TILE_X * TILE_Y)

extern "C" __global__ void gridding(float2 *d_Grid, const float4 *d_Samples, const int *d_BinStart,
                                    int size, int radius, float r2, float inv_r2)
{
    __shared__ float4 s_samples[BATCH];

    const int tid = threadIdx.y * TILE_X + threadIdx.x;
    const int gx = blockIdx.x * TILE_X + threadIdx.x;
    const int gy = blockIdx.y * TILE_Y + threadIdx.y;
    const float px = gx + 0.5f; // the grid point: the cell's centre
    const float py = gy + 0.5f;

    const int c0 = max((int)(blockIdx.x * TILE_X) - radius, 0);
    const int c1 = min((int)((blockIdx.x + 1) * TILE_X) + radius, size);
    const int r0 = max((int)(blockIdx.y * TILE_Y) - radius, 0);
    const int r1 = min((int)((blockIdx.y + 1) * TILE_Y) + radius, size);

    float re = 0.0f, im = 0.0f;
    for (int row = r0; row < r1; row++) {
        const int begin = d_BinStart[row * size + c0];
        const int end = d_BinStart[row * size + c1];
        for (int b = begin; b < end; b += BATCH) {
            const int n = min(BATCH, end - b);
            __syncthreads(); // the previous batch is consumed
            if (tid < n) s_samples[tid] = d_Samples[b + tid];
            __syncthreads();
#pragma unroll 1
            for (int s = 0; s < n; s++) {
                const float4 smp = s_samples[s];
                const float dx = smp.x - px;
                const float dy = smp.y - py;
                const float d2 = dx * dx + dy * dy;
                if (d2 < r2) {
                    float w = 1.0f - d2 * inv_r2;
                    w = w * w;
                    re += w * smp.z;
                    im += w * smp.w;
                }
            }
        }
    }
    d_Grid[gy * size + gx] = make_float2(re, im);
}
