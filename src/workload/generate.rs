//! Deterministic, seeded input generators.
//!
//! Everything here is a pure function of its arguments and the seed: the
//! same seed gives the same data on every platform.  The generator is
//! SplitMix64 (written out below, no crate); floats are built from integer
//! bits and combined with plain IEEE `+ - * /` only (no `ln`, `cos`, ...,
//! whose last bit may differ between C libraries), so there is nothing
//! platform-dependent; no hash map is ever iterated.
//!
//! Two layers:
//!
//! * primitives: [`Rng`], [`uniform_f32`], [`uniform_u32`], [`bytes`],
//!   [`csr_matrix`], [`graph`], [`single_cycle_permutation`];
//! * one input builder per shipped kernel ([`spmv_input`],
//!   [`vector_add_input`], [`fwt_input`], [`scalar_product_input`],
//!   [`matmul_input`], [`histogram256_input`], [`stencil2d_input`],
//!   [`bfs_input`], [`kmeans_input`], [`gather_input`]), which fix how the
//!   manifest's `seed` is split between the kernel's buffers (buffer *k*
//!   of a workload uses [`stream_seed`]`(seed, k)`), so every host builds
//!   bit-identical inputs from the same manifest.

use std::collections::BTreeSet;

/// SplitMix64 (Steele, Lea & Flood, 2014): a 64-bit state advanced by a
/// Weyl sequence and scrambled by a fixed mixing function.  Small, fast,
/// passes BigCrush, and every seed (including 0) is a good seed.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator whose first output is SplitMix64's first output for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.state)
    }

    /// The next 32 random bits (the high half of [`Rng::next_u64`]).
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A uniform integer in `0..n` (unbiased: Lemire's multiply-and-reject).
    /// Panics if `n == 0`.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform `f32` in `[0, 1)`: 24 random bits times 2^-24 (exact).
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / 16_777_216.0)
    }

    /// A uniform `f64` in `[0, 1)`: 53 random bits times 2^-53 (exact).
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A uniform `f32` in `[lo, hi]`: `lo + (hi - lo) * u` computed in `f64`
    /// and rounded once to `f32` (so `hi` itself occurs only by rounding).
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        let u = self.unit_f64();
        (f64::from(lo) + (f64::from(hi) - f64::from(lo)) * u) as f32
    }

    /// An approximately standard-normal `f64`: the Irwin–Hall sum of twelve
    /// uniforms minus 6 (mean 0, variance 1, support [-6, 6]).  Uses only
    /// additions, so it is bit-identical everywhere.
    pub fn std_normal(&mut self) -> f64 {
        let mut s = 0.0;
        for _ in 0..12 {
            s += self.unit_f64();
        }
        s - 6.0
    }
}

/// SplitMix64's output function (also Stafford's "Mix13" variant of the
/// MurmurHash3 finaliser).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of independent stream `stream` derived from a manifest's `seed`
/// (a hash of both, so streams of nearby seeds do not overlap).  The input
/// builders use stream 0 for a workload's first buffer, 1 for the second, …
pub fn stream_seed(seed: u64, stream: u64) -> u64 {
    mix64(
        mix64(seed ^ 0x6A09_E667_F3BC_C909)
            .wrapping_add(stream.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
    )
}

/// `n` uniform floats in `[lo, hi]` (see [`Rng::range_f32`]).
pub fn uniform_f32(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.range_f32(lo, hi)).collect()
}

/// `n` uniform 32-bit words.
pub fn uniform_u32(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u32()).collect()
}

/// `n` uniform bytes (eight per generator step, little-endian).
pub fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(n);
    out
}

