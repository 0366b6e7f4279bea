//! `octree_partition`: recursive octree partitioning of particles
//! (`kernels/baws/octree_partition.ptx`, `octreePartition`; BAWS Table 2
//! "OCTP", after Cederman and Tsigas' octree partitioning). The host runs
//! it level by level: the host splits the top `host_levels` levels itself
//! (too few nodes to fill the GPU), then one launch per tree level below,
//! one CTA of 256 threads
//! (8 warps) per node with more than `leaf_size` particles, splitting the
//! node's range of the particle array stably into its eight octants
//! (counting, then rounds of 256 particles with two `bar.sync` each).
//!
//! Input ([`input`]): `particles` positions uniform in the unit cube, `w`
//! the particle's number. The tasks of every level come from [`reference`]
//! (which splits the same way on the host); the kernel's outputs are
//! checked against it exactly: every level's octant counts
//! (`d_ChildCount`) and the final particle order (`d_Src`).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Threads per CTA.
const BLOCK: u32 = 256;

/// A particle: x, y, z and its number (the kernel's `float4`).
pub type Particle = [f32; 4];

/// One node to split: its range of the particle array and its box's
/// centre and half edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Task {
    /// First particle.
    pub start: i32,
    /// Particles.
    pub count: i32,
    /// Centre of the node's box.
    pub centre: [f32; 3],
    /// Half the box's edge.
    pub half: f32,
}

/// What the partition gives: the tasks of each level, their octant counts
/// (8 per task) and the final particle order.
pub struct Partition {
    /// Tasks per level (level 0: the root).
    pub levels: Vec<Vec<Task>>,
    /// Octant counts per level, 8 per task.
    pub counts: Vec<Vec<i32>>,
    /// The particles after the last level.
    pub particles: Vec<Particle>,
}

/// The kernel's octant of `p` in a box centred at `c`.
fn octant(p: &Particle, c: &[f32; 3]) -> usize {
    usize::from(p[0] >= c[0]) | usize::from(p[1] >= c[1]) << 1 | usize::from(p[2] >= c[2]) << 2
}

/// `n` particles uniform in [0, 1)^3, numbered.
pub fn input(n: usize, seed: u64) -> Vec<Particle> {
    let mut rng = Rng::new(stream_seed(seed, 0));
    (0..n)
        .map(|i| [rng.unit_f32(), rng.unit_f32(), rng.unit_f32(), i as f32])
        .collect()
}

/// Splits every node with more than `leaf_size` particles, for at most
/// `max_levels` levels, stably.
pub fn reference(particles: &[Particle], leaf_size: usize, max_levels: u32) -> Partition {
    let mut p = particles.to_vec();
    let mut levels = Vec::new();
    let mut counts = Vec::new();
    let mut tasks = vec![Task {
        start: 0,
        count: p.len() as i32,
        centre: [0.5; 3],
        half: 0.5,
    }];
    if p.len() <= leaf_size {
        tasks.clear();
    }
    while !tasks.is_empty() && (levels.len() as u32) < max_levels {
        let mut level_counts = Vec::with_capacity(tasks.len() * 8);
        let mut next = Vec::new();
        for t in &tasks {
            let range = t.start as usize..(t.start + t.count) as usize;
            let mut by_octant: Vec<Vec<Particle>> = vec![Vec::new(); 8];
            for q in &p[range.clone()] {
                by_octant[octant(q, &t.centre)].push(*q);
            }
            let mut at = t.start;
            for (o, part) in by_octant.iter().enumerate() {
                level_counts.push(part.len() as i32);
                if part.len() > leaf_size {
                    let h = t.half / 2.0;
                    let side = |bit: usize, c: f32| if o & bit != 0 { c + h } else { c - h };
                    next.push(Task {
                        start: at,
                        count: part.len() as i32,
                        centre: [
                            side(1, t.centre[0]),
                            side(2, t.centre[1]),
                            side(4, t.centre[2]),
                        ],
                        half: h,
                    });
                }
                at += part.len() as i32;
            }
            p.splice(range, by_octant.into_iter().flatten());
        }
        levels.push(std::mem::replace(&mut tasks, next));
        counts.push(level_counts);
    }
    Partition {
        levels,
        counts,
        particles: p,
    }
}

/// The `octree_partition` workload.
pub struct OctreePartition {
    particles: u32,
    leaf_size: u32,
    max_levels: u32,
    host_levels: u32,
    seed: u64,
}

