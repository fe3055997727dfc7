//! The NiLang papers' programs, generated from the `.nil` files beside this
//! crate by `build.rs` (`nilang-build`), one module per file.

nilang_runtime::include_nil!(pub mod arithmetic);
nilang_runtime::include_nil!(pub mod bennett);
nilang_runtime::include_nil!(pub mod bessel);
nilang_runtime::include_nil!(pub mod boxmuller);
nilang_runtime::include_nil!(pub mod complex);
nilang_runtime::include_nil!(pub mod consistency);
nilang_runtime::include_nil!(pub mod fft);
nilang_runtime::include_nil!(pub mod fib);
nilang_runtime::include_nil!(pub mod graph);
nilang_runtime::include_nil!(pub mod heat);
nilang_runtime::include_nil!(pub mod leapfrog);
nilang_runtime::include_nil!(pub mod linalg);
nilang_runtime::include_nil!(pub mod nice);
nilang_runtime::include_nil!(pub mod numbers);
nilang_runtime::include_nil!(pub mod qr);
nilang_runtime::include_nil!(pub mod sparse);
nilang_runtime::include_nil!(pub mod tape);
nilang_runtime::include_nil!(pub mod unitary);

pub mod baseline;
pub mod heap;
pub mod petersen;
pub mod solar;

/// The same programs compiled without run-time checks
/// (`Config::checks(false)`): faster, but a failed check would go unnoticed.
pub mod unchecked {
    nilang_runtime::include_nil!(pub mod arithmetic from "unchecked");
    nilang_runtime::include_nil!(pub mod bennett from "unchecked");
    nilang_runtime::include_nil!(pub mod bessel from "unchecked");
    nilang_runtime::include_nil!(pub mod boxmuller from "unchecked");
    nilang_runtime::include_nil!(pub mod complex from "unchecked");
    nilang_runtime::include_nil!(pub mod consistency from "unchecked");
    nilang_runtime::include_nil!(pub mod fft from "unchecked");
    nilang_runtime::include_nil!(pub mod fib from "unchecked");
    nilang_runtime::include_nil!(pub mod graph from "unchecked");
    nilang_runtime::include_nil!(pub mod heat from "unchecked");
    nilang_runtime::include_nil!(pub mod leapfrog from "unchecked");
    nilang_runtime::include_nil!(pub mod linalg from "unchecked");
    nilang_runtime::include_nil!(pub mod nice from "unchecked");
    nilang_runtime::include_nil!(pub mod numbers from "unchecked");
    nilang_runtime::include_nil!(pub mod qr from "unchecked");
    nilang_runtime::include_nil!(pub mod sparse from "unchecked");
    nilang_runtime::include_nil!(pub mod tape from "unchecked");
    nilang_runtime::include_nil!(pub mod unitary from "unchecked");

    /// The benchmark cases without checks but running every uncomputation
    /// (`Config::keep_uncomputation(true)`): the work of the checked build
    /// without its checks, for what the checks themselves cost.
    pub mod uncomputing {
        nilang_runtime::include_nil!(pub mod arithmetic from "uncomputing");
        nilang_runtime::include_nil!(pub mod bessel from "uncomputing");
        nilang_runtime::include_nil!(pub mod graph from "uncomputing");
        nilang_runtime::include_nil!(pub mod linalg from "uncomputing");
    }

    /// The benchmark cases with every loop taped, without checks.
    pub mod taped {
        nilang_runtime::include_nil!(pub mod arithmetic from "taped_unchecked");
        nilang_runtime::include_nil!(pub mod bessel from "taped_unchecked");
        nilang_runtime::include_nil!(pub mod graph from "taped_unchecked");
        nilang_runtime::include_nil!(pub mod linalg from "taped_unchecked");
    }
}

/// The same programs with every loop a `@tape` loop
/// (`Config::tape_loops(true)`): the loops record what they overwrite and
/// the gradients read it back, instead of recomputing it. Functions that
/// record take a `&mut nilang_runtime::Tape` last; their `_grad` makes its own.
/// `bennett` and `qr` are left out: they uncall functions with loops (E0702).
pub mod taped {
    nilang_runtime::include_nil!(pub mod arithmetic from "taped");
    nilang_runtime::include_nil!(pub mod bessel from "taped");
    nilang_runtime::include_nil!(pub mod complex from "taped");
    nilang_runtime::include_nil!(pub mod fib from "taped");
    nilang_runtime::include_nil!(pub mod graph from "taped");
    nilang_runtime::include_nil!(pub mod heat from "taped");
    nilang_runtime::include_nil!(pub mod linalg from "taped");
    nilang_runtime::include_nil!(pub mod sparse from "taped");
    nilang_runtime::include_nil!(pub mod tape from "taped");
    nilang_runtime::include_nil!(pub mod unitary from "taped");
}
