// gemv_rowmajor: y = A * x for a rows x cols row-major float matrix, one
// thread per row; each thread walks its own row, so a warp's loads of A
// touch 32 lines (one per row) and each line serves the next 31 columns
// from the L1 if it survives. x is read by every thread of the warp at
// once (a broadcast). Written for gpusim's held-out correlation set.

extern "C" __global__ void gemv_rowmajor(float *y, const float *A, const float *x,
                                         int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int j = 0; j < cols; j++)
            sum += A[row * cols + j] * x[j];
        y[row] = sum;
    }
}
