//! A GradBench tool (github.com/gradbench/gradbench): the protocol in
//! [`protocol`], the evals in [`evals`], each a `.nil` program under
//! `evals/` differentiated by NiLang's own gradient programs, compiled twice:
//! with the run-time reversibility checks into [`nil`], without them into
//! [`nil_unchecked`] ([`evals::Build`] says which runs).

pub mod evals;
pub mod protocol;

/// The generated Rust of the `.nil` programs, with run-time checks.
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

/// The same programs compiled without run-time checks
/// (`Config::checks(false)`): a failed check would go unnoticed.
pub mod nil_unchecked {
    nilang_runtime::include_nil!(pub mod hello from "unchecked");
    nilang_runtime::include_nil!(pub mod lse from "unchecked");
    nilang_runtime::include_nil!(pub mod llsq from "unchecked");
    nilang_runtime::include_nil!(pub mod det from "unchecked");
    nilang_runtime::include_nil!(pub mod kmeans from "unchecked");
    nilang_runtime::include_nil!(pub mod ode from "unchecked");
    nilang_runtime::include_nil!(pub mod lstm from "unchecked");
    nilang_runtime::include_nil!(pub mod gmm_posterior from "unchecked");
    nilang_runtime::include_nil!(pub mod ht from "unchecked");
    nilang_runtime::include_nil!(pub mod particle from "unchecked");
    nilang_runtime::include_nil!(pub mod saddle from "unchecked");
    nilang_runtime::include_nil!(pub mod gmm from "unchecked");
}
