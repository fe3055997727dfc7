//! The GPU backend: a `@kernel` function becomes WGSL compute shaders (one
//! invocation per index) and Rust launchers that run them through
//! `nilang::gpu` (wgpu).
//!
//! Each kernel gets shaders for its call, its uncall and, when it has
//! differentiable parameters, its reverse pass (the adjoint kernel), per
//! float type: `f32`, and `f64` for generic kernels (run only where the
//! device has `SHADER_F64`). Functions a kernel calls become WGSL functions
//! (scalar parameters only; the ones they change by pointer), in the passes
//! the kernel needs. The adjoint rules are the Rust backend's: the local
//! derivatives come from [`super::adjoint::push_partials`] through the
//! [`Deriv`] trait, rendered in WGSL.
//!
//! Conventions shared with `runtime/src/gpu.rs`:
//! - `global_index()` is the invocation's index, `1..=n` (1-based, like
//!   every index in NiLang);
//! - binding 0 is a uniform struct: `n`, the dispatch's first invocation,
//!   then the scalar parameters and keyword parameters in order; bindings
//!   1.. are the array parameters in order (in the reverse pass each float
//!   array followed by its adjoint), then one single-element buffer per
//!   adjoint of a float scalar parameter;
//! - integers are `i32`, booleans `u32` in the uniform block;
//! - no run-time checks (a shader cannot return an error): the static
//!   shared-write analysis ([`crate::kernel`]) is what keeps kernels right;
//! - an adjoint that several invocations add to (an array read at an index
//!   other than the invocation's own, a scalar parameter) is, by default
//!   ([`Atomics::Deterministic`]), written per invocation and summed by the
//!   runtime in a fixed order: a scalar's adjoint as one slot per
//!   invocation (bound in place of the adjoint), an array's as a log of
//!   (index + 1, value) entries, a fixed number per invocation (two
//!   bindings in place of the adjoint, keys then values). The `f32`
//!   reverse pass also comes with atomic adds (`Gpu::set_reduction`): an
//!   `atomic<u32>` buffer updated by a compare-and-swap loop on the bits
//!   of an `f32`, or an `atomic<f32>` with `atomicAdd` where the device has
//!   `SHADER_FLOAT32_ATOMIC`. An array read at computed indices inside a
//!   loop has no fixed number of entries, so it takes atomics only: its
//!   `f64` reverse pass is not generated (E0804 for a concrete `f64`; the
//!   launcher of a generic one returns `GpuError::Unsupported`).
//!
//! Files: `kinds` (WGSL types and names), `exprs` (expressions, places and
//! where their adjoints go), `stmts` (statements), `instructions` (built-in
//! instructions and their adjoint rules), `calls` (calls of `.nil`
//! functions), `shader` (a kernel's shaders and the variants generated),
//! `launcher` (the Rust that runs them), `f64_math.wgsl` (the `f64` math
//! library, included at build time).

use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::Arc;

use super::adjoint::{Deriv, push_partials};
use super::{CodegenContext, rust_name};
use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::invert::{
    explicit_deallocations, invert_function, invert_stmt, routine_pairs, unroutine_expansion,
};
use crate::resolve::{DefKind, Resolution};
use crate::ty::{Ctor, Scalar, Ty};
use crate::types::FunctionTypes;
use nilang_analysis::names::{self, Launcher};

mod calls;
mod exprs;
mod instructions;
mod kinds;
mod launcher;
mod shader;
mod stmts;

use kinds::*;
pub use launcher::launchers;
pub use shader::{all_shaders, kernel_shader};
use shader::{concrete_f64, differentiable, kernel_params, own_float};

/// Invocations per workgroup.
pub const WORKGROUP_SIZE: u32 = 64;

/// A function a kernel calls, as the WGSL backend needs it: the analysis's
/// memoized results, shared, not copied per call site.
pub struct CalleeBody {
    pub function: Arc<Function>,
    pub resolution: Arc<Resolution>,
    pub types: Arc<FunctionTypes>,
    pub mutated: Vec<bool>,
}

/// Which program a shader or WGSL function runs.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Pass {
    Forward,
    Inverse,
    /// The reverse pass of the call: the inverse with adjoint rules.
    Adjoint,
    /// The reverse pass of the uncall: the call with adjoint rules.
    UncallAdjoint,
}

impl Pass {
    fn differentiating(self) -> bool {
        matches!(self, Pass::Adjoint | Pass::UncallAdjoint)
    }