impl OctreePartition {
    /// Reads `particles` (default 16384; at most 2^24, so numbers are exact
    /// floats), `leaf_size` (16: nodes with more are split), `max_levels`
    /// (6, at most 20), `host_levels` (2: the host splits the top levels,
    /// which have too few nodes to fill the GPU, and the kernel the levels
    /// below; at most `max_levels`) and `seed` (1). The launch shapes are
    /// the kernel's
    /// (one 256-thread CTA per node to split); the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<OctreePartition, WorkloadError> {
        let w = OctreePartition {
            particles: args.count("particles", 16384)?,
            leaf_size: args.count("leaf_size", 16)?,
            max_levels: args.count("max_levels", 6)?,
            host_levels: args.u32("host_levels", 2)?,
            seed: args.u64("seed", 1)?,
        };
        if w.host_levels > w.max_levels {
            return Err(WorkloadError::Args(format!(
                "`host_levels` = {} must be at most `max_levels` = {}",
                w.host_levels, w.max_levels
            )));
        }
        if w.particles > 1 << 24 || w.max_levels > 20 {
            return Err(WorkloadError::Args(format!(
                "`particles` = {} must be at most 2^24 and `max_levels` = {} at most 20",
                w.particles, w.max_levels
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "octree_partition uses the kernel's launch shapes (one 256-thread CTA per node to split): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

impl Workload for OctreePartition {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.particles as usize;
        let particles = input(n, self.seed);
        let leaf = self.leaf_size as usize;
        let want = reference(&particles, leaf, self.max_levels);
        let start = reference(&particles, leaf, self.host_levels).particles;
        let gpu_levels = (self.host_levels as usize).min(want.levels.len());
        let flat = |v: &[Particle]| v.iter().flatten().copied().collect::<Vec<f32>>();
        let src = upload(host, "d_Src", &flat(&start))?;
        let dst = upload(host, "d_Dst", &vec![f32::NAN; 4 * n])?;
        let mut got_counts = Vec::new();
        for tasks in &want.levels[gpu_levels..] {
            let starts: Vec<i32> = tasks.iter().map(|t| t.start).collect();
            let counts: Vec<i32> = tasks.iter().map(|t| t.count).collect();
            let centres: Vec<f32> = tasks
                .iter()
                .flat_map(|t| [t.centre[0], t.centre[1], t.centre[2], t.half])
                .collect();
            let dstart = upload(host, "d_TaskStart", &starts)?;
            let dcount = upload(host, "d_TaskCount", &counts)?;
            let dcentre = upload(host, "d_TaskCentre", &centres)?;
            let dchild = upload(host, "d_ChildCount", &vec![-1i32; 8 * tasks.len()])?;
            host.launch(
                None,
                [tasks.len() as u32, 1, 1],
                [BLOCK, 1, 1],
                &[
                    ArgValue::U64(src),
                    ArgValue::U64(dst),
                    ArgValue::U64(dstart),
                    ArgValue::U64(dcount),
                    ArgValue::U64(dcentre),
                    ArgValue::U64(dchild),
                ],
            )?;
            got_counts.extend(download::<i32>(host, dchild, 8 * tasks.len())?);
        }
        let got: Vec<f32> = download(host, src, 4 * n)?;
        let want_counts: Vec<i32> = want.counts[gpu_levels..].concat();
        Ok(Check::all([
            check::exact("d_ChildCount", &want_counts, &got_counts),
            check::exact("d_Src", &flat(&want.particles), &got),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partition_is_stable_and_sorts_by_octant() {
        let ps = [
            [0.9, 0.1, 0.1, 0.0], // octant 1
            [0.1, 0.1, 0.1, 1.0], // 0
            [0.6, 0.1, 0.1, 2.0], // 1
            [0.1, 0.1, 0.7, 3.0], // 4
        ];
        let part = reference(&ps, 1, 1);
        assert_eq!(part.counts, [vec![1, 2, 0, 0, 1, 0, 0, 0]]);
        let order: Vec<f32> = part.particles.iter().map(|p| p[3]).collect();
        assert_eq!(order, [1.0, 0.0, 2.0, 3.0]);
        // Octant 1 (2 particles > leaf size 1) becomes a level-1 task.
        assert_eq!(part.levels[0].len(), 1);
        let many = input(5000, 3);
        let deep = reference(&many, 16, 6);
        assert!(deep.levels.len() >= 3);
        for (tasks, counts) in deep.levels.iter().zip(&deep.counts) {
            for (t, c) in tasks.iter().zip(counts.chunks(8)) {
                assert_eq!(c.iter().sum::<i32>(), t.count);
            }
        }
        // Every leaf's particles lie in its box: the root's octants hold
        // the right halves.
        let root = &deep.counts[0];
        let x_hi = many.iter().filter(|p| p[0] >= 0.5).count() as i32;
        assert_eq!(root[1] + root[3] + root[5] + root[7], x_hi);
    }
}
