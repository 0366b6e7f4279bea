//! The functional core: a SIMT interpreter that executes warps of a kernel
//! instruction by instruction (DESIGN §2).
//!
//! The timing model (or, in functional-only mode, [`launch`]) decides which
//! warp issues; [`exec::exec`] executes its next instruction for the active
//! lanes and returns a [`DynInst`] describing what happened. Global and
//! shared atomics are split: `exec` reads the operands, and
//! [`exec::perform_atomic`] does the read-modify-write when the memory system
//! says the request has arrived.

pub mod call;
pub mod decode;
pub mod dyninst;
pub mod error;
pub mod exec;
pub mod float;
pub mod intops;
pub mod launch;
pub mod layout;
pub mod memory;
pub mod simt_stack;
pub mod spin;
pub mod texture;
pub mod warp;

pub use dyninst::{DynInst, OpClass};
pub use error::{SimError, SimErrorData, SimErrorKind};
pub use launch::{FuncStats, LaunchConfig};
pub use memory::GlobalMemory;
pub use warp::Warp;
