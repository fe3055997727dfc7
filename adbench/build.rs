// Compiles the `.nil` programs beside this crate into OUT_DIR, and once more
// without run-time checks into OUT_DIR/unchecked for the benchmarks, and
// `gmm.nil` with every loop a `@tape` loop into OUT_DIR/taped (taping
// against reverse computing on one source); `ba.nil` and `gmm.nil` without
// checks but with every uncomputation kept into OUT_DIR/uncomputing. `cmul` is compiled a second time
// with its matrix constant (`cmul_const_A`), for the gradient with respect to
// `x` alone.
const FILES: &[&str] = &["ba.nil", "cmul.nil", "gmm.nil"];

fn main() {
    nilang_build::report(
        nilang_build::Config::new()
            .variant("cmul", ["A"])
            .compile_files(FILES),
    );
    let out_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    nilang_build::report(
        nilang_build::Config::new()
            .checks(false)
            .out_dir(out_dir.join("unchecked"))
            .compile_files(FILES),
    );
    // Without checks but with every uncomputation kept: the checked build's
    // work without its checks, for what the checks themselves cost.
    nilang_build::report(
        nilang_build::Config::new()
            .checks(false)
            .keep_uncomputation(true)
            .out_dir(out_dir.join("uncomputing"))
            .compile_files(&["ba.nil", "gmm.nil"]),
    );
    nilang_build::report(
        nilang_build::Config::new()
            .tape_loops(true)
            .out_dir(out_dir.join("taped"))
            .compile_files(&["gmm.nil"]),
    );
    nilang_build::report(
        nilang_build::Config::new()
            .tape_loops(true)
            .checks(false)
            .out_dir(out_dir.join("taped_unchecked"))
            .compile_files(&["gmm.nil"]),
    );
}
