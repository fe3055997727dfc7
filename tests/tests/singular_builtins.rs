//! Singular points of every built-in, as properties (issue 42 item 1).
//!
//! `build.rs` (`singular_builtins`) compiles, for each built-in pure
//! function and operator whose local derivative is infinite or NaN
//! somewhere (`SINGULAR` there: 38 cases, real and complex), three
//! functions that add its value to `y!` and `2x + 3w` (`2z + 3w`) to `l!`:
//! `y! += e` (only accumulated: `f_grad` is the accumulating reverse pass),
//! `y! += e; NEG(y!)` (the whole gradient, and a cotangent of `-0.0`) and
//! `y! += c * (e)` (the built-in's own cotangent is `ȳ c`, zero inside the
//! expression for `c = 0`); and for the instructions whose rules divide
//! or read an angle (`DIVINT`, `MULINT`, `ROT`, `IROT`) one each after
//! `l! += 2a + 3b + 5t`.
//!
//! The properties, over special inputs (the singular points, signed
//! zeros, ±1, infinities, the smallest and largest floats) and seeded
//! random ones:
//! - with the output's adjoint zero, every input adjoint is bit for bit
//!   what the `l!` term alone gives (`sb_ref`): no `0 · inf`, no `0 · NaN`;
//! - at the singular point, the adjoint is the documented value
//!   (docs/language.md, "Derivatives at singular points": the subgradient 0
//!   where a built-in is not differentiable, IEEE's infinity where the
//!   derivative is infinite without a kink).
//!
//! Cases where the rules break either property are `#[ignore]`d with
//! what fails, so that the failure stays visible (`cargo test -- --ignored`).

use nilang::Complex;

type C = Complex<f64>;
/// A case's gradient: inputs `x, w, t` (real ones in `.re`), the integer
/// `n`, `c`, the seeds `ȳ` and `l̄`, the inputs' adjoints (seeded, and
/// returned).
type Wrapper = fn([C; 3], i64, f64, C, C, &mut [C; 3]) -> nilang::Result;

#[allow(dead_code)]
struct Case {
    name: &'static str,
    kind: &'static str,
    expression: &'static str,
    arity: usize,
    /// The built-in's value (`sb_d_C` run forwards).
    value: fn([C; 3], i64) -> C,
    direct: Wrapper,
    full: Wrapper,
    composed: Wrapper,
}

nilang::include_nil!(mod singular_builtins);

#[allow(clippy::all, unused)]
mod table {
    use super::{C, Case, Wrapper, singular_builtins};
    include!(concat!(env!("OUT_DIR"), "/singular_table.rs"));
}
use table::{CASES, COMPLEX_REF, INSTRUCTIONS, REAL_REF};

fn c(re: f64) -> C {
    Complex::new(re, 0.0)
}

/// xorshift64 over floats of every size, some of them special.
struct Rng(u64);

impl Rng {
    fn bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn uniform(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    }
    /// A float of a random size (|x| in about 1e-300 ..= 1e300), or in
    /// [-2, 2).
    fn any(&mut self) -> f64 {
        match self.bits() % 4 {
            0 => self.uniform() * 10f64.powi((self.bits() % 600) as i32 - 300),
            _ => self.uniform(),
        }
    }
    /// A nonzero seed.
    fn seed(&mut self) -> f64 {
        let x = self.uniform();
        if x == 0.0 { 0.75 } else { x }
    }
}

/// The real inputs: the singular points and the other special values.
const SPECIAL: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    -2.5,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e-300,
    -1e-300,
    5e-324,
    f64::MAX,
    std::f64::consts::FRAC_PI_2,
];

