// call_divergent: odd lanes call one function, even lanes another; the
// callee itself branches on its argument (divergence inside the callee).
__device__ __noinline__ int collatz_steps(int x) {
  int s = 0;
  while (x != 1 && s < 64) {
    if (x & 1) x = 3 * x + 1; else x >>= 1;
    s++;
  }
  return s;
}
__device__ __noinline__ int halve_or_negate(int x) {
  if (x > 50) return x / 2;
  return -x;
}
__global__ void call_divergent(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int r;
  if (i & 1) r = collatz_steps(v);
  else r = halve_or_negate(v) + 1000;
  out[i] = r;
}
