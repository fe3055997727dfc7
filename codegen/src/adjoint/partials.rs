//! Local derivatives of an expression, backend-neutral through the
//! `Deriv` trait (the Rust backend implements it here, the WGSL backend in
//! `wgsl.rs`).

use super::*;
use nilang_analysis::builtins::PureFn;
use nilang_analysis::derivative_rules::{CallRule, Formula, Local, Singular, call_rule, remainder};

/// What the local-derivative rules ([`push_partials`]) need from a backend:
/// the Rust backend and the WGSL backend ([`super::wgsl`]) each render the
/// same derivatives in their own syntax.
pub(crate) trait Deriv {
    fn one(&mut self) -> String;
    /// Whether a place read by an expression carries a derivative (a
    /// complex one is reported as not supported, and is not one).
    fn leaf(&mut self, e: &Expr) -> bool;
    /// Whether an operand is a complex number (reported, not supported).
    fn complex_operand(&mut self, e: &Expr) -> bool;
    fn is_int(&mut self, e: &Expr) -> bool;
    /// Whether an operand is a log number (its adjoint is its
    /// logarithm's).
    fn log_number(&mut self, _e: &Expr) -> bool {
        false
    }
    /// Whether an operand is a fixed-point or tropical number (which carry
    /// no derivative).
    fn underived_number(&mut self, _e: &Expr) -> bool {
        false
    }
    /// An operand's value in the adjoint scalar type.
    fn value(&mut self, e: &Expr) -> String;
    /// An integer exponent: its code as an integer and as a float.
    fn int_exponent(&mut self, e: &Expr) -> (String, String);
    /// `f(v)` for an elementary function named as `nilang::Real` names it.
    fn real_fn(&mut self, f: &str, v: &str) -> String;
    fn powi(&mut self, x: &str, n: &str) -> String;
    fn powf(&mut self, x: &str, p: &str) -> String;
    /// One if `a cmp b`, else zero (`yes`), or the other way round.
    fn pick(&mut self, a: &str, cmp: &str, b: &str, yes: bool) -> String;
    /// `q`, but zero where `x` is zero: a derivative at a singular point
    /// (`sqrt` at 0) takes the subgradient 0 (docs/language.md,
    /// "Derivatives at singular points").
    fn zero_at_zero(&mut self, x: &str, q: &str) -> String;
    /// `m * q` for a cotangent `m` and a local derivative `q` that can be
    /// infinite or NaN where the value is finite, but zero where `m` is
    /// zero (no `0 · inf`): `nilang::adjoint::times`.
    fn guarded(&mut self, m: &str, q: &str) -> String;
    fn unsupported(&mut self, span: Span, what: &str);
    /// Whether [`Deriv::bind`] declares locals here.
    fn binds(&self) -> bool {
        false
    }
    /// Binds `code` to a fresh place that the rule's lines fill before
    /// they use it, and returns the place (where [`Deriv::binds`];
    /// elsewhere the code itself).
    fn bind(&mut self, code: String) -> String {
        code
    }
}

/// A product chain of at least this many factors gets its partials from
/// prefix and suffix products bound to locals (linear in its length);
/// shorter ones write each partial out (the code generated before).
const LONG_PRODUCT: usize = 8;

