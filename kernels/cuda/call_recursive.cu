// call_recursive: recursive fib (per-lane different depths) and a recursive
// sum over a per-call local array (forces a __local_depot stack frame).
__device__ __noinline__ int fib(int n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}
__device__ __noinline__ int local_sum(int depth, int seed) {
  volatile int buf[4];
  for (int k = 0; k < 4; k++) buf[k] = seed * (k + 1) + depth;
  int below = depth > 0 ? local_sum(depth - 1, seed + 1) : 0;
  int s = 0;
  for (int k = 0; k < 4; k++) s += buf[k];
  return s + below;
}
__global__ void call_recursive(const int *in, int *fib_out, int *sum_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  fib_out[i] = fib(v & 15);
  sum_out[i] = local_sum(v & 7, i);
}
