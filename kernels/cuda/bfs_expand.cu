// bfs_expand: one level of a frontier-based breadth-first search on a CSR
// graph. Each thread takes one vertex of the current frontier, walks its
// adjacency list, claims unvisited neighbours with atomicCAS on level[], and
// appends each newly claimed vertex to the next frontier via an atomicAdd
// on the frontier counter.
// Features: nested loop (grid-stride over the frontier, inner loop over
// edges), atom.global.cas.b32, atom.global.add.u32 returning a slot index,
// data-dependent scatter store, early `continue`.
#include "cuda_shim.h"

__global__ void bfs_expand(const int *row_ptr, const int *col_idx,
                           const int *frontier, int frontier_size,
                           int *level, int cur_level,
                           int *next_frontier, int *next_size) {
  int stride = nctaid_x() * ntid_x();
  for (int f = ctaid_x() * ntid_x() + tid_x(); f < frontier_size; f += stride) {
    int v = frontier[f];
    int begin = row_ptr[v], end = row_ptr[v + 1];
    for (int e = begin; e < end; e++) {
      int u = col_idx[e];
      if (level[u] != -1)
        continue; // cheap pre-check before the atomic
      if (atomicCAS(&level[u], -1, cur_level + 1) == -1) {
        int slot = atomicAdd(next_size, 1);
        next_frontier[slot] = u;
      }
    }
  }
}
