// spmv_csr_scalar: y = A * x for a CSR matrix, one thread per row
// (the "scalar" CSR kernel of Bell & Garland).
// Features: data-dependent inner loop bounds (row_ptr[row]..row_ptr[row+1]),
// indirect (gather) loads x[col[j]], f32 multiply-accumulate in a loop
// (clang contracts to fma.rn.f32 only if allowed; we write fmaf explicitly),
// 32-bit index arithmetic widened to 64-bit addresses.
#include "cuda_shim.h"

__global__ void spmv_csr_scalar(int num_rows, const int *row_ptr,
                                const int *col_idx, const float *vals,
                                const float *x, float *y) {
  int row = ctaid_x() * ntid_x() + tid_x();
  if (row < num_rows) {
    float dot = 0.0f;
    int start = row_ptr[row];
    int end = row_ptr[row + 1];
    for (int j = start; j < end; j++)
      dot = __builtin_fmaf(vals[j], x[col_idx[j]], dot);
    y[row] = dot;
  }
}
