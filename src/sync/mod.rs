//! The AWG family of work-group synchronization (Duţu et al., "Independent
//! Forward Progress of Work-groups", ISCA 2020): the `--sync` policies
//! ([`policy::SyncPolicy`]) and the hardware structures for waiting atomics
//! (Section V.A "Hardware Components"): the L2-side synchronization monitor [`syncmon::SyncMon`]
//! (condition cache, waiting-WG list, Monitor Log) and the per-address
//! counting Bloom filters ([`bloom::CountingBloom`]) that count unique
//! updates. Pure data structures: no timing; the timing model decides when
//! they are consulted and what a resumed work-group does.

pub mod bloom;
pub mod policy;
pub mod syncmon;
