//! The papers' GPU cases as `@kernel` functions: the SWAP and rotation
//! gates on a state vector (appendix F of the long paper) and the Bessel
//! function J_v over a batch (table 2's GPU row), plus a gather kernel whose
//! reverse pass accumulates shared adjoints atomically. Each kernel is also
//! generated for the CPU (one call per index), which the tests compare with.

nilang::include_nil!(pub mod gates);
nilang::include_nil!(pub mod bessel);
nilang::include_nil!(pub mod gather);
nilang::include_nil!(pub mod ba);
nilang::include_nil!(pub mod math);

/// A GPU for the tests: `None` (with a message) when there is no adapter,
/// unless `NILANG_REQUIRE_GPU=1`, which makes a missing adapter a failure.
pub fn test_gpu() -> Option<nilang::gpu::Gpu> {
    match nilang::gpu::Gpu::new() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("NILANG_REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!("GPU test skipped: {e} (set NILANG_REQUIRE_GPU=1 to fail instead)");
            None
        }
        Err(e) => panic!("NILANG_REQUIRE_GPU=1, but: {e}"),
    }
}
