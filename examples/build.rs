// Compiles the paper's programs, the `.nil` files beside this crate, into
// Rust modules in OUT_DIR (one module per file).
fn main() {
    nilang_build::compile_files(&[
        "arithmetic.nil",
        "bennett.nil",
        "bessel.nil",
        "complex.nil",
        "fib.nil",
        "linalg.nil",
        "qr.nil",
        "sparse.nil",
        "unitary.nil",
    ]);
}
