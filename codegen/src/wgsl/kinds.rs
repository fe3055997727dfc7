//! WGSL's kinds of values, the names of WGSL functions and locals, and
//! the math functions' spellings.

use super::*;

pub(super) fn kind_of_ty(ty: &Ty, float: &'static str) -> K {
    match ty {
        Ty::Scalar(Scalar::F64) => K::Float("f64"),
        Ty::Scalar(Scalar::F32) => K::Float("f32"),
        Ty::Scalar(Scalar::Bool) => K::Bool,
        Ty::Scalar(_) => K::Int,
        Ty::Generic(_) => K::Float(float),
        Ty::Slice(inner) => elem_array(kind_of_ty(inner, float)),
        Ty::Constructed(Ctor::Vec, args) if args.len() == 1 => {
            elem_array(kind_of_ty(&args[0], float))
        }
        _ => K::Unknown,
    }
}

/// Keyword parameters of called functions (tolerances, mostly) take the
/// kernel's float type: an `f64` one would need `SHADER_F64` in an `f32`
/// kernel.
pub(super) fn kw_kind(k: K, float: &'static str) -> K {
    match k {
        K::Float(_) => K::Float(float),
        k => k,
    }
}

pub(super) fn elem_array(k: K) -> K {
    match k {
        K::Float(f) => K::Array(f),
        K::Int => K::Array("i32"),
        _ => K::Unknown,
    }
}

pub(super) fn elem_kind(elem: &'static str) -> K {
    match elem {
        "i32" => K::Int,
        f => K::Float(f),
    }
}

pub(super) fn wgsl_ty(k: K) -> &'static str {
    match k {
        K::Int | K::LitInt => "i32",
        K::Bool => "bool",
        K::Float(f) => f,
        K::LitFloat => "f32",
        K::Array(_) | K::Unknown => "i32",
    }
}

/// The WGSL name of a `.nil` function in a pass: `u_` before the Rust
/// spelling, so that it never meets the shaders' own helpers (`nil_...`)
/// or WGSL's built-ins (a function `powi_f32` would otherwise be
/// `nil_powi_f32`, the helper's name).
pub(super) fn fn_name(name: &str, pass: Pass) -> String {
    format!("u_{}", pass.rust_name(name, Launcher::Cpu))
}

/// An elementary function of floats. Vulkan's extended instructions
/// (GLSL.std.450) compute `sin`, `exp`, `pow`, ... in 32 bits only, so in
/// `f64` they are the shader's own functions ([`F64_MATH`]); `sqrt`, `abs`,
/// `floor` and arithmetic are native in both.
pub(super) fn trans(f: &str, args: &str, ty: &str) -> String {
    if ty == "f64" {
        format!("nil_{f}_f64({args})")
    } else {
        format!("{f}({args})")
    }
}

pub(super) fn plain(name: &str) -> String {
    rust_name(name).trim_start_matches("r#").to_string()
}
