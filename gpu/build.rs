// Compiles the kernels (and the functions they call) into OUT_DIR.
fn main() {
    nilang_build::compile_files(&[
        "gates.nil",
        "bessel.nil",
        "gather.nil",
        "ba.nil",
        "math.nil",
    ]);
}
