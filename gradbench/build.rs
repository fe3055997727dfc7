// Compiles the evals' `.nil` programs into OUT_DIR.
fn main() {
    nilang_build::compile_files(&["evals/hello.nil", "evals/lse.nil", "evals/llsq.nil"]);
}
