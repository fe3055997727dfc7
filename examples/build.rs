// Compiles the paper's programs, the `.nil` files beside this crate, into
// Rust modules in OUT_DIR (one module per file), and once more without the
// run-time checks into OUT_DIR/unchecked, for the benchmarks.
const FILES: &[&str] = &[
    "arithmetic.nil",
    "bennett.nil",
    "bessel.nil",
    "complex.nil",
    "fib.nil",
    "graph.nil",
    "heat.nil",
    "leapfrog.nil",
    "linalg.nil",
    "qr.nil",
    "sparse.nil",
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
}