/// A sparse matrix in compressed sparse row form, with the element types the
/// kernels use (`int` row pointers and column indices, `float` values).
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    /// Number of rows.
    pub num_rows: usize,
    /// Number of columns.
    pub num_cols: usize,
    /// `num_rows + 1` offsets: row `r` is `row_ptr[r]..row_ptr[r + 1]` of
    /// `cols`/`vals` (SHOC's `rowDelimiters`).
    pub row_ptr: Vec<i32>,
    /// Column index of each non-zero; strictly increasing within a row.
    pub cols: Vec<i32>,
    /// Value of each non-zero (same length as `cols`).
    pub vals: Vec<f32>,
}

impl Csr {
    /// Number of stored non-zeros.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// The index range of row `r` in `cols`/`vals`.
    pub fn row(&self, r: usize) -> std::ops::Range<usize> {
        self.row_ptr[r] as usize..self.row_ptr[r + 1] as usize
    }
}

/// `k` distinct integers of `0..n`, sorted.  Floyd's algorithm when `k` is
/// small relative to `n`, a partial Fisher–Yates shuffle otherwise.
fn distinct_sorted(rng: &mut Rng, k: usize, n: usize) -> Vec<i32> {
    assert!(k <= n);
    if k == 0 {
        return Vec::new();
    }
    if 2 * k >= n {
        let mut all: Vec<i32> = (0..n as i32).collect();
        for i in 0..k {
            let j = i + rng.below((n - i) as u64) as usize;
            all.swap(i, j);
        }
        all.truncate(k);
        all.sort_unstable();
        all
    } else {
        let mut set = BTreeSet::new();
        for j in n - k..n {
            let t = rng.below(j as u64 + 1) as usize;
            if !set.insert(t) {
                set.insert(j);
            }
        }
        set.into_iter().map(|c| c as i32).collect()
    }
}

/// A random `rows x cols` CSR matrix.  Row lengths are drawn around
/// `mean_nnz_per_row` with standard deviation `stddev_nnz` (a rounded
/// [`Rng::std_normal`] draw, so the spread is roughly normal and never more
/// than 6 standard deviations), clamped to `0..=cols`; each row's columns
/// are distinct, uniformly chosen and sorted.  Values are uniform in
/// `[0, 10)`, as in SHOC's `fill(h_val, nnz, 10)`.  With `stddev_nnz = 0`
/// every row has `round(mean_nnz_per_row)` entries.  SHOC's own generator
/// gives binomial row lengths, i.e. `stddev ≈ sqrt(mean)`.
pub fn csr_matrix(
    rows: usize,
    cols: usize,
    mean_nnz_per_row: f64,
    stddev_nnz: f64,
    seed: u64,
) -> Csr {
    assert!(
        cols <= i32::MAX as usize && rows <= i32::MAX as usize,
        "matrix too large for int indices"
    );
    let mut rng = Rng::new(seed);
    let mut row_ptr = Vec::with_capacity(rows + 1);
    let mut col_idx = Vec::new();
    let mut vals = Vec::new();
    row_ptr.push(0i32);
    for _ in 0..rows {
        let z = if stddev_nnz > 0.0 {
            rng.std_normal()
        } else {
            0.0
        };
        let len = (mean_nnz_per_row + stddev_nnz * z)
            .round()
            .clamp(0.0, cols as f64) as usize;
        let row = distinct_sorted(&mut rng, len, cols);
        for &c in &row {
            col_idx.push(c);
            vals.push(rng.range_f32(0.0, 10.0).min(9.999_999));
        }
        assert!(
            col_idx.len() <= i32::MAX as usize,
            "too many non-zeros for int row pointers"
        );
        row_ptr.push(col_idx.len() as i32);
    }
    Csr {
        num_rows: rows,
        num_cols: cols,
        row_ptr,
        cols: col_idx,
        vals,
    }
}

/// A graph in CSR adjacency form (no values): the neighbours of node `v`
/// are `adj[row_ptr[v]..row_ptr[v + 1]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// `nodes + 1` offsets into `adj` (Rodinia's `starting` /
    /// `starting + no_of_edges`).
    pub row_ptr: Vec<i32>,
    /// Neighbour lists, each sorted and without duplicates or self-loops.
    pub adj: Vec<i32>,
}

