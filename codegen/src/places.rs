//! Places in the Rust backend: the Rust expression of a place that is
//! written (`lvalue`), fields, elements, matrix columns and indices.

use super::*;

/// What an element access indexes: the indexed expression as written, or
/// its adjoint, and whether the element is written (borrowed `&mut`).
pub(super) struct Indexed<'e> {
    pub(super) base: &'e Expr,
    pub(super) adjoint: bool,
    pub(super) place: bool,
}

impl Indexed<'_> {
    /// How an index error names it: "`x`", "the adjoint of `x`". Printed
    /// only for a checked index.
    fn what(&self) -> String {
        let base = crate::printer::print_expr(self.base);
        if self.adjoint {
            format!("the adjoint of `{base}`")
        } else {
            format!("`{base}`")
        }
    }
}

impl Gen<'_> {
    /// An lvalue for a place, and the place's kind; `negated` when the place
    /// is `-x` (the instruction's sign flips).
    pub(super) fn lvalue(&mut self, expr: &Expr) -> Option<(String, Kind, bool)> {
        nilang_syntax::stack::deep(|| {
            match &expr.kind {
                ExprKind::Var(name) => {
                    let (id, kind) = self.def_kind(expr.span)?;
                    let code = match self.access(id) {
                        Access::MutRef => format!("(*{})", rust_name(name)),
                        Access::Direct => rust_name(name),
                    };
                    Some((code, kind, false))
                }
                ExprKind::Index { base, indices } => {
                    let (base_code, base_kind, negated) = self.lvalue(base)?;
                    if base_kind == Kind::Offsets {
                        self.unsupported(expr.span, "changing the structure of a sparse matrix");
                        return None;
                    }
                    let of = Indexed {
                        base,
                        adjoint: false,
                        place: true,
                    };
                    let (code, elem) =
                        self.element(base_code, base_kind, indices, of, expr.span)?;
                    Some((code, elem, negated))
                }
                ExprKind::Field { base, field } => {
                    let (base_code, base_kind, negated) = self.lvalue(base)?;
                    let (code, kind) =
                        self.field(base_code, &base_kind, &field.name, true, expr.span)?;
                    Some((code, kind, negated))
                }
                ExprKind::Paren(inner) => self.lvalue(inner),
                ExprKind::Adjoint(inner) => {
                    let (code, kind, negated) = self.lvalue(inner)?;
                    if let Kind::Complex(_) = kind {
                        // `z' += e` and `z' -= e` are rewritten (`codegen::view`).
                        self.unsupported(
                        expr.span,
                        "changing the conjugate view `z'` of a complex `z` other than by `+=` or `-=`",
                    );
                        return None;
                    }
                    Some((code, kind, negated))
                }
                ExprKind::Call { callee, args, .. }
                    if matches!(callee.name.as_str(), "real" | "imag") && args.len() == 1 =>
                {
                    let (base_code, base_kind, negated) = self.lvalue(&args[0])?;
                    if let Kind::Complex(_) = base_kind {
                        let f = if callee.name == "real" { "re" } else { "im" };
                        let (code, kind) = self.field(base_code, &base_kind, f, true, expr.span)?;
                        Some((code, kind, negated))
                    } else if callee.name == "real" {
                        Some((base_code, base_kind, negated))
                    } else {
                        self.unsupported(expr.span, "`imag` of a real place");
                        None
                    }
                }
                ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand,
                } => {
                    let (code, kind, negated) = self.lvalue(operand)?;
                    Some((code, kind, !negated))
                }
                _ => {
                    self.unsupported(expr.span, "this kind of place");
                    None
                }
            }
        })
    }

    /// `base.field`: the parts of a complex number, the arrays of a CSC
    /// matrix (`nzval` mutably when `place`).
    pub(super) fn field(
        &mut self,
        base_code: String,
        base_kind: &Kind,
        field: &str,
        place: bool,
        span: Span,
    ) -> Option<(String, Kind)> {
        match (base_kind, field) {
            (Kind::Complex(inner), "re" | "im") => {
                Some((format!("{base_code}.{field}"), (**inner).clone()))
            }
            (Kind::ULog(inner), "log") | (Kind::Tropical(inner), "n") => {
                Some((format!("{base_code}.{field}"), (**inner).clone()))
            }
            (Kind::Struct { fields, .. }, _) => match fields.iter().find(|(f, _, _)| f == field) {
                Some((_, kind, _)) => {
                    Some((format!("{base_code}.{}", rust_name(field)), kind.clone()))
                }
                None => {
                    self.unsupported(span, &format!("the field `{field}` of this value"));
                    None
                }
            },
            (Kind::Csc(_), "colptr") => {
                Some((format!("{base_code}.indptr().raw_storage()"), Kind::Offsets))
            }
            (Kind::Csc(_), "rowval") => Some((format!("{base_code}.indices()"), Kind::Offsets)),
            (Kind::Csc(inner), "nzval") => {
                let method = if place { "data_mut" } else { "data" };
                Some((
                    format!("{base_code}.{method}()"),
                    Kind::Array(inner.clone()),
                ))
            }
            _ => {
                self.unsupported(span, &format!("the field `{field}` of this value"));
                None
            }
        }
    }

    /// `base[indices]`: an element of a vector or a matrix, `of` what (and
    /// whether it is written); the code and the element kind.
    pub(super) fn element(
        &mut self,
        base_code: String,
        base_kind: Kind,
        indices: &[IndexArg],
        of: Indexed<'_>,
        span: Span,
    ) -> Option<(String, Kind)> {
        // In a checked build an index out of range returns the error that
        // names the `.nil` place, what is indexed, the 1-based index and
        // the length, instead of Rust's panic; `@inbounds` and
        // `@invcheckoff` keep the panic. The indices are checked in a block
        // that then borrows the element (`*{ let __k = …; &mut x[__k] }`):
        // inside the brackets, reading `x.len()` would borrow `x` while
        // `IndexMut` holds it.
        let checked = self.mode.checks && !self.mode.inbounds;
        let borrow = if of.place { "&mut " } else { "&" };
        let array = matches!(base_kind, Kind::Array(_));
        match (base_kind, indices) {
            // `s[k]` of a stack is read only (see `check`), or of its
            // adjoint stack; a stack has no windows.
            (Kind::Array(elem) | Kind::Stack(elem), [IndexArg::Expr(index)]) => {
                if array && let Some(code) = self.windowed(&base_code, span) {
                    return Some((code, *elem));
                }
                if !checked {
                    let i = self.index(index);
                    return Some((format!("{base_code}[{i}]"), *elem));
                }
                let what = of.what();
                let k = self.checked_index(index, &format!("{base_code}.len()"), &what, "element");
                Some((
                    format!("(*{{ let __k = {k}; {borrow}{base_code}[__k] }})"),
                    *elem,
                ))
            }
            (Kind::Offsets, [IndexArg::Expr(index)]) => {
                let i = self.index(index);
                Some((
                    format!("({base_code}[{i}] as i64 + 1)"),
                    Kind::Int(Scalar::I64),
                ))
            }
            (Kind::Matrix(elem), [IndexArg::Expr(row), IndexArg::Expr(col)]) => {
                if let Some(code) = self.windowed(&base_code, span) {
                    return Some((code, *elem));
                }
                if !checked {
                    let r = self.index(row);
                    let c = self.index(col);
                    return Some((format!("{base_code}[[{r}, {c}]]"), *elem));
                }
                let what = of.what();
                let r = self.checked_index(row, &format!("{base_code}.nrows()"), &what, "row");
                let c = self.checked_index(col, &format!("{base_code}.ncols()"), &what, "column");
                Some((
                    format!(
                        "(*{{ let __r = {r}; let __c = {c}; {borrow}{base_code}[[__r, __c]] }})"
                    ),
                    *elem,
                ))
            }
            (Kind::Array(_) | Kind::Matrix(_) | Kind::Offsets, _) => {
                self.unsupported(span, "this kind of indexing here");
                None
            }
            _ => {
                self.unsupported(span, "indexing this value");
                None
            }
        }
    }

    /// `A[:, j]` of a matrix `A`: the matrix, the 0-based column and the
    /// element kind. In a checked build the column index is checked in a
    /// `let` of its own before the statement (`nilang::index`, see
    /// [`Gen::element`]) and the column is that local: the statement's code
    /// borrows the matrix mutably, which `A.ncols()` inside it could not.
    pub(super) fn column_of(&mut self, expr: &Expr) -> Option<(String, String, Kind)> {
        let (base, name, col) = expr.matrix_column()?;
        let (_, Kind::Matrix(elem)) = self.def_kind(base.span)? else {
            return None;
        };
        let m = rust_name(name);
        let c = if self.mode.checks && !self.mode.inbounds {
            let k =
                self.checked_index(col, &format!("{m}.ncols()"), &format!("`{name}`"), "column");
            let local = self.fresh("col");
            self.line(&format!("let {local} = {k};"));
            local
        } else {
            self.index(col)
        };
        Some((m, c, *elem))
    }

    /// A 1-based index expression as a 0-based `usize`.
    pub(super) fn index(&mut self, index: &Expr) -> String {
        let (code, kind) = self.expr(index);
        let code = convert(code, &kind, &Kind::Int(Scalar::I64));
        format!("({code} - 1) as usize")
    }

    /// A reference to the site of an index check at `span` on `what`'s
    /// axis of `unit`s (one constant per distinct site, see `sites`).
    pub(super) fn index_site(&mut self, span: Span, what: &str, unit: &str) -> String {
        let location = self.location(span);
        self.sites.reference(format!(
            "nilang::IndexSite {{ location: {location}, what: {what:?}, unit: {unit:?} }}"
        ))
    }

    /// [`Gen::index`], checked: on an axis of `len` `unit`s (Rust code for
    /// the length) of `what`, the 0-based index or the error.
    fn checked_index(&mut self, index: &Expr, len: &str, what: &str, unit: &str) -> String {
        let (code, kind) = self.expr(index);
        let code = convert(code, &kind, &Kind::Int(Scalar::I64));
        let site = self.index_site(index.span, what, unit);
        format!("nilang::index({code}, {len}, {site})?")
    }
}
