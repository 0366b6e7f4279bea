//! Host programs of the shipped kernels, one file each.

pub mod vector_add;