impl Graph {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// Number of directed edges (twice the undirected edge count).
    pub fn edges(&self) -> usize {
        self.adj.len()
    }

    /// The neighbours of node `v`.
    pub fn neighbours(&self, v: usize) -> &[i32] {
        &self.adj[self.row_ptr[v] as usize..self.row_ptr[v + 1] as usize]
    }
}

/// A random undirected graph (Erdős–Rényi G(n, m) style) with `nodes` nodes
/// and mean degree about `mean_degree`: `round(nodes * mean_degree / 2)`
/// random node pairs `u != v`, each stored in both directions; duplicate
/// pairs collapse, so the mean degree falls short by about
/// `mean_degree / nodes` (relative).  Degrees are roughly Poisson, so a few
/// nodes may be isolated (unreachable in BFS).
pub fn graph(nodes: usize, mean_degree: f64, seed: u64) -> Graph {
    assert!(
        nodes <= i32::MAX as usize,
        "graph too large for int indices"
    );
    let mut lists: Vec<Vec<i32>> = vec![Vec::new(); nodes];
    if nodes >= 2 {
        let pairs = (nodes as f64 * mean_degree / 2.0).round().max(0.0) as usize;
        let mut rng = Rng::new(seed);
        for _ in 0..pairs {
            let u = rng.below(nodes as u64) as usize;
            // v uniform over the other nodes
            let mut v = rng.below(nodes as u64 - 1) as usize;
            if v >= u {
                v += 1;
            }
            lists[u].push(v as i32);
            lists[v].push(u as i32);
        }
    }
    let mut row_ptr = Vec::with_capacity(nodes + 1);
    let mut adj = Vec::new();
    row_ptr.push(0);
    for mut l in lists {
        l.sort_unstable();
        l.dedup();
        adj.extend_from_slice(&l);
        row_ptr.push(adj.len() as i32);
    }
    Graph { row_ptr, adj }
}

/// A uniformly random cyclic permutation of `0..n` (Sattolo's algorithm):
/// following `next` from any element visits all `n` elements before
/// returning, so pointer chains never merge or stall in a short cycle.
pub fn single_cycle_permutation(n: usize, seed: u64) -> Vec<i32> {
    assert!(n <= i32::MAX as usize);
    let mut p: Vec<i32> = (0..n as i32).collect();
    let mut rng = Rng::new(seed);
    for i in (1..n).rev() {
        let j = rng.below(i as u64) as usize; // j < i: Sattolo, not Fisher-Yates
        p.swap(i, j);
    }
    p
}

// ---------------------------------------------------------------------------
// Input builders, one per kernel of kernels/.  Each documents which stream
// feeds which buffer; manifests' `[args]` names are given in backquotes.
// ---------------------------------------------------------------------------

/// Inputs of the SPMV kernels (`spmv_scalar.ptx`, `spmv_vector.ptx`).
#[derive(Clone, Debug, PartialEq)]
pub struct SpmvInput {
    /// The square `rows x rows` matrix: `val`, `cols`, `rowDelimiters`.
    pub matrix: Csr,
    /// The dense vector `vec` (`rows` floats in `[0, 10)`, SHOC's range).
    pub vec: Vec<f32>,
}

/// SPMV inputs: `rows` (= `dim`), `avg_nnz_per_row`, `stddev_nnz_per_row`,
/// `seed`.  Matrix from stream 0 ([`csr_matrix`], square), vector from
/// stream 1.
pub fn spmv_input(
    rows: usize,
    avg_nnz_per_row: f64,
    stddev_nnz_per_row: f64,
    seed: u64,
) -> SpmvInput {
    let matrix = csr_matrix(
        rows,
        rows,
        avg_nnz_per_row,
        stddev_nnz_per_row,
        stream_seed(seed, 0),
    );
    let vec = uniform_f32(rows, 0.0, 10.0, stream_seed(seed, 1))
        .into_iter()
        .map(|x| x.min(9.999_999))
        .collect();
    SpmvInput { matrix, vec }
}

