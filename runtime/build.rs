//! Generates the standard library (`nilang::stdlib`) from the `.nil`
//! modules the compiler ships (`nilang_analysis::stdlib`), so a crate that
//! writes `using std.linalg` calls code compiled once, here.

fn main() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("stdlib");
    nilang_build::report(
        nilang_build::Config::new()
            .read_metadata(false)
            .runtime_path("crate")
            .out_dir(out)
            .compile_std(),
    );
    println!("cargo::rerun-if-changed=build.rs");
}
