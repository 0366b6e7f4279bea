//! `page_view_rank`: URLs ranked by page views
//! (`kernels/baws/page_view_rank.ptx`, `pageViewRank`; BAWS Table 2 "PVR",
//! after Mars' Page View Rank). One CTA of 256 threads (8 warps) per 512
//! (URL, views) records bitonic-sorts them by views (descending, ties by
//! URL) on 64-bit shared keys, then computes each record's competition
//! rank within the chunk by a shared-memory max-scan; 65 `bar.sync` per
//! thread.
//!
//! Input ([`input`]): `urls` records, URL `i` (shuffled) with views
//! `below(1 + below(max_views))` (skewed, many ties). Check, exactly
//! against [`reference`]: per chunk the URLs and views in rank order
//! (`d_RankUrl`, `d_RankViews`) and the ranks (`d_Rank`: 1 + the number of
//! the chunk's records with more views).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Records per CTA (the kernel's `CHUNK`).
pub const CHUNK: usize = 512;
/// Threads per CTA.
const BLOCK: u32 = CHUNK as u32 / 2;

/// The `page_view_rank` workload.
pub struct PageViewRank {
    urls: u32,
    max_views: u32,
    seed: u64,
}

impl PageViewRank {
    /// Reads `urls` (default 92160 = 180 chunks; any count, at most 2^30,
    /// the last chunk is padded), `max_views` (1000) and `seed` (1). The
    /// launch shape is the kernel's (one 256-thread CTA per 512 records);
    /// the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<PageViewRank, WorkloadError> {
        let w = PageViewRank {
            urls: args.count("urls", 180 * CHUNK as u32)?,
            max_views: args.count("max_views", 1000)?,
            seed: args.u64("seed", 1)?,
        };
        if w.urls > 1 << 30 {
            return Err(WorkloadError::Args(format!(
                "`urls` = {} must be at most 2^30",
                w.urls
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "page_view_rank uses the kernel's launch shape (one 256-thread CTA per 512 records): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// `n` records: the URLs `0..n` in a seeded random order and their views.
pub fn input(n: usize, max_views: u32, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let mut url: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        url.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let views = (0..n)
        .map(|_| {
            let cap = 1 + rng.below(u64::from(max_views));
            rng.below(cap) as u32
        })
        .collect();
    (url, views)
}

/// Per chunk: URLs and views by views descending, ties by URL ascending,
/// and competition ranks.
pub fn reference(url: &[u32], views: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut out_u, mut out_v, mut out_r) = (Vec::new(), Vec::new(), Vec::new());
    for (u, v) in url.chunks(CHUNK).zip(views.chunks(CHUNK)) {
        let mut rec: Vec<(u32, u32)> = u.iter().copied().zip(v.iter().copied()).collect();
        rec.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (i, &(url, views)) in rec.iter().enumerate() {
            out_u.push(url);
            out_v.push(views);
            let rank = if i > 0 && rec[i - 1].1 == views {
                *out_r.last().expect("a previous rank")
            } else {
                i as u32 + 1
            };
            out_r.push(rank);
        }
    }
    (out_u, out_v, out_r)
}

impl Workload for PageViewRank {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.urls as usize;
        let (url, views) = input(n, self.max_views, self.seed);
        let durl = upload(host, "d_Url", &url)?;
        let dviews = upload(host, "d_Views", &views)?;
        let rank_url = upload(host, "d_RankUrl", &vec![u32::MAX; n])?;
        let rank_views = upload(host, "d_RankViews", &vec![u32::MAX; n])?;
        let rank = upload(host, "d_Rank", &vec![u32::MAX; n])?;
        host.launch(
            None,
            [n.div_ceil(CHUNK) as u32, 1, 1],
            [BLOCK, 1, 1],
            &[
                ArgValue::U64(durl),
                ArgValue::U64(dviews),
                ArgValue::U32(self.urls),
                ArgValue::U64(rank_url),
                ArgValue::U64(rank_views),
                ArgValue::U64(rank),
            ],
        )?;
        let (want_u, want_v, want_r) = reference(&url, &views);
        let got_u: Vec<u32> = download(host, rank_url, n)?;
        let got_v: Vec<u32> = download(host, rank_views, n)?;
        let got_r: Vec<u32> = download(host, rank, n)?;
        Ok(Check::all([
            check::exact("d_RankUrl", &want_u, &got_u),
            check::exact("d_RankViews", &want_v, &got_v),
            check::exact("d_Rank", &want_r, &got_r),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_a_rank_and_the_next_rank_skips() {
        let (u, v, r) = reference(&[7, 3, 9, 4], &[5, 8, 5, 1]);
        assert_eq!(u, [3, 7, 9, 4]);
        assert_eq!(v, [8, 5, 5, 1]);
        assert_eq!(r, [1, 2, 2, 4]);
        let (url, _) = input(1000, 10, 2);
        let mut sorted = url.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<u32>>(), "a permutation");
    }
}
