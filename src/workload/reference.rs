//! CPU references: what each kernel must compute, written as plain Rust.
