// kmeans_assign: each thread takes one point of 16 features stored
// point-major (feature f of point i at pts[i * 16 + f]: strided, poorly
// coalesced loads) and finds the nearest of 8 centroids held in global
// memory (every thread of a warp reads the same centroid word: broadcast
// loads); writes the centroid's index (the first on a tie: strict <).
// Written as an unseen probe, then kept unchanged for gpusim's held-out
// correlation set.

#define NF 16
#define NC 8

extern "C" __global__ void kmeans_assign(int *assign, const float *pts,
                                         const float *cent, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float p[NF];
#pragma unroll
    for (int f = 0; f < NF; f++)
        p[f] = pts[i * NF + f];
    float best = 3.0e38f;
    int bi = 0;
    for (int c = 0; c < NC; c++) {
        float d = 0.0f;
#pragma unroll
        for (int f = 0; f < NF; f++) {
            float diff = p[f] - cent[c * NF + f];
            d += diff * diff;
        }
        if (d < best) {
            best = d;
            bi = c;
        }
    }
    assign[i] = bi;
}
