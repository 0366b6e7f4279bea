// laplace3d: one Jacobi step of the 3-D Laplace equation (LFWS Table 2
// "LPS", the ISPASS-2009 / Giles laplace3d), written for gpusim after the
// published algorithm. A 2-D grid of 32 x 4 CTAs covers the x-y plane;
// each CTA marches through z keeping three planes (k-1, k, k+1) of its
// tile plus a one-cell halo in shared memory. Every thread owns one tile
// cell and the first 76 threads also own one halo cell each (the 2 x 34
// cells above and below the tile, corners included, then the 2 x 4 to its
// left and right). Per plane: rotate the three shared planes and load
// plane k+1, bar.sync, write u2 = the mean of the six neighbours (boundary
// cells are copied), bar.sync.

#define BX 32
#define BY 4
#define SX (BX + 2)
#define PLANE (SX * (BY + 2))
#define HALO (2 * (BX + BY + 2))

extern "C" __global__ void laplace3d(int nx, int ny, int nz,
                                     const float *__restrict__ u1,
                                     float *__restrict__ u2)
{
    __shared__ float s[3 * PLANE];
    const float sixth = 1.0f / 6.0f;
    int t = threadIdx.x + threadIdx.y * BX;
    int plane = nx * ny;

    // The halo cell this thread loads, if any.
    int hs = 0, hg = 0;
    bool halo = t < HALO;
    if (halo) {
        int hi, hj;
        if (t < 2 * SX) {            // rows above and below, corners included
            hi = t % SX - 1;
            hj = t < SX ? -1 : BY;
        } else {                     // columns left and right
            int r = t - 2 * SX;
            hi = (r & 1) ? BX : -1;
            hj = r >> 1;
        }
        hs = (hi + 1) + (hj + 1) * SX;
        int gi = blockIdx.x * BX + hi;
        int gj = blockIdx.y * BY + hj;
        hg = gi + gj * nx;
        halo = gi >= 0 && gi < nx && gj >= 0 && gj < ny;
    }

    // The tile cell this thread owns.
    int i = blockIdx.x * BX + threadIdx.x;
    int j = blockIdx.y * BY + threadIdx.y;
    int ms = (threadIdx.x + 1) + (threadIdx.y + 1) * SX;
    int g = i + j * nx;
    bool active = i < nx && j < ny;

    // Plane 0 goes where plane k+1 lives.
    if (active) s[ms + 2 * PLANE] = u1[g];
    if (halo) s[hs + 2 * PLANE] = u1[hg];

    for (int k = 0; k < nz; k++) {
        bool next = k + 1 < nz;
        if (active) {
            s[ms] = s[ms + PLANE];
            s[ms + PLANE] = s[ms + 2 * PLANE];
            if (next) s[ms + 2 * PLANE] = u1[g + (k + 1) * plane];
        }
        if (halo) {
            s[hs] = s[hs + PLANE];
            s[hs + PLANE] = s[hs + 2 * PLANE];
            if (next) s[hs + 2 * PLANE] = u1[hg + (k + 1) * plane];
        }
        __syncthreads();
        if (active) {
            const float *c = s + PLANE + ms;
            float v;
            if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
                v = c[0];
            } else {
                v = (c[-1] + c[1] + c[-SX] + c[SX] + c[-PLANE] + c[PLANE]) * sixth;
            }
            u2[g + k * plane] = v;
        }
        __syncthreads();
    }
}
