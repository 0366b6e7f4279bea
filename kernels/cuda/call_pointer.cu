// call_pointer: a table of device-function pointers; each lane calls the
// entry selected by its input (indirect call, per-lane different targets).
typedef int (*op_fn)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }
__global__ void call_pointer(const int *sel, const int *a, const int *b, int *out, int n) {
  op_fn table[4] = {op_add, op_sub, op_mul, op_max};
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = table[sel[i] & 3](a[i], b[i]);
}
