//! A GradBench tool (github.com/gradbench/gradbench): the protocol in
//! [`protocol`], the evals in [`evals`], each a `.nil` program under
//! `evals/` (compiled into [`nil`]) differentiated by NiLang's own gradient
//! programs.

pub mod evals;
pub mod protocol;

/// The generated Rust of the `.nil` programs.
pub mod nil {
    nilang_runtime::include_nil!(pub mod hello);
    nilang_runtime::include_nil!(pub mod lse);
    nilang_runtime::include_nil!(pub mod llsq);
    nilang_runtime::include_nil!(pub mod det);
    nilang_runtime::include_nil!(pub mod kmeans);
    nilang_runtime::include_nil!(pub mod ode);
    nilang_runtime::include_nil!(pub mod lstm);
    nilang_runtime::include_nil!(pub mod gmm_posterior);
    nilang_runtime::include_nil!(pub mod ht);
    nilang_runtime::include_nil!(pub mod particle);
    nilang_runtime::include_nil!(pub mod saddle);
    // ADBench's GMM program, compiled here for the pieces `gmm_posterior`
    // calls.
    nilang_runtime::include_nil!(pub mod gmm);
}
