// cuda_shim.h — minimal stand-in for the CUDA headers, for compiling the
// gpusim compatibility corpus with clang alone:
//   clang -S -O2 -nocudalib -nocudainc -x cuda --cuda-device-only \
//         --cuda-gpu-arch=sm_70 K.cu -o K.ptx
// No CUDA installation is present, so everything a kernel needs is declared
// here on top of clang's NVPTX builtins.  Every helper is
// `static __device__ __attribute__((always_inline))` so the generated PTX
// never contains `.func` or `call` (outside gpusim's PTX subset).
#ifndef GPUSIM_CUDA_SHIM_H
#define GPUSIM_CUDA_SHIM_H

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#define GPUSIM_INLINE static __device__ __attribute__((always_inline))

// Without a CUDA installation clang 14 enables no PTX ISA feature beyond the
// baseline, so the *_sync warp builtins (which need ptx60+) are rejected.
// Kernels that use shfl.sync / vote.sync carry this attribute; the module is
// emitted as `.version 6.0` for sm_70 either way.
#define PTX60 __attribute__((target("ptx60")))

// ---- thread / block indices (mov.u32 %r, %tid.x etc.) ---------------------
GPUSIM_INLINE unsigned tid_x(void)   { return __nvvm_read_ptx_sreg_tid_x(); }
GPUSIM_INLINE unsigned tid_y(void)   { return __nvvm_read_ptx_sreg_tid_y(); }
GPUSIM_INLINE unsigned ntid_x(void)  { return __nvvm_read_ptx_sreg_ntid_x(); }
GPUSIM_INLINE unsigned ntid_y(void)  { return __nvvm_read_ptx_sreg_ntid_y(); }
GPUSIM_INLINE unsigned ctaid_x(void) { return __nvvm_read_ptx_sreg_ctaid_x(); }
GPUSIM_INLINE unsigned ctaid_y(void) { return __nvvm_read_ptx_sreg_ctaid_y(); }
GPUSIM_INLINE unsigned nctaid_x(void){ return __nvvm_read_ptx_sreg_nctaid_x(); }
GPUSIM_INLINE unsigned nctaid_y(void){ return __nvvm_read_ptx_sreg_nctaid_y(); }
GPUSIM_INLINE unsigned lane_id(void) { return __nvvm_read_ptx_sreg_laneid(); }

// ---- barriers --------------------------------------------------------------
// `__syncthreads` is itself a clang NVPTX builtin (-> bar.sync 0).

// ---- atomics (generic-address builtins; LLVM infers .global / .shared) -----
GPUSIM_INLINE int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
GPUSIM_INLINE unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
GPUSIM_INLINE float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
GPUSIM_INLINE int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
GPUSIM_INLINE int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
GPUSIM_INLINE int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
GPUSIM_INLINE int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }

// ---- warp-level (need PTX60 on the calling kernel) --------------------------
#define FULL_MASK 0xffffffffu
#define __shfl_down_sync(mask, v, d) __nvvm_shfl_sync_down_i32((mask), (v), (d), 31)
#define __shfl_down_sync_f(mask, v, d) __nvvm_shfl_sync_down_f32((mask), (v), (d), 31)
#define __shfl_xor_sync(mask, v, d) __nvvm_shfl_sync_bfly_i32((mask), (v), (d), 31)
#define __ballot_sync(mask, p) __nvvm_vote_ballot_sync((mask), (p))

// ---- small math --------------------------------------------------------------
GPUSIM_INLINE int imin(int a, int b) { return a < b ? a : b; }
GPUSIM_INLINE int imax(int a, int b) { return a > b ? a : b; }
GPUSIM_INLINE unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
GPUSIM_INLINE unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }

#endif
