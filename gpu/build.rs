// Compiles the kernels (and the functions they call) into OUT_DIR, and once
// more without the run-time checks into OUT_DIR/unchecked: in f32 the
// Bessel program is not reversible to the checks' tolerance, and the
// unchecked CPU code is what the GPU (which has no checks) is compared with.
const FILES: &[&str] = &[
    "gates.nil",
    "bessel.nil",
    "gather.nil",
    "ba.nil",
    "math.nil",
    "circuit.nil",
];

fn main() {
    nilang_build::compile_files(FILES);
    let out_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    nilang_build::report(
        nilang_build::Config::new()
            .checks(false)
            .out_dir(out_dir.join("unchecked"))
            .compile_files(&["bessel.nil"]),
    );
}
