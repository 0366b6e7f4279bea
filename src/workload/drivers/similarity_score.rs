//! `similarity_score`: pairwise cosine similarity of documents
//! (`kernels/baws/similarity_score.ptx`, `similarityScore`; BAWS Table 2
//! "SS", after Mars' Similarity Score). One 16 x 16 CTA (8 warps) per
//! 16 x 16 tile of document pairs stages 16 features of 16 row and 16
//! column documents in shared memory per step, with two `bar.sync` per
//! step.
//!
//! Input ([`input`]): `docs` documents of `features` floats uniform in
//! [0, 1). Check: the `docs` x `docs` similarity matrix `sim` exactly
//! against [`reference`], which does the kernel's f32 operations in its
//! order: per feature, `fma` into the dot product and both squared norms,
//! then `dot / (sqrt(row) * sqrt(col))` (IEEE `sqrt.rn` and `div.rn`).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// The kernel's tile edge (threads per CTA: `TILE` x `TILE`).
pub const TILE: u32 = 16;

/// The `similarity_score` workload.
pub struct SimilarityScore {
    docs: u32,
    features: u32,
    seed: u64,
}

impl SimilarityScore {
    /// Reads `docs` (default 160) and `features` (256), both multiples of
    /// 16 with `docs * max(docs, features)` below 2^31, and `seed` (1). The
    /// launch shape is the kernel's (a (docs/16) x (docs/16) grid of 16 x 16
    /// CTAs); the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<SimilarityScore, WorkloadError> {
        let w = SimilarityScore {
            docs: args.count("docs", 160)?,
            features: args.count("features", 256)?,
            seed: args.u64("seed", 1)?,
        };
        for (what, v) in [("docs", w.docs), ("features", w.features)] {
            if !v.is_multiple_of(TILE) {
                return Err(WorkloadError::Args(format!(
                    "`{what}` = {v} must be a multiple of {TILE}"
                )));
            }
        }
        super::int_arg(
            "docs * max(docs, features)",
            u64::from(w.docs) * u64::from(w.docs.max(w.features)),
        )?;
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "similarity_score uses the kernel's launch shape (16 x 16 CTAs, one per tile of pairs): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// `docs` x `features` floats uniform in [0, 1), row-major.
pub fn input(docs: usize, features: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(stream_seed(seed, 0));
    (0..docs * features).map(|_| rng.unit_f32()).collect()
}

/// The similarity matrix as the kernel computes it.
pub fn reference(doc: &[f32], docs: usize, features: usize) -> Vec<f32> {
    let mut sim = Vec::with_capacity(docs * docs);
    for i in 0..docs {
        let a = &doc[i * features..(i + 1) * features];
        for j in 0..docs {
            let b = &doc[j * features..(j + 1) * features];
            let (mut dot, mut row, mut col) = (0.0f32, 0.0f32, 0.0f32);
            for (&x, &y) in a.iter().zip(b) {
                dot = x.mul_add(y, dot);
                row = x.mul_add(x, row);
                col = y.mul_add(y, col);
            }
            sim.push(dot / (row.sqrt() * col.sqrt()));
        }
    }
    sim
}

impl Workload for SimilarityScore {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (d, f) = (self.docs as usize, self.features as usize);
        let doc = input(d, f, self.seed);
        let sim = upload(host, "sim", &vec![f32::NAN; d * d])?;
        let ddoc = upload(host, "doc", &doc)?;
        host.launch(
            None,
            [self.docs / TILE, self.docs / TILE, 1],
            [TILE, TILE, 1],
            &[
                ArgValue::U64(sim),
                ArgValue::U64(ddoc),
                ArgValue::S32(self.docs as i32),
                ArgValue::S32(self.features as i32),
            ],
        )?;
        let got: Vec<f32> = download(host, sim, d * d)?;
        Ok(check::exact("sim", &reference(&doc, d, f), &got))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_similar_to_itself_and_scaling_does_not_matter() {
        // Doc 1 = 2 x doc 0 (exact in f32), doc 2 orthogonal to doc 0.
        let doc = [1.0, 2.0, 0.0, 2.0, 4.0, 0.0, 0.0, 0.0, 3.0];
        let s = reference(&doc, 3, 3);
        assert_eq!(s[0], 1.0);
        assert_eq!(s[1], 1.0);
        assert_eq!(s[2], 0.0);
        assert_eq!(s[3], s[1]);
        assert_eq!(s[8], 1.0);
    }
}
