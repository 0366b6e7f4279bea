// Ray tracing (ISPASS-2009 "RAY", LFWS Table 2 "RAY"), after Maxime
// Boroujerdi's CUDA ray tracer: one thread per pixel (16 x 8 CTAs, as the
// original) casts a ray from the observer into a scene of a plane and
// spheres held in __constant__ memory (cnode, with the inverse view matrix
// MView), finds the nearest hit, shades it (ambient 0.05, diffuse 0.3 when
// a shadow ray towards the light at (10, 10, 10) is not blocked, specular
// 0.8 * (N.H)^50 by 50 multiplications), and follows the mirror reflection
// up to five times; the per-bounce colours (a per-thread stack, pile[5])
// are blended back to front with weight 0.8 and packed as RGBA bytes.
//
// Written for gpusim after the algorithm. Changes: the number of objects is
// a kernel parameter (the original compiles in numObj = 4), so the host can
// add spheres; the vector helpers are written out here (cutil_math's
// normalize is v * rsqrtf(dot(v, v))); products and sums are written with
// __fmul_rn / __fadd_rn / __fsub_rn (never fused into fma), so a CPU
// reference repeats them exactly; the original's __syncthreads() (it shares
// nothing) is left out.
#define MAX_OBJ 16
#define NREC 5

struct Node {
    float cx, cy, cz, r; // centre, radius (a plane: a point of it, normal +y)
    float R, V, B, A;    // colour
    unsigned fg, fd;     // fg != 0: the plane
};

struct View {
    float4 m[3]; // rows U, V, W; w: the observer's position
};

__constant__ View MView;
__constant__ Node cnode[MAX_OBJ];

struct V3 {
    float x, y, z;
};

__device__ __forceinline__ V3 v3(float x, float y, float z) { V3 r = {x, y, z}; return r; }
__device__ __forceinline__ V3 add(V3 a, V3 b) { return v3(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y), __fadd_rn(a.z, b.z)); }
__device__ __forceinline__ V3 sub(V3 a, V3 b) { return v3(__fsub_rn(a.x, b.x), __fsub_rn(a.y, b.y), __fsub_rn(a.z, b.z)); }
__device__ __forceinline__ V3 scale(V3 a, float s) { return v3(__fmul_rn(a.x, s), __fmul_rn(a.y, s), __fmul_rn(a.z, s)); }
__device__ __forceinline__ float dot(V3 a, V3 b)
{
    return __fadd_rn(__fadd_rn(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y)), __fmul_rn(a.z, b.z));
}
__device__ __forceinline__ V3 normalize(V3 v) { return scale(v, rsqrtf(dot(v, v))); }

// Distance along the ray (origin A, unit direction u) to the sphere (C, r),
// 0 for a miss; from inside, the far intersection.
__device__ float intersectionSphere(V3 A, V3 u, V3 C, float r)
{
    const V3 L = sub(C, A);
    const float d = dot(L, u), l2 = dot(L, L), r2 = __fmul_rn(r, r);
    if (d < 0.0f && l2 > r2) return 0.0f;
    const float m2 = __fsub_rn(l2, __fmul_rn(d, d));
    if (m2 > r2) return 0.0f;
    const float q = sqrtf(__fsub_rn(r2, m2));
    return l2 > r2 ? __fsub_rn(d, q) : __fadd_rn(d, q);
}

// Distance to the plane through C with normal (0, 1, 0), 0 for a miss.
__device__ float intersectionPlan(V3 A, V3 u, V3 C)
{
    const V3 N = normalize(v3(0.0f, 1.0f, 0.0f));
    const float m = dot(N, u);
    if (fabsf(m) < 0.0001f) return 0.0f;
    const float d = dot(N, sub(A, C));
    const float t = -d / m;
    return t > 0.0f ? t : 0.0f;
}

__device__ float hit(const Node &n, V3 A, V3 u, float pas)
{
    const V3 C = v3(n.cx + pas, n.cy, n.cz);
    return n.fg ? intersectionPlan(A, u, C) : intersectionSphere(A, u, C, n.r);
}

// True when nothing lies on the way from P towards the light along u (as
// the original: the first object hit ends the search; a hit farther from
// the origin than the light is from P does not count).
__device__ bool notShadowRay(int nobj, V3 P, V3 u, float pas)
{
    const V3 light = v3(10.0f, 10.0f, 10.0f);
    const V3 toLight = sub(light, P);
    const float dst = dot(toLight, toLight);
    const V3 A = add(P, scale(u, 0.0001f));
    float t = 0.0f;
    for (int j = 0; j < nobj && t == 0.0f; j++) {
        t = hit(cnode[j], A, u, pas);
        const V3 Q = add(P, scale(u, t));
        if (t > 0.0f && dot(Q, Q) > dst) t = 0.0f;
    }
    return t == 0.0f;
}

