//! The built-in matrix's runtime half (issue "one typed body", item 5):
//! the cells of `compiler/tests/matrix/cells.rs` that the analysis
//! accepts, compiled into one module, checked (with gradients) and
//! unchecked, and a driver per cell that `tests/run.rs` runs: forwards,
//! backwards to its inputs, and for a float or complex type its gradient
//! against central differences.
//!
//! Which cells: the slice `generate::in_slice` selects (`compiler/tests/matrix.rs`
//! takes every cell through the analysis and both backends, and
//! `tests/every_cell.rs` compiles the rest with rustc in crates of its own:
//! all of them here would add about a million lines of Rust to the tests'
//! build).

use std::path::Path;

#[path = "../../compiler/tests/matrix/cells.rs"]
#[allow(dead_code)]
mod cells;
#[path = "generate.rs"]
mod generate;

fn main() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    matrix(&out);
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=generate.rs");
    println!("cargo::rerun-if-changed=../../compiler/tests/matrix/cells.rs");
}

/// Writes `OUT_DIR/matrix/matrix.nil` (the accepted cells of the slice,
/// one file) and `OUT_DIR/matrix.rs` (their Rust and drivers).
fn matrix(out: &Path) {
    let (nil, rs) = generate::generate(&generate::accepted(generate::in_slice));
    let dir = out.join("matrix");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/matrix");
    std::fs::write(dir.join("matrix.nil"), &nil).expect("write matrix.nil");
    std::fs::write(out.join("matrix.rs"), rs).expect("write matrix.rs");
}
