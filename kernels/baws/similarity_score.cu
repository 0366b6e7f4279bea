// Similarity Score (BAWS Table 2 "SS", after Mars' SS benchmark): the
// cosine similarity of every pair of documents, each a vector of `features`
// floats, sim(i, j) = (a_i . a_j) / (|a_i| |a_j|). A 16 x 16 block = 8 warps
// (the paper's warps per TB) computes a 16 x 16 tile of pairs: it stages
// 16 features of its 16 row documents and 16 column documents in shared
// memory, __syncthreads(), accumulates the dot product and both squared
// norms over the staged features, __syncthreads(), and moves on to the next
// 16 features.
//
// Written for gpusim after the algorithm Mars' SS map function computes
// (not the Mars framework: no map/reduce scheduling, one output per pair).
// `docs` and `features` must be multiples of 16; documents are rows of a
// row-major docs x features matrix.
#define TILE 16

extern "C" __global__ void similarityScore(float *sim, const float *doc, int docs, int features)
{
    __shared__ float rowDoc[TILE][TILE + 1];
    __shared__ float colDoc[TILE][TILE + 1];

    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty; // row document of this thread's pair
    int j = blockIdx.x * TILE + tx; // column document of this thread's pair
    const float *rowBase = doc + (blockIdx.y * TILE + ty) * features;
    const float *colBase = doc + (blockIdx.x * TILE + ty) * features;

    float dot = 0.0f, rowNorm = 0.0f, colNorm = 0.0f;
    for (int f = 0; f < features; f += TILE) {
        rowDoc[ty][tx] = rowBase[f + tx];
        colDoc[ty][tx] = colBase[f + tx];
        __syncthreads();
#pragma unroll 2
        for (int k = 0; k < TILE; k++) {
            float a = rowDoc[ty][k];
            float b = colDoc[tx][k];
            dot = fmaf(a, b, dot);
            rowNorm = fmaf(a, a, rowNorm);
            colNorm = fmaf(b, b, colNorm);
        }
        __syncthreads();
    }
    sim[i * docs + j] = dot / (sqrtf(rowNorm) * sqrtf(colNorm));
}
