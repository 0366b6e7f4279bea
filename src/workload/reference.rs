//! CPU references: what each kernel must compute, written as plain Rust.
//!
//! One pure function per kernel of `kernels/`.  Each reproduces the
//! kernel's floating-point operations *in the kernel's order* (including
//! its fused multiply-adds, as [`f32::mul_add`], and its reduction trees),
//! so a correct simulation matches **bit for bit** and a checker can compare
//! exactly.  Where the kernel's order differs from a plain sequential sum,
//! the doc comment says so and gives the tolerance to use when comparing
//! against a sequential sum instead (e.g. SPMV-vector against SPMV-scalar).
//!
//! | kernel | reference | compare |
//! |---|---|---|
//! | `vector_add` | [`vector_add`] | exact |
//! | `spmv_csr_scalar_kernel` | [`spmv_csr`] | exact |
//! | `spmv_csr_vector_kernel` | [`spmv_csr_vector`] | exact (vs [`spmv_csr`]: rel 1e-5) |
//! | `fwtBatch1Kernel` + `fwtBatch2Kernel` | [`fwt`] (launches: [`fwt_launches`]) | exact |
//! | `scalarProdGPU` | [`scalar_product`] | exact (vs an f64 dot product: rel 1e-5) |
//! | `matmul_tiled` | [`matmul`] | exact |
//! | `histogram256` | [`histogram256`] | exact (integers) |
//! | `stencil2d` | [`stencil2d_step`], [`stencil2d`] | exact |
//! | `bfs_kernel` + `bfs_kernel2` | [`bfs`] | exact (integers) |
//! | `kmeansPoint` | [`kmeans_assign`] | exact (integers) |
//! | `pointer_chase` | [`gather`] | exact (integers) |
//! | `kernels/correlation/*` | [`correlation`] | exact (`sfu_mix`: rel 1e-3) |
//!
//! "Exact" assumes the simulator honours PTX semantics: `fma.rn` rounds once,
//! `add/sub/mul.f32` round to nearest even, no flush-to-zero unless `.ftz`.

use super::generate::{Csr, Graph};

pub mod correlation;

/// `c[i] = a[i] + b[i]` (`vector_add.ptx`).  Exact.
pub fn vector_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// `out = A * x` with one sequential fma chain per row, in column order
/// (`spmv_scalar.ptx`, SHOC SPMV-scalar: `t = fma(val[j], vec[col], t)` for
/// `j` from the row's start to its end).  Exact for that kernel.
pub fn spmv_csr(m: &Csr, x: &[f32]) -> Vec<f32> {
    assert_eq!(x.len(), m.num_cols);
    (0..m.num_rows)
        .map(|r| {
            let mut t = 0.0f32;
            for j in m.row(r) {
                t = m.vals[j].mul_add(x[m.cols[j] as usize], t);
            }
            t
        })
        .collect()
}

/// Warp size assumed by [`spmv_csr_vector`] (and by `spmv_vector.ptx`'s
/// `& 31`, `>> 5` and shuffle offsets).
pub const WARP_SIZE: usize = 32;

/// `out = A * x` in the order of SPMV-vector (`spmv_vector.ptx`, one warp
/// per row): lane `l` accumulates an fma chain over the row's entries
/// `l, l + 32, l + 64, …`; the 32 partial sums are then added as a tree
/// (`s[l] += s[l + off]` for `off` = 16, 8, 4, 2, 1; lane 0's value is the
/// result), which is also the tree of SHOC's shared-memory reduction.
/// Exact for that kernel.
///
/// This order differs from [`spmv_csr`]'s sequential one; comparing the
/// two needs a tolerance: `|a - b| <= 1e-5 * sum_j |val_j * x_col_j|` (plus
/// a tiny absolute slack for empty rows, e.g. 1e-30) holds with a wide
/// margin for rows of up to ~1000 entries; with non-negative data (as
/// generated) a relative tolerance of 1e-5 is equivalent.
pub fn spmv_csr_vector(m: &Csr, x: &[f32]) -> Vec<f32> {
    assert_eq!(x.len(), m.num_cols);
    (0..m.num_rows)
        .map(|r| {
            let row = m.row(r);
            let mut s = [0.0f32; WARP_SIZE];
            for (lane, acc) in s.iter_mut().enumerate() {
                let mut j = row.start + lane;
                while j < row.end {
                    *acc = m.vals[j].mul_add(x[m.cols[j] as usize], *acc);
                    j += WARP_SIZE;
                }
            }
            warp_tree_sum(s)
        })
        .collect()
}