/// Input triples for a case: `(x, w, t)` (`t` only for instructions),
/// special values crossed, then random ones.
fn inputs(complex: bool, rng: &mut Rng) -> Vec<[C; 3]> {
    let mut out = Vec::new();
    if complex {
        let parts = [0.0, -0.0, 1.0, -0.5, f64::INFINITY];
        let zs: Vec<C> = parts
            .iter()
            .flat_map(|&re| parts.iter().map(move |&im| Complex::new(re, im)))
            .collect();
        for &z in &zs {
            for &w in &[c(0.0), c(2.0), c(0.5), Complex::new(-1.0, 0.5), z] {
                out.push([z, w, c(0.0)]);
            }
        }
        for _ in 0..200 {
            let z = Complex::new(rng.any(), rng.any());
            let w = Complex::new(rng.any(), rng.any());
            out.push([z, w, c(0.0)]);
        }
    } else {
        for &x in SPECIAL {
            for &w in SPECIAL {
                out.push([c(x), c(w), c(w)]);
            }
        }
        for _ in 0..300 {
            out.push([c(rng.any()), c(rng.any()), c(rng.any())]);
        }
    }
    out
}

fn bits(x: &[C]) -> Vec<(u64, u64)> {
    x.iter().map(|z| (z.re.to_bits(), z.im.to_bits())).collect()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// `y! += e`, `y! += e; NEG(y!)`.
    Statement,
    /// `y! += c * (e)` with `c = 0`.
    Composed,
}