    /// The Rust name of this pass of the kernel `name`, run by `launcher`
    /// (`uncall_f_device`; the shader's functions put `u_` before it).
    pub(crate) fn rust_name(self, name: &str, launcher: names::Launcher) -> String {
        let inverse = matches!(self, Pass::Inverse | Pass::UncallAdjoint);
        let pass = if self.differentiating() {
            names::Pass::Adjoint
        } else {
            names::Pass::Plain
        };
        names::generated_name(name, inverse, pass, launcher)
    }
}

/// How adjoints that several invocations add to are accumulated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Atomics {
    /// Each addition goes to a slot of the invocation's own, which the
    /// runtime sums in a fixed order after the kernel (`nilang::gpu::Reduce`):
    /// reproducible bit for bit, in `f32` and `f64`.
    Deterministic,
    /// Compare-and-swap on `atomic<u32>` holding `f32` bits.
    Cas,
    /// `atomic<f32>` and `atomicAdd` (needs `SHADER_FLOAT32_ATOMIC`).
    Native,
}

/// The device type of a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    Int,
    Bool,
    Float(&'static str),
    LitInt,
    LitFloat,
    /// An array (storage buffer) of this element type.
    Array(&'static str),
    Unknown,
}

impl K {
    /// A float, or an array of floats: a value with an adjoint.
    fn is_float(self) -> bool {
        matches!(self, K::Float(_) | K::Array("f32" | "f64"))
    }
}

/// `f64` elementary functions in WGSL, to a few units in the last place:
/// argument reduction (Cody and Waite's split constants, as in fdlibm) and
/// Taylor series short enough to converge on the reduced interval. The text
/// is `wgsl/f64_math.wgsl`; it calls `nil_powi_f64`, which the shader writes
/// before it.
pub const F64_MATH: &str = include_str!("f64_math.wgsl");

struct W<'a> {
    resolution: &'a Resolution,
    types: &'a FunctionTypes,
    mutated: &'a [bool],
    ctx: &'a dyn CodegenContext,
    float: &'static str,
    out: String,
    level: usize,
    tmp: usize,
    diagnostics: Vec<Diagnostic>,
    ad: bool,
    /// The kernel's entry point (arrays, uniforms) rather than a function.
    entry: bool,
    /// Array parameters (by position) whose adjoint is atomic.
    atomic: BTreeSet<usize>,
    atomics: Atomics,
    /// Additions to each shared array adjoint (by parameter position)
    /// written so far: the slots an invocation needs in `Deterministic`.
    log_sites: std::collections::BTreeMap<usize, u32>,
    /// The functions called, and in which pass.
    needs: BTreeSet<(String, Pass)>,
    /// While an instruction's partials are taken: the name of a function
    /// array (empty until the first) and the products of a long product
    /// chain bound to its elements ([`Deriv::bind`]), written before the
    /// partials that read them.
    partial_slots: Option<crate::adjoint::Slots>,
}

impl W<'_> {
    pub(super) fn line(&mut self, text: &str) {
        for _ in 0..self.level {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    pub(super) fn fresh(&mut self, prefix: &str) -> String {
        fresh_name(&mut self.tmp, prefix)
    }

    pub(super) fn unsupported(&mut self, span: Span, what: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                "E0701",
                span,
                format!("the GPU backend cannot generate {what} yet"),
            )
            .with_label("in a kernel")
            .with_help("kernels take scalars and 1-D arrays of numbers, and call functions with scalar parameters"),
        );
    }

    pub(super) fn def_of(&self, span: Span) -> Option<usize> {
        self.resolution.def_at(span)
    }
}

/// The next fresh name with `prefix` (`W::fresh`), from the counter alone,
/// for where the rest of `W` is borrowed.
fn fresh_name(tmp: &mut usize, prefix: &str) -> String {
    *tmp += 1;
    format!("nil_{prefix}{tmp}")
}

/// What follows a call of a WGSL function.
enum After {
    /// Copy a temporary back.
    Line(String),
    /// An expression argument's adjoint (in the temporary `adjoint`) goes
    /// to the places the argument `arg` reads.
    Spread { adjoint: String, arg: usize },
}

/// One parameter of a kernel as the launcher and the shader see it.
struct KParam {
    name: String,
    kind: K,
    /// The Rust type (element type for arrays).
    rust: String,
    mutated: bool,
    positional: bool,
}

/// One shader generated for a kernel.
#[derive(Clone, Debug)]
pub struct ShaderVariant {
    pub pass: Pass,
    pub float: &'static str,
    pub atomics: Atomics,
    pub wgsl: String,
    /// Under [`Atomics::Deterministic`]: for each array parameter (by
    /// position) whose adjoint is shared, the additions an invocation
    /// makes to it at most (its log entries).
    pub log_sites: std::collections::BTreeMap<usize, u32>,
}