impl Deriv for Gen<'_> {
    fn one(&mut self) -> String {
        self.ad_one()
    }

    fn leaf(&mut self, e: &Expr) -> bool {
        let kind = self.operand_kind(e);
        if matches!(kind, Kind::Complex(_)) {
            Gen::unsupported(self, e.span, "differentiating complex arithmetic");
            false
        } else {
            differentiable(&kind)
        }
    }

    fn complex_operand(&mut self, e: &Expr) -> bool {
        let complex = matches!(self.operand_kind(e), Kind::Complex(_));
        if complex {
            Gen::unsupported(self, e.span, "differentiating complex arithmetic");
        }
        complex
    }

    fn is_int(&mut self, e: &Expr) -> bool {
        matches!(self.operand_kind(e), Kind::Int(_))
    }

    fn log_number(&mut self, e: &Expr) -> bool {
        matches!(self.operand_kind(e), Kind::ULog(_))
    }

    fn underived_number(&mut self, e: &Expr) -> bool {
        matches!(self.operand_kind(e), Kind::Fixed | Kind::Tropical(_))
    }

    fn value(&mut self, e: &Expr) -> String {
        let k = self.ad_kind();
        self.value_as(e, &k)
    }

    fn int_exponent(&mut self, e: &Expr) -> (String, String) {
        let k = self.ad_kind();
        let n = self.value_as(e, &Kind::Int(Scalar::I64));
        let nk = convert(format!("({n})"), &Kind::Int(Scalar::I64), &k);
        (n, nk)
    }

    fn real_fn(&mut self, f: &str, v: &str) -> String {
        format!("nilang::Real::{f}({v})")
    }

    fn powi(&mut self, x: &str, n: &str) -> String {
        format!("nilang::Real::powi({x}, {n})")
    }

    fn powf(&mut self, x: &str, p: &str) -> String {
        format!("nilang::Real::powf({x}, {p})")
    }

    fn pick(&mut self, a: &str, cmp: &str, b: &str, yes: bool) -> String {
        let one = self.ad_one();
        let zero = format!("nilang::zero::<{}>()", self.ad_scalar());
        let (t, f) = if yes { (one, zero) } else { (zero, one) };
        format!("(if {a} {cmp} {b} {{ {t} }} else {{ {f} }})")
    }

    fn zero_at_zero(&mut self, x: &str, q: &str) -> String {
        let zero = format!("nilang::zero::<{}>()", self.ad_scalar());
        format!("(if {x} == {zero} {{ {zero} }} else {{ {q} }})")
    }

    fn guarded(&mut self, m: &str, q: &str) -> String {
        format!("nilang::adjoint::times({m}, {q})")
    }

    fn unsupported(&mut self, span: Span, what: &str) {
        Gen::unsupported(self, span, what)
    }

    fn binds(&self) -> bool {
        self.partial_lets.is_some()
    }

    fn bind(&mut self, code: String) -> String {
        // The products go into the slots of one vector, not into locals:
        // rustc nests a scope per `let`, and its debug information
        // overflows its stack on a few thousand nested scopes.
        let Some(slots) = &mut self.partial_lets else {
            return code;
        };
        let vectors = &mut self.slot_vectors;
        slots.bind(code, || {
            *vectors += 1;
            format!("__pp{vectors}")
        })
    }
}

/// The factors of a product chain `a * b * c * …` (or of `.*`), in order,
/// walked along its left spine without recursion.
fn product_factors(e: &Expr) -> Vec<&Expr> {
    let mut factors = Vec::new();
    let mut at = e;
    while let ExprKind::Binary { op, lhs, rhs } = &at.kind
        && op.scalar() == BinaryOp::Mul
    {
        factors.push(&**rhs);
        at = lhs;
    }
    factors.push(at);
    factors.reverse();
    factors
}

/// The partials of a long product chain (`factors`, at least
/// [`LONG_PRODUCT`]) times `mult`: the factor `i` gets `mult` times the
/// product of the factors before it (a prefix product) and of those after
/// it (a suffix product), each product bound once ([`Deriv::bind`]), so
/// the code is linear in the chain's length.
fn long_product_partials<D: Deriv + ?Sized>(
    d: &mut D,
    factors: &[&Expr],
    mult: Option<String>,
    out: &mut Vec<(Expr, String)>,
) {
    let n = factors.len();
    let values: Vec<String> = factors.iter().map(|f| d.value(f)).collect();
    // before[i]: the product of values[..i]; after[i]: mult times the
    // product of values[i + 1..].
    let mut before: Vec<Option<String>> = vec![None; n];
    for i in 1..n {
        let code = match &before[i - 1] {
            None => values[0].clone(),
            Some(p) => format!("({p} * {})", values[i - 1]),
        };
        before[i] = Some(d.bind(code));
    }
    let mut after: Vec<Option<String>> = vec![None; n];
    after[n - 1] = mult;
    for i in (0..n - 1).rev() {
        let code = match &after[i + 1] {
            None => values[i + 1].clone(),
            Some(s) => format!("({} * {s})", values[i + 1]),
        };
        after[i] = Some(d.bind(code));
    }
    for (i, factor) in factors.iter().enumerate() {
        let m = match (&before[i], &after[i]) {
            (Some(p), Some(s)) => Some(format!("({p} * {s})")),
            (Some(x), None) | (None, Some(x)) => Some(x.clone()),
            (None, None) => None,
        };
        push_partials(d, factor, m, out);
    }
}

