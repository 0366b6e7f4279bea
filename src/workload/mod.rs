//! Workloads: the host side of a kernel run — input generation, launches,
//! and checking against a CPU reference (PTX.md, "Launch manifest").
//!
//! A [`Workload`] is a small host program written against [`host::Host`];
//! the registry maps manifest `workload = "…"` names to constructors.

pub mod args;
pub mod check;
pub mod drivers;
pub mod expr;
pub mod generate;
pub mod host;
pub mod manifest;
pub mod record;
pub mod reference;
pub mod registry;
pub mod runner;
pub mod textures;

pub use check::Check;
pub use host::{Host, WorkloadError};

/// What the manifest says besides `[args]`: the launch shape (a workload
/// may derive its own), and for the generic `buffers` workload its buffer
/// and parameter declarations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Launch {
    /// `grid` from the manifest.
    pub grid: Option<[u32; 3]>,
    /// `block` from the manifest.
    pub block: Option<[u32; 3]>,
    /// `[[buffers]]` tables.
    pub buffers: Vec<toml::Table>,
    /// `[[textures]]` tables ([`textures`]).
    pub textures: Vec<toml::Table>,
    /// `params`, in kernel order.
    pub params: Vec<toml::Value>,
    /// The manifest's directory (for `file` buffers).
    pub dir: std::path::PathBuf,
    /// The manifest's `entry` (workloads whose kernels come in variants,
    /// such as the global and local HeteroSync primitives, read it).
    pub entry: Option<String>,
    /// The manifest's `shared_bytes` (dynamic shared memory per CTA).
    pub shared_bytes: Option<toml::Value>,
    /// `[[symbols]]` tables of the `buffers` workload.
    pub symbols: Vec<toml::Table>,
    /// `[[launch]]` tables of the `buffers` workload (launches and loops).
    pub steps: Vec<toml::Table>,
}

impl Launch {
    /// The manifest's grid, or `default`.
    pub fn grid_or(&self, default: [u32; 3]) -> [u32; 3] {
        self.grid.unwrap_or(default)
    }

    /// The manifest's block, or `default`.
    pub fn block_or(&self, default: [u32; 3]) -> [u32; 3] {
        self.block.unwrap_or(default)
    }
}

/// A host program: allocates buffers, launches kernels (possibly many
/// times), and checks the results against a CPU reference.
pub trait Workload {
    /// Runs the program on `host` and checks the outputs.
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError>;
}
