// compact_warp_agg: stream compaction (keep in[i] > threshold) with
// warp-aggregated atomics: each warp takes a ballot of its keepers, one
// leader lane reserves space for the whole warp with a single atomicAdd,
// the base index is broadcast with shfl.sync.idx, and each keeper writes to
// base + (number of keepers in lower lanes). Output order is unspecified
// between warps but each element appears exactly once.
// Features: vote.sync.ballot.b32, %laneid, popc.b32, count-trailing-zeros
// (LLVM: popc(~m & (m-1))), shfl.sync.idx.b32 with a register source lane,
// shl by a register, not.b32, @!%p guard, div.s32, divergent branch
// around an atomic with reconvergence before the shuffle (kernel marked
// target("ptx60")). Launch with blockDim.x a multiple of 32.
#include "cuda_shim.h"

__global__ void PTX60 compact_warp_agg(const int *in, int n, int threshold,
                                       int *out, int *out_count) {
  int stride = nctaid_x() * ntid_x();
  // Every lane of a warp runs the same number of iterations so the
  // full-mask warp operations are always executed by the whole warp.
  int base_i = ctaid_x() * ntid_x() + tid_x();
  int iters = (n + stride - 1) / stride;
  unsigned lane = lane_id();
  for (int it = 0; it < iters; it++) {
    int i = base_i + it * stride;
    int v = (i < n) ? in[i] : 0;
    int keep = (i < n) && (v > threshold);
    unsigned mask = __ballot_sync(FULL_MASK, keep);
    if (mask == 0)
      continue; // warp-uniform
    int leader = __builtin_ctz(mask);
    int base = 0;
    if ((int)lane == leader)
      base = atomicAdd(out_count, __builtin_popcount(mask));
    base = __nvvm_shfl_sync_idx_i32(FULL_MASK, base, leader, 31);
    if (keep) {
      unsigned lower = mask & ((1u << lane) - 1u);
      out[base + __builtin_popcount(lower)] = v;
    }
  }
}
