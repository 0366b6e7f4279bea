// stencil2d: one Jacobi step of the 2-D 5-point Laplace stencil on a
// width x height grid; boundary cells are copied unchanged.
//   out[y][x] = 0.25 * (in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1])
// Features: 2-D indexing, compound boundary predicate, neighbour loads at
// negative and positive offsets ([reg+imm] with negative imm), f32 mul,
// if/else paths that both store.
#include "cuda_shim.h"

__global__ void stencil2d(const float *in, float *out, int width, int height) {
  int x = ctaid_x() * ntid_x() + tid_x();
  int y = ctaid_y() * ntid_y() + tid_y();
  if (x >= width || y >= height)
    return;
  int idx = y * width + x;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    out[idx] = in[idx];
  } else {
    float s = in[idx - width] + in[idx + width] + in[idx - 1] + in[idx + 1];
    out[idx] = 0.25f * s;
  }
}