/// `mult` times a local derivative `q` (`q` itself for no `mult`).
fn times(mult: &Option<String>, q: String) -> String {
    match mult {
        None => q,
        Some(m) => format!("({m} * {q})"),
    }
}

/// `mult` times a local derivative `q` that can be infinite or NaN at a
/// finite value (a pole, a division): zero where `mult` is
/// ([`Deriv::guarded`]), so that a zero cotangent adds nothing.
fn singular<D: Deriv + ?Sized>(d: &mut D, mult: &Option<String>, q: String) -> String {
    match mult {
        None => q,
        Some(m) => d.guarded(m, &q),
    }
}

/// `mult` times a catalogue rule's rendered derivative `q`, guarded where
/// the rule has a pole.
fn times_rule<D: Deriv + ?Sized>(
    d: &mut D,
    rule: Singular,
    mult: &Option<String>,
    q: String,
) -> String {
    match rule {
        Singular::Nowhere => times(mult, q),
        Singular::Pole => singular(d, mult, q),
    }
}

/// The local derivative of `f(x)` at a real `x`, as real code: for a real
/// function of a real argument that reads a complex value inside
/// (`tanh(imag(z) - a)`), which the complex partials then carry on to `z`.
/// `Some(None)` for a step function (no derivative), `None` where the
/// catalogue has no rule of one argument.
pub(crate) fn real_call_derivative<D: Deriv + ?Sized>(
    d: &mut D,
    f: PureFn,
    x: &Expr,
) -> Option<Option<String>> {
    match call_rule(f, 1) {
        CallRule::Unary(local) => {
            let vars = Vars {
                x: d.value(x),
                ..Vars::default()
            };
            let q = render_real(d, local.formula, &vars);
            Some(Some(times_rule(d, local.singular, &None, q)))
        }
        CallRule::Flat => {
            let _ = d.value(x);
            Some(None)
        }
        _ => None,
    }
}

/// The partials of a call of a function of two arguments `a`, `b` (the
/// catalogue's `partials`, also the remainder `a % b`'s): each rendered at
/// the arguments' values and the call's value `e`, times `mult` (guarded
/// where it has a pole), a partial of one passing `mult` on.
fn binary_call_partials<D: Deriv + ?Sized>(
    d: &mut D,
    partials: [Local; 2],
    args: [&Expr; 2],
    e: &Expr,
    mult: Option<String>,
    out: &mut Vec<(Expr, String)>,
) {
    let x = d.value(args[0]);
    let y = d.value(args[1]);
    let r = match partials.iter().any(|p| p.formula.reads_value()) {
        true => d.value(e),
        false => String::new(),
    };
    let vars = Vars { x, y, r };
    for (arg, p) in args.into_iter().zip(partials) {
        if *p.formula == Formula::One {
            push_partials(d, arg, mult.clone(), out);
            continue;
        }
        let q = render_real(d, p.formula, &vars);
        let q = times_rule(d, p.singular, &mult, q);
        push_partials(d, arg, Some(q), out);
    }
}

