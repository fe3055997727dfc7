//! NiLang.jl spellings that parse but name nothing here: the lower-case
//! instruction calls (`add(y, x)`, `neg(y)`) and Julia's type names
//! (`Float64`, `AbstractVector{T}`). The resolver and the type lowering ask
//! this module for the rewrite and put it in their help line. (The habits
//! the grammar cannot read are in `nilang_syntax`'s `julia` module.)

use crate::ast::{Expr, Type, TypeKind};
use crate::builtins;
use crate::printer::{print_expr, print_type};

/// The rewrite of a call of `name(args)` written as NiLang.jl would, if it
/// is one: `add(y, x)` is `y += x`, `neg(y)` is `NEG(y)`.
pub fn instruction_call(name: &str, args: &[Expr]) -> Option<String> {
    let args: Vec<String> = args.iter().map(print_expr).collect();
    let op = match name {
        "add" => Some("+="),
        "sub" => Some("-="),
        "xor" => Some("⊻="),
        _ => None,
    };
    if let Some(op) = op {
        return Some(match args.as_slice() {
            [y, x] => format!("{y} {op} {x}"),
            _ => format!("y {op} x"),
        });
    }
    let upper = name.to_ascii_uppercase();
    if upper == name {
        return None;
    }
    builtins::instruction(&upper).map(|i| format!("{}({})", i.name, args.join(", ")))
}

/// Julia's name for a scalar type, and ours.
const SCALARS: &[(&str, &str)] = &[
    ("Float64", "f64"),
    ("Float32", "f32"),
    ("Int64", "i64"),
    ("Int", "i64"),
    ("Int32", "i32"),
    ("Int16", "i16"),
    ("Int8", "i8"),
    ("UInt64", "u64"),
    ("UInt32", "u32"),
    ("UInt16", "u16"),
    ("UInt8", "u8"),
    ("Bool", "bool"),
    ("ComplexF64", "Complex<f64>"),
    ("ComplexF32", "Complex<f32>"),
];

/// The help line for a type written with Julia's names, if it uses any,
/// and the type to write instead where it is certain: `AbstractVector{Float64}`
/// is `[f64]`, `AbstractMatrix{T}` is `Matrix<T>`; an array of unknown rank
/// gets both readings and no replacement.
pub fn type_help(ty: &Type) -> Option<(String, Option<String>)> {
    let mut seen = Seen::default();
    let vector = rewrite(ty, &mut seen, false);
    if !seen.julia {
        return None;
    }
    Some(if seen.unranked {
        let matrix = rewrite(ty, &mut seen, true);
        (
            format!(
                "this is Julia's spelling: write `{vector}` for a vector, `{matrix}` for a matrix"
            ),
            None,
        )
    } else {
        (
            format!("this is Julia's spelling: write `{vector}`"),
            Some(vector),
        )
    })
}

#[derive(Default)]
struct Seen {
    /// A Julia name was replaced.
    julia: bool,
    /// An `Array` without its rank was read as a vector (or, with
    /// `matrix`, as a matrix).
    unranked: bool,
}

fn rewrite(ty: &Type, seen: &mut Seen, matrix: bool) -> String {
    nilang_syntax::stack::deep(|| match &ty.kind {
        TypeKind::Named { name, args } => {
            let element = |seen: &mut Seen| {
                args.first()
                    .map_or_else(|| "T".to_string(), |a| rewrite(a, seen, matrix))
            };
            if let Some((_, ours)) = SCALARS.iter().find(|(julia, _)| julia == name) {
                seen.julia = true;
                return ours.to_string();
            }
            let rank = args.get(1).map(print_type);
            match (name.as_str(), rank.as_deref()) {
                ("AbstractVector" | "Vector" | "DenseVector" | "StridedVector", _)
                | ("AbstractArray" | "Array", Some("1")) => {
                    seen.julia = true;
                    format!("[{}]", element(seen))
                }
                ("AbstractMatrix" | "DenseMatrix" | "StridedMatrix", _)
                | ("AbstractArray" | "Array", Some("2")) => {
                    seen.julia = true;
                    format!("Matrix<{}>", element(seen))
                }
                ("AbstractArray" | "Array", None) => {
                    seen.julia = true;
                    seen.unranked = true;
                    if matrix {
                        format!("Matrix<{}>", element(seen))
                    } else {
                        format!("[{}]", element(seen))
                    }
                }
                _ if args.is_empty() => name.clone(),
                _ => {
                    let args: Vec<String> = args.iter().map(|a| rewrite(a, seen, matrix)).collect();
                    format!("{name}<{}>", args.join(", "))
                }
            }
        }
        TypeKind::Slice(inner) => format!("[{}]", rewrite(inner, seen, matrix)),
        TypeKind::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|t| rewrite(t, seen, matrix)).collect();
            format!("({})", items.join(", "))
        }
    })
}
