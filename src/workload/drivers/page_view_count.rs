//! `page_view_count`: distinct page views per URL of a web log
//! (`kernels/baws/page_view_count.ptx`, `pageViewCount`; BAWS Table 2
//! "PVC", after Mars' Page View Count). One CTA of 256 threads (8 warps)
//! per 512 log entries bitonic-sorts them in shared memory, flags distinct
//! (URL, IP) pairs and URL starts, numbers the URLs by a shared-memory
//! scan, counts each URL's distinct views with shared atomics and writes
//! them; 66 `bar.sync` per thread.
//!
//! Input ([`input`]): `entries` log words `url << 16 | ip`, the URL
//! skewed towards small numbers (the minimum of two uniform draws below
//! `urls`), the IP uniform below `ips` (so repeated views are common).
//! Check, exactly against [`reference`]: per chunk, its URLs in increasing
//! order (`d_ChunkUrl`), their distinct views (`d_ChunkViews`; slots past
//! the chunk's URL count keep the sentinel the buffer starts with), the
//! URL count (`d_ChunkUrls`), and the per-URL totals over all chunks
//! (`d_Views`, added with global atomics).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Log entries per CTA (the kernel's `CHUNK`).
pub const CHUNK: usize = 512;
/// Threads per CTA.
const BLOCK: u32 = CHUNK as u32 / 2;
/// The initial contents of the per-chunk outputs.
const UNSET: u32 = u32::MAX;

/// The `page_view_count` workload.
pub struct PageViewCount {
    entries: u32,
    urls: u32,
    ips: u32,
    seed: u64,
}

impl PageViewCount {
    /// Reads `entries` (default 92160 = 180 chunks; any count, the last
    /// chunk is padded), `urls` (2048; at most 65535), `ips` (64; at most
    /// 65536) and `seed` (1). The launch shape is the kernel's (one
    /// 256-thread CTA per 512 entries); the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<PageViewCount, WorkloadError> {
        let w = PageViewCount {
            entries: args.count("entries", 180 * CHUNK as u32)?,
            urls: args.count("urls", 2048)?,
            ips: args.count("ips", 64)?,
            seed: args.u64("seed", 1)?,
        };
        if w.urls > 0xFFFF || w.ips > 0x1_0000 {
            return Err(WorkloadError::Args(format!(
                "`urls` = {} must be at most 65535 and `ips` = {} at most 65536 (16 bits each; URL 0xFFFF is the padding)",
                w.urls, w.ips
            )));
        }
        if w.entries > 1 << 30 {
            return Err(WorkloadError::Args(format!(
                "`entries` = {} must be at most 2^30",
                w.entries
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "page_view_count uses the kernel's launch shape (one 256-thread CTA per 512 entries): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// `n` log words `url << 16 | ip` (see the module comment).
pub fn input(n: usize, urls: u32, ips: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(stream_seed(seed, 0));
    (0..n)
        .map(|_| {
            let a = rng.below(u64::from(urls));
            let b = rng.below(u64::from(urls));
            let ip = rng.below(u64::from(ips));
            ((a.min(b) as u32) << 16) | ip as u32
        })
        .collect()
}

/// What the kernel writes: per-chunk URLs and distinct views (`CHUNK`
/// slots per chunk, unused ones [`UNSET`]), per-chunk URL counts, and the
/// per-URL totals (`urls` entries).
pub struct Counts {
    /// `d_ChunkUrl`.
    pub chunk_url: Vec<u32>,
    /// `d_ChunkViews`.
    pub chunk_views: Vec<u32>,
    /// `d_ChunkUrls`.
    pub chunk_urls: Vec<u32>,
    /// `d_Views`.
    pub views: Vec<u32>,
}

/// Counts the distinct (URL, IP) pairs of every chunk of `CHUNK` entries.
pub fn reference(log: &[u32], urls: u32) -> Counts {
    let chunks = log.len().div_ceil(CHUNK);
    let mut c = Counts {
        chunk_url: vec![UNSET; chunks * CHUNK],
        chunk_views: vec![UNSET; chunks * CHUNK],
        chunk_urls: Vec::with_capacity(chunks),
        views: vec![0; urls as usize],
    };
    for (b, chunk) in log.chunks(CHUNK).enumerate() {
        let mut pairs = chunk.to_vec();
        pairs.sort_unstable();
        pairs.dedup();
        let mut slot = 0;
        let mut i = 0;
        while i < pairs.len() {
            let url = pairs[i] >> 16;
            let n = pairs[i..].iter().take_while(|&&p| p >> 16 == url).count();
            c.chunk_url[b * CHUNK + slot] = url;
            c.chunk_views[b * CHUNK + slot] = n as u32;
            c.views[url as usize] += n as u32;
            slot += 1;
            i += n;
        }
        c.chunk_urls.push(slot as u32);
    }
    c
}

impl Workload for PageViewCount {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.entries as usize;
        let chunks = n.div_ceil(CHUNK);
        let log = input(n, self.urls, self.ips, self.seed);
        let dlog = upload(host, "d_Log", &log)?;
        let durl = upload(host, "d_ChunkUrl", &vec![UNSET; chunks * CHUNK])?;
        let dviews_c = upload(host, "d_ChunkViews", &vec![UNSET; chunks * CHUNK])?;
        let durls = upload(host, "d_ChunkUrls", &vec![UNSET; chunks])?;
        let dviews = upload(host, "d_Views", &vec![0u32; self.urls as usize])?;
        host.launch(
            None,
            [chunks as u32, 1, 1],
            [BLOCK, 1, 1],
            &[
                ArgValue::U64(dlog),
                ArgValue::U32(self.entries),
                ArgValue::U64(durl),
                ArgValue::U64(dviews_c),
                ArgValue::U64(durls),
                ArgValue::U64(dviews),
            ],
        )?;
        let want = reference(&log, self.urls);
        let got_url: Vec<u32> = download(host, durl, chunks * CHUNK)?;
        let got_views_c: Vec<u32> = download(host, dviews_c, chunks * CHUNK)?;
        let got_urls: Vec<u32> = download(host, durls, chunks)?;
        let got_views: Vec<u32> = download(host, dviews, self.urls as usize)?;
        Ok(Check::all([
            check::exact("d_ChunkUrl", &want.chunk_url, &got_url),
            check::exact("d_ChunkViews", &want.chunk_views, &got_views_c),
            check::exact("d_ChunkUrls", &want.chunk_urls, &got_urls),
            check::exact("d_Views", &want.views, &got_views),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_views_count_once_per_chunk() {
        // URL 3 seen by IPs 1, 1, 2; URL 0 by IP 9; in one chunk.
        let log = [3 << 16 | 1, 9, 3 << 16 | 2, 3 << 16 | 1];
        let c = reference(&log, 4);
        assert_eq!(c.chunk_urls, [2]);
        assert_eq!(&c.chunk_url[..3], [0, 3, UNSET]);
        assert_eq!(&c.chunk_views[..3], [1, 2, UNSET]);
        assert_eq!(c.views, [1, 0, 0, 2]);
        // The same view in two chunks counts in both.
        let mut two = vec![5u32; CHUNK];
        two.push(5);
        let c = reference(&two, 1);
        assert_eq!(c.chunk_urls, [1, 1]);
        assert_eq!(c.views, [2]);
    }
}
