// float_conv: int <-> float conversions and rounding modes per element.
// Features: cvt.rn.f32.s32 / cvt.rn.f32.u32 (int->float), cvt.rzi.s32.f32 /
// cvt.rzi.u32.f32 (C truncating float->int), cvt.rni.f32.f32 (rintf),
// cvt.rmi.f32.f32 (floorf), cvt.rpi.f32.f32 (ceilf), cvt.rzi.f32.f32
// (truncf), f64 arithmetic with cvt.f64.f32 / cvt.rn.f32.f64 /
// cvt.rn.f64.s32 / cvt.rzi.s32.f64, f32 abs/neg/min/max, sqrt.rn.f32,
// div.rn.f32, NaN test (setp.nan), selp.f32.
#include "cuda_shim.h"

__global__ void float_conv(const float *in, const int *iin, const unsigned *uin,
                           const double *din, int *out_i, unsigned *out_u,
                           float *out_f, double *out_d, int n) {
  int i = ctaid_x() * ntid_x() + tid_x();
  if (i >= n)
    return;
  float v = in[i];
  int iv = iin[i];
  float fi = (float)iv;              // cvt.rn.f32.s32
  float fu = (float)uin[i];          // cvt.rn.f32.u32

  float r = __builtin_rintf(v);      // round to nearest even
  float fl = __builtin_floorf(v);
  float ce = __builtin_ceilf(v);
  float tr = __builtin_truncf(v);
  out_i[i] = (int)v + (int)r;                             // cvt.rzi.s32.f32
  out_u[i] = (unsigned)__builtin_fabsf(v) + (unsigned)ce; // cvt.rzi.u32.f32

  double d = din[i];
  double dd = d * (double)v + (double)iv;  // cvt.f64.f32, cvt.rn.f64.s32, fma.rn.f64 or mul+add
  out_d[i] = dd + (double)(int)d;          // cvt.rzi.s32.f64
  float back = (float)dd;                  // cvt.rn.f32.f64

  float m = __builtin_fmaxf(fl, tr) - __builtin_fminf(fi, fu);
  float q = __builtin_sqrtf(__builtin_fabsf(m)) / (fu + 1.0f);
  if (v != v)                        // NaN
    q = -back;
  out_f[i] = q + back;
}
