// Compiles the evals' `.nil` programs into OUT_DIR.
fn main() {
    // ADBench's GMM file comes along for the helpers `gmm_posterior` calls.
    nilang_build::compile_files(&[
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
        "../adbench/gmm.nil",
    ]);
}
