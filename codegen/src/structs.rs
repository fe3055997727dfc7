//! User structs in the Rust backend.
//!
//! Each `struct Point{T} x::T; y::T end` of a file becomes, in that file's
//! module,
//!
//! ```text
//! #[derive(Clone, Copy, Debug, Default, PartialEq)]
//! pub struct Point<T> { pub x: T, pub y: T }
//! impl<T> nilang::CheckEq for Point<T> where T: nilang::CheckEq { ... }
//! ```
//!
//! so Rust callers build values with a struct literal. A parameter of a
//! struct type is `&mut Point<T>` when the function changes it and
//! `Point<T>` (a copy) otherwise, like a scalar. A construction
//! `p ← Point(a, b)` is `let mut p: Point<T> = Point { x: a, y: b };`; a
//! destruction `p → Point(a, b)` checks the whole value with `CheckEq`
//! (field by field, floating point within the tolerance) and reports the
//! `.nil` file, line, and both values on failure.
//!
//! Adjoints: the adjoint of a `Point<T>` is a `Point<G>` (every type
//! argument that carries a derivative replaced by the adjoint type `G`, the
//! others kept), so `p.x`'s adjoint is `p_bar.x`. A field whose declared type
//! does not mention a type parameter (`n::i64`, but also `w::f64`) keeps its
//! type in the adjoint struct; a concrete float field carries no adjoint,
//! and differentiating through one is reported (E0701) rather than giving a
//! wrong gradient. Declare such a field with a type parameter.

use std::sync::Arc;

use super::{Gen, Kind, rust_name};
use crate::ast::*;
use crate::kinds::differentiable;

/// The Rust of a file's struct definitions.
pub fn structs_rust(defs: &[Arc<StructDef>]) -> String {
    let mut out = String::new();
    for def in defs {
        if let Some(doc) = &def.doc {
            for l in doc.lines() {
                out.push_str(format!("/// {}", l.trim()).trim_end());
                out.push('\n');
            }
        }
        let name = rust_name(&def.name.name);
        let params: Vec<String> = def
            .generics
            .iter()
            .map(|g| rust_name(&g.name.name))
            .collect();
        let generics = if params.is_empty() {
            String::new()
        } else {
            format!("<{}>", params.join(", "))
        };
        let fields: Vec<(String, String)> = def
            .fields
            .iter()
            .map(|f| (rust_name(&f.name.name), rust_type(&f.ty)))
            .collect();
        out.push_str("#[derive(Clone, Copy, Debug, Default, PartialEq)]\n");
        out.push_str(&format!("pub struct {name}{generics} {{\n"));
        for (f, t) in &fields {
            out.push_str(&format!("    pub {f}: {t},\n"));
        }
        out.push_str("}\n\n");
        let mut bounds: Vec<String> = Vec::new();
        for (_, t) in &fields {
            let b = format!("{t}: nilang::CheckEq");
            if !bounds.contains(&b) {
                bounds.push(b);
            }
        }
        let where_clause = if bounds.is_empty() {
            String::new()
        } else {
            format!(" where {}", bounds.join(", "))
        };
        out.push_str(&format!(
            "/// Equality as the run-time checks see it: field by field.\nimpl{generics} nilang::CheckEq for {name}{generics}{where_clause} {{\n"
        ));
        out.push_str("    fn check_eq(&self, other: &Self, atol: f64) -> bool {\n");
        if fields.is_empty() {
            out.push_str("        let _ = (other, atol);\n        true\n");
        } else {
            let parts: Vec<String> = fields
                .iter()
                .map(|(f, _)| format!("nilang::CheckEq::check_eq(&self.{f}, &other.{f}, atol)"))
                .collect();
            out.push_str(&format!("        {}\n", parts.join("\n            && ")));
        }
        out.push_str("    }\n}\n\n");
    }
    out
}

/// A field's declared type in Rust (the checks allow scalars, type
/// parameters, `Complex<T>` and structs).
fn rust_type(ty: &Type) -> String {
    match &ty.kind {
        TypeKind::Named { name, args } if args.is_empty() => rust_name(name),
        TypeKind::Named { name, args } => {
            let args: Vec<String> = args.iter().map(rust_type).collect();
            let name = if name == "Complex" {
                "nilang::Complex".to_string()
            } else {
                rust_name(name)
            };
            format!("{name}<{}>", args.join(", "))
        }
        TypeKind::Slice(_) | TypeKind::Tuple(_) => "()".into(),
    }
}

/// The Rust type of the adjoint of a value of this kind inside a struct
/// (`G` for a float or type parameter, `Complex<G>`, the adjoint struct), or
/// the kind's own type when it carries no derivative.
pub(super) fn bar_type(kind: &Kind) -> Option<String> {
    match kind {
        Kind::Float(_) | Kind::Generic(_) => Some(crate::ADJOINT_TYPE.into()),
        Kind::Complex(inner) if differentiable(inner) => Some("nilang::Complex<G>".into()),
        // A log number's adjoint is its logarithm's, as for a parameter.
        Kind::ULog(inner) if differentiable(inner) => Some(crate::ADJOINT_TYPE.into()),
        Kind::Struct { name, args, .. } => {
            let args: Option<Vec<String>> = args.iter().map(bar_type).collect();
            let args = args?;
            Some(if args.is_empty() {
                rust_name(name)
            } else {
                format!("{}<{}>", rust_name(name), args.join(", "))
            })
        }
        k => super::rust_scalar(k),
    }
}

