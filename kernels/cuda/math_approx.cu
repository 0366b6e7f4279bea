// math_approx: per-element "fast math" as CUDA's intrinsics (__expf,
// __sinf, rsqrtf, __saturatef, __fadd_rz, ...) would emit it. With
// -nocudalib there is no libdevice, and libm builtins (__builtin_expf,
// __builtin_sinf) make clang 14's NVPTX back end abort with "Undefined
// external symbol", so the PTX instructions are reached through clang's
// __nvvm_* builtins instead. Outputs 4 floats per element:
//   out[4i+0] = sigmoid(x)            = rcp.rn(1 + ex2.approx(-x*log2e))
//   out[4i+1] = softplus(x) (approx)  = lg2.approx(1 + ex2.approx(x*log2e))*ln2
//   out[4i+2] = |rotate((px,py), x)| normalised with rsqrt.approx, saturated
//   out[4i+3] = explicit-rounding probe: add.rz, mul.rm, fma.rp, div.approx,
//               sqrt.approx, ex2.approx.ftz
// Features: sin/cos/ex2/lg2/rsqrt .approx.f32, rcp.rn.f32, div.approx.f32,
// sqrt.approx.f32, cvt.sat.f32.f32, .ftz, non-default rounding modifiers
// .rz/.rm/.rp on add/mul/fma, st.global with [reg+imm] offsets.
#include "cuda_shim.h"

#define LOG2E 1.44269504f
#define LN2 0.69314718f

__global__ void math_approx(const float *x, const float *px, const float *py,
                            float *out, int n) {
  int i = ctaid_x() * ntid_x() + tid_x();
  if (i >= n)
    return;
  float v = x[i];

  float sig = __nvvm_rcp_rn_f(1.0f + __nvvm_ex2_approx_f(-v * LOG2E));
  float sp = __nvvm_lg2_approx_f(1.0f + __nvvm_ex2_approx_f(v * LOG2E)) * LN2;

  float s = __nvvm_sin_approx_f(v), c = __nvvm_cos_approx_f(v);
  float a = px[i], b = py[i];
  float rx = a * c - b * s, ry = a * s + b * c;
  float inv = __nvvm_rsqrt_approx_f(rx * rx + ry * ry + 1e-20f);
  float rot = __nvvm_saturate_f((rx + ry) * inv * 0.5f + 0.5f);

  float probe = __nvvm_add_rz_f(v, 0.1f);
  probe = __nvvm_mul_rm_f(probe, 3.3f);
  probe = __nvvm_fma_rp_f(probe, v, 1.0f / 3.0f);
  probe += __nvvm_div_approx_f(v, 7.0f) + __nvvm_sqrt_approx_f(__builtin_fabsf(v));
  probe += __nvvm_ex2_approx_ftz_f(v);

  out[4 * i + 0] = sig;
  out[4 * i + 1] = sp;
  out[4 * i + 2] = rot;
  out[4 * i + 3] = probe;
}