/// `vector_add.ptx` inputs `(a, b)`: `n` floats each, uniform in `[-1, 1]`,
/// from streams 0 and 1.
pub fn vector_add_input(n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    (
        uniform_f32(n, -1.0, 1.0, stream_seed(seed, 0)),
        uniform_f32(n, -1.0, 1.0, stream_seed(seed, 1)),
    )
}

/// Inputs of the fast Walsh transform (`fwt.ptx`), as the CUDA sample's
/// `main` builds them.
#[derive(Clone, Debug, PartialEq)]
pub struct FwtInput {
    /// `h_Data`: `batch << log2_data` floats in `[0, 1]` (stream 0).
    pub data: Vec<f32>,
    /// `h_Kernel` zero-padded to the data length, as the sample copies it to
    /// `d_Kernel`: for each of the `batch` vectors, `1 << log2_kernel` floats
    /// in `[0, 1]` (stream 1) followed by zeros up to `1 << log2_data`.
    pub kernel: Vec<f32>,
}

/// FWT inputs: `log2_data`, `log2_kernel` (`<= log2_data`), `batch` (the
/// sample's M = 1), `seed`.
pub fn fwt_input(log2_data: u32, log2_kernel: u32, batch: usize, seed: u64) -> FwtInput {
    assert!(log2_kernel <= log2_data);
    let n = 1usize << log2_data;
    let k = 1usize << log2_kernel;
    let data = uniform_f32(batch * n, 0.0, 1.0, stream_seed(seed, 0));
    let taps = uniform_f32(batch * k, 0.0, 1.0, stream_seed(seed, 1));
    let mut kernel = vec![0.0f32; batch * n];
    for b in 0..batch {
        kernel[b * n..b * n + k].copy_from_slice(&taps[b * k..(b + 1) * k]);
    }
    FwtInput { data, kernel }
}

/// `scalar_product.ptx` inputs `(d_A, d_B)`: `vectors * elements` floats
/// each, uniform in `[0, 1]` (the sample's `RandFloat(0.0f, 1.0f)`), from
/// streams 0 and 1.  Vector pair `v` is elements `v * elements ..
/// (v + 1) * elements` of both.
pub fn scalar_product_input(vectors: usize, elements: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let len = vectors * elements;
    (
        uniform_f32(len, 0.0, 1.0, stream_seed(seed, 0)),
        uniform_f32(len, 0.0, 1.0, stream_seed(seed, 1)),
    )
}

/// `matmul.ptx` inputs `(A, B)`: `n * n` row-major floats each, uniform in
/// `[-1, 1]`, from streams 0 and 1.
pub fn matmul_input(n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    (
        uniform_f32(n * n, -1.0, 1.0, stream_seed(seed, 0)),
        uniform_f32(n * n, -1.0, 1.0, stream_seed(seed, 1)),
    )
}

/// `histogram256.ptx` input: `bytes` uniform bytes (stream 0).  The kernel
/// reads them as `bytes / 4` little-endian words, so `bytes` must be a
/// multiple of 4 (asserted).
pub fn histogram256_input(n_bytes: usize, seed: u64) -> Vec<u8> {
    assert!(
        n_bytes.is_multiple_of(4),
        "histogram256 reads whole 32-bit words"
    );
    bytes(n_bytes, stream_seed(seed, 0))
}

/// `stencil2d.ptx` input: a `width x height` row-major grid of floats
/// uniform in `[0, 1]` (stream 0).
pub fn stencil2d_input(width: usize, height: usize, seed: u64) -> Vec<f32> {
    uniform_f32(width * height, 0.0, 1.0, stream_seed(seed, 0))
}

