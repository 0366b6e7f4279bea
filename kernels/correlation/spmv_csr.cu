// spmv_csr: out = A * vec for a CSR matrix, scalar form (one row per
// thread, a sequential multiply-add chain over the row's non-zeros).
// Parameters as SHOC's spmv_csr_scalar_kernel (val, cols, rowDelimiters,
// vec, dim, out) without its texture fetch, so the `spmv_scalar` workload
// drives it. Written for gpusim's correlation set.

extern "C" __global__ void spmv_csr(const float *val, const int *cols,
                                    const int *rowDelimiters, const float *vec, int dim,
                                    float *out)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < dim) {
        float t = 0.0f;
        int start = rowDelimiters[row];
        int end = rowDelimiters[row + 1];
        for (int j = start; j < end; j++)
            t += val[j] * vec[cols[j]];
        out[row] = t;
    }
}