fn destructure_into(place: &Expr, kind: &Kind, value: &Expr, out: &mut Vec<(Expr, Expr)>) -> bool {
    nilang_syntax::stack::deep(|| {
        let Kind::Struct { name, fields, .. } = kind else {
            return false;
        };
        let ExprKind::Call { callee, args, .. } = &value.kind else {
            return false;
        };
        if callee.name != *name || args.len() != fields.len() {
            return false;
        }
        for ((f, fk, _), arg) in fields.iter().zip(args) {
            let field = Expr::new(
                ExprKind::Field {
                    base: Box::new(place.clone()),
                    field: Ident {
                        name: f.clone(),
                        span: arg.span,
                    },
                },
                place.span,
            );
            if !destructure_into(&field, fk, arg, out) {
                out.push((field, arg.clone()));
            }
        }
        true
    })
}

/// `w → p` (or `w ← p`) of a whole struct place `p`: the pairs `(w.f,
/// p.f)` of the fields that carry adjoints (those typed by the struct's
/// parameters), nested structs flattened; `false` for other kinds.
fn copy_fields(place: &Expr, kind: &Kind, value: &Expr, out: &mut Vec<(Expr, Expr)>) -> bool {
    nilang_syntax::stack::deep(|| {
        let Kind::Struct { fields, .. } = kind else {
            return false;
        };
        let field = |base: &Expr, f: &str| {
            Expr::new(
                ExprKind::Field {
                    base: Box::new(base.clone()),
                    field: Ident {
                        name: f.to_string(),
                        span: base.span,
                    },
                },
                base.span,
            )
        };
        for (f, fk, generic) in fields {
            if !generic {
                continue;
            }
            let (pf, vf) = (field(place, f), field(value, f));
            if !copy_fields(&pf, fk, &vf, out) {
                out.push((pf, vf));
            }
        }
        true
    })
}

impl Gen<'_> {
    /// `Point(a, b)` as the value of a struct of kind `kind`: a struct
    /// literal, each value converted to its field's kind.
    pub(super) fn construct(&mut self, value: &Expr, kind: &Kind) -> Option<String> {
        nilang_syntax::stack::deep(|| {
            let Kind::Struct { name, fields, .. } = kind else {
                return None;
            };
            let ExprKind::Call { callee, args, .. } = &value.kind else {
                return None;
            };
            if callee.name != *name {
                return None;
            }
            if args.len() != fields.len() {
                self.unsupported(value.span, "a construction with the wrong number of values");
                return Some("()".into());
            }
            let mut parts = Vec::new();
            for ((f, fk, _), arg) in fields.iter().zip(args) {
                let code = match self.construct(arg, fk) {
                    Some(code) => code,
                    None => {
                        let (code, from) = self.expr(arg);
                        super::convert(code, &from, fk)
                    }
                };
                parts.push(format!("{}: {code}", rust_name(f)));
            }
            Some(format!("{} {{ {} }}", rust_name(name), parts.join(", ")))
        })
    }

    /// The fields of `var → Name(args...)` as pairs (field place, value),
    /// nested constructions taken apart too, for the adjoint rule of a
    /// destruction (`var.f -= value` for each); `None` when `value` is not
    /// a construction of `var`'s struct.
    pub(super) fn destructure(&mut self, var: &Expr, value: &Expr) -> Option<Vec<(Expr, Expr)>> {
        let (_, kind) = self.def_kind(var.span)?;
        let mut out = Vec::new();
        if destructure_into(var, &kind, value, &mut out) {
            return Some(out);
        }
        // A copy of another struct (`w → p`): field by field too, since a
        // struct's adjoint is no `nilang::Adjoint` of its own.
        copy_fields(var, &kind, value, &mut out).then_some(out)
    }

    /// The kind of a struct field place (`p.x`, `ps[i].pos.x`), without
    /// generating code; `None` for other expressions.
    pub(super) fn struct_field_kind(&self, e: &Expr) -> Option<Kind> {
        fn place(g: &Gen<'_>, e: &Expr) -> Option<Kind> {
            nilang_syntax::stack::deep(|| match &e.kind {
                ExprKind::Var(_) => g.def_kind(e.span).map(|(_, k)| k),
                ExprKind::Index { base, .. } => match place(g, base)? {
                    Kind::Array(inner) => Some(*inner),
                    _ => None,
                },
                ExprKind::Field { base, field } => match place(g, base)? {
                    Kind::Struct { fields, .. } => fields
                        .into_iter()
                        .find(|(f, _, _)| *f == field.name)
                        .map(|(_, k, _)| k),
                    _ => None,
                },
                ExprKind::Paren(inner) => place(g, inner),
                _ => None,
            })
        }
        match &e.kind {
            ExprKind::Field { base, .. }
                if matches!(place(self, base), Some(Kind::Struct { .. })) =>
            {
                place(self, e)
            }
            _ => None,
        }
    }

    /// The zero adjoint of the struct ancilla `n` of kind `kind`: zero in
    /// every field that carries a derivative, the primal's value in the
    /// others (their type is the primal's).
    pub(super) fn struct_bar_zero(&self, base: &str, kind: &Kind) -> Option<String> {
        let Kind::Struct { name, fields, .. } = kind else {
            return None;
        };
        let zero = self.ad_zero();
        let parts: Vec<String> = fields
            .iter()
            .map(|(f, k, generic)| {
                let f = rust_name(f);
                let value = match k {
                    _ if !*generic => format!("{base}.{f}"),
                    Kind::Struct { .. } if differentiable(k) => self
                        .struct_bar_zero(&format!("{base}.{f}"), k)
                        .unwrap_or_else(|| format!("{base}.{f}")),
                    Kind::Complex(_) if differentiable(k) => {
                        format!("nilang::Complex::new({zero}, {zero})")
                    }
                    k if differentiable(k) => zero.clone(),
                    _ => format!("{base}.{f}"),
                };
                format!("{f}: {value}")
            })
            .collect();
        Some(format!("{} {{ {} }}", rust_name(name), parts.join(", ")))
    }
}
