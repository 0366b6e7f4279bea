// Integer intrinsics as nvcc lowers them: mul.hi (32/64), prmt (__byte_perm),
// brev, popc, clz (32/64), bfind (__ffs via brev+bfind), sad, shf (funnel
// shifts), dp4a/dp2a, 16-bit min/max, a 128-bit add that becomes an
// add.cc/addc.cc carry chain, and a 64-bit pack.
// One thread per element; 24 u32 outputs and 4 u64 outputs per thread.
extern "C" __global__ void int_intrinsics(const int *a, const unsigned *b,
                                          const long long *c,
                                          const unsigned long long *d, int *out,
                                          unsigned long long *out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i];
  unsigned y = b[i];
  long long z = c[i];
  unsigned long long w = d[i];
  int *o = out + i * 24;
  o[0] = __mulhi(x, (int)y);
  o[1] = (int)__umulhi((unsigned)x, y);
  o[2] = (int)__byte_perm((unsigned)x, y, y & 0x7777);
  o[3] = (int)__brev(y);
  o[4] = __popc(y);
  o[5] = __popcll(w);
  o[6] = __clz(x);
  o[7] = __clzll(z);
  o[8] = __ffs(x);
  o[9] = __ffsll(z);
  o[10] = (int)__sad(x, (int)y, 7u);
  o[11] = (int)__usad((unsigned)x, y, 9u);
  o[12] = (int)__funnelshift_l((unsigned)x, y, y);
  o[13] = (int)__funnelshift_r((unsigned)x, y, y);
  o[14] = (int)__funnelshift_lc((unsigned)x, y, y);
  o[15] = (int)__funnelshift_rc((unsigned)x, y, y);
  o[16] = __dp4a(x, (int)y, 5);
  o[17] = (int)__dp2a_lo((unsigned)x, y, 3u);
  o[18] = __dp2a_hi(x, (int)y, -3);
  o[19] = __hadd(x, (int)y);
  o[20] = __rhadd(x, (int)y);
  short s1 = (short)x, s2 = (short)y;
  o[21] = (int)min(s1, s2) * 65536 + (int)max(s1, s2);
  o[22] = (int)__uhadd((unsigned)x, y);
  o[23] = (int)__byte_perm((unsigned)x, y, 0x5140);
  unsigned long long *q = out64 + i * 4;
  q[0] = __umul64hi(w, (unsigned long long)z);
  q[1] = (unsigned long long)__mul64hi(z, (long long)w);
  q[2] = (unsigned long long)(((unsigned __int128)w + (unsigned long long)z) >> 64) +
         (unsigned long long)(((unsigned __int128)w << 64 | (unsigned long long)z) +
                               ((unsigned __int128)(unsigned long long)z << 64 | w) >> 64);
  q[3] = __brevll(w);
}

// Float class tests and sign handling: testp (isfinite/isinf/isnan on f64
// go through testp or integer compares), copysign, and reciprocals.
extern "C" __global__ void float_intrinsics(const float *a, const double *b,
                                            float *out, double *outd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  float x2 = a[(i + 1) % n];
  double y = b[i];
  float *o = out + i * 4;
  o[0] = isfinite(x) ? 1.f : 0.f;
  o[1] = isinf(x) ? 1.f : 0.f;
  o[2] = isnan(x) ? 1.f : 0.f;
  o[3] = copysignf(x, x2);
  double *p = outd + i * 4;
  p[0] = copysign(y, (double)x);
  p[1] = isfinite(y) ? 1.0 : 0.0;
  p[2] = isinf(y) ? 1.0 : (isnan(y) ? 2.0 : 0.0);
  p[3] = 1.0 / y;
}

// Warp-level special registers and votes: %lanemask_*, activemask, the
// vote.sync forms, __ldg (ld.global.nc), st.global.v4, dynamic shared memory
// size.
extern "C" __global__ void warp_misc(const int *__restrict__ a, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lt, le, eq, ge, gt, dsm;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsm));
  int v = i < n ? __ldg(&a[i]) : 0;
  unsigned m = __activemask();
  unsigned bal = __ballot_sync(m, v > 0);
  int all = __all_sync(m, v > 0);
  int any = __any_sync(m, v > 0);
  int uni = __uni_sync(m, v > 0);
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = v;
  __syncthreads();
  int nb = dyn[(threadIdx.x + 1) % blockDim.x];
  if (i < n) {
    reinterpret_cast<int4 *>(out)[i * 3] = make_int4(lt, le, eq, ge);
    reinterpret_cast<int4 *>(out)[i * 3 + 1] = make_int4(gt, bal, m, (int)dsm);
    reinterpret_cast<int4 *>(out)[i * 3 + 2] = make_int4(all, any, uni, nb);
  }
}
