// StoreGPU (BLWS Table 3, ISPASS 2009 "STO"; Al-Kiswany et al.'s StoreGPU,
// the GPU hashing of a content-addressable store): direct hashing. The input
// buffer is cut into fixed-size chunks and one thread computes the MD5 digest
// (RFC 1321) of one chunk; the host keeps the per-chunk digests (StoreGPU's
// last stage hashes them once more on the CPU). StoreGPU's chunk sizes are
// k * 64 - 12 bytes, so a chunk and its MD5 padding (0x80, zeros, the 64-bit
// bit length) end exactly on a 64-byte block.
//
// A CTA of 128 threads (4 warps, the ISPASS launch: 384 CTAs x 128). Each
// thread stages the next two 64-byte MD5 blocks of its chunk (its input
// words or padding) in shared memory, word w of thread t at w * 128 + t (no
// bank conflicts), then runs the 64 MD5 steps of each staged block reading
// its words from there: 128 x 32 words = 16 KB of shared memory per CTA.
// Each thread's loads are strided by the chunk size: 32 threads of a warp
// touch 32 different lines per load, StoreGPU's uncoalesced pattern.
//
// Written for gpusim after the published algorithm (none of StoreGPU's code).
typedef unsigned int uint;

#define THREADS 128
#define STAGE_WORDS 32

#define F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))
#define ROTL(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
#define STEP(f, a, b, c, d, k, s, t) \
    a = b + ROTL(a + f(b, c, d) + X[(k) * THREADS] + (t), s)

// One MD5 compression of the 16 words X[0], X[THREADS], ..., X[15 * THREADS].
__device__ __forceinline__ void md5Block(uint *state, const uint *X)
{
    uint a = state[0], b = state[1], c = state[2], d = state[3];

    STEP(F, a, b, c, d, 0, 7, 0xd76aa478u);
    STEP(F, d, a, b, c, 1, 12, 0xe8c7b756u);
    STEP(F, c, d, a, b, 2, 17, 0x242070dbu);
    STEP(F, b, c, d, a, 3, 22, 0xc1bdceeeu);
    STEP(F, a, b, c, d, 4, 7, 0xf57c0fafu);
    STEP(F, d, a, b, c, 5, 12, 0x4787c62au);
    STEP(F, c, d, a, b, 6, 17, 0xa8304613u);
    STEP(F, b, c, d, a, 7, 22, 0xfd469501u);
    STEP(F, a, b, c, d, 8, 7, 0x698098d8u);
    STEP(F, d, a, b, c, 9, 12, 0x8b44f7afu);
    STEP(F, c, d, a, b, 10, 17, 0xffff5bb1u);
    STEP(F, b, c, d, a, 11, 22, 0x895cd7beu);
    STEP(F, a, b, c, d, 12, 7, 0x6b901122u);
    STEP(F, d, a, b, c, 13, 12, 0xfd987193u);
    STEP(F, c, d, a, b, 14, 17, 0xa679438eu);
    STEP(F, b, c, d, a, 15, 22, 0x49b40821u);

    STEP(G, a, b, c, d, 1, 5, 0xf61e2562u);
    STEP(G, d, a, b, c, 6, 9, 0xc040b340u);
    STEP(G, c, d, a, b, 11, 14, 0x265e5a51u);
    STEP(G, b, c, d, a, 0, 20, 0xe9b6c7aau);
    STEP(G, a, b, c, d, 5, 5, 0xd62f105du);
    STEP(G, d, a, b, c, 10, 9, 0x02441453u);
    STEP(G, c, d, a, b, 15, 14, 0xd8a1e681u);
    STEP(G, b, c, d, a, 4, 20, 0xe7d3fbc8u);
    STEP(G, a, b, c, d, 9, 5, 0x21e1cde6u);
    STEP(G, d, a, b, c, 14, 9, 0xc33707d6u);
    STEP(G, c, d, a, b, 3, 14, 0xf4d50d87u);
    STEP(G, b, c, d, a, 8, 20, 0x455a14edu);
    STEP(G, a, b, c, d, 13, 5, 0xa9e3e905u);
    STEP(G, d, a, b, c, 2, 9, 0xfcefa3f8u);
    STEP(G, c, d, a, b, 7, 14, 0x676f02d9u);
    STEP(G, b, c, d, a, 12, 20, 0x8d2a4c8au);

    STEP(H, a, b, c, d, 5, 4, 0xfffa3942u);
    STEP(H, d, a, b, c, 8, 11, 0x8771f681u);
    STEP(H, c, d, a, b, 11, 16, 0x6d9d6122u);
    STEP(H, b, c, d, a, 14, 23, 0xfde5380cu);
    STEP(H, a, b, c, d, 1, 4, 0xa4beea44u);
    STEP(H, d, a, b, c, 4, 11, 0x4bdecfa9u);
    STEP(H, c, d, a, b, 7, 16, 0xf6bb4b60u);
    STEP(H, b, c, d, a, 10, 23, 0xbebfbc70u);
    STEP(H, a, b, c, d, 13, 4, 0x289b7ec6u);
    STEP(H, d, a, b, c, 0, 11, 0xeaa127fau);
    STEP(H, c, d, a, b, 3, 16, 0xd4ef3085u);
    STEP(H, b, c, d, a, 6, 23, 0x04881d05u);
    STEP(H, a, b, c, d, 9, 4, 0xd9d4d039u);
    STEP(H, d, a, b, c, 12, 11, 0xe6db99e5u);
    STEP(H, c, d, a, b, 15, 16, 0x1fa27cf8u);
    STEP(H, b, c, d, a, 2, 23, 0xc4ac5665u);

    STEP(I, a, b, c, d, 0, 6, 0xf4292244u);
    STEP(I, d, a, b, c, 7, 10, 0x432aff97u);
    STEP(I, c, d, a, b, 14, 15, 0xab9423a7u);
    STEP(I, b, c, d, a, 5, 21, 0xfc93a039u);
    STEP(I, a, b, c, d, 12, 6, 0x655b59c3u);
    STEP(I, d, a, b, c, 3, 10, 0x8f0ccc92u);
    STEP(I, c, d, a, b, 10, 15, 0xffeff47du);
    STEP(I, b, c, d, a, 1, 21, 0x85845dd1u);
    STEP(I, a, b, c, d, 8, 6, 0x6fa87e4fu);
    STEP(I, d, a, b, c, 15, 10, 0xfe2ce6e0u);
    STEP(I, c, d, a, b, 6, 15, 0xa3014314u);
    STEP(I, b, c, d, a, 13, 21, 0x4e0811a1u);
    STEP(I, a, b, c, d, 4, 6, 0xf7537e82u);
    STEP(I, d, a, b, c, 11, 10, 0xbd3af235u);
    STEP(I, c, d, a, b, 2, 15, 0x2ad7d2bbu);
    STEP(I, b, c, d, a, 9, 21, 0xeb86d391u);

    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
}

