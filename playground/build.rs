//! The WebAssembly module's stack: rustc's default for wasm32 is 1 MiB,
//! which the analysis's and the interpreter's recursion over a deeply
//! nested program can pass (natively they grow their stack on the heap,
//! which WebAssembly cannot). 16 MiB, out of the module's linear memory.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("wasm") {
        println!("cargo::rustc-link-arg-cdylib=-zstack-size=16777216");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
