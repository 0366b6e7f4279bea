// pathfinder: Rodinia's dynamic-programming path finder (dynproc), written
// for gpusim after the public algorithm.
//
// A `rows x cols` grid of integer weights; the cheapest top-to-bottom path
// where each step goes down-left, down or down-right.  Row r of the cost is
// cost[r][x] = min(cost[r-1][x-1], cost[r-1][x], cost[r-1][x+1]) + wall[r][x]
// (neighbours clamped at the edges).  Each launch advances `iteration` rows
// ("pyramid height") inside 256-wide shared tiles; tiles overlap by
// `border = pyramid_height` columns on each side so the shrinking valid
// region still covers each CTA's own `256 - 2 * iteration` columns.
//
// Host loop (Rodinia's calc_path): for t = 0; t < rows - 1; t += pyramid:
// swap src/dst; launch with iteration = min(pyramid, rows - 1 - t).
// gpuWall holds rows 1..rows-1 of the grid (row 0 is the initial cost).

#define BLOCK_SIZE 256
#define HALO 1

#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

extern "C" __global__ void dynproc_kernel(int iteration, const int *gpuWall,
                                          const int *gpuSrc, int *gpuResults,
                                          int cols, int rows, int startStep,
                                          int border)
{
    __shared__ int prev[BLOCK_SIZE];
    __shared__ int result[BLOCK_SIZE];

    int bx = blockIdx.x;
    int tx = threadIdx.x;

    // Columns this CTA finally owns, and where its 256-wide tile starts.
    int own_cols = BLOCK_SIZE - iteration * HALO * 2;
    int tile_x = own_cols * bx - border;
    int tile_x_max = tile_x + BLOCK_SIZE - 1;
    int x = tile_x + tx;

    // Part of the tile inside the grid.
    int valid_lo = (tile_x < 0) ? -tile_x : 0;
    int valid_hi = (tile_x_max > cols - 1) ? BLOCK_SIZE - 1 - (tile_x_max - cols + 1)
                                           : BLOCK_SIZE - 1;

    int west = tx - 1;
    int east = tx + 1;
    if (west < valid_lo) west = valid_lo;
    if (east > valid_hi) east = valid_hi;
    bool in_grid = IN_RANGE(tx, valid_lo, valid_hi);

    if (IN_RANGE(x, 0, cols - 1))
        prev[tx] = gpuSrc[x];
    __syncthreads();

    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && in_grid) {
            computed = true;
            int l = prev[west];
            int u = prev[tx];
            int r = prev[east];
            int m = l <= u ? l : u;
            m = m <= r ? m : r;
            result[tx] = m + gpuWall[cols * (startStep + i) + x];
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            prev[tx] = result[tx];
        __syncthreads();
    }

    if (computed)
        gpuResults[x] = result[tx];
}
