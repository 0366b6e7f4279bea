//! `needle`: Rodinia's Needleman-Wunsch alignment
//! (`kernels/rodinia/needle.ptx`), with Rodinia's host loop: the
//! upper-left triangle of 16 x 16 blocks one block anti-diagonal per
//! `needle_cuda_shared_1` launch (1, 2, …, `n / 16` CTAs), then the
//! lower-right triangle with `needle_cuda_shared_2` (`n / 16 - 1`, …, 1 CTAs).
//!
//! Input ([`input`]): two random sequences of `n` symbols over a
//! 24-letter alphabet and a random symmetric substitution table (stand-ins
//! for Rodinia's `rand() % 10 + 1` sequences and BLOSUM62), giving the
//! `(n + 1) x (n + 1)` reference matrix; the score matrix starts with the
//! gap penalties `-i * penalty` in row and column 0 and zeros elsewhere.
//! Check: the whole score matrix exactly against [`reference`] (integer
//! max and addition: exact).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate};

/// The kernels' compiled block size (`BLOCK_SIZE`).
const BLOCK: u32 = 16;
/// Symbols in the alphabet (BLOSUM62's 24).
const ALPHABET: u64 = 24;

/// The `needle` workload.
pub struct Needle {
    n: u32,
    penalty: i32,
    seed: u64,
    launch: Launch,
}

impl Needle {
    /// Reads `n` (the sequence length, default 512, a multiple of 16),
    /// `penalty` (10, Rodinia's) and `seed` (1). Block: must be
    /// `[16, 1, 1]`; the grid is set per launch by the host loop, so the
    /// manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Needle, WorkloadError> {
        let w = Needle {
            n: args.count("n", 512)?,
            penalty: int_arg("penalty", args.u32("penalty", 10)?.into())?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        if !w.n.is_multiple_of(BLOCK) {
            return Err(WorkloadError::Args(format!(
                "`n` = {} must be a multiple of {BLOCK} (Rodinia's restriction: whole blocks)",
                w.n
            )));
        }
        int_arg("(n + 1)^2", (u64::from(w.n) + 1).pow(2))?;
        super::block_fixed("needle_cuda_shared_1", &w.launch, [BLOCK, 1, 1])?;
        if w.launch.grid.is_some() {
            return Err(WorkloadError::Args(
                "needle sets each launch's grid itself (one CTA per block of the anti-diagonal): remove `grid`".into(),
            ));
        }
        Ok(w)
    }
}

/// The `(n + 1) x (n + 1)` reference (substitution-score) matrix: row and
/// column 0 are 0, entry `(i, j)` scores symbol `i - 1` of sequence A
/// against symbol `j - 1` of sequence B. The table (stream 0) is symmetric
/// with matches 4..=11 and mismatches -4..=3; the sequences come from
/// streams 1 and 2.
pub fn input(n: usize, seed: u64) -> Vec<i32> {
    let k = ALPHABET as usize;
    let mut rng = generate::Rng::new(generate::stream_seed(seed, 0));
    let mut table = vec![0i32; k * k];
    for a in 0..k {
        table[a * k + a] = 4 + rng.below(8) as i32;
        for b in a + 1..k {
            let v = rng.below(8) as i32 - 4;
            table[a * k + b] = v;
            table[b * k + a] = v;
        }
    }
    let seq = |stream| {
        let mut r = generate::Rng::new(generate::stream_seed(seed, stream));
        (0..n)
            .map(|_| r.below(ALPHABET) as usize)
            .collect::<Vec<_>>()
    };
    let (sa, sb) = (seq(1), seq(2));
    let cols = n + 1;
    let mut reference = vec![0i32; cols * cols];
    for i in 1..cols {
        for j in 1..cols {
            reference[i * cols + j] = table[sa[i - 1] * k + sb[j - 1]];
        }
    }
    reference
}

/// The initial score matrix: `-i * penalty` along row and column 0.
pub fn initial_score(n: usize, penalty: i32) -> Vec<i32> {
    let cols = n + 1;
    let mut s = vec![0i32; cols * cols];
    for i in 1..cols {
        s[i * cols] = -(i as i32) * penalty;
        s[i] = -(i as i32) * penalty;
    }
    s
}

/// The filled score matrix: `s[i][j] = max(s[i-1][j-1] + ref[i][j],
/// s[i][j-1] - penalty, s[i-1][j] - penalty)` in row-major order. Exact.
pub fn reference(reference: &[i32], n: usize, penalty: i32) -> Vec<i32> {
    let cols = n + 1;
    let mut s = initial_score(n, penalty);
    for i in 1..cols {
        for j in 1..cols {
            let nw = s[(i - 1) * cols + j - 1] + reference[i * cols + j];
            let w = s[i * cols + j - 1] - penalty;
            let no = s[(i - 1) * cols + j] - penalty;
            s[i * cols + j] = nw.max(w).max(no);
        }
    }
    s
}

impl Workload for Needle {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.n as usize;
        let refm = input(n, self.seed);
        let dref = upload(host, "referrence", &refm)?;
        let dscore = upload(host, "matrix_cuda", &initial_score(n, self.penalty))?;
        let block_width = self.n / BLOCK;
        let args = |i: u32| {
            [
                ArgValue::U64(dref),
                ArgValue::U64(dscore),
                ArgValue::S32(self.n as i32 + 1),
                ArgValue::S32(self.penalty),
                ArgValue::S32(i as i32),
                ArgValue::S32(block_width as i32),
            ]
        };
        let block = [BLOCK, 1, 1];
        for i in 1..=block_width {
            host.launch(Some("needle_cuda_shared_1"), [i, 1, 1], block, &args(i))?;
        }
        for i in (1..block_width).rev() {
            host.launch(Some("needle_cuda_shared_2"), [i, 1, 1], block, &args(i))?;
        }
        let got: Vec<i32> = download(host, dscore, (n + 1) * (n + 1))?;
        Ok(check::exact(
            "matrix_cuda",
            &reference(&refm, n, self.penalty),
            &got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_by_hand() {
        // n = 1: one cell, max(0 + r, -p - p, -p - p).
        let r = [0, 0, 0, 7];
        assert_eq!(reference(&r, 1, 3), vec![0, -3, -3, 7]);
        let r = [0, 0, 0, -9];
        assert_eq!(reference(&r, 1, 3), vec![0, -3, -3, -6]);
    }

    #[test]
    fn substitution_scores_are_symmetric_matches_positive() {
        let m = input(16, 5);
        assert!(m[..17].iter().all(|&v| v == 0));
        assert!(m.iter().all(|&v| (-4..=11).contains(&v)));
    }
}
