//! gpusim: a cycle-level simulator of a GPU streaming multiprocessor that runs
//! kernels written in real PTX.
//!
//! Layers, each depending only on those before it: [`ptx`] (front end) →
//! [`ir`] (decoded, checked instructions) → [`analysis`] (CFG,
//! post-dominators, loops).

#![warn(missing_docs)]

pub mod ptx;