/// `bfs.ptx` input: [`graph`]`(nodes, mean_degree, stream 0)`.
pub fn bfs_input(nodes: usize, mean_degree: f64, seed: u64) -> Graph {
    graph(nodes, mean_degree, stream_seed(seed, 0))
}

/// Inputs of `kmeans.ptx`.
#[derive(Clone, Debug, PartialEq)]
pub struct KmeansInput {
    /// Point features in Rodinia's inverted (feature-major) layout: feature
    /// `j` of point `p` is `features[j * npoints + p]`; uniform in `[0, 1]`
    /// (stream 0).
    pub features: Vec<f32>,
    /// Cluster centres, row-major `[nclusters][nfeatures]`: centre `i` is
    /// point `i * npoints / nclusters`'s features (Rodinia seeds its centres
    /// with input points; spreading the picks avoids any order effect).
    pub clusters: Vec<f32>,
}

/// k-means inputs: `points`, `features`, `clusters` (`1 <= clusters <=
/// points`), `seed`.
pub fn kmeans_input(npoints: usize, nfeatures: usize, nclusters: usize, seed: u64) -> KmeansInput {
    assert!(nclusters >= 1 && nclusters <= npoints);
    let features = uniform_f32(npoints * nfeatures, 0.0, 1.0, stream_seed(seed, 0));
    let mut clusters = Vec::with_capacity(nclusters * nfeatures);
    for i in 0..nclusters {
        let p = i * npoints / nclusters;
        for j in 0..nfeatures {
            clusters.push(features[j * npoints + p]);
        }
    }
    KmeansInput { features, clusters }
}

