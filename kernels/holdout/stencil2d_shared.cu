// stencil2d_shared: one 5-point Jacobi step on an nx x ny float grid,
//   out[y][x] = 0.2f * (c + up + down + left + right)
// for interior points; boundary points are copied. 16x16 threads per CTA
// load their points into an 18x18 shared tile whose one-point halo the
// edge threads of the CTA fetch, then __syncthreads() and compute from
// shared memory. Written for gpusim's held-out correlation set.

#define BX 16
#define BY 16

extern "C" __global__ void stencil2d_shared(float *out, const float *in, int nx, int ny)
{
    __shared__ float tile[BY + 2][BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * BX + tx;
    int y = blockIdx.y * BY + ty;
    bool inside = x < nx && y < ny;

    if (inside) {
        tile[ty + 1][tx + 1] = in[y * nx + x];
        if (tx == 0 && x > 0)
            tile[ty + 1][0] = in[y * nx + x - 1];
        if (tx == BX - 1 && x + 1 < nx)
            tile[ty + 1][BX + 1] = in[y * nx + x + 1];
        if (ty == 0 && y > 0)
            tile[0][tx + 1] = in[(y - 1) * nx + x];
        if (ty == BY - 1 && y + 1 < ny)
            tile[BY + 1][tx + 1] = in[(y + 1) * nx + x];
    }
    __syncthreads();

    if (!inside)
        return;
    float c = tile[ty + 1][tx + 1];
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[y * nx + x] = c;
        return;
    }
    out[y * nx + x] = 0.2f * (c + tile[ty][tx + 1] + tile[ty + 2][tx + 1]
                              + tile[ty + 1][tx] + tile[ty + 1][tx + 2]);
}
