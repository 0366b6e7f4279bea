// srad: Rodinia's SRAD v2 (speckle-reducing anisotropic diffusion),
// written for gpusim after the public algorithm.
//
// J is a rows x cols image (both multiples of 16, at least 32).  Per
// iteration the host reduces a region of interest of J to q0sqr (its
// squared coefficient of variation), then launches
//   srad_cuda_1: per pixel the four directional derivatives (N/S/W/E,
//     clamped at the image edge) and the diffusion coefficient c in [0, 1];
//   srad_cuda_2: the divergence from c (own c for N and W, the south and
//     east neighbours' c for S and E) and the update J += 0.25 * lambda * D.
// 16 x 16 CTAs stage their tile and its neighbour rows/columns in shared
// memory.  As in Rodinia the kernels load the out-of-tile neighbours
// unconditionally (for the first/last tile row and column these addresses
// lie one row outside the image; the value is then replaced by the
// clamped one), so the host pads J and C by one row on each side.

#define BLOCK_SIZE 16

extern "C" __global__ void srad_cuda_1(float *E_C, float *W_C, float *N_C,
                                       float *S_C, const float *J_cuda,
                                       float *C_cuda, int cols, int rows,
                                       float q0sqr)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;

    int tile = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    int index = tile + cols * ty + tx;
    int index_n = tile + tx - cols;
    int index_s = tile + cols * BLOCK_SIZE + tx;
    int index_w = tile + cols * ty - 1;
    int index_e = tile + cols * ty + BLOCK_SIZE;

    float n, w, e, s, jc, g2, l, num, den, qsqr, c;

    __shared__ float temp[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float temp_result[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float north[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float south[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float east[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float west[BLOCK_SIZE][BLOCK_SIZE];

    north[ty][tx] = J_cuda[index_n];
    south[ty][tx] = J_cuda[index_s];
    if (by == 0)
        north[ty][tx] = J_cuda[BLOCK_SIZE * bx + tx];
    else if (by == gridDim.y - 1)
        south[ty][tx] = J_cuda[cols * BLOCK_SIZE * (gridDim.y - 1) + BLOCK_SIZE * bx +
                               cols * (BLOCK_SIZE - 1) + tx];
    __syncthreads();

    west[ty][tx] = J_cuda[index_w];
    east[ty][tx] = J_cuda[index_e];
    if (bx == 0)
        west[ty][tx] = J_cuda[cols * BLOCK_SIZE * by + cols * ty];
    else if (bx == gridDim.x - 1)
        east[ty][tx] = J_cuda[cols * BLOCK_SIZE * by + BLOCK_SIZE * (gridDim.x - 1) +
                              cols * ty + BLOCK_SIZE - 1];
    __syncthreads();

    temp[ty][tx] = J_cuda[index];
    __syncthreads();

    jc = temp[ty][tx];
    if (ty == 0 && tx == 0) {
        n = north[ty][tx] - jc;
        s = temp[ty + 1][tx] - jc;
        w = west[ty][tx] - jc;
        e = temp[ty][tx + 1] - jc;
    } else if (ty == 0 && tx == BLOCK_SIZE - 1) {
        n = north[ty][tx] - jc;
        s = temp[ty + 1][tx] - jc;
        w = temp[ty][tx - 1] - jc;
        e = east[ty][tx] - jc;
    } else if (ty == BLOCK_SIZE - 1 && tx == BLOCK_SIZE - 1) {
        n = temp[ty - 1][tx] - jc;
        s = south[ty][tx] - jc;
        w = temp[ty][tx - 1] - jc;
        e = east[ty][tx] - jc;
    } else if (ty == BLOCK_SIZE - 1 && tx == 0) {
        n = temp[ty - 1][tx] - jc;
        s = south[ty][tx] - jc;
        w = west[ty][tx] - jc;
        e = temp[ty][tx + 1] - jc;
    } else if (ty == 0) {
        n = north[ty][tx] - jc;
        s = temp[ty + 1][tx] - jc;
        w = temp[ty][tx - 1] - jc;
        e = temp[ty][tx + 1] - jc;
    } else if (tx == BLOCK_SIZE - 1) {
        n = temp[ty - 1][tx] - jc;
        s = temp[ty + 1][tx] - jc;
        w = temp[ty][tx - 1] - jc;
        e = east[ty][tx] - jc;
    } else if (ty == BLOCK_SIZE - 1) {
        n = temp[ty - 1][tx] - jc;
        s = south[ty][tx] - jc;
        w = temp[ty][tx - 1] - jc;
        e = temp[ty][tx + 1] - jc;
    } else if (tx == 0) {
        n = temp[ty - 1][tx] - jc;
        s = temp[ty + 1][tx] - jc;
        w = west[ty][tx] - jc;
        e = temp[ty][tx + 1] - jc;
    } else {
        n = temp[ty - 1][tx] - jc;
        s = temp[ty + 1][tx] - jc;
        w = temp[ty][tx - 1] - jc;
        e = temp[ty][tx + 1] - jc;
    }

    // Rodinia's equations 33 and 35, with its double-precision constants.
    g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    l = (n + s + w + e) / jc;
    num = (0.5 * g2) - ((1.0 / 16.0) * (l * l));
    den = 1 + (.25 * l);
    qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
    c = 1.0 / (1.0 + den);

    if (c < 0)
        temp_result[ty][tx] = 0;
    else if (c > 1)
        temp_result[ty][tx] = 1;
    else
        temp_result[ty][tx] = c;
    __syncthreads();

    C_cuda[index] = temp_result[ty][tx];
    E_C[index] = e;
    W_C[index] = w;
    S_C[index] = s;
    N_C[index] = n;
}

extern "C" __global__ void srad_cuda_2(const float *E_C, const float *W_C,
                                       const float *N_C, const float *S_C,
                                       float *J_cuda, const float *C_cuda,
                                       int cols, int rows, float lambda,
                                       float q0sqr)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;

    int tile = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    int index = tile + cols * ty + tx;
    int index_s = tile + cols * BLOCK_SIZE + tx;
    int index_e = tile + cols * ty + BLOCK_SIZE;
    float cc, cn, cs, ce, cw, d_sum;

    __shared__ float south_c[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float east_c[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float c_cuda_temp[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float c_cuda_result[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float temp[BLOCK_SIZE][BLOCK_SIZE];

    temp[ty][tx] = J_cuda[index];
    __syncthreads();

    south_c[ty][tx] = C_cuda[index_s];
    if (by == gridDim.y - 1)
        south_c[ty][tx] = C_cuda[cols * BLOCK_SIZE * (gridDim.y - 1) + BLOCK_SIZE * bx +
                                 cols * (BLOCK_SIZE - 1) + tx];
    __syncthreads();

    east_c[ty][tx] = C_cuda[index_e];
    if (bx == gridDim.x - 1)
        east_c[ty][tx] = C_cuda[cols * BLOCK_SIZE * by + BLOCK_SIZE * (gridDim.x - 1) +
                                cols * ty + BLOCK_SIZE - 1];
    __syncthreads();

    c_cuda_temp[ty][tx] = C_cuda[index];
    __syncthreads();

    cc = c_cuda_temp[ty][tx];
    if (ty == BLOCK_SIZE - 1 && tx == BLOCK_SIZE - 1) {
        cn = cc;
        cs = south_c[ty][tx];
        cw = cc;
        ce = east_c[ty][tx];
    } else if (tx == BLOCK_SIZE - 1) {
        cn = cc;
        cs = c_cuda_temp[ty + 1][tx];
        cw = cc;
        ce = east_c[ty][tx];
    } else if (ty == BLOCK_SIZE - 1) {
        cn = cc;
        cs = south_c[ty][tx];
        cw = cc;
        ce = c_cuda_temp[ty][tx + 1];
    } else {
        cn = cc;
        cs = c_cuda_temp[ty + 1][tx];
        cw = cc;
        ce = c_cuda_temp[ty][tx + 1];
    }

    d_sum = cn * N_C[index] + cs * S_C[index] + cw * W_C[index] + ce * E_C[index];
    c_cuda_result[ty][tx] = temp[ty][tx] + 0.25 * lambda * d_sum;
    __syncthreads();

    J_cuda[index] = c_cuda_result[ty][tx];
}
