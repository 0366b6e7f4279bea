//! Subcommands of the `gpusim` binary that live in their own file: each
//! parses its arguments (a clap `Args` struct) and calls the library.

pub mod explain;
pub mod list;
pub mod plot;
pub mod report;
pub mod sweep;
