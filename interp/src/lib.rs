//! The reference interpreter of NiLang: the language's meaning, run
//! directly on the analysis's typed body of each function
//! ([`nilang_analysis::db::body`]), with no code generation and no rustc.
//!
//! It runs a checked function forwards or backwards (its uncall), with the
//! run-time checks of the checked build, and stops with the same kind of
//! error the generated code returns: the `.nil` file, line and column, the
//! check, and the values expected and found. It is for trying programs
//! (`nilc run`) and as an oracle for the backends, so it is written to be
//! obviously right before fast.

#![doc = include_str!("../README.md")]

pub mod doctest;
mod dual;
pub mod error;
mod eval;
pub mod literal;
mod local;
mod numbers;
mod ops;
mod pure;
pub mod value;

pub use error::{Check, Location, RunError};
pub use eval::{Direction, Error, Interpreter, coerce};
pub use ops::same;
pub use value::Value;
