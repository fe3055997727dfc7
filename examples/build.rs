// Compiles the paper's programs into Rust modules in OUT_DIR.
//
// complex.nil (complex numbers), qr.nil (matrices, broadcasts) and
// sparse.nil (CSC matrices) pass `nilc check` but need types the Rust
// backend does not generate yet, so they are not listed here.
fn main() {
    nilang_build::compile_files(&[
        "arithmetic.nil",
        "bennett.nil",
        "bessel.nil",
        "fib.nil",
        "linalg.nil",
        "unitary.nil",
    ]);
}
