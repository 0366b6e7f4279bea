// hotspot: Rodinia's HotSpot thermal simulation, written for gpusim after
// the public algorithm.
//
// A grid_rows x grid_cols chip; each step updates every cell's
// temperature from its power and its four neighbours (clamped at the chip
// edge):
//   T' = T + step/Cap * (P + (T_S + T_N - 2T) / Ry + (T_E + T_W - 2T) / Rx
//                        + (amb - T) / Rz)
// with the 2.0 and the sums in double precision, as in Rodinia.  Each CTA
// (16 x 16 threads) loads a 16 x 16 tile of T and P into shared memory and
// runs `iteration` steps there ("pyramid"), the valid region shrinking by
// one cell per side per step; CTAs overlap by `border` cells so every cell
// is computed by exactly one CTA's surviving interior.
//
// Host loop (Rodinia's compute_tran_temp): for t = 0; t < total; t +=
// pyramid: swap src/dst, launch with iteration = min(pyramid, total - t).

#define BLOCK_SIZE 16
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

extern "C" __global__ void calculate_temp(int iteration, const float *power,
                                          const float *temp_src, float *temp_dst,
                                          int grid_cols, int grid_rows,
                                          int border_cols, int border_rows,
                                          float Cap, float Rx, float Ry, float Rz,
                                          float step, float time_elapsed)
{
    __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float temp_t[BLOCK_SIZE][BLOCK_SIZE];

    float amb_temp = 80.0f;
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;

    float step_div_Cap = step / Cap;
    float Rx_1 = 1 / Rx;
    float Ry_1 = 1 / Ry;
    float Rz_1 = 1 / Rz;

    int own_rows = BLOCK_SIZE - iteration * 2;
    int own_cols = BLOCK_SIZE - iteration * 2;
    int tile_y = own_rows * by - border_rows;
    int tile_x = own_cols * bx - border_cols;
    int tile_y_max = tile_y + BLOCK_SIZE - 1;
    int tile_x_max = tile_x + BLOCK_SIZE - 1;
    int y = tile_y + ty;
    int x = tile_x + tx;
    int index = grid_cols * y + x;

    if (IN_RANGE(y, 0, grid_rows - 1) && IN_RANGE(x, 0, grid_cols - 1)) {
        temp_on_cuda[ty][tx] = temp_src[index];
        power_on_cuda[ty][tx] = power[index];
    }
    __syncthreads();

    int valid_y_lo = (tile_y < 0) ? -tile_y : 0;
    int valid_y_hi = (tile_y_max > grid_rows - 1)
                         ? BLOCK_SIZE - 1 - (tile_y_max - grid_rows + 1)
                         : BLOCK_SIZE - 1;
    int valid_x_lo = (tile_x < 0) ? -tile_x : 0;
    int valid_x_hi = (tile_x_max > grid_cols - 1)
                         ? BLOCK_SIZE - 1 - (tile_x_max - grid_cols + 1)
                         : BLOCK_SIZE - 1;

    int N = ty - 1, S = ty + 1, W = tx - 1, E = tx + 1;
    N = (N < valid_y_lo) ? valid_y_lo : N;
    S = (S > valid_y_hi) ? valid_y_hi : S;
    W = (W < valid_x_lo) ? valid_x_lo : W;
    E = (E > valid_x_hi) ? valid_x_hi : E;

    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) &&
            IN_RANGE(ty, i + 1, BLOCK_SIZE - i - 2) &&
            IN_RANGE(tx, valid_x_lo, valid_x_hi) &&
            IN_RANGE(ty, valid_y_lo, valid_y_hi)) {
            computed = true;
            float t = temp_on_cuda[ty][tx];
            temp_t[ty][tx] = t + step_div_Cap *
                (power_on_cuda[ty][tx] +
                 (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0 * t) * Ry_1 +
                 (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0 * t) * Rx_1 +
                 (amb_temp - t) * Rz_1);
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }

    if (computed)
        temp_dst[index] = temp_t[ty][tx];
}
