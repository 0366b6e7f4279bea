// transpose_padded: out = in^T for a rows x cols row-major float matrix via
// a 32x32 shared-memory tile, 32x8 threads per CTA (each copies 4 rows of
// the tile). Global reads and writes are coalesced; the tile has one
// padding column (33 floats per row), so the column reads
// tile[threadIdx.x][...] of a warp fall in 32 different banks:
// conflict-free.
// transpose_naive.cu is the same kernel without the padding.
// Written for gpusim's correlation set.

#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_padded(float *out, const float *in, int cols, int rows)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