/// Lane 0's value after `v += shfl_down(v, off)` for `off` = 16, 8, 4, 2, 1.
fn warp_tree_sum(mut s: [f32; WARP_SIZE]) -> f32 {
    let mut off = WARP_SIZE / 2;
    while off > 0 {
        for l in 0..off {
            s[l] += s[l + off];
        }
        off /= 2;
    }
    s[0]
}

/// The fast Walsh transform (natural, Hadamard order, unnormalised) of each
/// consecutive `2^log2n`-element vector of `data`, computed as the CUDA
/// sample's CPU reference `fwtCPU` does: radix-2 butterflies
/// `(a, b) -> (a + b, a - b)` on pairs `stride` apart, for `stride` =
/// `N/2, N/4, …, 1`.
///
/// The GPU sequence ([`fwt_launches`]: radix-4 passes of `fwtBatch2Kernel`
/// then `fwtBatch1Kernel`) performs exactly these butterflies in the same
/// stage order (a radix-4 stage at stride `s` is the radix-2 stages `2s`
/// then `s` on the same operands), so the result is bit-identical: compare
/// exactly.
pub fn fwt(data: &[f32], log2n: u32) -> Vec<f32> {
    let n = 1usize << log2n;
    assert!(
        data.len().is_multiple_of(n),
        "data is not a whole number of 2^log2n vectors"
    );
    let mut out = data.to_vec();
    for v in out.chunks_mut(n) {
        let mut stride = n / 2;
        while stride >= 1 {
            for base in (0..n).step_by(2 * stride) {
                for j in base..base + stride {
                    let (a, b) = (v[j], v[j + stride]);
                    v[j] = a + b;
                    v[j + stride] = a - b;
                }
            }
            stride /= 2;
        }
    }
    out
}

/// One launch of the FWT sample's host sequence, in place on one buffer:
/// both pointer parameters (`d_Output`, `d_Input`) are that buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FwtLaunch {
    /// `"fwtBatch2Kernel"` or `"fwtBatch1Kernel"`.
    pub entry: &'static str,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// The third parameter: `stride` for `fwtBatch2Kernel`, `log2N` for
    /// `fwtBatch1Kernel`.
    pub arg: i32,
}

/// The launches of the sample's `fwtBatchGPU(d_Data, M = batch, log2N =
/// log2_data)` with `THREAD_N = thread_n` and `ELEMENTARY_LOG2SIZE =
/// elementary_log2` (the sample: 256 and 11):
///
/// ```text
/// grid = ((1 << log2N) / (4 * THREAD_N), M, 1)          // fixed for all passes
/// for (; log2N > ELEMENTARY_LOG2SIZE; log2N -= 2, N >>= 2, M <<= 2)
///     fwtBatch2Kernel<<<grid, THREAD_N>>>(d_Data, d_Data, N / 4);
/// fwtBatch1Kernel<<<M, N / 4>>>(d_Data, d_Data, log2N);
/// ```
///
/// After the sequence the buffer holds [`fwt`]`(data, log2_data)`.
/// `fwt.ptx`'s shared array holds 2048 floats, so `elementary_log2 <= 11`;
/// `fwtBatch1Kernel` needs `N / 4 <= 1024` threads, also implied by that.
pub fn fwt_launches(
    log2_data: u32,
    batch: u32,
    elementary_log2: u32,
    thread_n: u32,
) -> Vec<FwtLaunch> {
    assert!(log2_data >= 2, "the radix-4 kernels need N >= 4");
    assert!(
        (2..=11).contains(&elementary_log2),
        "fwt.ptx's shared array holds at most 2^11 floats"
    );
    let mut log2n = log2_data;
    let mut n = 1u32 << log2n;
    let mut m = batch;
    let grid = [(1u32 << log2_data) / (4 * thread_n), batch, 1];
    let mut launches = Vec::new();
    while log2n > elementary_log2 {
        assert!(grid[0] >= 1, "N / (4 * THREAD_N) must be at least 1");
        launches.push(FwtLaunch {
            entry: "fwtBatch2Kernel",
            grid,
            block: [thread_n, 1, 1],
            arg: (n / 4) as i32,
        });
        log2n -= 2;
        n >>= 2;
        m <<= 2;
    }
    launches.push(FwtLaunch {
        entry: "fwtBatch1Kernel",
        grid: [m, 1, 1],
        block: [n / 4, 1, 1],
        arg: log2n as i32,
    });
    launches
}