// d_Input: totalChunks chunks of chunkWords little-endian words each.
// d_Hashes: 4 words (the digest's bytes in order, little-endian) per chunk.
extern "C" __global__ void md5Chunks(const uint *d_Input, uint chunkWords, uint totalChunks,
                                     uint *d_Hashes)
{
    __shared__ uint s_Stage[STAGE_WORDS * THREADS];

    const uint chunk = blockIdx.x * THREADS + threadIdx.x;
    if (chunk >= totalChunks) return;
    const uint *src = d_Input + (size_t)chunk * chunkWords;
    uint *X = s_Stage + threadIdx.x;

    // Message words plus padding: 0x80 right after the data, zeros, and the
    // 64-bit bit length in the last two words of the last block.
    const uint blocks = (chunkWords * 4 + 9 + 63) / 64;
    const uint padded = blocks * 16;
    const unsigned long long bits = (unsigned long long)chunkWords * 32;

    uint state[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};

#pragma unroll 1
    for (uint blk = 0; blk < blocks; blk += 2) {
#pragma unroll
        for (uint w = 0; w < STAGE_WORDS; ++w) {
            const uint g = blk * 16 + w;
            uint v;
            if (g < chunkWords) v = src[g];
            else if (g == chunkWords) v = 0x80u;
            else if (g == padded - 2) v = (uint)bits;
            else if (g == padded - 1) v = (uint)(bits >> 32);
            else v = 0u;
            X[w * THREADS] = v;
        }
        md5Block(state, X);
        if (blk + 1 < blocks) md5Block(state, X + 16 * THREADS);
    }

    uint *dst = d_Hashes + (size_t)chunk * 4;
    dst[0] = state[0];
    dst[1] = state[1];
    dst[2] = state[2];
    dst[3] = state[3];
}
