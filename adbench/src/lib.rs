//! ADBench's Gaussian mixture model (GMM) objective and bundle adjustment
//! (BA) residuals, each written once in `.nil` (compiled by `build.rs`) and
//! once in plain Rust, with hand-written adjoints (ADBench's "manual"
//! column), and readers for the inputs in `shared/data/adbench`.

use std::path::PathBuf;

/// The folder of the ADBench inputs (`gmm/`, `ba/`): `adbench/data`, copied
/// unchanged from ADBench's `data/` folder (commit 38cb793), or
/// `$NILANG_ADBENCH_DATA`.
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("NILANG_ADBENCH_DATA") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

pub mod ba;
pub mod gmm;

/// `gmm.nil` compiled with run-time checks: `gmm_objective`, its inverse and
/// its gradient `gmm_objective_grad`. (Named `gmm_nil` beside the plain Rust
/// module `gmm`.)
pub mod gmm_nil {
    nilang_runtime::include_nil!("gmm");
}

/// `cmul.nil`: the complex sparse product `y += A x` of the paper's sparse
/// section (`cmul`, its inverse and its gradient `cmul_grad`).
pub mod cmul_nil {
    nilang_runtime::include_nil!("cmul");
}

/// The `.nil` programs compiled without run-time checks
/// (`Config::checks(false)`), for the benchmarks.
pub mod unchecked {
    /// `gmm.nil` without run-time checks.
    pub mod gmm_nil {
        nilang_runtime::include_nil!("unchecked/gmm");
    }

    /// `gmm.nil` without run-time checks but running every uncomputation
    /// (`Config::keep_uncomputation(true)`): the checked build's work
    /// without its checks.
    pub mod uncomputing {
        /// `gmm.nil`, no checks, every uncomputation run.
        pub mod gmm_nil {
            nilang_runtime::include_nil!("uncomputing/gmm");
        }
    }

    /// `gmm.nil` with every loop taped, without run-time checks.
    pub mod taped {
        /// `gmm.nil`, loops taped, no checks.
        pub mod gmm_nil {
            nilang_runtime::include_nil!("taped_unchecked/gmm");
        }
    }
}

/// `gmm.nil` with every loop a `@tape` loop (`Config::tape_loops(true)`):
/// what the loops overwrite is recorded instead of recomputed.
pub mod taped {
    /// `gmm.nil`, loops taped.
    pub mod gmm_nil {
        nilang_runtime::include_nil!("taped/gmm");
    }
}