/// `ACCUM_N` of `scalar_product.ptx` (the sample's accumulator count).
pub const ACCUM_N: usize = 1024;

/// Dot products of `vectors` pairs of `elements`-long vectors
/// (`scalar_product.ptx`, CUDA sample scalarProd), in the kernel's order:
/// accumulator `i < ACCUM_N` is an fma chain over products `i`, `i + 1024`,
/// `i + 2048`, … of the pair; then `acc[i] += acc[i + stride]` for `stride`
/// = 512, 256, …, 1; the result is `acc[0]`.  Exact for that kernel.
///
/// Against a sequential or `f64` dot product (the sample's `scalarProdCPU`
/// accumulates in double) the difference is rounding only: relative 1e-5
/// suffices for non-negative data (the sample checks the relative L1 error
/// of all results against 1e-6).
pub fn scalar_product(a: &[f32], b: &[f32], vectors: usize, elements: usize) -> Vec<f32> {
    assert_eq!(a.len(), vectors * elements);
    assert_eq!(b.len(), vectors * elements);
    (0..vectors)
        .map(|v| {
            let base = v * elements;
            let mut acc = vec![0.0f32; ACCUM_N];
            for (i, sum) in acc.iter_mut().enumerate() {
                let mut pos = i;
                while pos < elements {
                    *sum = a[base + pos].mul_add(b[base + pos], *sum);
                    pos += ACCUM_N;
                }
            }
            let mut stride = ACCUM_N / 2;
            while stride > 0 {
                for i in 0..stride {
                    acc[i] += acc[stride + i];
                }
                stride /= 2;
            }
            acc[0]
        })
        .collect()
}

/// `C = A * B` for row-major `n x n` matrices, `C[r][c]` being the fma chain
/// over `k = 0, 1, …, n-1` of `A[r][k] * B[k][c]` (`matmul.ptx`: the tiles
/// are consumed in order and the unrolled inner loop goes `k = 0..16`, so
/// the chain is in increasing `k`).  Exact for that kernel (when `n` is not
/// a multiple of 16 the kernel's padding adds `fma(0, 0, acc)`, which can
/// only turn an exact `-0.0` into `+0.0`).
pub fn matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    assert_eq!(a.len(), n * n);
    assert_eq!(b.len(), n * n);
    let mut c = vec![0.0f32; n * n];
    for r in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc = a[r * n + k].mul_add(b[k * n + col], acc);
            }
            c[r * n + col] = acc;
        }
    }
    c
}

/// The 256-bin histogram of `data` (`histogram256.ptx`): bin `v` counts the
/// bytes equal to `v`.  Exact.
pub fn histogram256(data: &[u8]) -> Vec<u32> {
    let mut h = vec![0u32; 256];
    for &x in data {
        h[x as usize] += 1;
    }
    h
}

/// One Jacobi step of the 5-point stencil on a row-major `width x height`
/// grid (`stencil2d.ptx`): interior cells become
/// `0.25 * (((in[y-1][x] + in[y+1][x]) + in[y][x-1]) + in[y][x+1])` (the
/// kernel's order), boundary cells are copied.  Exact.
pub fn stencil2d_step(input: &[f32], width: usize, height: usize) -> Vec<f32> {
    assert_eq!(input.len(), width * height);
    let mut out = input.to_vec();
    for y in 1..height.saturating_sub(1) {
        for x in 1..width.saturating_sub(1) {
            let i = y * width + x;
            let s = ((input[i - width] + input[i + width]) + input[i - 1]) + input[i + 1];
            out[i] = 0.25 * s;
        }
    }
    out
}