/// Pushes the local derivatives of `e` times `mult` onto `out`: one entry
/// per place read (a place read twice gets two entries).
pub(crate) fn push_partials<D: Deriv + ?Sized>(
    d: &mut D,
    e: &Expr,
    mult: Option<String>,
    out: &mut Vec<(Expr, String)>,
) {
    nilang_syntax::stack::deep(|| {
        let one = d.one();
        let negate = |m: &Option<String>| match m {
            None => Some(format!("(-{one})")),
            Some(m) => Some(format!("(-{m})")),
        };
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                if d.leaf(e) {
                    out.push((e.clone(), mult.unwrap_or(one)));
                }
            }
            ExprKind::Paren(inner) => push_partials(d, inner, mult, out),
            ExprKind::Adjoint(inner) => push_partials(d, inner, mult, out),
            ExprKind::Unary { op, operand } => match op {
                UnaryOp::Neg => push_partials(d, operand, negate(&mult), out),
                UnaryOp::Plus => push_partials(d, operand, mult, out),
                UnaryOp::Not => {}
            },
            ExprKind::Binary { op, lhs, rhs } => {
                use BinaryOp::*;
                // The element-wise operators of a broadcast, element by element.
                match op.scalar() {
                    Add => {
                        push_partials(d, lhs, mult.clone(), out);
                        push_partials(d, rhs, mult, out);
                    }
                    Sub => {
                        push_partials(d, lhs, mult.clone(), out);
                        push_partials(d, rhs, negate(&mult), out);
                    }
                    Mul => {
                        let factors = product_factors(e);
                        if factors.len() >= LONG_PRODUCT && d.binds() {
                            return long_product_partials(d, &factors, mult, out);
                        }
                        let l = d.value(lhs);
                        let r = d.value(rhs);
                        push_partials(d, lhs, Some(times(&mult, r)), out);
                        push_partials(d, rhs, Some(times(&mult, l)), out);
                    }
                    Div => {
                        let l = d.value(lhs);
                        let r = d.value(rhs);
                        let dl = singular(d, &mult, format!("({one} / {r})"));
                        push_partials(d, lhs, Some(dl), out);
                        let dr = singular(d, &mult, format!("(-({l}) / (({r}) * ({r})))"));
                        push_partials(d, rhs, Some(dr), out);
                    }
                    // `a % b` is `rem(a, b)`; an integer `b` has no share.
                    Rem if d.is_int(rhs) => push_partials(d, lhs, mult, out),
                    Rem => binary_call_partials(d, remainder(), [lhs, rhs], e, mult, out),
                    Pow => {
                        let int = d.is_int(rhs);
                        let l = d.value(lhs);
                        if int {
                            // n x^(n-1), zero for n = 0 (x^0 is constant;
                            // at x = 0, 0^-1 is infinite).
                            let (n, nk) = d.int_exponent(rhs);
                            let p = d.powi(&l, &format!("({n}) - 1"));
                            // A literal exponent: x^0 has no derivative, and
                            // x^n for n >= 1 none that is infinite.
                            let literal = match &rhs.kind {
                                ExprKind::Int(k) => k.replace('_', "").parse::<i64>().ok(),
                                _ => None,
                            };
                            let q = match literal {
                                Some(0) => return,
                                Some(k) if k >= 1 => times(&mult, format!("({nk} * {p})")),
                                _ => {
                                    let q = d.guarded(&nk, &p);
                                    singular(d, &mult, q)
                                }
                            };
                            push_partials(d, lhs, Some(q), out);
                        } else {
                            // At x = 0: p x^(p-1) is the subgradient 0 where it
                            // is infinite (p < 1), 1 for p = 1; x^p ln x is 0.
                            let p = d.value(rhs);
                            let pl = d.powf(&l, &format!("{p} - {one}"));
                            let dl = d.zero_at_zero(&l, &format!("{p} * {pl}"));
                            let zero = format!("({one} - {one})");
                            let at_zero = d.pick(&l, "==", &zero, true);
                            let p_one = d.pick(&p, "==", &one, true);
                            let dl = format!("({dl} + {at_zero} * {p_one})");
                            let dl = singular(d, &mult, dl);
                            push_partials(d, lhs, Some(dl), out);
                            let ln = d.real_fn("ln", &l);
                            let pw = d.powf(&l, &p);
                            let dp = d.zero_at_zero(&l, &format!("{ln} * {pw}"));
                            let dp = singular(d, &mult, dp);
                            push_partials(d, rhs, Some(dp), out);
                        }
                    }
                    // Comparisons, logic, integer division: no derivative.
                    _ => {}
                }
            }
            ExprKind::Call { callee, args, .. } => {
                call_partials(d, &callee.name, args, e, mult, out)
            }
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) => {}
            _ => d.unsupported(e.span, "differentiating this expression"),
        }
    })
}

