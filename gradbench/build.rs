// Compiles the evals' `.nil` programs into OUT_DIR, with the run-time
// reversibility checks, and once more without them into OUT_DIR/unchecked:
// the tool runs either build (`--unchecked`, see the README).
const FILES: &[&str] = &[
    "evals/hello.nil",
    "evals/lse.nil",
    "evals/llsq.nil",
    "evals/det.nil",
    "evals/kmeans.nil",
    "evals/ode.nil",
    "evals/lstm.nil",
    "evals/gmm_posterior.nil",
    "evals/ht.nil",
    "evals/particle.nil",
    "evals/saddle.nil",
    // ADBench's GMM file comes along for the helpers `gmm_posterior` calls.
    "../adbench/gmm.nil",
];

fn main() {
    nilang_build::report(nilang_build::Config::new().compile_files(FILES));
    let out_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    nilang_build::report(
        nilang_build::Config::new()
            .checks(false)
            .out_dir(out_dir.join("unchecked"))
            .compile_files(FILES),
    );
}