/// `gather.ptx` input `next`: [`single_cycle_permutation`]`(n, stream 0)`.
pub fn gather_input(n: usize, seed: u64) -> Vec<i32> {
    single_cycle_permutation(n, stream_seed(seed, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_published_sequence() {
        // Reference outputs of splitmix64.c (Vigna) for seeds 0, 1 and 1234567.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
        let mut r = Rng::new(1);
        assert_eq!(r.next_u64(), 0x910A_2DEC_8902_5CC1);
        assert_eq!(r.next_u64(), 0xBEEB_8DA1_658E_EC67);
        let mut r = Rng::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn same_seed_same_data_other_seed_other_data() {
        assert_eq!(
            uniform_f32(100, -1.0, 1.0, 7),
            uniform_f32(100, -1.0, 1.0, 7)
        );
        assert_ne!(
            uniform_f32(100, -1.0, 1.0, 7),
            uniform_f32(100, -1.0, 1.0, 8)
        );
        assert_eq!(uniform_u32(100, 3), uniform_u32(100, 3));
        assert_eq!(bytes(37, 3), bytes(37, 3));
        assert_eq!(
            csr_matrix(50, 40, 6.0, 2.0, 9),
            csr_matrix(50, 40, 6.0, 2.0, 9)
        );
        assert_ne!(
            csr_matrix(50, 40, 6.0, 2.0, 9),
            csr_matrix(50, 40, 6.0, 2.0, 10)
        );
        assert_eq!(graph(100, 4.0, 5), graph(100, 4.0, 5));
        assert_eq!(spmv_input(64, 8.0, 2.0, 1), spmv_input(64, 8.0, 2.0, 1));
        assert_ne!(stream_seed(1, 0), stream_seed(1, 1));
        assert_ne!(stream_seed(1, 0), stream_seed(2, 0));
    }

    #[test]
    fn pinned_values_for_seed_1() {
        // If these change, every manifest's data changed: a deliberate act.
        assert_eq!(
            bytes(9, 1),
            [0xC1, 0x5C, 0x02, 0x89, 0xEC, 0x2D, 0x0A, 0x91, 0x67]
        );
        assert_eq!(uniform_u32(2, 1), [0x910A_2DEC, 0xBEEB_8DA1]);
        assert_eq!(uniform_f32(1, 0.0, 1.0, 1)[0].to_bits(), 0x3F11_0A2E);
        assert_eq!(stream_seed(1, 0), 0x83CD_62B9_6D17_D778);
        assert_eq!(stream_seed(1, 1), 0x9028_7996_C3E2_222A);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(42);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
        assert_eq!(r.below(1), 0);
    }

    #[test]
    fn uniform_f32_in_range_with_the_right_mean() {
        let v = uniform_f32(100_000, -2.0, 6.0, 11);
        assert_eq!(v.len(), 100_000);
        assert!(v.iter().all(|&x| (-2.0..=6.0).contains(&x)));
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
        assert!((mean - 2.0).abs() < 0.05, "mean {mean}");
        let mut r = Rng::new(5);
        for _ in 0..10_000 {
            let u = r.unit_f32();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn std_normal_has_mean_0_and_variance_1() {
        let mut r = Rng::new(3);
        let n = 50_000;
        let xs: Vec<f64> = (0..n).map(|_| r.std_normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!((var - 1.0).abs() < 0.03, "var {var}");
    }

    #[test]
    fn bytes_cover_all_values() {
        let b = bytes(256 * 200, 1);
        assert_eq!(b.len(), 256 * 200);
        let mut h = [0u32; 256];
        for &x in &b {
            h[x as usize] += 1;
        }
        assert!(h.iter().all(|&c| (120..280).contains(&c)), "{h:?}");
        assert_eq!(bytes(5, 9), bytes(13, 9)[..5]);
    }

    fn check_csr(m: &Csr, rows: usize, cols: usize) {
        assert_eq!(m.num_rows, rows);
        assert_eq!(m.num_cols, cols);
        assert_eq!(m.row_ptr.len(), rows + 1);
        assert_eq!(m.row_ptr[0], 0);
        assert_eq!(*m.row_ptr.last().unwrap() as usize, m.nnz());
        assert_eq!(m.vals.len(), m.nnz());
        for r in 0..rows {
            assert!(m.row_ptr[r] <= m.row_ptr[r + 1]);
            let c = &m.cols[m.row(r)];
            assert!(
                c.windows(2).all(|w| w[0] < w[1]),
                "row {r} not sorted/distinct: {c:?}"
            );
            assert!(c.iter().all(|&x| x >= 0 && (x as usize) < cols));
        }
        assert!(m.vals.iter().all(|&v| (0.0..10.0).contains(&v)));
    }

    #[test]
    fn csr_rows_have_the_requested_mean_and_spread() {
        let m = csr_matrix(4000, 4000, 16.0, 4.0, 1);
        check_csr(&m, 4000, 4000);
        let lens: Vec<f64> = (0..4000).map(|r| m.row(r).len() as f64).collect();
        let mean = lens.iter().sum::<f64>() / 4000.0;
        let sd = (lens.iter().map(|l| (l - mean) * (l - mean)).sum::<f64>() / 4000.0).sqrt();
        assert!((mean - 16.0).abs() < 0.3, "mean {mean}");
        assert!((sd - 4.0).abs() < 0.3, "sd {sd}");
    }

    #[test]
    fn csr_zero_spread_clamping_and_dense_rows() {
        let m = csr_matrix(30, 100, 7.0, 0.0, 2);
        check_csr(&m, 30, 100);
        assert!((0..30).all(|r| m.row(r).len() == 7));
        // mean above the column count: clamped to full rows
        let m = csr_matrix(20, 8, 10.0, 3.0, 3);
        check_csr(&m, 20, 8);
        assert!((0..20).all(|r| m.row(r).len() <= 8));
        assert!((0..20).filter(|&r| m.row(r).len() == 8).count() > 10);
        // huge spread: clamped at zero, never negative
        let m = csr_matrix(200, 50, 2.0, 10.0, 4);
        check_csr(&m, 200, 50);
        assert!((0..200).any(|r| m.row(r).is_empty()));
        // the partial-shuffle path (k >= n/2) also gives sorted distinct columns
        let m = csr_matrix(50, 20, 15.0, 1.0, 5);
        check_csr(&m, 50, 20);
        let empty = csr_matrix(0, 10, 3.0, 1.0, 1);
        assert_eq!(empty.row_ptr, vec![0]);
    }

    #[test]
    fn csr_columns_are_spread_over_the_row() {
        let m = csr_matrix(2000, 64, 8.0, 0.0, 6);
        let mut h = [0u32; 64];
        for &c in &m.cols {
            h[c as usize] += 1;
        }
        // 16000 picks over 64 columns: ~250 each
        assert!(h.iter().all(|&c| (170..330).contains(&c)), "{h:?}");
    }

    #[test]
    fn graph_is_symmetric_simple_and_has_the_mean_degree() {
        let g = graph(4096, 6.0, 1);
        assert_eq!(g.nodes(), 4096);
        assert_eq!(g.row_ptr[0], 0);
        assert_eq!(*g.row_ptr.last().unwrap() as usize, g.edges());
        let mean = g.edges() as f64 / 4096.0;
        assert!((mean - 6.0).abs() < 0.05, "mean degree {mean}");
        for v in 0..4096 {
            let nb = g.neighbours(v);
            assert!(nb.windows(2).all(|w| w[0] < w[1]));
            for &u in nb {
                assert_ne!(u as usize, v, "self-loop");
                assert!(
                    g.neighbours(u as usize).binary_search(&(v as i32)).is_ok(),
                    "not symmetric"
                );
            }
        }
        assert_eq!(graph(1, 6.0, 1).edges(), 0);
        assert_eq!(graph(0, 6.0, 1).nodes(), 0);
    }

    #[test]
    fn permutation_is_one_cycle() {
        for n in [1usize, 2, 3, 10, 1000] {
            let p = single_cycle_permutation(n, n as u64);
            let mut seen = vec![false; n];
            let mut j = 0usize;
            for _ in 0..n {
                assert!(!seen[j]);
                seen[j] = true;
                j = p[j] as usize;
            }
            assert_eq!(j, 0, "cycle shorter or longer than n");
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn builders_have_the_documented_shapes() {
        let s = spmv_input(100, 5.0, 1.0, 1);
        check_csr(&s.matrix, 100, 100);
        assert_eq!(s.vec.len(), 100);
        let f = fwt_input(6, 3, 2, 1);
        assert_eq!(f.data.len(), 128);
        assert_eq!(f.kernel.len(), 128);
        assert!(f.kernel[8..64].iter().all(|&x| x == 0.0));
        assert!(f.kernel[72..].iter().all(|&x| x == 0.0));
        assert!(f.kernel[..8].iter().any(|&x| x != 0.0));
        let (a, b) = scalar_product_input(3, 10, 1);
        assert_eq!((a.len(), b.len()), (30, 30));
        assert_ne!(a, b);
        let (a, b) = matmul_input(5, 1);
        assert_eq!((a.len(), b.len()), (25, 25));
        assert_eq!(histogram256_input(64, 1).len(), 64);
        assert_eq!(stencil2d_input(7, 3, 1).len(), 21);
        assert_eq!(bfs_input(50, 4.0, 1).nodes(), 50);
        let k = kmeans_input(10, 3, 4, 1);
        assert_eq!(k.features.len(), 30);
        assert_eq!(k.clusters.len(), 12);
        // centre 1 is point 10 * 1 / 4 = 2
        assert_eq!(
            k.clusters[3..6],
            [k.features[2], k.features[12], k.features[22]]
        );
        assert_eq!(gather_input(16, 1).len(), 16);
        let (a, b) = vector_add_input(9, 1);
        assert_eq!((a.len(), b.len()), (9, 9));
    }
}