pub(crate) fn call_partials<D: Deriv + ?Sized>(
    d: &mut D,
    name: &str,
    args: &[Expr],
    e: &Expr,
    mult: Option<String>,
    out: &mut Vec<(Expr, String)>,
) {
    let rule = PureFn::named(name).map_or(CallRule::Missing, |f| call_rule(f, args.len()));
    if rule == CallRule::Constant {
        // Shapes, constants and indices carry no derivative.
        return;
    }
    if let [x] = args
        && d.complex_operand(x)
    {
        return;
    }
    match (rule, args) {
        (CallRule::Through, [x]) => push_partials(d, x, mult, out),
        // `float` of a float is the float; of a log number, `exp` of its
        // logarithm (which carries its derivative): d/d log = the value.
        (CallRule::Float, [x]) if d.log_number(x) => {
            let v = d.value(e);
            push_partials(d, x, Some(times(&mult, v)), out);
        }
        (CallRule::Float, [x]) if d.underived_number(x) => {}
        (CallRule::Float, [x]) => push_partials(d, x, mult, out),
        (CallRule::Binary(partials), [a, b]) => {
            binary_call_partials(d, partials, [a, b], e, mult, out)
        }
        (CallRule::Unary(local), [x]) => {
            let vars = Vars {
                x: d.value(x),
                ..Vars::default()
            };
            let q = render_real(d, local.formula, &vars);
            let q = times_rule(d, local.singular, &mult, q);
            push_partials(d, x, Some(q), out);
        }
        // A step function's derivative is zero wherever it has one. Its
        // argument is still rendered, as every rule's is (which refuses
        // what cannot be).
        (CallRule::Flat, args) => {
            for x in args {
                let _ = d.value(x);
            }
        }
        _ => d.unsupported(e.span, &format!("an adjoint rule for `{name}`")),
    }
}

/// The operator precedence of a rendered term: a sum, a product, or
/// something that needs no brackets.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Sum,
    Product,
    Atom,
}

/// The code of the values a formula reads: the arguments `x` and `y` and
/// the call's value `r` (empty where the formula does not read them).
#[derive(Default)]
struct Vars {
    x: String,
    y: String,
    r: String,
}

/// A local derivative (`derivative_rules`) as real code, at the values
/// `v`: in brackets unless it is one term.
fn render_real<D: Deriv + ?Sized>(d: &mut D, formula: &Formula, v: &Vars) -> String {
    let (code, prec) = real_term(d, formula, v);
    if prec == Prec::Atom {
        code
    } else {
        format!("({code})")
    }
}

fn real_term<D: Deriv + ?Sized>(d: &mut D, formula: &Formula, v: &Vars) -> (String, Prec) {
    let operand = |d: &mut D, f: &Formula, at_least: Prec| {
        let (code, prec) = real_term(d, f, v);
        if prec < at_least {
            format!("({code})")
        } else {
            code
        }
    };
    match formula {
        Formula::X => (v.x.clone(), Prec::Atom),
        Formula::Y => (v.y.clone(), Prec::Atom),
        Formula::R => (v.r.clone(), Prec::Atom),
        Formula::One => (d.one(), Prec::Atom),
        Formula::Two => {
            let one = d.one();
            (format!("({one} + {one})"), Prec::Atom)
        }
        Formula::Neg(a) => (format!("(-{})", operand(d, a, Prec::Atom)), Prec::Atom),
        Formula::Add(a, b) | Formula::Sub(a, b) => {
            let op = if matches!(formula, Formula::Add(..)) {
                "+"
            } else {
                "-"
            };
            let a = operand(d, a, Prec::Sum);
            let b = operand(d, b, Prec::Product);
            (format!("{a} {op} {b}"), Prec::Sum)
        }
        Formula::Mul(a, b) => {
            let a = operand(d, a, Prec::Product);
            let b = operand(d, b, Prec::Atom);
            (format!("{a} * {b}"), Prec::Product)
        }
        Formula::Div(a, b) => {
            let a = operand(d, a, Prec::Product);
            let b = operand(d, b, Prec::Atom);
            (format!("{a} / {b}"), Prec::Product)
        }
        Formula::Inv(a) => {
            let one = d.one();
            let a = operand(d, a, Prec::Atom);
            (format!("{one} / {a}"), Prec::Product)
        }
        Formula::Call(f, a) => {
            let (a, _) = real_term(d, a, v);
            (d.real_fn(real_method(*f), &a), Prec::Atom)
        }
        Formula::ZeroAt { at, f } => {
            let at = render_real(d, at, v);
            let f = render_real(d, f, v);
            (d.zero_at_zero(&at, &f), Prec::Atom)
        }
        Formula::Pick { a, cmp, b, then } => {
            let a = render_real(d, a, v);
            let b = render_real(d, b, v);
            (d.pick(&a, cmp.as_str(), &b, *then), Prec::Atom)
        }
    }
}

/// The name `nilang::Real` (and the WGSL backend's `real_fn`) gives a
/// pure function of one real argument.
fn real_method(f: PureFn) -> &'static str {
    match f {
        PureFn::Sign => "signum",
        f => f.name(),
    }
}
