//! gpusim: a cycle-level simulator of a GPU streaming multiprocessor that runs
//! kernels written in real PTX.
//!
//! Layers, each depending only on those before it: [`ptx`] (front end:
//! lexer, parser, diagnostics) → [`ir`] (decoded, checked instructions) →
//! [`analysis`] (CFG, post-dominators, loops) → [`program`] (the compiled,
//! immutable module) → [`report`] (renderings).
//!
//! ```
//! let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
//!            .visible .entry k() { ret; }";
//! let prog = gpusim::compile(gpusim::SourceFile::new("k.ptx", src)).unwrap();
//! assert_eq!(prog.module.kernels[0].name, "k");
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod config;
pub mod fixture;
pub mod func;
pub mod ir;
pub mod program;
pub mod ptx;
pub mod report;
pub mod sched;
pub mod study;
pub mod sync;
pub mod timing;
pub mod workload;

pub use program::{Program, compile, compile_bytes, front_end, load};
pub use ptx::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span};
