//! CPU references of the correlation kernels (`kernels/correlation/*.cu`,
//! compiled by nvcc): plain Rust, each repeating its kernel's arithmetic in
//! the order nvcc emitted it (fused where the PTX has `fma.rn.f32`), so
//! the checks are exact — except [`sfu_mix`], whose kernel uses the
//! hardware approximations `sin.approx`, `ex2.approx` and
//! `rsqrt.approx`: its reference is computed in f64 with the exact
//! functions and compared within a tolerance.
//!
//! `matmul_tiled` and `spmv_csr` use [`super::matmul`] and
//! [`super::spmv_csr`].

/// `a[i] = fma(s, c[i], b[i])` (`stream_triad`: `b[i] + s * c[i]`, one
/// `fma.rn.f32`).  Exact.
pub fn stream_triad(b: &[f32], c: &[f32], s: f32) -> Vec<f32> {
    assert_eq!(b.len(), c.len());
    b.iter().zip(c).map(|(&b, &c)| s.mul_add(c, b)).collect()
}

/// `compute_fma` for one input `x`: chains `x0 = x, x1 = x + 1, x2 = x +
/// 2, x3 = x + 3` each advanced `iters` times by `x = fma(x, a, b)`, and
/// `y = x` advanced by `y = fma(y, a, x0)` with the round's new `x0`;
/// the result is `((x0 + x1) + (x2 + x3)) + y`.  Exact.
pub fn compute_fma_one(x: f32, a: f32, b: f32, iters: u32) -> f32 {
    let (mut x0, mut x1, mut x2, mut x3) = (x, x + 1.0, x + 2.0, x + 3.0);
    let mut y = x;
    for _ in 0..iters {
        x0 = x0.mul_add(a, b);
        x1 = x1.mul_add(a, b);
        x2 = x2.mul_add(a, b);
        x3 = x3.mul_add(a, b);
        y = y.mul_add(a, x0);
    }
    ((x0 + x1) + (x2 + x3)) + y
}

/// [`compute_fma_one`] of every input.
pub fn compute_fma(input: &[f32], a: f32, b: f32, iters: u32) -> Vec<f32> {
    input
        .iter()
        .map(|&x| compute_fma_one(x, a, b, iters))
        .collect()
}

/// `sfu_mix` for one input `x`: the sum over `k < iters` of `sin(t) +
/// exp(-t) / sqrt(t + 1)` with `t = x + k / 16` rounded to f32 as the
/// kernel computes it, the functions and the sum in f64.  The kernel's
/// approximations (`sin.approx`, `ex2.approx` of `-t * log2(e)`,
/// `rsqrt.approx`; absolute errors around 2^-21 each) and its f32
/// accumulation differ from this by far less than 1e-3 of the sum's
/// terms' magnitude for `iters <= 256`: compare with `rel 1e-3, abs
/// 1e-3`.
pub fn sfu_mix_one(x: f32, iters: u32) -> f64 {
    let mut acc = 0.0f64;
    for k in 0..iters {
        let t = f64::from(x + k as f32 * 0.0625);
        acc += t.sin() + (-t).exp() / (t + 1.0).sqrt();
    }
    acc
}

/// [`sfu_mix_one`] of every input, as f32.
pub fn sfu_mix(input: &[f32], iters: u32) -> Vec<f32> {
    input
        .iter()
        .map(|&x| sfu_mix_one(x, iters) as f32)
        .collect()
}

/// The Collatz steps of `v` (`v / 2` when even, `3 v + 1` when odd, in
/// 32-bit wrapping arithmetic as the kernel's `unsigned`), until 1 or
/// `max_steps` steps (`divergent_loop`).  Exact.
pub fn collatz_steps(mut v: u32, max_steps: i32) -> i32 {
    let mut s = 0;
    while v != 1 && s < max_steps {
        v = if v & 1 == 1 {
            v.wrapping_mul(3).wrapping_add(1)
        } else {
            v >> 1
        };
        s += 1;
    }
    s
}

/// [`collatz_steps`] of every start value.
pub fn divergent_loop(start: &[u32], max_steps: i32) -> Vec<i32> {
    start.iter().map(|&v| collatz_steps(v, max_steps)).collect()
}

