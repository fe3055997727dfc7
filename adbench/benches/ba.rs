//! Bundle adjustment on ADBench's ba1, ba4 and ba7 (three of the instances
//! the NiLang paper times): the residuals in plain Rust and from `ba.nil`
//! (with and without run-time checks), and the full sparse Jacobian by hand
//! and from `ba.nil`'s gradient program, written into a CSR structure built
//! beforehand. Run with `cargo bench -p nilang-adbench --bench ba`.
//!
//! One run on a shared 2-core machine (load about 2.8, so only rough),
//! medians in ms, ba1 / ba4 / ba7:
//!
//! | what | ba1 | ba4 | ba7 |
//! | --- | --- | --- | --- |
//! | residuals, plain Rust | 0.68 | 4.76 | 6.55 |
//! | residuals, `ba.nil` checked | 2.05 | 13.5 | 20.2 |
//! | residuals, `ba.nil` unchecked | 0.92 | 5.72 | 7.93 |
//! | Jacobian, by hand | 2.41 | 19.5 | 27.2 |
//! | Jacobian, `ba.nil` checked | 3.23 | 24.4 | 33.7 |
//! | Jacobian, `ba.nil` unchecked | 2.86 | 21.1 | 29.7 |
//! | CSR structure (`BaJacobian::new`, once) | 2.6 | 21.6 | 29.5 |
//!
//! Jacobian over plain residuals: by hand 3.5 / 4.1 / 4.1; `ba.nil`
//! unchecked 4.2 / 4.4 / 4.5 (3.1 / 3.7 / 3.7 over its own unchecked
//! residuals); ADBench's hand-written C++ reported 6.5 to 7.4, the NiLang
//! paper 8.1 to 9.2.

use divan::{Bencher, black_box};
use nilang_adbench::ba::{self, BaInput, BaJacobian};
use nilang_adbench::data_dir;
use std::sync::LazyLock;

fn main() {
    divan::main();
}

const FILES: [&str; 3] = [
    "ba1_n49_m7776_p31843.txt",
    "ba4_n372_m47423_p204472.txt",
    "ba7_n93_m61203_p287451.txt",
];

static INPUTS: LazyLock<Vec<BaInput>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|f| BaInput::read(data_dir().join("ba").join(f)).expect("BA input"))
        .collect()
});

fn input(name: &str) -> &'static BaInput {
    let i = FILES
        .iter()
        .position(|f| f.starts_with(name))
        .expect("file");
    &INPUTS[i]
}

const SIZES: [&str; 3] = ["ba1_", "ba4_", "ba7_"];

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn residuals_plain(bencher: Bencher, name: &str) {
    let input = input(name);
    let (mut r, mut w) = (vec![0.0; 2 * input.p], vec![0.0; input.p]);
    bencher.bench_local(|| ba::residuals(black_box(input), &mut r, &mut w));
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn residuals_nil(bencher: Bencher, name: &str) {
    let input = input(name);
    let (mut r, mut w) = (vec![0.0; 2 * input.p], vec![0.0; input.p]);
    bencher.bench_local(|| ba::nil_residuals(black_box(input), &mut r, &mut w).unwrap());
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn residuals_nil_unchecked(bencher: Bencher, name: &str) {
    let input = input(name);
    let (mut r, mut w) = (vec![0.0; 2 * input.p], vec![0.0; input.p]);
    bencher.bench_local(|| ba::nil_unchecked_residuals(black_box(input), &mut r, &mut w).unwrap());
}

/// No run-time checks, but every uncomputation run: the checked build's
/// work without its checks.
#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn residuals_nil_uncomputing(bencher: Bencher, name: &str) {
    let input = input(name);
    let (mut r, mut w) = (vec![0.0; 2 * input.p], vec![0.0; input.p]);
    bencher
        .bench_local(|| ba::nil_uncomputing_residuals(black_box(input), &mut r, &mut w).unwrap());
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn jacobian_manual(bencher: Bencher, name: &str) {
    let input = input(name);
    let mut j = BaJacobian::new(input);
    bencher.bench_local(|| ba::manual_jacobian(black_box(input), &mut j));
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn jacobian_nil(bencher: Bencher, name: &str) {
    let input = input(name);
    let mut j = BaJacobian::new(input);
    bencher.bench_local(|| ba::nil_jacobian(black_box(input), &mut j).unwrap());
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn jacobian_nil_unchecked(bencher: Bencher, name: &str) {
    let input = input(name);
    let mut j = BaJacobian::new(input);
    bencher.bench_local(|| ba::nil_unchecked_jacobian(black_box(input), &mut j).unwrap());
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn jacobian_structure(bencher: Bencher, name: &str) {
    let input = input(name);
    bencher.bench_local(|| BaJacobian::new(black_box(input)));
}
