//! Workload names → constructors.

use crate::workload::args::Args;
use crate::workload::drivers;
use crate::workload::host::WorkloadError;
use crate::workload::{Launch, Workload};

/// A constructor: reads its arguments, returns the workload.
pub type Constructor = fn(&mut Args, Launch) -> Result<Box<dyn Workload>, WorkloadError>;

/// Every workload, by manifest name.
pub const WORKLOADS: &[(&str, Constructor)] = &[("vector_add", |a, l| {
    Ok(Box::new(drivers::vector_add::VectorAdd::new(a, l)?))
})];

/// Builds workload `name` from its arguments; unknown names and unknown
/// arguments are errors.
pub fn create(
    name: &str,
    args: &mut Args,
    launch: Launch,
) -> Result<Box<dyn Workload>, WorkloadError> {
    let Some((_, ctor)) = WORKLOADS.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = WORKLOADS.iter().map(|(n, _)| *n).collect();
        let hint = crate::ptx::suggest::closest(name, names.iter().copied())
            .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
        return Err(WorkloadError::Args(format!(
            "unknown workload `{name}`{hint}; known: {}",
            names.join(", ")
        )));
    };
    let w = ctor(args, launch)?;
    args.finish()?;
    Ok(w)
}
