// needle: Rodinia's Needleman-Wunsch global sequence alignment, written for
// gpusim after the public algorithm.
//
// score is an (n+1) x (n+1) int matrix (row 0 and column 0 hold the gap
// penalties -i * penalty); reference[i][j] is the substitution score of
// sequence-A symbol i against sequence-B symbol j.  Cell (i, j) becomes
//   max(score[i-1][j-1] + reference[i][j], score[i][j-1] - penalty,
//       score[i-1][j] - penalty).
// The matrix is cut into 16 x 16 blocks processed along block
// anti-diagonals: one CTA of 16 threads per block, which loads its block
// (plus the north row and west column) into shared memory and sweeps its
// 31 cell anti-diagonals with a bar.sync after each.
//
// Host loop (Rodinia): for i = 1 .. block_width: needle_cuda_shared_1 with
// i CTAs (upper-left triangle of blocks); then for i = block_width - 1 .. 1:
// needle_cuda_shared_2 with i CTAs (lower-right triangle).

#define BLOCK_SIZE 16

__device__ __forceinline__ int max3(int a, int b, int c)
{
    int k = (a <= b) ? b : a;
    return (k <= c) ? c : k;
}

// Score the block whose top-left interior cell is at (1 + 16 * by, 1 + 16 * bx).
__device__ __forceinline__ void nw_block(const int *reference, int *score,
                                         int cols, int penalty, int bx, int by,
                                         int tx)
{
    __shared__ int tile[BLOCK_SIZE + 1][BLOCK_SIZE + 1];
    __shared__ int ref[BLOCK_SIZE][BLOCK_SIZE];

    int base = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    int index = base + tx + (cols + 1);
    int index_n = base + tx + 1;
    int index_w = base + cols;
    int index_nw = base;

    if (tx == 0)
        tile[0][0] = score[index_nw];
    for (int ty = 0; ty < BLOCK_SIZE; ty++)
        ref[ty][tx] = reference[index + cols * ty];
    __syncthreads();
    tile[tx + 1][0] = score[index_w + cols * tx];
    __syncthreads();
    tile[0][tx + 1] = score[index_n];
    __syncthreads();

    // Upper-left half of the block's cell anti-diagonals ...
    for (int m = 0; m < BLOCK_SIZE; m++) {
        if (tx <= m) {
            int x = tx + 1;
            int y = m - tx + 1;
            tile[y][x] = max3(tile[y - 1][x - 1] + ref[y - 1][x - 1],
                              tile[y][x - 1] - penalty,
                              tile[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    // ... then the lower-right half.
    for (int m = BLOCK_SIZE - 2; m >= 0; m--) {
        if (tx <= m) {
            int x = tx + BLOCK_SIZE - m;
            int y = BLOCK_SIZE - tx;
            tile[y][x] = max3(tile[y - 1][x - 1] + ref[y - 1][x - 1],
                              tile[y][x - 1] - penalty,
                              tile[y - 1][x] - penalty);
        }
        __syncthreads();
    }

    for (int ty = 0; ty < BLOCK_SIZE; ty++)
        score[index + ty * cols] = tile[ty + 1][tx + 1];
}

// Block anti-diagonal i (1-based) of the upper-left triangle: CTA bx takes
// block (row i - 1 - bx, column bx).
extern "C" __global__ void needle_cuda_shared_1(const int *reference, int *score,
                                                int cols, int penalty, int i,
                                                int block_width)
{
    nw_block(reference, score, cols, penalty, blockIdx.x, i - 1 - blockIdx.x,
             threadIdx.x);
}

// Block anti-diagonal i of the lower-right triangle: CTA bx takes block
// (row block_width - 1 - bx, column bx + block_width - i).
extern "C" __global__ void needle_cuda_shared_2(const int *reference, int *score,
                                                int cols, int penalty, int i,
                                                int block_width)
{
    nw_block(reference, score, cols, penalty, blockIdx.x + block_width - i,
             block_width - blockIdx.x - 1, threadIdx.x);
}