/// `iterations` applications of [`stencil2d_step`]: the result of the host
/// loop that launches `stencil2d` `iterations` times, ping-ponging two
/// buffers (launch `k` reads buffer `k % 2`, writes buffer `(k + 1) % 2`;
/// the result is in buffer `iterations % 2`).  Exact.
pub fn stencil2d(input: &[f32], width: usize, height: usize, iterations: usize) -> Vec<f32> {
    let mut cur = input.to_vec();
    for _ in 0..iterations {
        cur = stencil2d_step(&cur, width, height);
    }
    cur
}

/// BFS cost of every node from `source` (`bfs.ptx`'s `g_cost` after the
/// Rodinia host loop): the number of edges on a shortest path, `-1` for
/// nodes not reachable from `source`.  The level-synchronous kernels find
/// exactly these distances whatever the thread interleaving.  Exact.
pub fn bfs(g: &Graph, source: usize) -> Vec<i32> {
    let n = g.nodes();
    let mut cost = vec![-1i32; n];
    if n == 0 {
        return cost;
    }
    let mut queue = std::collections::VecDeque::new();
    cost[source] = 0;
    queue.push_back(source);
    while let Some(v) = queue.pop_front() {
        for &u in g.neighbours(v) {
            let u = u as usize;
            if cost[u] < 0 {
                cost[u] = cost[v] + 1;
                queue.push_back(u);
            }
        }
    }
    cost
}

/// Number of times the Rodinia host loop of `bfs.ptx` runs (each time one
/// `bfs_kernel` and one `bfs_kernel2` launch): the deepest finite cost plus
/// one (the last round finds nothing and leaves `over` false).
pub fn bfs_rounds(cost: &[i32]) -> usize {
    cost.iter().copied().max().unwrap_or(0).max(0) as usize + 1
}

/// The nearest cluster of every point (`kmeans.ptx`, Rodinia kmeansPoint).
/// `features` is feature-major (`features[j * npoints + p]`), `clusters`
/// row-major `[nclusters][nfeatures]`.  Distance = fma chain over `j` of
/// `diff * diff` with `diff = feature - centre`; a cluster replaces the
/// current best only if strictly closer (ties keep the lower index); the
/// initial best distance is `f32::MAX`, so a point gets `-1` only if every
/// distance is `>= f32::MAX` (or `nclusters == 0`).  Exact.
pub fn kmeans_assign(
    features: &[f32],
    nfeatures: usize,
    npoints: usize,
    clusters: &[f32],
    nclusters: usize,
) -> Vec<i32> {
    assert_eq!(features.len(), nfeatures * npoints);
    assert_eq!(clusters.len(), nclusters * nfeatures);
    (0..npoints)
        .map(|p| {
            let mut index = -1i32;
            let mut min_dist = f32::MAX;
            for i in 0..nclusters {
                let mut ans = 0.0f32;
                for j in 0..nfeatures {
                    let diff = features[j * npoints + p] - clusters[i * nfeatures + j];
                    ans = diff.mul_add(diff, ans);
                }
                if ans < min_dist {
                    min_dist = ans;
                    index = i as i32;
                }
            }
            index
        })
        .collect()
}

