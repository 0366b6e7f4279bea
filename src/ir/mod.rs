//! The decoded intermediate representation and the pass that builds it.

pub mod call;
pub mod inst;
pub mod lower;

pub use inst::*;