__device__ float pow50(float a)
{
    return a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a *
           a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a * a *
           a * a;
}

__device__ unsigned rgbaFloatToInt(float4 c)
{
    c.x = __saturatef(c.x);
    c.y = __saturatef(c.y);
    c.z = __saturatef(c.z);
    c.w = __saturatef(c.w);
    return (unsigned(c.w * 255.0f) << 24) | (unsigned(c.z * 255.0f) << 16) | (unsigned(c.y * 255.0f) << 8) |
           unsigned(c.x * 255.0f);
}

// result[y * imageW + x]: pixel (x, y) as RGBA bytes. pas: shift of every
// object along x (the original's animation step); df: focal distance.
extern "C" __global__ void render(unsigned *result, unsigned imageW, unsigned imageH, int nobj, float pas,
                                  float df)
{
    const unsigned x = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    const unsigned y = __umul24(blockIdx.y, blockDim.y) + threadIdx.y;
    const unsigned id = x + y * imageW;
    float4 pile[NREC];
    for (int i = 0; i < NREC; ++i) pile[i] = make_float4(0.0f, 0.0f, 0.0f, 1.0f);
    if (x >= imageW || y >= imageH) return;

    result[id] = 0;
    const float tPixel = 2.0f / float(min(imageW, imageH));
    const View M = MView;
    V3 A = v3(M.m[0].w, M.m[1].w, M.m[2].w);
    const float fx = __fmul_rn(__fsub_rn(float(x), __fmul_rn(float(imageW), 0.5f)), tPixel);
    const float fy = __fmul_rn(__fsub_rn(float(y), __fmul_rn(float(imageH), 0.5f)), tPixel);
    V3 u = add(add(scale(v3(M.m[0].x, M.m[0].y, M.m[0].z), df), scale(v3(M.m[2].x, M.m[2].y, M.m[2].z), fx)),
               scale(v3(M.m[1].x, M.m[1].y, M.m[1].z), fy));
    u = normalize(u);

    unsigned n = 0;
    for (int i = 0; i < NREC && n == i; i++) {
        float prof = 10000.0f;
        int obj = 0;
        for (int j = 0; j < nobj; j++) {
            const float t = hit(cnode[j], A, u, pas);
            if (t > 0.0f && t < prof) {
                prof = t;
                obj = j;
            }
        }
        const float t = prof;
        if (t > 0.0f && t < 10000.0f) {
            n++;
            const Node nod = cnode[obj];
            const float4 color = make_float4(nod.R, nod.V, nod.B, nod.A);
            const V3 C = v3(nod.cx + pas, nod.cy, nod.cz);
            const V3 P = add(A, scale(u, t));
            const V3 L = normalize(sub(v3(10.0f, 10.0f, 10.0f), P));
            const V3 V = normalize(sub(A, P));
            const V3 N = nod.fg ? normalize(v3(0.0f, 1.0f, 0.0f)) : normalize(sub(P, C));
            const V3 Np = dot(V, N) < 0.0f ? scale(N, -1.0f) : N;
            float4 c = make_float4(__fmul_rn(0.05f, color.x), __fmul_rn(0.05f, color.y), __fmul_rn(0.05f, color.z),
                                  __fmul_rn(0.05f, color.w));
            const float nl = dot(Np, L);
            if (nl > 0.0f && notShadowRay(nobj, P, L, pas)) {
                const V3 H = normalize(add(L, V));
                const float k = __fmul_rn(0.3f, fminf(1.0f, nl));
                c.x = __fadd_rn(c.x, __fmul_rn(color.x, k));
                c.y = __fadd_rn(c.y, __fmul_rn(color.y, k));
                c.z = __fadd_rn(c.z, __fmul_rn(color.z, k));
                c.w = __fadd_rn(c.w, __fmul_rn(color.w, k));
                const float spec = __fmul_rn(0.8f, pow50(fmaxf(0.0f, fminf(1.0f, dot(Np, H)))));
                c.x = __fadd_rn(c.x, spec);
                c.y = __fadd_rn(c.y, spec);
                c.z = __fadd_rn(c.z, spec);
            }
            pile[i] = c;
            u = normalize(sub(scale(N, __fmul_rn(2.0f, dot(N, V))), V));
            A = add(P, scale(u, 0.0001f));
        }
    }
    for (int i = int(n) - 1; i > 0; i--) {
        pile[i - 1].x = __fadd_rn(pile[i - 1].x, __fmul_rn(0.8f, pile[i].x));
        pile[i - 1].y = __fadd_rn(pile[i - 1].y, __fmul_rn(0.8f, pile[i].y));
        pile[i - 1].z = __fadd_rn(pile[i - 1].z, __fmul_rn(0.8f, pile[i].z));
        pile[i - 1].w = __fadd_rn(pile[i - 1].w, __fmul_rn(0.8f, pile[i].w));
    }
    result[id] += rgbaFloatToInt(pile[0]);
}