/// Pointer chasing (`gather.ptx`): `out[i]` is where `steps` hops along
/// `next` lead from `i`, i.e. `next^steps(i)`.  Exact.
pub fn gather(next: &[i32], steps: usize) -> Vec<i32> {
    (0..next.len())
        .map(|i| {
            let mut j = i as i32;
            for _ in 0..steps {
                j = next[j as usize];
            }
            j
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::generate;

    fn csr(rows: &[&[(i32, f32)]], ncols: usize) -> Csr {
        let mut row_ptr = vec![0];
        let (mut cols, mut vals) = (vec![], vec![]);
        for r in rows {
            for &(c, v) in *r {
                cols.push(c);
                vals.push(v);
            }
            row_ptr.push(cols.len() as i32);
        }
        Csr {
            num_rows: rows.len(),
            num_cols: ncols,
            row_ptr,
            cols,
            vals,
        }
    }

    fn graph(adj: &[&[i32]]) -> Graph {
        let mut row_ptr = vec![0];
        let mut all = vec![];
        for a in adj {
            all.extend_from_slice(a);
            row_ptr.push(all.len() as i32);
        }
        Graph { row_ptr, adj: all }
    }

    #[test]
    fn vector_add_adds() {
        assert_eq!(vector_add(&[1.0, 2.5], &[0.5, -2.5]), vec![1.5, 0.0]);
    }

    #[test]
    fn spmv_3x3_by_hand() {
        // [1 0 2]   [1]   [7]
        // [0 0 0] * [2] = [0]
        // [0 3 0]   [3]   [6]
        let m = csr(&[&[(0, 1.0), (2, 2.0)], &[], &[(1, 3.0)]], 3);
        let x = [1.0, 2.0, 3.0];
        assert_eq!(spmv_csr(&m, &x), vec![7.0, 0.0, 6.0]);
        assert_eq!(spmv_csr_vector(&m, &x), vec![7.0, 0.0, 6.0]);
    }

    #[test]
    fn spmv_rounds_each_term_once() {
        // c * d = 1 + 2^-11 + 2^-24 is not an f32 (it rounds to 1 + 2^-11);
        // the first term cancels the rounded part, so fma leaves 2^-24 where
        // a separate multiply and add would give 0.
        let c = 1.0 + 2f32.powi(-12);
        let m = csr(&[&[(0, -(1.0 + 2f32.powi(-11))), (1, c)]], 2);
        let x = [1.0, c];
        assert_eq!(spmv_csr(&m, &x), vec![2f32.powi(-24)]);
        assert_eq!(
            spmv_csr_vector(&m, &x),
            vec![-(1.0 + 2f32.powi(-11)) + c * c]
        );
        assert_eq!(spmv_csr_vector(&m, &x), vec![0.0]);
    }

    #[test]
    fn spmv_vector_order_is_the_warp_tree() {
        // Row of 40 entries: lane l gets entries l and l + 32 (l < 8).
        let entries: Vec<(i32, f32)> = (0..40).map(|j| (j, (j + 1) as f32 * 0.1)).collect();
        let m = csr(&[&entries], 40);
        let x: Vec<f32> = (0..40).map(|j| 1.0 + j as f32 * 0.01).collect();
        let mut s = [0.0f32; 32];
        for (l, acc) in s.iter_mut().enumerate() {
            *acc = m.vals[l].mul_add(x[l], 0.0);
            if l + 32 < 40 {
                *acc = m.vals[l + 32].mul_add(x[l + 32], *acc);
            }
        }
        // explicit tree, written out differently from warp_tree_sum
        let mut v = s.to_vec();
        while v.len() > 1 {
            let h = v.len() / 2;
            v = (0..h).map(|l| v[l] + v[l + h]).collect();
        }
        assert_eq!(spmv_csr_vector(&m, &x)[0], v[0]);
        // and it is within the documented tolerance of the sequential order
        let seq = spmv_csr(&m, &x)[0];
        assert!((seq - v[0]).abs() <= 1e-5 * seq.abs());
    }

    #[test]
    fn spmv_vector_close_to_scalar_on_generated_matrix() {
        let inp = generate::spmv_input(500, 82.0, 9.0, 1);
        let a = spmv_csr(&inp.matrix, &inp.vec);
        let b = spmv_csr_vector(&inp.matrix, &inp.vec);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-5 * x.abs() + 1e-30, "{x} vs {y}");
        }
        // with integer-valued data both orders are exact and agree bit for bit
        let mut m = inp.matrix.clone();
        for v in &mut m.vals {
            *v = v.floor();
        }
        let x: Vec<f32> = inp.vec.iter().map(|v| v.floor()).collect();
        assert_eq!(spmv_csr(&m, &x), spmv_csr_vector(&m, &x));
    }

    #[test]
    fn fwt_4_points_by_hand() {
        assert_eq!(fwt(&[1.0, 0.0, 0.0, 0.0], 2), vec![1.0, 1.0, 1.0, 1.0]);
        assert_eq!(fwt(&[1.0, 2.0, 3.0, 4.0], 2), vec![10.0, -2.0, -4.0, 0.0]);
        // two vectors in one buffer are transformed independently
        assert_eq!(
            fwt(&[1.0, 2.0, 3.0, 4.0, 0.0, 1.0, 0.0, 0.0], 2),
            vec![10.0, -2.0, -4.0, 0.0, 1.0, -1.0, 1.0, -1.0]
        );
        // applying it twice multiplies by N
        assert_eq!(
            fwt(&fwt(&[1.0, 2.0, 3.0, 4.0], 2), 2),
            vec![4.0, 8.0, 12.0, 16.0]
        );
    }

    #[test]
    fn fwt_is_the_hadamard_matrix_in_natural_order() {
        let n = 64;
        let x: Vec<f32> = (0..n).map(|i| ((i * 37) % 11) as f32 - 5.0).collect();
        let y = fwt(&x, 6);
        for (k, &yk) in y.iter().enumerate() {
            let want: f32 = (0..n)
                .map(|i| {
                    if (i & k).count_ones() % 2 == 0 {
                        x[i]
                    } else {
                        -x[i]
                    }
                })
                .sum();
            assert_eq!(yk, want, "k = {k}");
        }
    }

    /// fwtBatch2Kernel of fwt.ptx, run on the CPU thread by thread.
    fn emulate_batch2(d: &mut [f32], l: &FwtLaunch) {
        let n = (l.block[0] * l.grid[0] * 4) as usize;
        let stride = l.arg as usize;
        for by in 0..l.grid[1] as usize {
            for pos in 0..(l.block[0] * l.grid[0]) as usize {
                let src = &mut d[by * n..];
                let lo = pos & (stride - 1);
                let i0 = ((pos - lo) << 2) + lo;
                let (i1, i2, i3) = (i0 + stride, i0 + 2 * stride, i0 + 3 * stride);
                let (d0, d1, d2, d3) = (src[i0], src[i1], src[i2], src[i3]);
                let (d0, d2) = (d0 + d2, d0 - d2);
                let (d1, d3) = (d1 + d3, d1 - d3);
                src[i0] = d0 + d1;
                src[i1] = d0 - d1;
                src[i2] = d2 + d3;
                src[i3] = d2 - d3;
            }
        }
    }

    /// fwtBatch1Kernel of fwt.ptx, one CTA at a time (stages in lock-step).
    fn emulate_batch1(d: &mut [f32], l: &FwtLaunch) {
        let log2n = l.arg as u32;
        let n = 1usize << log2n;
        let threads = l.block[0] as usize;
        for b in 0..l.grid[0] as usize {
            let s = &mut d[b * n..(b + 1) * n];
            let mut stride = n >> 2;
            while stride > 0 {
                for pos in 0..threads {
                    let lo = pos & (stride - 1);
                    let i0 = ((pos - lo) << 2) + lo;
                    let (i1, i2, i3) = (i0 + stride, i0 + 2 * stride, i0 + 3 * stride);
                    let (d0, d1, d2, d3) = (s[i0], s[i1], s[i2], s[i3]);
                    let (d0, d2) = (d0 + d2, d0 - d2);
                    let (d1, d3) = (d1 + d3, d1 - d3);
                    s[i0] = d0 + d1;
                    s[i1] = d0 - d1;
                    s[i2] = d2 + d3;
                    s[i3] = d2 - d3;
                }
                stride >>= 2;
            }
            if log2n & 1 == 1 {
                for pos in 0..n / 2 {
                    let (a, c) = (s[2 * pos], s[2 * pos + 1]);
                    s[2 * pos] = a + c;
                    s[2 * pos + 1] = a - c;
                }
            }
        }
    }

    #[test]
    fn fwt_launch_sequence_of_the_sample() {
        let l = fwt_launches(23, 1, 11, 256);
        assert_eq!(l.len(), 7);
        assert!(l[..6].iter().all(|x| x.entry == "fwtBatch2Kernel"
            && x.grid == [8192, 1, 1]
            && x.block == [256, 1, 1]));
        assert_eq!(l[0].arg, 1 << 21);
        assert_eq!(l[5].arg, 1 << 11);
        assert_eq!(
            l[6],
            FwtLaunch {
                entry: "fwtBatch1Kernel",
                grid: [4096, 1, 1],
                block: [512, 1, 1],
                arg: 11
            }
        );
        // the manifest's size: 2^15 -> two radix-4 passes, then 16 CTAs of 512 threads
        let l = fwt_launches(15, 1, 11, 256);
        assert_eq!(
            l.iter().map(|x| x.arg).collect::<Vec<_>>(),
            vec![1 << 13, 1 << 11, 11]
        );
        assert_eq!(l[2].grid, [16, 1, 1]);
        assert_eq!(l[2].block, [512, 1, 1]);
        // small: no global pass at all
        assert_eq!(
            fwt_launches(10, 3, 11, 256),
            vec![FwtLaunch {
                entry: "fwtBatch1Kernel",
                grid: [3, 1, 1],
                block: [256, 1, 1],
                arg: 10
            }]
        );
    }

    #[test]
    fn fwt_launch_sequence_computes_fwt_bit_for_bit() {
        for (log2, batch, elem, tn) in [
            (15u32, 1u32, 11u32, 256u32),
            (14, 2, 11, 256),
            (9, 2, 4, 4),
            (10, 1, 5, 16),
            (7, 3, 3, 2),
            (5, 1, 11, 256),
        ] {
            let inp = generate::fwt_input(log2, 3, batch as usize, 7);
            let mut d = inp.data.clone();
            for l in fwt_launches(log2, batch, elem, tn) {
                if l.entry == "fwtBatch2Kernel" {
                    emulate_batch2(&mut d, &l);
                } else {
                    emulate_batch1(&mut d, &l);
                }
            }
            let want = fwt(&inp.data, log2);
            assert!(
                d.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()),
                "log2 {log2} batch {batch}"
            );
        }
    }

    #[test]
    fn scalar_product_by_hand_and_against_f64() {
        // 2 pairs of 5 elements: exact small integers
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let b = [1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 0.0, 2.0, 0.0, 2.0];
        assert_eq!(scalar_product(&a, &b, 2, 5), vec![15.0, 6.0]);
        // > ACCUM_N elements: accumulators take several products
        let (a, b) = generate::scalar_product_input(3, 4000, 1);
        let got = scalar_product(&a, &b, 3, 4000);
        for v in 0..3 {
            let exact: f64 = (0..4000)
                .map(|i| a[v * 4000 + i] as f64 * b[v * 4000 + i] as f64)
                .sum();
            assert!(
                (got[v] as f64 - exact).abs() <= 1e-5 * exact,
                "{} vs {exact}",
                got[v]
            );
        }
        // accumulator 1 of a 1025-element vector holds only product 1; 0 holds 0 and 1024
        let mut a = vec![0.0f32; 1025];
        let b = vec![1.0f32; 1025];
        a[0] = 1.0;
        a[1024] = 2.0;
        a[1] = 4.0;
        assert_eq!(scalar_product(&a, &b, 1, 1025), vec![7.0]);
    }

    #[test]
    fn matmul_3x3_by_hand() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        let b = [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0];
        assert_eq!(
            matmul(&a, &b, 3),
            vec![30.0, 24.0, 18.0, 84.0, 69.0, 54.0, 138.0, 114.0, 90.0]
        );
        let id = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        assert_eq!(matmul(&a, &id, 3), a.to_vec());
        assert_eq!(matmul(&[], &[], 0), Vec::<f32>::new());
    }

    #[test]
    fn histogram_counts_bytes() {
        let h = histogram256(&[0, 1, 1, 255, 7, 7, 7, 0]);
        assert_eq!(
            (h[0], h[1], h[7], h[255], h.iter().sum::<u32>()),
            (2, 2, 3, 1, 8)
        );
        let d = generate::histogram256_input(4096, 1);
        assert_eq!(histogram256(&d).iter().sum::<u32>(), 4096);
    }

    #[test]
    fn stencil_4x4_by_hand() {
        #[rustfmt::skip]
        let g = [
            0.0, 1.0, 2.0, 3.0,
            4.0, 5.0, 6.0, 7.0,
            8.0, 9.0, 10.0, 11.0,
            12.0, 13.0, 14.0, 15.0,
        ];
        let s = stencil2d_step(&g, 4, 4);
        // interior (1,1): (1 + 9 + 4 + 6) / 4 = 5; (2,1): (2 + 10 + 5 + 7) / 4 = 6
        #[rustfmt::skip]
        let want = vec![
            0.0, 1.0, 2.0, 3.0,
            4.0, 5.0, 6.0, 7.0,
            8.0, 9.0, 10.0, 11.0,
            12.0, 13.0, 14.0, 15.0,
        ];
        assert_eq!(s, want); // a linear field is a fixed point
        let mut spike = vec![0.0f32; 25];
        spike[12] = 8.0; // centre of 5x5
        let s = stencil2d_step(&spike, 5, 5);
        assert_eq!(
            (s[12], s[7], s[11], s[13], s[17], s[6]),
            (0.0, 2.0, 2.0, 2.0, 2.0, 0.0)
        );
        let s2 = stencil2d(&spike, 5, 5, 2);
        assert_eq!(s2, stencil2d_step(&s, 5, 5));
        assert_eq!(s2[12], 2.0); // (2 + 2 + 2 + 2) / 4
        assert_eq!(stencil2d(&spike, 5, 5, 0), spike);
        // degenerate grids are all boundary
        assert_eq!(stencil2d_step(&[1.0, 2.0], 2, 1), vec![1.0, 2.0]);
    }

    #[test]
    fn bfs_5_nodes_by_hand() {
        // 0 - 1 - 3 - 4
        //  \     /
        //   2 --
        let g = graph(&[&[1, 2], &[0, 3], &[0, 3], &[1, 2, 4], &[3]]);
        let c = bfs(&g, 0);
        assert_eq!(c, vec![0, 1, 1, 2, 3]);
        assert_eq!(bfs_rounds(&c), 4);
        assert_eq!(bfs(&g, 4), vec![3, 2, 2, 1, 0]);
        // node 5 unreachable
        let g = graph(&[&[1], &[0], &[3], &[2], &[], &[]]);
        assert_eq!(bfs(&g, 0), vec![0, 1, -1, -1, -1, -1]);
        assert_eq!(bfs(&g, 4), vec![-1, -1, -1, -1, 0, -1]);
        assert_eq!(bfs_rounds(&bfs(&g, 4)), 1);
    }

    #[test]
    fn bfs_on_generated_graph_is_consistent() {
        let g = generate::bfs_input(4096, 6.0, 1);
        let c = bfs(&g, 0);
        // every edge joins nodes whose costs differ by at most one
        for v in 0..g.nodes() {
            for &u in g.neighbours(v) {
                let (a, b) = (c[v], c[u as usize]);
                assert!((a < 0) == (b < 0));
                assert!(a < 0 || (a - b).abs() <= 1);
            }
        }
        let reached = c.iter().filter(|&&x| x >= 0).count();
        assert!(reached > 4000, "{reached}");
    }

    #[test]
    fn kmeans_by_hand() {
        // 3 points with 2 features, feature-major: p0 = (0, 0), p1 = (10, 10), p2 = (5, 5)
        let features = [0.0, 10.0, 5.0, 0.0, 10.0, 5.0];
        let clusters = [1.0, 1.0, 9.0, 9.0]; // c0 = (1, 1), c1 = (9, 9)
        // p2 is equidistant (32 vs 32): the first cluster wins
        assert_eq!(kmeans_assign(&features, 2, 3, &clusters, 2), vec![0, 1, 0]);
        assert_eq!(kmeans_assign(&features, 2, 3, &[], 0), vec![-1, -1, -1]);
        // the generated centres are points, so those points pick themselves
        let k = generate::kmeans_input(100, 4, 5, 1);
        let m = kmeans_assign(&k.features, 4, 100, &k.clusters, 5);
        for i in 0..5 {
            assert_eq!(m[i * 100 / 5], i as i32);
        }
    }

    #[test]
    fn gather_follows_the_chain() {
        let next = [1, 2, 0];
        assert_eq!(gather(&next, 0), vec![0, 1, 2]);
        assert_eq!(gather(&next, 1), vec![1, 2, 0]);
        assert_eq!(gather(&next, 2), vec![2, 0, 1]);
        assert_eq!(gather(&next, 3), vec![0, 1, 2]);
        let p = generate::gather_input(1000, 1);
        assert_eq!(gather(&p, 1000), (0..1000).collect::<Vec<i32>>());
        assert!(
            gather(&p, 8)
                .iter()
                .enumerate()
                .all(|(i, &j)| j != i as i32)
        );
    }
}
