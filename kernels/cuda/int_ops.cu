// int_ops: integer ALU mix per element. Exercises signed vs unsigned
// compares, min/max, division/remainder by run-time divisors (signed and
// unsigned), shifts, select, and bit operations.
// Features: unsigned compares (clang writes setp.lt.u32 / setp.gt.u32, with
// a negative immediate for 0x80000000u), signed setp, min/max .s32/.u32,
// div/rem .s32/.u32 guarded by branches, shr.s32 vs shr.u32, selp.b32/.s32,
// abs.s32, popc/clz/brev, bit-field extracts that LLVM turns into
// bfe.u32 / bfe.s32, xor/and/or.
#include "cuda_shim.h"

__global__ void int_ops(const int *a, const int *b, const unsigned *ua,
                        const unsigned *ub, int *out_s, unsigned *out_u,
                        int n) {
  int i = ctaid_x() * ntid_x() + tid_x();
  if (i >= n)
    return;
  int x = a[i], y = b[i];
  unsigned ux = ua[i], uy = ub[i];

  // signed: min/max, guarded div/rem, arithmetic shift, select
  int lo = imin(x, y), hi = imax(x, y);
  int q = (y != 0) ? x / y : 0;
  int r = (y != 0) ? x % y : 0;
  int ax = x < 0 ? -x : x;
  int s = (lo + hi) ^ (q << 3) ^ (r >> 2) ^ ax;
  s = (x > y) ? s : ~s;
  s += (x << 12) >> 24;              // sign-extending field: bfe.s32 x, 12, 8
  out_s[i] = s;

  // unsigned: unsigned compares, umin/umax, div/rem, logical shift, bit ops
  unsigned ulo = umin(ux, uy), uhi = umax(ux, uy);
  unsigned uq = uy ? ux / uy : 0xffffffffu;
  unsigned ur = uy ? ux % uy : ux;
  unsigned t = (ux >= uy) ? (uhi - ulo) : (ulo | uhi);
  t += (ux <= 1000u) ? uq : (ur >> 5);
  t ^= __builtin_popcount(ux) + __builtin_clz(uy | 1u);
  t = (t > 0x80000000u) ? __builtin_bitreverse32(t) : (t & 0x0f0f0f0fu);
  t += ((ux >> 7) & 0x3fu) + umin(uy, 77u); // bfe.u32 ux, 7, 6; min.u32
  out_u[i] = t;
}
