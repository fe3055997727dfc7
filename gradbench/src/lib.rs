//! A GradBench tool (github.com/gradbench/gradbench): the protocol in
//! [`protocol`], the evals in [`evals`], each written in `.nil` under
//! `evals/` and differentiated by NiLang's own gradient programs.

pub mod evals;
pub mod protocol;

nilang_runtime::include_nil!(pub mod hello);
nilang_runtime::include_nil!(pub mod lse);
nilang_runtime::include_nil!(pub mod llsq);
nilang_runtime::include_nil!(pub mod det);
nilang_runtime::include_nil!(pub mod kmeans);
nilang_runtime::include_nil!(pub mod ode);
nilang_runtime::include_nil!(pub mod lstm);
nilang_runtime::include_nil!(pub mod gmm_posterior);
// ADBench's GMM program, compiled here for the pieces `gmm_posterior` uses.
nilang_runtime::include_nil!(pub mod gmm);