/// `reduce_tree`'s per-CTA sums: block `b` takes `input[b * block ..
/// (b + 1) * block]` (zeros past the end) and, for `s = 1, 2, 4, …,
/// block / 2`, adds element `i + s` into element `i` for every `i` that is
/// a multiple of `2 s` — a pairwise tree, not a sequential sum.  `block`
/// is a power of two.  Exact.
pub fn reduce_tree(input: &[f32], block: usize, ctas: usize) -> Vec<f32> {
    assert!(block.is_power_of_two());
    (0..ctas)
        .map(|b| {
            let mut s: Vec<f32> = (0..block)
                .map(|t| input.get(b * block + t).copied().unwrap_or(0.0))
                .collect();
            let mut stride = 1;
            while stride < block {
                for i in (0..block).step_by(2 * stride) {
                    s[i] += s[i + stride];
                }
                stride *= 2;
            }
            s[0]
        })
        .collect()
}

/// The transpose of a `rows x cols` row-major matrix: `cols x rows`,
/// `out[c * rows + r] = input[r * cols + c]` (`transpose_naive`,
/// `transpose_padded`).  Exact.
pub fn transpose(input: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    assert_eq!(input.len(), rows * cols);
    let mut out = vec![0.0f32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = input[r * cols + c];
        }
    }
    out
}

/// Counts of `word & (bins - 1)` over `data` (`atomic_hist`, 64 bins).
/// `bins` is a power of two.  Exact.
pub fn histogram_low_bits(data: &[u32], bins: usize) -> Vec<u32> {
    assert!(bins.is_power_of_two());
    let mut h = vec![0u32; bins];
    for &w in data {
        h[w as usize & (bins - 1)] += 1;
    }
    h
}

/// `out[i] = src[idx[i]]` (`gather_random`).  Exact.
pub fn gather_indexed(src: &[f32], idx: &[i32]) -> Vec<f32> {
    idx.iter().map(|&i| src[i as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collatz_by_hand() {
        // 6 -> 3 -> 10 -> 5 -> 16 -> 8 -> 4 -> 2 -> 1: 8 steps
        assert_eq!(collatz_steps(6, 1000), 8);
        assert_eq!(collatz_steps(1, 1000), 0);
        assert_eq!(collatz_steps(27, 1000), 111);
        assert_eq!(collatz_steps(27, 50), 50);
    }

    #[test]
    fn reduce_tree_is_pairwise() {
        // 1e8 + 1 - 1e8 + 1 sequentially (f32) is 1, pairwise (1e8 + 1) +
        // (-1e8 + 1) is 0: the reference must follow the tree.
        let v = [1e8f32, 1.0, -1e8, 1.0];
        assert_eq!(reduce_tree(&v, 4, 1), vec![0.0]);
        assert_eq!(reduce_tree(&[1.0, 2.0, 3.0], 2, 2), vec![3.0, 3.0]);
    }

    #[test]
    fn transpose_and_histogram_by_hand() {
        assert_eq!(
            transpose(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3),
            vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
        assert_eq!(
            histogram_low_bits(&[0, 64, 65, 3, 127], 64)[..4],
            [2, 1, 0, 1]
        );
        assert_eq!(histogram_low_bits(&[0, 64, 65, 3, 127], 64)[63], 1);
    }

    #[test]
    fn compute_fma_converges_to_the_fixed_points() {
        // x -> 0.75 x + 0.25 has fixed point 1; y -> 0.75 y + 1 has 4.
        assert_eq!(compute_fma_one(1.0, 0.75, 0.25, 0), 11.0);
        let r = compute_fma_one(0.5, 0.75, 0.25, 200);
        assert!((r - 8.0).abs() < 1e-5, "{r}");
    }

    #[test]
    fn stream_triad_fuses() {
        // fma(3, 1/3 rounded, -1) keeps the product's low bits; b + s * c
        // rounded twice would give exactly 0.
        let c = 1.0f32 / 3.0;
        let r = stream_triad(&[-1.0], &[c], 3.0)[0];
        assert_ne!(r, 0.0);
        assert_eq!(r, 3.0f32.mul_add(c, -1.0));
    }
}
