// gaussian: Rodinia's Gaussian elimination (forward elimination on the
// GPU), written for gpusim after the public algorithm.
//
// Solves a x = b for an n x n matrix a.  For each pivot t = 0 .. n-2 the
// host launches
//   Fan1: one thread per row i > t:  m[i][t] = a[i][t] / a[t][t]
//   Fan2: one thread per (row i > t, column j >= t):
//         a[i][j] -= m[i][t] * a[t][j];  and for the column j == t thread
//         also b[i] -= m[i][t] * b[t]
// (Rodinia: Fan1 with 512-thread CTAs, Fan2 with 4 x 4 CTAs on a
// ceil(n/4) x ceil(n/4) grid; x indexes rows below t, y columns from t).
// The host then back-substitutes.  m starts all zero.

extern "C" __global__ void Fan1(float *m, const float *a, int size, int t)
{
    int r = blockDim.x * blockIdx.x + threadIdx.x;
    if (r >= size - 1 - t)
        return;
    m[size * (r + t + 1) + t] = a[size * (r + t + 1) + t] / a[size * t + t];
}

extern "C" __global__ void Fan2(const float *m, float *a, float *b, int size,
                                int j1, int t)
{
    if (threadIdx.x + blockIdx.x * blockDim.x >= size - 1 - t)
        return;
    if (threadIdx.y + blockIdx.y * blockDim.y >= size - t)
        return;

    int xidx = blockIdx.x * blockDim.x + threadIdx.x;
    int yidx = blockIdx.y * blockDim.y + threadIdx.y;

    a[size * (xidx + 1 + t) + (yidx + t)] -=
        m[size * (xidx + 1 + t) + t] * a[size * t + (yidx + t)];
    if (yidx == 0)
        b[xidx + 1 + t] -= m[size * (xidx + 1 + t) + (yidx + t)] * b[t];
}
