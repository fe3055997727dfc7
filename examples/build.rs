// Compiles the paper's programs, the `.nil` files beside this crate, into
// Rust modules in OUT_DIR (one module per file), and once more without the
// run-time checks into OUT_DIR/unchecked, for the benchmarks, and once more
// with every loop a `@tape` loop into OUT_DIR/taped (reverse computing
// against taping on one source), and the benchmark cases without checks but
// with every uncomputation kept into OUT_DIR/uncomputing.
const FILES: &[&str] = &[
    "arithmetic.nil",
    "bennett.nil",
    "bessel.nil",
    "boxmuller.nil",
    "complex.nil",
    "consistency.nil",
    "fft.nil",
    "fib.nil",
    "graph.nil",
    "heat.nil",
    "leapfrog.nil",
    "linalg.nil",
    "nice.nil",
    "numbers.nil",
    "qr.nil",
    "sparse.nil",
    "tape.nil",
    "unitary.nil",
];

// Those of FILES that compile with every loop taped: `bennett.nil` and
// `qr.nil` uncall functions with loops (`~f`), which would need a tape that
// their forward call never recorded (E0702).
const TAPED_FILES: &[&str] = &[
    "arithmetic.nil",
    "bessel.nil",
    "complex.nil",
    "fib.nil",
    "graph.nil",
    "heat.nil",
    "linalg.nil",
    "sparse.nil",
    "tape.nil",
    "unitary.nil",
];

fn main() {
    nilang_build::compile_files(FILES);
    let out_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    nilang_build::report(
        nilang_build::Config::new()
            .checks(false)
            .out_dir(out_dir.join("unchecked"))
            .compile_files(FILES),
    );
    nilang_build::report(
        nilang_build::Config::new()
            .tape_loops(true)
            .out_dir(out_dir.join("taped"))
            .compile_files(TAPED_FILES),
    );
    // The benchmark cases without checks but with every uncomputation
    // kept, for the checks' own cost: the checked build against the same
    // work (Bessel, the graph loss and what they call).
    nilang_build::report(
        nilang_build::Config::new()
            .checks(false)
            .keep_uncomputation(true)
            .out_dir(out_dir.join("uncomputing"))
            .compile_files(&["arithmetic.nil", "bessel.nil", "graph.nil", "linalg.nil"]),
    );
    // The benchmark cases taped and without checks, to set beside
    // `unchecked` (Bessel, the graph loss and what they call).
    nilang_build::report(
        nilang_build::Config::new()
            .tape_loops(true)
            .checks(false)
            .out_dir(out_dir.join("taped_unchecked"))
            .compile_files(&["arithmetic.nil", "bessel.nil", "graph.nil", "linalg.nil"]),
    );
}
