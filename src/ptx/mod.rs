//! PTX front end: lexer (logos), parser (nom over tokens), syntax tree and
//! diagnostics (miette).

pub mod ast;
pub mod diagnostics;
pub mod lexer;
pub mod not_ptx;
pub mod parser;
pub mod suggest;
