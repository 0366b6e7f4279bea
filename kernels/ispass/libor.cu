// LIBOR market model Monte Carlo (ISPASS-2009 "LIB", LFWS Table 2 "LIB"),
// after Mike Giles' swaption portfolio: every thread simulates LIBOR paths
// of N forward rates over Nmat time steps (grid-stride over the paths) and
// prices a portfolio of Nopt swaptions on each. As in the original the
// forward rates L[] (and, in the sensitivity kernel, the whole path L2[])
// are per-thread arrays indexed by loop counters, so they live in local
// memory: the inner loops are local loads and stores. The model's
// constants (N, Nmat, Nopt, maturities, delta, swaprates, lambda) are
// __constant__ variables the host writes.
//
// Written for gpusim after the algorithm, with one change: the normal
// increments z are host-generated (seeded) and read from global memory,
// d_z[n * npath + path] (coalesced across a warp), where the original sets
// every z to 0.3. Two kernels, run in the original's order:
// pathcalcPortfolio (the path and the portfolio value) and
// pathcalcPortfolioGreeks (also the reverse-mode sensitivity dv/dL[N-1]).
#define NN 80
#define NMAT 40
#define L2_SIZE 3280 // NN * (NMAT + 1)
#define NOPT 15

__constant__ int N, Nmat, Nopt, maturities[NOPT];
__constant__ float delta, swaprates[NOPT], lambda[NN];

// The forward rates L[0..N) along one path (z: Nmat normal increments).
__device__ void path_calc(float *L, const float *z)
{
    for (int n = 0; n < Nmat; n++) {
        const float sqez = sqrtf(delta) * z[n];
        float v = 0.0f;
        for (int i = n + 1; i < N; i++) {
            const float lam = lambda[i - n - 1];
            const float con1 = delta * lam;
            v += __fdividef(con1 * L[i], 1.0f + delta * L[i]);
            const float vrat = __expf(con1 * v + lam * (sqez - 0.5f * con1));
            L[i] = L[i] * vrat;
        }
    }
}

// path_calc, also keeping every step's rates in L2 for the reverse sweep.
__device__ void path_calc_b1(float *L, const float *z, float *L2)
{
    for (int i = 0; i < N; i++) L2[i] = L[i];
    for (int n = 0; n < Nmat; n++) {
        const float sqez = sqrtf(delta) * z[n];
        float v = 0.0f;
        for (int i = n + 1; i < N; i++) {
            const float lam = lambda[i - n - 1];
            const float con1 = delta * lam;
            v += __fdividef(con1 * L[i], 1.0f + delta * L[i]);
            const float vrat = __expf(con1 * v + lam * (sqez - 0.5f * con1));
            L[i] = L[i] * vrat;
            L2[i + (n + 1) * N] = L[i];
        }
    }
}

// The reverse sweep: sensitivities L_b back through the stored path.
__device__ void path_calc_b2(float *L_b, const float *z, const float *L2)
{
    for (int n = Nmat - 1; n >= 0; n--) {
        float v1 = 0.0f;
        for (int i = N - 1; i > n; i--) {
            v1 += lambda[i - n - 1] * L2[i + (n + 1) * N] * L_b[i];
            const float faci = __fdividef(delta, 1.0f + delta * L2[i + n * N]);
            L_b[i] = L_b[i] * __fdividef(L2[i + (n + 1) * N], L2[i + n * N])
                   + v1 * lambda[i - n - 1] * faci * faci;
        }
    }
}

// The portfolio value along a path: discount factors B and annuities S of
// the swaps after Nmat, a payer swaption pays 100 * max(0, -(B + rate * S - 1)).
__device__ float portfolio(const float *L)
{
    float B[NMAT], S[NMAT];
    float b = 1.0f, s = 0.0f;
    for (int n = Nmat; n < N; n++) {
        b = b / (1.0f + delta * L[n]);
        s = s + delta * b;
        B[n - Nmat] = b;
        S[n - Nmat] = s;
    }
    float v = 0.0f;
    for (int i = 0; i < Nopt; i++) {
        const int m = maturities[i] - 1;
        const float swapval = B[m] + swaprates[i] * S[m] - 1.0f;
        if (swapval < 0.0f) v += -100.0f * swapval;
    }
    b = 1.0f; // discount to time 0
    for (int n = 0; n < Nmat; n++) b = b / (1.0f + delta * L[n]);
    return b * v;
}

// portfolio with its hand-coded reverse-mode sensitivity to L (into L_b).
__device__ float portfolio_b(const float *L, float *L_b)
{
    float B[NMAT], S[NMAT], B_b[NMAT], S_b[NMAT];
    float b = 1.0f, s = 0.0f;
    for (int m = 0; m < N - Nmat; m++) {
        const int n = m + Nmat;
        b = __fdividef(b, 1.0f + delta * L[n]);
        s = s + delta * b;
        B[m] = b;
        S[m] = s;
    }
    float v = 0.0f;
    for (int m = 0; m < N - Nmat; m++) {
        B_b[m] = 0.0f;
        S_b[m] = 0.0f;
    }
    for (int n = 0; n < Nopt; n++) {
        const int m = maturities[n] - 1;
        const float swapval = B[m] + swaprates[n] * S[m] - 1.0f;
        if (swapval < 0.0f) {
            v += -100.0f * swapval;
            S_b[m] += -100.0f * swaprates[n];
            B_b[m] += -100.0f;
        }
    }
    for (int m = N - Nmat - 1; m >= 0; m--) {
        const int n = m + Nmat;
        B_b[m] += delta * S_b[m];
        L_b[n] = -B_b[m] * B[m] * __fdividef(delta, 1.0f + delta * L[n]);
        if (m > 0) {
            S_b[m - 1] += S_b[m];
            B_b[m - 1] += __fdividef(B_b[m], 1.0f + delta * L[n]);
        }
    }
    b = 1.0f;
    for (int n = 0; n < Nmat; n++) b = b / (1.0f + delta * L[n]);
    v = b * v;
    for (int n = 0; n < Nmat; n++) L_b[n] = -v * delta / (1.0f + delta * L[n]);
    for (int n = Nmat; n < N; n++) L_b[n] = b * L_b[n];
    return v;
}

// Portfolio values d_v[path]; L0: every path's initial forward rate.
extern "C" __global__ void pathcalcPortfolio(float *d_v, const float *d_z, int npath, float L0)
{
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    const int threadN = blockDim.x * gridDim.x;
    float L[NN], z[NMAT];
    for (int path = tid; path < npath; path += threadN) {
        for (int n = 0; n < Nmat; n++) z[n] = d_z[n * npath + path];
        for (int i = 0; i < N; i++) L[i] = L0;
        path_calc(L, z);
        d_v[path] = portfolio(L);
    }
}

// Portfolio values d_v[path] and sensitivities d_Lb[path] = dv/dL[N-1].
extern "C" __global__ void pathcalcPortfolioGreeks(float *d_v, float *d_Lb, const float *d_z,
                                                   int npath, float L0)
{
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    const int threadN = blockDim.x * gridDim.x;
    float L[NN], L2[L2_SIZE], z[NMAT];
    float *L_b = L;
    for (int path = tid; path < npath; path += threadN) {
        for (int n = 0; n < Nmat; n++) z[n] = d_z[n * npath + path];
        for (int i = 0; i < N; i++) L[i] = L0;
        path_calc_b1(L, z, L2);
        d_v[path] = portfolio_b(L, L_b);
        path_calc_b2(L_b, z, L2);
        d_Lb[path] = L_b[N - 1];
    }
}