/// With `ȳ = 0`, every input adjoint is what the `l!` term alone gives,
/// bit for bit, at every input (for `Composed`, where the built-in's value
/// is finite, so that `c * e` is 0 and the function is constant in `e`).
fn zero_cotangent(name: &str, form: Form) {
    let case = CASES
        .iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    let complex = case.kind.starts_with("complex");
    let reference = if complex { COMPLEX_REF } else { REAL_REF };
    let mut rng = Rng(0x5851_F42D_4C95_7F2D ^ name.len() as u64);
    let ns: &[i64] = if case.kind == "int" || case.expression.ends_with("^ n") {
        &[-3, -2, -1, 0, 1, 2, 3]
    } else {
        &[0]
    };
    let wrappers: Vec<(&str, Wrapper)> = match form {
        Form::Statement => vec![("y! += e", case.direct), ("y! += e; NEG(y!)", case.full)],
        Form::Composed => vec![("y! += 0 * (e)", case.composed)],
    };
    let (mut checked, mut failures) = (0, Vec::new());
    for x in inputs(complex, &mut rng) {
        for &n in ns {
            if form == Form::Composed {
                let v = (case.value)(x, n);
                if !(v.re.is_finite() && v.im.is_finite()) {
                    continue;
                }
            }
            let lbar = if complex {
                Complex::new(rng.seed(), rng.seed())
            } else {
                c(rng.seed())
            };
            let seeds: [C; 3] = std::array::from_fn(|_| {
                if complex {
                    Complex::new(rng.uniform(), rng.uniform())
                } else {
                    c(rng.uniform())
                }
            });
            let mut expected = seeds;
            reference(x, n, 0.0, c(0.0), lbar, &mut expected).unwrap();
            // `Composed`: ȳ is not zero, `c` is: the built-in's cotangent
            // `ȳ c` is.
            let ybar = match form {
                Form::Statement => c(0.0),
                Form::Composed => c(rng.seed()),
            };
            for (form, f) in &wrappers {
                let mut got = seeds;
                let result = f(x, n, 0.0, ybar, lbar, &mut got);
                checked += 1;
                let k = case.arity;
                if let Err(e) = result {
                    failures.push(format!("{form} at {x:?}, n = {n}: {e}"));
                } else if bits(&got[..k]) != bits(&expected[..k]) {
                    failures.push(format!(
                        "{form} at x = {:?}, w = {:?}, n = {n}: adjoints {:?}, the other term alone gives {:?}",
                        x[0],
                        x[1],
                        &got[..k],
                        &expected[..k]
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "{name}: only {checked} inputs");
    assert!(
        failures.is_empty(),
        "{name} (`{}`), {} of {checked} runs with a zero cotangent changed an input adjoint:\n{}",
        case.expression,
        failures.len(),
        failures[..failures.len().min(12)].join("\n")
    );
}

macro_rules! zero_cotangent_tests {
    ($form:ident: $($(#[$m:meta])* $test:ident = $case:literal;)*) => {
        $(
            #[test]
            $(#[$m])*
            fn $test() {
                zero_cotangent($case, Form::$form);
            }
        )*
    };
}

mod a_zero_cotangent_adds_nothing {
    use super::*;
    zero_cotangent_tests! { Statement:
        sqrt = "sqrt"; abs = "abs"; log = "log"; exp = "exp"; sin = "sin"; cos = "cos";
        tan = "tan"; sinh = "sinh"; cosh = "cosh"; tanh = "tanh"; asin = "asin";
        acos = "acos"; atan = "atan"; inv = "inv"; abs2 = "abs2"; pow = "pow";
        div = "div"; mul = "mul"; rem = "rem"; atan2 = "atan2"; logaddexp = "logaddexp";
        logsubexp = "logsubexp"; min = "min"; max = "max"; powi = "powi";
        zsqrt = "zsqrt"; zlog = "zlog"; zexp = "zexp"; zsin = "zsin"; zcos = "zcos";
        zinv = "zinv"; zpow = "zpow"; zdiv = "zdiv"; zmul = "zmul"; zpowi = "zpowi";
        zabs = "zabs"; zangle = "zangle"; zabs2 = "zabs2";
    }
}

mod inside_an_expression_a_zero_cotangent_adds_nothing {
    //! `y! += c * (e)` with `c = 0` and `ȳ` not zero, where `e` is finite.
    use super::*;
    zero_cotangent_tests! { Composed:
        sqrt = "sqrt";
        abs = "abs";
        log = "log";
        exp = "exp";
        sin = "sin";
        cos = "cos";
        tan = "tan";
        sinh = "sinh";
        cosh = "cosh";
        tanh = "tanh";
        asin = "asin";
        acos = "acos";
        atan = "atan";
        inv = "inv";
        abs2 = "abs2";
        pow = "pow";
        div = "div";
        mul = "mul";
        rem = "rem";
        atan2 = "atan2";
        logaddexp = "logaddexp";
        logsubexp = "logsubexp";
        min = "min";
        max = "max";
        powi = "powi";
        zsqrt = "zsqrt";
        zlog = "zlog";
        zexp = "zexp";
        zsin = "zsin";
        zcos = "zcos";
        zinv = "zinv";
        zpow = "zpow";
        zdiv = "zdiv";
        zmul = "zmul";
        zpowi = "zpowi";
        zabs = "zabs";
        zangle = "zangle";
        zabs2 = "zabs2";
    }
}

/// The instructions: with the changed arguments' adjoints zero, each
/// adjoint is what `l! += 2a + 3b + 5t` alone gives (`n = 0` included:
/// `DIVINT(a, 0)`'s rule scales by `1/0`).
fn instruction_zero_cotangent(name: &str, degenerate: bool) {
    let (_, stmt, f) = INSTRUCTIONS.iter().find(|i| i.0 == name).unwrap();
    let mut rng = Rng(0x1405_7B7E_F767_814F);
    let mut failures = Vec::new();
    let mut checked = 0;
    for x in inputs(false, &mut rng) {
        for n in [-2, -1, 0, 1, 3] {
            // Degenerate: the forward instruction itself is undefined (a
            // division by `n = 0`, an infinite or NaN angle).
            if degenerate != (n == 0 && name == "divint" || !x[2].re.is_finite()) {
                continue;
            }
            let lbar = c(rng.seed());
            let mut expected = [c(0.0), c(0.0), c(rng.uniform())];
            let mut got = expected;
            REAL_REF(x, n, 0.0, c(0.0), lbar, &mut expected).unwrap();
            checked += 1;
            match f(x, n, 0.0, c(0.0), lbar, &mut got) {
                Err(e) => failures.push(format!("at {x:?}, n = {n}: {e}")),
                Ok(()) if bits(&got) != bits(&expected) => failures.push(format!(
                    "at a = {}, b = {}, t = {}, n = {n}: adjoints {:?}, the other term alone gives {:?}",
                    x[0].re,
                    x[1].re,
                    x[2].re,
                    got.map(|z| z.re),
                    expected.map(|z| z.re)
                )),
                Ok(()) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "`{stmt}`: {} of {checked} runs with zero cotangents changed an adjoint:\n{}",
        failures.len(),
        failures[..failures.len().min(12)].join("\n")
    );
}

mod instructions {
    use super::*;

    #[test]
    fn divint() {
        instruction_zero_cotangent("divint", false);
    }
    #[test]
    fn mulint() {
        instruction_zero_cotangent("mulint", false);
    }
    #[test]
    fn rot() {
        instruction_zero_cotangent("rot", false);
    }
    #[test]
    fn irot() {
        instruction_zero_cotangent("irot", false);
    }
    #[test]
    fn mulint_by_zero() {
        instruction_zero_cotangent("mulint", true);
    }
    #[test]
    fn divint_by_zero() {
        instruction_zero_cotangent("divint", true);
    }
    #[test]
    fn rot_by_an_infinite_angle() {
        instruction_zero_cotangent("rot", true);
        instruction_zero_cotangent("irot", true);
    }
}

/// The adjoints of a case's inputs at `x` with `ȳ` one and nothing else
/// seeded (the built-in's derivative, by the direct form).
fn derivative(name: &str, x: [C; 3], n: i64) -> [C; 3] {
    let case = CASES.iter().find(|k| k.name == name).unwrap();
    let mut bar = [c(0.0); 3];
    (case.direct)(x, n, 0.0, c(1.0), c(0.0), &mut bar).unwrap();
    bar
}

fn real(x: f64, w: f64) -> [C; 3] {
    [c(x), c(w), c(0.0)]
}

/// Bit-equal, so that `0.0` and `-0.0` differ only where asked.
fn same(got: f64, expected: f64) -> bool {
    got == expected || (got.is_nan() && expected.is_nan())
}

mod at_the_singular_point {
    use super::*;

    #[test]
    fn sqrt_abs_take_the_subgradient_zero() {
        for x in [0.0, -0.0] {
            assert_eq!(
                derivative("sqrt", real(x, 0.0), 0)[0].re,
                0.0,
                "sqrt at {x}"
            );
            assert_eq!(derivative("abs", real(x, 0.0), 0)[0].re, 0.0, "abs at {x}");
        }
    }

    #[test]
    fn real_powers_follow_the_documented_values() {
        // d x^p/dx at 0: 0 for 0 < p < 1 (the subgradient), 1 for p = 1,
        // 0 for p > 1 and p = 0 (x^0 is constant); d x^p/dp = x^p ln x: 0.
        for (p, dx) in [
            (0.25, 0.0),
            (0.5, 0.0),
            (0.75, 0.0),
            (1.0, 1.0),
            (1.5, 0.0),
            (2.0, 0.0),
            (2.5, 0.0),
            (0.0, 0.0),
        ] {
            for x in [0.0, -0.0] {
                let [gx, gp, _] = derivative("pow", real(x, p), 0);
                assert!(same(gx.re, dx), "d {x}^{p}/dx = {}", gx.re);
                assert_eq!(gp.re, 0.0, "d {x}^p/dp at p = {p}");
            }
        }
    }

    #[test]
    fn integer_powers_follow_the_documented_values() {
        for (n, dx) in [(1, 1.0), (2, 0.0), (3, 0.0), (0, 0.0)] {
            let gx = derivative("powi", real(0.0, 0.0), n)[0].re;
            assert!(same(gx, dx), "d 0^{n}/dx = {gx}, expected {dx}");
        }
    }

    #[test]
    fn integer_powers_other_than_zero_follow_the_documented_values() {
        for (n, dx) in [(1, 1.0), (2, 0.0), (3, 0.0)] {
            let gx = derivative("powi", real(0.0, 0.0), n)[0].re;
            assert!(same(gx, dx), "d 0^{n}/dx = {gx}, expected {dx}");
        }
        // A pole keeps IEEE's infinity: d x^-1/dx = -x^-2.
        assert_eq!(
            derivative("powi", real(0.0, 0.0), -1)[0].re,
            f64::NEG_INFINITY
        );
    }

    #[test]
    fn complex_abs_takes_the_subgradient_zero() {
        for z in [Complex::new(0.0, 0.0), Complex::new(-0.0, 0.0)] {
            let gz = derivative("zabs", [z, c(0.0), c(0.0)], 0)[0];
            assert_eq!(gz, c(0.0), "d |z|/dz at {z}");
        }
    }

    #[test]
    fn an_infinite_derivative_without_a_kink_is_ieee_infinity() {
        // log at 0, asin and acos at ±1, inv and x / w at 0.
        assert_eq!(derivative("log", real(0.0, 0.0), 0)[0].re, f64::INFINITY);
        for x in [1.0, -1.0] {
            assert_eq!(derivative("asin", real(x, 0.0), 0)[0].re, f64::INFINITY);
            assert_eq!(derivative("acos", real(x, 0.0), 0)[0].re, f64::NEG_INFINITY);
        }
        assert_eq!(
            derivative("inv", real(0.0, 0.0), 0)[0].re,
            f64::NEG_INFINITY
        );
        let [gx, gw, _] = derivative("div", real(1.0, 0.0), 0);
        assert_eq!((gx.re, gw.re), (f64::INFINITY, f64::NEG_INFINITY));
    }

    #[test]
    fn atan2_takes_the_subgradient_zero_at_the_origin() {
        let [gy, gx, _] = derivative("atan2", real(0.0, 0.0), 0);
        assert_eq!((gy.re, gx.re), (0.0, 0.0));
    }

    #[test]
    fn complex_angle_takes_the_subgradient_zero_at_zero() {
        let gz = derivative("zangle", [c(0.0), c(0.0), c(0.0)], 0)[0];
        assert_eq!(gz, c(0.0));
    }

    #[test]
    fn complex_sqrt_at_zero_is_not_nan() {
        let gz = derivative("zsqrt", [c(0.0), c(0.0), c(0.0)], 0)[0];
        assert!(!gz.re.is_nan() && !gz.im.is_nan(), "{gz}");
    }

    #[test]
    fn complex_power_at_zero_is_finite() {
        let [gz, _, _] = derivative("zpow", [c(0.0), c(2.0), c(0.0)], 0);
        assert_eq!(gz, c(0.0));
    }
}

/// Every built-in pure function and instruction is a case here, or has no
/// point where its local derivative is infinite or NaN for finite inputs
/// (said why); a new built-in fails this test until it is classified.
#[test]
fn every_built_in_is_classified() {
    use nilang_compiler::builtins::{INSTRUCTIONS as ALL_INSTRUCTIONS, PureFn};
    const COVERED: &[(&str, &[&str])] = &[
        ("abs", &["abs", "zabs"]),
        ("abs2", &["abs2", "zabs2"]),
        ("sqrt", &["sqrt", "zsqrt"]),
        ("exp", &["exp", "zexp"]),
        ("log", &["log", "zlog"]),
        ("sin", &["sin", "zsin"]),
        ("cos", &["cos", "zcos"]),
        ("tan", &["tan"]),
        ("sinh", &["sinh"]),
        ("cosh", &["cosh"]),
        ("tanh", &["tanh"]),
        ("asin", &["asin"]),
        ("acos", &["acos"]),
        ("atan", &["atan", "atan2"]),
        ("inv", &["inv", "zinv"]),
        ("min", &["min"]),
        ("max", &["max"]),
        ("angle", &["zangle"]),
        ("logaddexp", &["logaddexp"]),
        ("logsubexp", &["logsubexp"]),
    ];
    const NOT_SINGULAR: &[(&str, &str)] = &[
        ("identity", "derivative 1"),
        (
            "sincos",
            "a tuple: no adjoint rule (the gradient is NotDifferentiable)",
        ),
        ("sign", "no rule: derivative 0"),
        ("floor", "no rule: derivative 0"),
        ("ceil", "no rule: derivative 0"),
        ("round", "no rule: derivative 0"),
        ("div", "integer division: no derivative"),
        (
            "rem",
            "integer: no rule (the float `x % w` is the case `rem`)",
        ),
        ("mod", "integer: no rule"),
        ("real", "linear"),
        ("imag", "linear"),
        ("conj", "linear"),
        ("zero", "a constant"),
        ("one", "a constant"),
        ("zeros", "a constant"),
        ("ones", "a constant"),
        ("stack", "a constructor"),
        ("length", "a shape"),
        ("size", "a shape"),
        ("nnz", "a shape"),
        ("value", "derivative 1"),
        ("unwrap", "derivative 1"),
        ("tget", "a tuple element: derivative 1"),
        ("isempty", "a predicate"),
        ("iseven", "a predicate"),
        ("isodd", "a predicate"),
        ("println", "output"),
        ("print", "output"),
        ("global_index", "an index"),
        ("fixed", "a conversion: no derivative"),
        (
            "ulog",
            "a conversion to a log number, whose adjoint is its logarithm's",
        ),
        ("tropical", "a conversion: no derivative"),
        ("float", "a conversion: no derivative"),
    ];
    for f in &PureFn::ALL.map(PureFn::name) {
        let covered = COVERED.iter().find(|(n, _)| n == f);
        let not = NOT_SINGULAR.iter().any(|(n, _)| n == f);
        assert!(
            covered.is_some() != not,
            "`{f}`: classify it (a case of build.rs `SINGULAR`, or NOT_SINGULAR with why)"
        );
        for case in covered.map(|c| c.1).unwrap_or(&[]) {
            assert!(CASES.iter().any(|k| k.name == *case), "no case {case}");
        }
    }
    // The operators with a singular point: `/`, `^` (float and integer
    // exponents), `*` and `%` at infinities.
    for case in [
        "div", "pow", "powi", "mul", "rem", "zdiv", "zpow", "zpowi", "zmul",
    ] {
        assert!(CASES.iter().any(|k| k.name == case), "no case {case}");
    }
    const INSTRUCTION_CASES: &[(&str, &str)] = &[
        ("DIVINT", "divint"),
        ("MULINT", "mulint"),
        ("ROT", "rot"),
        ("IROT", "irot"),
    ];
    // The others have constant factors (SWAP, NEG, HADAMARD, CONJ, INC,
    // DEC) or no derivative (the stack instructions).
    const CONSTANT: &[&str] = &[
        "SWAP",
        "NEG",
        "CONJ",
        "INC",
        "DEC",
        "HADAMARD",
        "PUSH!",
        "POP!",
        "COPYPUSH!",
        "COPYPOP!",
    ];
    for i in ALL_INSTRUCTIONS {
        let case = INSTRUCTION_CASES.iter().find(|(n, _)| *n == i.name);
        assert!(
            case.is_some() != CONSTANT.contains(&i.name),
            "instruction {}: classify it",
            i.name
        );
        if let Some((_, case)) = case {
            assert!(INSTRUCTIONS.iter().any(|k| k.0 == *case));
        }
    }
    assert_eq!(CASES.len(), 38);
}

/// The reference interpreter against the generated code at the singular
/// points: the gradient of each case's `y! += e; NEG(y!)` (`sb_f_…`), with
/// `ȳ` zero and not, at the special and random inputs above. Both take
/// their local derivatives from one catalogue (`derivative_rules`), so
/// they agree to the bit, or both give NaN, or both stop (the complex
/// arithmetic of both is the runtime's, component by component, so
/// infinities and overflow come out the same too).
#[test]
fn the_interpreter_takes_the_same_derivatives_at_the_singular_points() {
    use nilang_compiler::db::{self, RootDatabase, SourceFile};
    use nilang_interp::{Interpreter, Value};
    let path = concat!(env!("OUT_DIR"), "/singular/singular_builtins.nil");
    let db = RootDatabase::default();
    let file = SourceFile::new(
        &db,
        "singular_builtins.nil".into(),
        std::fs::read_to_string(path).unwrap(),
    );
    let project = db::project_with_std(&db, vec![file], Vec::new());
    let mut interp = Interpreter::new(&db, project);
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let mut report = String::new();
    let mut runs = 0;
    for case in CASES {
        let complex = case.kind.starts_with("complex");
        let with_n = case.kind == "int" || case.expression.ends_with("^ n");
        let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ case.name.len() as u64);
        let mut differ = Vec::new();
        for x in inputs(complex, &mut rng) {
            let n = 2;
            for ybar in [0.0, rng.seed()] {
                let lbar = rng.seed();
                let value = |z: C, complex: bool| match complex {
                    true => Value::Complex(z.re, z.im),
                    false => Value::F64(z.re),
                };
                let mut args = vec![
                    value(c(0.0), case.kind == "complex"),
                    value(c(0.0), complex),
                    value(x[0], complex),
                ];
                if with_n {
                    args.push(Value::int(n));
                } else if case.arity == 2 {
                    args.push(value(x[1], complex));
                }
                let seeds = [
                    ("y!".to_string(), value(c(ybar), case.kind == "complex")),
                    ("l!".to_string(), value(c(lbar), complex)),
                ];
                let mut want = [c(0.0); 3];
                let rust = (case.full)(x, n, 0.0, c(ybar), c(lbar), &mut want);
                let got = interp.gradient(&format!("sb_f_{}", case.name), args, &seeds);
                runs += 1;
                let k = if with_n { 1 } else { case.arity };
                let disagreement = match (rust, got) {
                    (Ok(()), Ok((_, adjoints))) => {
                        let got: Vec<C> = (0..k)
                            .map(|i| match &adjoints[2 + i] {
                                Value::Complex(re, im) => C::new(*re, *im),
                                Value::F64(x) => c(*x),
                                other => panic!("{}: an adjoint {other:?}", case.name),
                            })
                            .collect();
                        let agree = got
                            .iter()
                            .zip(&want)
                            .all(|(g, w)| same(g.re, w.re) && same(g.im, w.im));
                        (!agree).then(|| {
                            format!(
                                "the interpreter gives {got:?}, the generated code {:?}",
                                &want[..k]
                            )
                        })
                    }
                    (Err(_), Err(_)) => None,
                    (rust, got) => Some(format!(
                        "the interpreter gives {:?}, the generated code {rust:?}",
                        got.map(|(_, a)| a).map_err(|e| e.to_string())
                    )),
                };
                if let Some(d) = disagreement {
                    let finite = x[..k.max(1)]
                        .iter()
                        .all(|z| z.re.is_finite() && z.im.is_finite());
                    differ.push((finite, format!("{:?} (ȳ = {ybar}): {d}", &x[..k.max(1)])));
                }
            }
        }
        if !differ.is_empty() {
            let finite: Vec<&String> = differ.iter().filter(|d| d.0).map(|d| &d.1).collect();
            report.push_str(&format!(
                "{} (`{}`): {} differ, {} of them at finite inputs, first at {}\n",
                case.name,
                case.expression,
                differ.len(),
                finite.len(),
                finite.first().copied().unwrap_or(&differ[0].1)
            ));
        }
    }
    assert_eq!(runs, 33_250);
    assert!(
        report.is_empty(),
        "the interpreter and the generated code differ:\n{report}"
    );
}
