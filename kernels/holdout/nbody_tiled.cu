// nbody_tiled: all-pairs n-body acceleration step. CTA (bx, by) computes,
// for its blockDim.x bodies, the partial acceleration from the bodies of
// j-slice by (n / gridDim.y bodies), staging them tile by tile (blockDim.x
// float4 positions+mass, dynamic shared memory) in shared memory: float4
// global loads, shared broadcast reads, rsqrtf per interaction, bar.sync
// around each tile. acc[by * n + i] = partial sum (w = 0).
// Written as an unseen probe, then kept unchanged for gpusim's held-out
// correlation set.

extern "C" __global__ void nbody_tiled(float4 *acc, const float4 *pos, int n, float eps2)
{
    extern __shared__ float4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int slice = n / gridDim.y;
    int j0 = blockIdx.y * slice;
    float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int t = 0; t < slice; t += blockDim.x) {
        tile[threadIdx.x] = pos[j0 + t + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < blockDim.x; k++) {
            float4 pj = tile[k];
            float dx = pj.x - pi.x;
            float dy = pj.y - pi.y;
            float dz = pj.z - pi.z;
            float d2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = rsqrtf(d2);
            float s = pj.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    acc[blockIdx.y * n + i] = make_float4(ax, ay, az, 0.0f);
}
