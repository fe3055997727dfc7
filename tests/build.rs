//! Compiles `nil/`, and generates a seeded batch of random well-formed
//! programs (instructions, calls, `if`, `for`, `while`, ancillas,
//! `@routine`) that the property tests run forwards and backwards, and
//! differentiate.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    nilang_build::report(
        nilang_build::Config::new()
            // Per-call activity from Rust: `residuals_all` again with its
            // matrix constant, and with all its data constant.
            .variant("residuals_all", ["A"])
            .variant("residuals_all", ["A", "b", "w"])
            .compile_dir("nil"),
    );

    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let dir = out.join("random");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/random");
    let mut g = Gen {
        state: 0x2545_F491_4F6C_DD1D,
        out: String::new(),
        functions: 0,
        ancillas: 0,
    };
    for _ in 0..PROGRAMS {
        g.function();
    }
    let text = g.out;
    let path = dir.join("random.nil");
    write_if_changed(&path, &text);
    // The table also writes the `Const` twins into `random/`.
    write_table(&out, &text);
    derivative_programs(&out, &dir, &text);
    aliased(&out, &dir);
    chains(&dir);
    rollback_programs(&out, &text);
    singular_builtins(&out);
    differential_table(&out);
    nilang_build::report(
        nilang_build::Config::new()
            .manifest_dir(&out)
            .read_metadata(false)
            // This crate depends on the runtime renamed to `nilang`: the
            // main build finds that in the manifest, this one is told.
            .runtime_path("nilang")
            .compile_dir("random"),
    );
    println!("cargo::rerun-if-changed=build.rs");
}

/// `OUT_DIR/random_table.rs`: every random program behind one signature,
/// `fn(&mut [f64; 4], &[f64])`, whatever it mutates; and its gradient
/// (`p_grad` with `G = f64`) behind another, `fn(&mut [f64; 4], &mut [f64; 4],
/// &[f64], &mut [f64])`: the scalars, their adjoints, the array, its adjoint.
/// Every parameter of a random program is a float (`a, b, c, d::f64,
/// v::[f64]`, see [`Gen::function`]), so every one has an adjoint.
fn write_table(out: &std::path::Path, text: &str) {
    use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
    let database = RootDatabase::default();
    let file = SourceFile::new(&database, "random.nil".into(), text.to_string());
    let project = Project::new(&database, vec![file]);
    let mut table = String::new();
    let mut entries = Vec::new();
    let mut gradients = Vec::new();
    let mut twins = Vec::new();
    let mut twin_text = String::from(
        "# Each random program `pN` again as `const_pN`, with every parameter it does\n# not change declared `Const`: its gradient must give the changed\n# parameters the adjoints `pN`'s does. And `via_pN`, which passes `pN` to\n# the template `via!` (an instance per program, in this file's module).\n\n\
         function via!(f::Fn<f64, f64, f64, f64, [f64]>, a::f64, b::f64, c::f64, d::f64, v::[f64])\n    f(a, b, c, d, v)\nend\n\n\
         # `part_pN` passes `pN(_, _, _, _, v)` (`v` captured) to `part!`; `cap_pN`\n# passes `pN` with its first scalar it does not change captured to `cap!`.\n\n\
         function part!(f::Fn<f64, f64, f64, f64>, a::f64, b::f64, c::f64, d::f64)\n    f(a, b, c, d)\nend\n\n\
         function cap!(f::Fn<f64, f64, f64, [f64]>, x::f64, y::f64, z::f64, v::[f64])\n    f(x, y, z, v)\nend\n\n",
    );
    let mut vias = Vec::new();
    let mut partials = Vec::new();
    for (n, body) in function_bodies(text).iter().enumerate().take(PROGRAMS) {
        let name = format!("p{n}");
        let mutated = db::mutated_params(&database, project, &name).expect("generated function");
        let twin = format!("const_p{n}");
        let params: Vec<String> = VARS
            .iter()
            .zip(&mutated)
            .map(|(v, m)| {
                if *m {
                    format!("{v}::f64")
                } else {
                    format!("{v}::Const<f64>")
                }
            })
            .chain(["v::Const<[f64]>".to_string()])
            .collect();
        let _ = write!(
            twin_text,
            "function {twin}({})\n{}end\n\n",
            params.join(", "),
            body
        );
        let twin_args: Vec<String> = VARS
            .iter()
            .zip(&mutated)
            .map(|(v, m)| {
                if *m {
                    format!("{v}, {v}_bar")
                } else {
                    format!("*{v}")
                }
            })
            .collect();
        let _ = writeln!(
            table,
            "fn grad_{twin}(s: &mut [f64; 4], g: &mut [f64; 4], v: &[f64], _v_bar: &mut [f64]) -> nilang::Result {{\n    let [a, b, c, d] = s;\n    let [a_bar, b_bar, c_bar, d_bar] = g;\n    random_const::{twin}_grad::<f64>({}, v)\n}}",
            twin_args.join(", ")
        );
        twins.push(format!("    ({name:?}, grad_{name}, grad_{twin}),"));
        // `via_pN`: `pN` through the template; its instance changes what
        // `pN` changes (`effects::solve`), so a scalar `pN` only reads is
        // passed by value and `v` by reference, as to `pN` itself.
        let _ = write!(
            twin_text,
            "function via_{name}(a::f64, b::f64, c::f64, d::f64, v::[f64])\n    via!({name}, a, b, c, d, v)\nend\n\n"
        );
        let by_value = |i: usize, captured: Option<usize>| !mutated[i] || captured == Some(i);
        // Each scalar as `pN` takes it (by value where `pN` only reads it
        // or it is captured), with its adjoint after it in a gradient call.
        let scalar_args = |captured: Option<usize>, adjoints: bool| -> String {
            VARS.iter()
                .enumerate()
                .map(|(i, v)| {
                    let arg = if by_value(i, captured) {
                        format!("*{v}")
                    } else {
                        v.to_string()
                    };
                    if adjoints {
                        format!("{arg}, {v}_bar")
                    } else {
                        arg
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (prefix, target) in [
            ("via_call", format!("via_{name}")),
            ("via_uncall", format!("uncall_via_{name}")),
        ] {
            let _ = writeln!(
                table,
                "fn {prefix}_{name}(s: &mut [f64; 4], v: &[f64]) -> nilang::Result {{\n    let [a, b, c, d] = s;\n    random_const::{target}({}, v)\n}}",
                scalar_args(None, false)
            );
        }
        let _ = writeln!(
            table,
            "fn via_grad_{name}(s: &mut [f64; 4], g: &mut [f64; 4], v: &[f64], v_bar: &mut [f64]) -> nilang::Result {{\n    let [a, b, c, d] = s;\n    let [a_bar, b_bar, c_bar, d_bar] = g;\n    random_const::via_{name}_grad::<f64>({}, v, v_bar)\n}}",
            scalar_args(None, true)
        );
        vias.push(format!(
            "    ({name:?}, via_call_{name}, via_uncall_{name}, via_grad_{name}),"
        ));
        // Partial applications: `v` captured (it is never changed), and
        // the first scalar `pN` does not change, if any.
        let _ = write!(
            twin_text,
            "function part_{name}(a::f64, b::f64, c::f64, d::f64, v::[f64])\n    part!({name}(_, _, _, _, v), a, b, c, d)\nend\n\n"
        );
        let kept = mutated[..4].iter().position(|m| !*m);
        if let Some(k) = kept {
            let holes: Vec<&str> = VARS
                .iter()
                .enumerate()
                .map(|(i, v)| if i == k { *v } else { "_" })
                .chain(["_"])
                .collect();
            let others: Vec<&str> = VARS
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, v)| *v)
                .collect();
            let _ = write!(
                twin_text,
                "function cap_{name}(a::f64, b::f64, c::f64, d::f64, v::[f64])\n    cap!({name}({}), {}, v)\nend\n\n",
                holes.join(", "),
                others.join(", ")
            );
        }
        // Through the templates, a scalar is changed where `pN` changes
        // it and is not captured; `v` is only read.
        for (kind, captured) in [("part", None), ("cap", kept)] {
            if kind == "cap" && captured.is_none() {
                continue;
            }
            let args = scalar_args(captured, false);
            let grad_args = scalar_args(captured, true);
            for (prefix, target) in [
                ("call", format!("{kind}_{name}")),
                ("uncall", format!("uncall_{kind}_{name}")),
            ] {
                let _ = writeln!(
                    table,
                    "fn {kind}_{prefix}_{name}(s: &mut [f64; 4], v: &[f64]) -> nilang::Result {{\n    let [a, b, c, d] = s;\n    random_const::{target}({args}, v)\n}}"
                );
            }
            let _ = writeln!(
                table,
                "fn {kind}_grad_{name}(s: &mut [f64; 4], g: &mut [f64; 4], v: &[f64], v_bar: &mut [f64]) -> nilang::Result {{\n    let [a, b, c, d] = s;\n    let [a_bar, b_bar, c_bar, d_bar] = g;\n    random_const::{kind}_{name}_grad::<f64>({grad_args}, v, v_bar)\n}}"
            );
            partials.push(format!(
                "    ({name:?}, {kind}_call_{name}, {kind}_uncall_{name}, {kind}_grad_{name}),"
            ));
        }
        let args: Vec<String> = VARS
            .iter()
            .zip(&mutated)
            .map(|(v, m)| if *m { v.to_string() } else { format!("*{v}") })
            .collect();
        for (prefix, target) in [("call", name.clone()), ("uncall", format!("uncall_{name}"))] {
            let _ = writeln!(
                table,
                "fn {prefix}_{name}(s: &mut [f64; 4], v: &[f64]) -> nilang::Result {{\n    let [a, b, c, d] = s;\n    random::{target}({}, v)\n}}",
                args.join(", ")
            );
        }
        entries.push(format!("    ({name:?}, call_{name}, uncall_{name}),"));
        let _ = writeln!(
            table,
            "fn grad_{name}(s: &mut [f64; 4], g: &mut [f64; 4], v: &[f64], v_bar: &mut [f64]) -> nilang::Result {{\n    let [a, b, c, d] = s;\n    let [a_bar, b_bar, c_bar, d_bar] = g;\n    random::{name}_grad::<f64>({}, v, v_bar)\n}}",
            args.iter()
                .zip(VARS)
                .map(|(arg, v)| format!("{arg}, {v}_bar"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert_eq!(mutated.len(), 5, "{name}: a, b, c, d, v");
        assert!(!mutated[4], "{name}: v is read only");
        let scalars = &mutated[..4];
        gradients.push(format!(
            "    ({name:?}, call_{name}, grad_{name}, {scalars:?}),"
        ));
    }
    let _ = writeln!(
        table,
        "/// Every random program: name, call, uncall.\npub const PROGRAMS: &[(&str, Program, Program)] = &[\n{}\n];",
        entries.join("\n")
    );
    let _ = writeln!(
        table,
        "/// Every random program's gradient: name, call, gradient, which of\n/// `a, b, c, d` it mutates.\npub const GRADIENTS: &[(&str, Program, Gradient, [bool; 4])] = &[\n{}\n];",
        gradients.join("\n")
    );
    let _ = writeln!(
        table,
        "/// Every random program's gradient and that of its twin with `Const`\n/// parameters: name, the gradient, the twin's.\npub const CONST_TWINS: &[(&str, Gradient, Gradient)] = &[\n{}\n];",
        twins.join("\n")
    );
    let _ = writeln!(
        table,
        "/// Every random program passed to the template `via!`: name, call,\n/// uncall and gradient of its instance.\npub const VIA: &[(&str, Program, Program, Gradient)] = &[\n{}\n];",
        vias.join("\n")
    );
    let _ = writeln!(
        table,
        "/// Every random program passed partially applied (`v` captured, and\n/// a scalar it does not change): name, call, uncall and gradient of the\n/// instance's caller.\npub const PARTIAL: &[(&str, Program, Program, Gradient)] = &[\n{}\n];",
        partials.join("\n")
    );
    let twin_path = out.join("random").join("random_const.nil");
    write_if_changed(&twin_path, &twin_text);
    let path = out.join("random_table.rs");
    write_if_changed(&path, &table);
}

/// The random programs whose derivative calls `random_derivatives.rs`
/// tests: plain ones and ones with every construct (which call plain ones).
const DERIVED: [std::ops::Range<usize>; 2] = [0..10, PLAIN..PLAIN + 10];

/// `random/random_derivatives.nil`: each random program `pN` up to the last
/// of [`DERIVED`] again generic in its float type (`gen_pN`, calling the
/// other `gen_` programs), and for each of `DERIVED` two functions made of
/// one derivative call: `grad_of_pN` (`(∇gen_pN)`) and `tan_of_pN`
/// (`(∂gen_pN)`), parameters `a, ga, b, gb, c, gc, d, gd, v, gv`. And
/// `OUT_DIR/derivatives_table.rs`: their call, uncall and gradient program
/// behind uniform signatures (`DerivedProgram`, `DerivedGradient`).
fn derivative_programs(out: &std::path::Path, dir: &std::path::Path, text: &str) {
    use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
    let last = DERIVED.iter().map(|r| r.end).max().unwrap_or(0);
    let generic = |body: &str| {
        // `pK(` (a call, `~pK(` too) becomes `gen_pK(`.
        let mut out = String::new();
        let mut from = 0;
        for (at, _) in program_calls(body) {
            out.push_str(&body[from..at]);
            out.push_str("gen_");
            from = at;
        }
        out.push_str(&body[from..]);
        // A float ancilla of the float type, so that a dual part is kept.
        out.replace("← 0.0", "← zero(T)")
    };
    let mut nil = String::from(
        "# Random programs generic in their float type, and derivative calls of them\n# (see build.rs: `derivative_programs`).\n\n",
    );
    let bodies = function_bodies(text);
    let names: Vec<usize> = DERIVED.iter().flat_map(|r| r.clone()).collect();
    // The programs `DERIVED` reaches through calls: only those get a
    // generic twin (the test crate builds every generated function).
    let mut needed = vec![false; last];
    let mut work = names.clone();
    while let Some(n) = work.pop() {
        if needed[n] {
            continue;
        }
        needed[n] = true;
        work.extend(
            program_calls(&bodies[n])
                .map(|(_, k)| k)
                .filter(|&k| k < last),
        );
    }
    for (n, body) in bodies.iter().enumerate().take(last) {
        if needed[n] {
            let _ = write!(
                nil,
                "function gen_p{n}(a::T, b::T, c::T, d::T, v::[T]) where T: Real\n{}end\n\n",
                generic(body)
            );
        }
    }
    for &n in &names {
        for (kind, op) in [("grad_of", '∇'), ("tan_of", '∂')] {
            let _ = write!(
                nil,
                "function {kind}_p{n}(a::T, ga::T, b::T, gb::T, c::T, gc::T, d::T, gd::T, v::[T], gv::[T]) where T: Real\n    ({op}gen_p{n})(a, ga, b, gb, c, gc, d, gd, v, gv)\nend\n\n"
            );
        }
    }
    let path = dir.join("random_derivatives.nil");
    write_if_changed(&path, &nil);
    let database = RootDatabase::default();
    let file = SourceFile::new(&database, "random_derivatives.nil".into(), nil.clone());
    let project = Project::new(&database, vec![file]);
    let mut table = String::new();
    let mut rows = Vec::new();
    for &n in &names {
        let mut row = Vec::new();
        for kind in ["grad_of", "tan_of"] {
            let name = format!("{kind}_p{n}");
            let mutated =
                db::mutated_params(&database, project, &name).expect("generated function");
            // The scalars are `s[0..8]` in parameter order, the arrays `v`, `gv`.
            let arg = |k: usize| match (k, mutated[k]) {
                (8, true) => "&mut *v".to_string(),
                (8, false) => "&*v".to_string(),
                (9, true) => "&mut *gv".to_string(),
                (9, false) => "&*gv".to_string(),
                (k, true) => format!("&mut *s{k}"),
                (k, false) => format!("*s{k}"),
            };
            let args: Vec<String> = (0..10).map(arg).collect();
            for (prefix, target) in [("call", name.clone()), ("uncall", format!("uncall_{name}"))] {
                let _ = writeln!(
                    table,
                    "fn {prefix}_{name}(s: &mut [f64; 8], v: &mut [f64], gv: &mut [f64]) -> nilang::Result {{\n    let [s0, s1, s2, s3, s4, s5, s6, s7] = s;\n    random_derivatives::{target}({})\n}}",
                    args.join(", ")
                );
            }
            let bars: Vec<String> = (0..10)
                .map(|k| {
                    let bar = match k {
                        8 => "v_bar".to_string(),
                        9 => "gv_bar".to_string(),
                        k => format!("&mut *g{k}"),
                    };
                    format!("{}, {bar}", arg(k))
                })
                .collect();
            let _ = writeln!(
                table,
                "fn grad_{name}(s: &mut [f64; 8], g: &mut [f64; 8], v: &mut [f64], v_bar: &mut [f64], gv: &mut [f64], gv_bar: &mut [f64]) -> nilang::Result {{\n    let [s0, s1, s2, s3, s4, s5, s6, s7] = s;\n    let [g0, g1, g2, g3, g4, g5, g6, g7] = g;\n    random_derivatives::{name}_grad::<f64, f64>({})\n}}",
                bars.join(", ")
            );
            row.push(format!("call_{name}, uncall_{name}, grad_{name}"));
        }
        rows.push(format!("    (\"p{n}\", {}),", row.join(", ")));
    }
    let _ = writeln!(
        table,
        "/// Each program of `DERIVED`: name, then call, uncall and gradient of\n/// `grad_of_pN`, then of `tan_of_pN`.\npub const DERIVED: &[(&str, DerivedProgram, DerivedProgram, DerivedGradient, DerivedProgram, DerivedProgram, DerivedGradient)] = &[\n{}\n];",
        rows.join("\n")
    );
    let path = out.join("derivatives_table.rs");
    write_if_changed(&path, &table);
}

/// The calls of random programs in a body: where each name `pK` starts,
/// and `K` (a call of `pK(` after something that does not continue a name).
fn program_calls(body: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    body.match_indices('p').filter_map(|(at, _)| {
        let digits = body[at + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        let word_start = !body[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let call = body[at + 1 + digits..].starts_with('(');
        (word_start && digits > 0 && call)
            .then(|| Some((at, body[at + 1..at + 1 + digits].parse().ok()?)))
            .flatten()
    })
}

/// Writes `text` to `path` unless it already holds it, so that an
/// unchanged output does not rebuild what includes it.
fn write_if_changed(path: &std::path::Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
}

/// The body of each function of `text` (the lines between its header and
/// its closing `end`, which is the only `end` at the start of a line).
fn function_bodies(text: &str) -> Vec<String> {
    let mut bodies = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("function ") {
            current = Some(String::new());
        } else if line == "end" {
            bodies.extend(current.take());
        } else if let Some(body) = &mut current {
            body.push_str(line);
            body.push('\n');
        }
    }
    bodies
}

const PROGRAMS: usize = 100;
/// The first `PLAIN` programs read variables through `sin`, `cos` and
/// products only; the others (which may call them) also through the other
/// elementary functions, quotients, powers, the non-smooth `abs`, `min`,
/// `max`, `atan(y, x)`, `floor` and `sign`, and contain `HADAMARD`, `if`s
/// comparing two variables and `while` loops whose trip count depends on a
/// float.
const PLAIN: usize = 60;
const VARS: [&str; 4] = ["a", "b", "c", "d"];

struct Gen {
    state: u64,
    out: String,
    functions: usize,
    ancillas: usize,
}

impl Gen {
    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    fn function(&mut self) {
        let n = self.functions;
        self.functions += 1;
        let _ = writeln!(
            self.out,
            "function p{n}(a::f64, b::f64, c::f64, d::f64, v::[f64])"
        );
        let count = 2 + self.below(5);
        let mut body = String::new();
        for _ in 0..count {
            self.stmt(&mut body, 1, &VARS, &[]);
        }
        self.out.push_str(&body);
        self.out.push_str("end\n\n");
    }

    /// A read-only operand: another variable, an element of `v`, a loop
    /// variable or a constant.
    fn operand(&mut self, target: &str, loops: &[String]) -> String {
        let readable: Vec<&str> = VARS.iter().copied().filter(|v| *v != target).collect();
        match self.below(4) {
            0 => format!("v[{}]", 1 + self.below(4)),
            1 if !loops.is_empty() => loops[self.below(loops.len())].clone(),
            2 => format!("{}.{}", self.below(3), 1 + self.below(9)),
            _ => self.pick(&readable).to_string(),
        }
    }

    /// The prefix of the next `@routine`: every other one (by ancilla
    /// count, drawing nothing from the generator) is `@store @routine`, so
    /// that the stored reverse passes meet the same programs.
    fn storing(&self) -> &'static str {
        if self.ancillas.is_multiple_of(2) {
            "@store "
        } else {
            ""
        }
    }

    /// Whether the function being generated is past the first [`PLAIN`].
    fn rich(&self) -> bool {
        self.functions > PLAIN
    }

    fn value(&mut self, target: &str, loops: &[String]) -> String {
        if self.rich() && self.below(3) != 0 {
            return self.rich_value(target, loops);
        }
        let x = self.operand(target, loops);
        match self.below(5) {
            0 => format!("sin({x})"),
            1 => format!("cos({x}) * 0.5"),
            2 => {
                let mut y = self.operand(target, loops);
                if y == x {
                    y = "0.25".into();
                }
                format!("{x} * {y}")
            }
            _ => x,
        }
    }

    /// An expression of two operands through the elementary functions,
    /// kept inside their domains and bounded where it could grow.
    fn rich_value(&mut self, target: &str, loops: &[String]) -> String {
        let x = self.operand(target, loops);
        let mut y = self.operand(target, loops);
        if y == x {
            y = "0.75".into();
        }
        match self.below(15) {
            0 => format!("tanh({x}) * atan({y})"),
            1 => format!("{x} / (2.5 + sin({y}))"),
            2 => format!("sqrt(2.0 + sin({x})) - log(2.0 + cos({y}))"),
            3 => format!("(2.0 + sin({x})) ^ tanh({y})"),
            4 => format!("sin({x}) ^ 3 + exp(cos({y}))"),
            5 => format!("asin(tanh({x}) * 0.9) - acos(tanh({y}) * 0.9)"),
            6 => format!("sinh(tanh({x})) * cosh(sin({y}))"),
            7 => format!("inv(2.0 + cos({x})) + abs2(sin({y}))"),
            8 => format!("abs({x}) - {y} * 0.5"),
            9 => format!("min({x}, {y})"),
            10 => format!("max({x}, {y}) * 0.5"),
            11 => format!("atan({x}, {y})"),
            12 => format!("floor({x}) * 0.5 + sign({y})"),
            13 => format!("-{x} * 0.5 + tan(sin({y}) * 0.5)"),
            _ => format!("({x} - {y}) * 0.5"),
        }
    }

    fn indent(out: &mut String, depth: usize) {
        for _ in 0..depth {
            out.push_str("    ");
        }
    }

    fn stmt(&mut self, out: &mut String, depth: usize, writable: &[&str], loops: &[String]) {
        if writable.is_empty() {
            return;
        }
        let kind = if depth > 2 {
            self.below(4)
        } else if self.rich() {
            self.below(14)
        } else {
            self.below(10)
        };
        match kind {
            0 | 1 => {
                let t = self.pick(writable);
                let op = if self.below(2) == 0 { "+=" } else { "-=" };
                let value = self.value(t, loops);
                Self::indent(out, depth);
                let _ = writeln!(out, "{t} {op} {value}");
            }
            2 if writable.len() >= 2 => {
                let i = self.below(writable.len());
                let j = (i + 1 + self.below(writable.len() - 1)) % writable.len();
                let (p, q) = (writable[i], writable[j]);
                Self::indent(out, depth);
                match self.below(3) {
                    0 => {
                        let _ = writeln!(out, "SWAP({p}, {q})");
                    }
                    1 => {
                        let _ = writeln!(out, "ROT({p}, {q}, 0.3)");
                    }
                    _ => {
                        let _ = writeln!(out, "IROT({p}, {q}, 0.7)");
                    }
                }
            }
            3 => {
                let t = self.pick(writable);
                Self::indent(out, depth);
                let _ = writeln!(out, "NEG({t})");
            }
            4 if self.functions > 1 && writable.len() == 4 => {
                // A call of an earlier program, with the variables permuted.
                let callee = self.below(self.functions - 1);
                let mut args: Vec<&str> = VARS.to_vec();
                for k in (1..args.len()).rev() {
                    let j = self.below(k + 1);
                    args.swap(k, j);
                }
                let inverted = if self.below(3) == 0 { "~" } else { "" };
                Self::indent(out, depth);
                let _ = writeln!(out, "{inverted}p{callee}({}, v)", args.join(", "));
            }
            5 => {
                // The condition's variable stays untouched in the branches.
                let c = self.pick(writable);
                let rest: Vec<&str> = writable.iter().copied().filter(|v| *v != c).collect();
                Self::indent(out, depth);
                let _ = writeln!(out, "if ({c} > 0.0, ~)");
                self.stmt(out, depth + 1, &rest, loops);
                Self::indent(out, depth);
                out.push_str("else\n");
                self.stmt(out, depth + 1, &rest, loops);
                Self::indent(out, depth);
                out.push_str("end\n");
            }
            6 => {
                let var = format!("i{depth}");
                let n = 1 + self.below(3);
                Self::indent(out, depth);
                let _ = writeln!(out, "for {var} = 1:{n}");
                let mut inner = loops.to_vec();
                inner.push(var);
                self.stmt(out, depth + 1, writable, &inner);
                Self::indent(out, depth);
                out.push_str("end\n");
            }
            7 => {
                // A counted while loop on an ancilla.
                self.ancillas += 1;
                let k = format!("k{}", self.ancillas);
                let n = 1 + self.below(3);
                Self::indent(out, depth);
                let _ = writeln!(out, "{k} ← 0");
                Self::indent(out, depth);
                let _ = writeln!(out, "while ({k} < {n}, {k} > 0)");
                Self::indent(out, depth + 1);
                let _ = writeln!(out, "{k} += 1");
                self.stmt(out, depth + 1, writable, loops);
                Self::indent(out, depth);
                out.push_str("end\n");
                Self::indent(out, depth);
                let _ = writeln!(out, "{k} → {n}");
            }
            8 => {
                // compute, use, uncompute with @routine.
                self.ancillas += 1;
                let z = format!("z{}", self.ancillas);
                let t = self.pick(writable);
                let value = self.value(t, loops);
                Self::indent(out, depth);
                let _ = writeln!(out, "{}@routine begin", self.storing());
                Self::indent(out, depth + 1);
                let _ = writeln!(out, "{z} ← 0.0");
                Self::indent(out, depth + 1);
                let _ = writeln!(out, "{z} += {value}");
                Self::indent(out, depth);
                out.push_str("end\n");
                Self::indent(out, depth);
                let _ = writeln!(out, "{t} += {z} * 0.5");
                Self::indent(out, depth);
                out.push_str("~@routine\n");
            }
            10 => {
                // A while loop whose trip count depends on a float: computes
                // an ancilla, used, then uncomputed with @routine.
                self.ancillas += 1;
                let (k, z) = (format!("k{}", self.ancillas), format!("z{}", self.ancillas));
                let t = self.pick(writable);
                let others: Vec<&str> = VARS.iter().copied().filter(|v| *v != t).collect();
                let c = self.pick(&others);
                let n = 1 + self.below(3);
                let value = self.value(t, loops);
                for line in [
                    format!("{}@routine begin", self.storing()),
                    format!("    {k} ← 0.0"),
                    format!("    {z} ← 0.0"),
                    format!("    while ({k} < abs({c}) * 2.0 && {k} < {n}.0, {k} > 0.0)"),
                    format!("        {k} += 1.0"),
                    format!("        {z} += {value}"),
                    "    end".to_string(),
                    "end".to_string(),
                    format!("{t} += {z} * 0.5"),
                    "~@routine".to_string(),
                ] {
                    Self::indent(out, depth);
                    out.push_str(&line);
                    out.push('\n');
                }
            }
            11 if writable.len() >= 3 => {
                // A condition on two variables, untouched in the branches.
                let i = self.below(writable.len());
                let j = (i + 1 + self.below(writable.len() - 1)) % writable.len();
                let (p, q) = (writable[i], writable[j]);
                let rest: Vec<&str> = writable
                    .iter()
                    .copied()
                    .filter(|v| *v != p && *v != q)
                    .collect();
                Self::indent(out, depth);
                let _ = writeln!(out, "if ({p} > {q}, ~)");
                self.stmt(out, depth + 1, &rest, loops);
                Self::indent(out, depth);
                out.push_str("else\n");
                self.stmt(out, depth + 1, &rest, loops);
                Self::indent(out, depth);
                out.push_str("end\n");
            }
            12 if writable.len() >= 2 => {
                let i = self.below(writable.len());
                let j = (i + 1 + self.below(writable.len() - 1)) % writable.len();
                Self::indent(out, depth);
                let _ = writeln!(out, "HADAMARD({}, {})", writable[i], writable[j]);
            }
            13 if writable.len() >= 2 => {
                // A routine in a loop that writes a parameter `u` and an
                // ancilla `w` allocated outside the loop: their adjoints are
                // not zero when the reverse pass reaches the routine.
                self.ancillas += 1;
                let w = format!("w{}", self.ancillas);
                let i = self.below(writable.len());
                let j = (i + 1 + self.below(writable.len() - 1)) % writable.len();
                let (t, u) = (writable[i], writable[j]);
                let value = self.value(t, loops);
                let var = format!("i{depth}");
                let n = 1 + self.below(3);
                for line in [
                    format!("{w} ← 0.0"),
                    format!("for {var} = 1:{n}"),
                    format!("    {}@routine begin", self.storing()),
                    format!("        {w} += {value}"),
                    format!("        {u} += sin({w}) * 0.5"),
                    "    end".to_string(),
                    format!("    {t} += {w} * {u} * 0.5"),
                    "    ~@routine".to_string(),
                    "end".to_string(),
                    format!("{w} → 0.0"),
                ] {
                    Self::indent(out, depth);
                    out.push_str(&line);
                    out.push('\n');
                }
            }
            _ => {
                let t = self.pick(writable);
                let value = self.value(t, loops);
                Self::indent(out, depth);
                let _ = writeln!(out, "{t} += {value}");
            }
        }
    }
}

/// Programs whose instructions and calls pair elements `w[x]`, `w[y]` with
/// `x`, `y` two of the parameters `i, j, k`: `OUT_DIR/random/aliased.nil`,
/// and `OUT_DIR/aliased_table.rs` with, per program, its call, its uncall
/// and the pairs of parameters (0 = i, 1 = j, 2 = k) one statement compares.
fn aliased(out: &std::path::Path, dir: &std::path::Path) {
    let mut g = Gen {
        state: 0x9E37_79B9_7F4A_7C15,
        out: String::new(),
        functions: 0,
        ancillas: 0,
    };
    let names = ["i", "j", "k"];
    let mut text = String::from("function two(a::f64, b::f64)\n    a += b * 0.5\nend\n\n");
    let mut table = String::new();
    let mut entries = Vec::new();
    for n in 0..ALIASED {
        let _ = writeln!(text, "function q{n}(w::[f64], i::i64, j::i64, k::i64)");
        let mut pairs = Vec::new();
        for _ in 0..3 + g.below(4) {
            let x = g.below(3);
            let y = (x + 1 + g.below(2)) % 3;
            let (a, b) = (names[x], names[y]);
            let stmt = match g.below(7) {
                0 => format!("w[{a}] += sin(w[{b}])"),
                1 => format!("w[{a}] -= w[{b}] * 0.5"),
                2 => format!("SWAP(w[{a}], w[{b}])"),
                3 => format!("ROT(w[{a}], w[{b}], 0.3)"),
                4 => format!("two(w[{a}], w[{b}])"),
                // Distinct statically: no run-time comparison.
                5 => format!("w[{a}] += cos(w[{a} + 4])"),
                _ => format!("w[{a}] += 0.25"),
            };
            if !stmt.contains("+ 4") && !stmt.ends_with("0.25") {
                pairs.push((x.min(y), x.max(y)));
            }
            let _ = writeln!(text, "    {stmt}");
        }
        text.push_str("end\n\n");
        pairs.sort();
        pairs.dedup();
        for (prefix, target) in [
            ("call", format!("q{n}")),
            ("uncall", format!("uncall_q{n}")),
        ] {
            let _ = writeln!(
                table,
                "fn {prefix}_q{n}(w: &mut [f64], [i, j, k]: [i64; 3]) -> nilang::Result {{\n    aliased::{target}(w, i, j, k)\n}}"
            );
        }
        entries.push(format!(
            "    (\"q{n}\", call_q{n}, uncall_q{n}, &{pairs:?}),"
        ));
    }
    let _ = writeln!(
        table,
        "/// Every aliased program: name, call, uncall, the pairs of index\n/// parameters one of its statements compares.\npub const ALIASED: &[(&str, Indexed, Indexed, &[(usize, usize)])] = &[\n{}\n];",
        entries.join("\n")
    );
    let path = dir.join("aliased.nil");
    write_if_changed(&path, &text);
    let path = out.join("aliased_table.rs");
    write_if_changed(&path, &table);
}

/// How many aliased programs [`aliased`] writes.
const ALIASED: usize = 40;

/// How many terms the chains of `random/chains.nil` have: past the 1,000
/// after which generated Rust cuts a chain into `let`s, and far past the old
/// limit of 128 (`compiler/tests/chains.rs` checks and generates 10,000).
/// Not more: each term is about 2 KB of Rust over the seven entry points of
/// each of the four functions, and rustc's borrow checking grows faster
/// than the functions do: at 2,500 terms this module was half of the
/// library's generated code and of its type-checking time, and at 1,200 it
/// still took 4.5 of the library's 6 minutes to check.
const CHAIN_TERMS: usize = 1_010;

/// `random/chains.nil`: a sum and difference, a weighted sum, an `&&`
/// chain and a product, each `CHAIN_TERMS` long (`tests/chains.rs`).
fn chains(dir: &std::path::Path) {
    let mut sum = String::from("x[1]");
    let mut weighted = String::from("0.0");
    let mut all = String::from("x[1] > 0");
    let mut product = String::from("x[1]");
    for i in 2..=CHAIN_TERMS {
        if i % 7 == 0 {
            let _ = write!(product, " * exp(x[{i}] - 1.0)");
        } else {
            let _ = write!(product, " * x[{i}]");
        }
        let op = if i % 3 == 0 { '-' } else { '+' };
        let _ = write!(sum, " {op} x[{i}]");
        let _ = write!(weighted, " + {}.0 * x[{i}]", i % 7 + 1);
        let _ = write!(all, " && x[{i}] > 0");
    }
    let text = format!(
        "function long_sum!(y::f64, x::[f64])\n    y += {sum}\nend\n\n\
         function long_weighted!(y::f64, x::[f64])\n    y += {weighted}\nend\n\n\
         function long_and!(y::f64, x::[f64])\n    if ({all}, ~)\n        y += 1.0\n    end\nend\n\n\
         function long_product!(y::f64, x::[f64])\n    y += {product}\nend\n"
    );
    write_if_changed(&dir.join("chains.nil"), &text);
}

/// How many site ids a program may have before the rollback test samples
/// them (the ids of a program count its callees' too).
const ROLLBACK_LOSSES: usize = 3;
/// The programs whose generic twin `random_rollback.nil` differentiates
/// with derivative calls: plain ones and ones with every construct.
const ROLLBACK_DERIVED: [std::ops::Range<usize>; 2] = [0..4, PLAIN..PLAIN + 4];

/// Failure injection into a random program's body (issue 42 item 2):
/// each check site of the body gets an id, and fails when the new last
/// parameter `site` equals it. The sites: an `@assert` before each
/// top-level statement and at the end (`Check::Assertion`), each ancilla
/// allocation (its value off by one: a `while` counter then fails the
/// loop's entry condition, a float ancilla its deallocation) and
/// deallocation (`Check::Deallocation`), each `while`'s postcondition
/// (false after an iteration) and each `if`'s postcondition (false after
/// the first branch ran). A call `pK(..)` becomes `{prefix}pK(.., site -
/// off)`: the callee's own ids follow. Returns the body and its number of
/// ids (the callee's included, `totals[K]` each).
fn instrument(body: &str, totals: &[usize], prefix: &str) -> (String, usize) {
    let hit = |id: usize| format!("(1 - min(abs(site - {id}), 1))");
    let mut id = 0usize;
    let mut out = String::new();
    for line in body.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if indent.len() == 4 && !matches!(trimmed, "end" | "else") {
            id += 1;
            let _ = writeln!(out, "    @safe @assert site != {id}");
        }
        let (tilde, rest) = match trimmed.strip_prefix('~') {
            Some(r) => ("~", r),
            None => ("", trimmed),
        };
        let callee = rest.strip_prefix('p').and_then(|r| {
            let digits = r.chars().take_while(char::is_ascii_digit).count();
            let k: usize = r[..digits].parse().ok()?;
            let args = r[digits..].strip_prefix('(')?.strip_suffix(')')?;
            Some((k, args))
        });
        let new = if let Some(cond) = trimmed
            .strip_prefix("if (")
            .and_then(|r| r.strip_suffix(", ~)"))
        {
            id += 1;
            format!("if ({cond}, {cond} && site != {id})")
        } else if let Some(r) = trimmed.strip_prefix("while (") {
            id += 1;
            format!("while ({} && site != {id})", &r[..r.len() - 1])
        } else if trimmed.contains(" ← ") || trimmed.contains(" → ") {
            id += 1;
            format!("{trimmed} + {}", hit(id))
        } else if let Some((k, args)) = callee {
            let off = id;
            id += totals[k];
            format!("{tilde}{prefix}p{k}({args}, site - {off})")
        } else {
            trimmed.to_string()
        };
        let _ = writeln!(out, "{indent}{new}");
    }
    id += 1;
    let _ = writeln!(out, "    @safe @assert site != {id}");
    (out, id)
}

/// `OUT_DIR/rollback/random_rollback.nil` (compiled into the module
/// `random_rollback`, which only `tests/random_rollback.rs` includes) and
/// `OUT_DIR/rollback_table.rs`: every random program `pN` again as `r_pN`
/// with failures injected at its check sites ([`instrument`]); for every
/// `ROLLBACK_LOSSES`th program a loss `loss_rN` that runs `r_pN` on copies
/// in a `@routine` and only adds into `out` (so it has
/// `loss_rN_adjoint_accumulating`); for the others a variant of `r_pN`
/// with its unchanged parameters `Const`; and for `ROLLBACK_DERIVED`
/// generic twins `gen_r_pN` with derivative calls `grad_of_rN`,
/// `tan_of_rN`. The table gives each entry point behind one signature.
fn rollback_programs(out: &std::path::Path, text: &str) {
    use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
    let bodies = function_bodies(text);
    let mut totals = vec![0usize; PROGRAMS];
    let mut nil = String::from(
        "# The random programs with failures injected at their check sites\n# (tests/build.rs: `rollback_programs`, tests/tests/random_rollback.rs).\n\n",
    );
    let mut variants = Vec::new();
    for (n, body) in bodies.iter().enumerate().take(PROGRAMS) {
        let (inst, total) = instrument(body, &totals, "r_");
        totals[n] = total;
        let _ = write!(
            nil,
            "function r_p{n}(a::f64, b::f64, c::f64, d::f64, v::[f64], site::i64)\n{inst}end\n\n"
        );
        if n % ROLLBACK_LOSSES == 0 {
            let _ = write!(
                nil,
                "function loss_r{n}(out::f64, a::f64, b::f64, c::f64, d::f64, v::[f64], site::i64)\n    @routine begin\n        a1 ← a\n        b1 ← b\n        c1 ← c\n        d1 ← d\n        r_p{n}(a1, b1, c1, d1, v, site)\n    end\n    out += a1 * 0.5 + b1 * 0.25 + sin(c1) + d1\n    ~@routine\nend\n\n"
            );
        }
    }
    // Generic twins: the derived programs and what they call.
    let derived: Vec<usize> = ROLLBACK_DERIVED.iter().flat_map(|r| r.clone()).collect();
    let mut needed = [false; PROGRAMS];
    let mut work = derived.clone();
    while let Some(n) = work.pop() {
        if !needed[n] {
            needed[n] = true;
            work.extend(program_calls(&bodies[n]).map(|(_, k)| k));
        }
    }
    for (n, body) in bodies.iter().enumerate().take(PROGRAMS) {
        if needed[n] {
            let (inst, _) = instrument(body, &totals, "gen_r_");
            let _ = write!(
                nil,
                "function gen_r_p{n}(a::T, b::T, c::T, d::T, v::[T], site::i64) where T: Real\n{}end\n\n",
                inst.replace("← 0.0", "← zero(T)")
            );
        }
    }
    for &n in &derived {
        for (kind, op) in [("grad_of", '∇'), ("tan_of", '∂')] {
            let _ = write!(
                nil,
                "function {kind}_r{n}(a::T, ga::T, b::T, gb::T, c::T, gc::T, d::T, gd::T, v::[T], gv::[T], site::i64) where T: Real\n    ({op}gen_r_p{n})(a, ga, b, gb, c, gc, d, gd, v, gv, site)\nend\n\n"
            );
        }
    }
    let dir = out.join("rollback");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/rollback");
    write_if_changed(&dir.join("random_rollback.nil"), &nil);

    let database = RootDatabase::default();
    let file = SourceFile::new(&database, "random_rollback.nil".into(), nil.clone());
    let project = Project::new(&database, vec![file]);
    let mutated = |name: &str| db::mutated_params(&database, project, name).expect(name);
    for n in (0..PROGRAMS).filter(|n| n % ROLLBACK_LOSSES != 0) {
        let m = mutated(&format!("r_p{n}"));
        let constants: Vec<&str> = VARS
            .iter()
            .zip(&m)
            .filter(|(_, m)| !**m)
            .map(|(v, _)| *v)
            .chain(["v"])
            .collect();
        variants.push((n, constants));
    }
    let mut config = nilang_build::Config::new()
        .manifest_dir(out)
        .read_metadata(false)
        .runtime_path("nilang");
    for (n, constants) in &variants {
        config = config.variant(&format!("r_p{n}"), constants.iter().copied());
    }
    let generated = config.compile_dir("rollback");
    let generated = match generated {
        Ok(paths) => paths
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .collect::<String>(),
        Err(e) => {
            nilang_build::report::<()>(Err(e));
            unreachable!("report exits on an error")
        }
    };
    let exists = |f: &str| {
        generated.contains(&format!("pub fn {f}<")) || generated.contains(&format!("pub fn {f}("))
    };

    // The table: each entry point behind `Entry` (`fn(&mut State, i64)`):
    // scalars in `s` (`out` of a loss at 8), their adjoints in `g`.
    let mut table = String::new();
    let mut rows = Vec::new();
    let sc = |k: usize, m: bool| {
        if m {
            format!("&mut *s{k}")
        } else {
            format!("*s{k}")
        }
    };
    for (n, &total) in totals.iter().enumerate() {
        let mut row: Vec<String> = Vec::new();
        let mut entry = |name: String, call: String| {
            let f = format!("p{n}_e{}", row.len());
            let _ = writeln!(
                table,
                "fn {f}(st: &mut State, site: i64) -> nilang::Result {{\n    let State {{ s, g, v, v_bar, gv, gv_bar }} = st;\n    let [s0, s1, s2, s3, s4, s5, s6, s7, s8] = s;\n    let [g0, g1, g2, g3, g4, g5, g6, g7, g8] = g;\n    let _ = (&s0, &s1, &s2, &s3, &s4, &s5, &s6, &s7, &s8, &g0, &g1, &g2, &g3, &g4, &g5, &g6, &g7, &g8, &v, &v_bar, &gv, &gv_bar);\n    random_rollback::{call}\n}}"
            );
            row.push(format!("({name:?}, {f} as Entry)"));
        };
        let m = mutated(&format!("r_p{n}"));
        let args: Vec<String> = (0..4).map(|k| sc(k, m[k])).collect();
        let bars: Vec<String> = (0..4)
            .map(|k| format!("{}, &mut *g{k}", sc(k, m[k])))
            .collect();
        for f in [format!("r_p{n}"), format!("uncall_r_p{n}")] {
            entry(f.clone(), format!("{f}({}, &v[..], site)", args.join(", ")));
        }
        for f in [
            format!("r_p{n}_grad"),
            format!("uncall_r_p{n}_grad"),
            format!("r_p{n}_adjoint"),
            format!("uncall_r_p{n}_adjoint"),
        ] {
            assert!(exists(&f), "{f} not generated");
            entry(
                f.clone(),
                format!(
                    "{f}::<f64>({}, &v[..], &mut v_bar[..], site)",
                    bars.join(", ")
                ),
            );
        }
        if n % ROLLBACK_LOSSES == 0 {
            let lb = "&mut *s8, &mut *g8, *s0, &mut *g0, *s1, &mut *g1, *s2, &mut *g2, *s3, &mut *g3, &v[..], &mut v_bar[..], site";
            for f in [format!("loss_r{n}"), format!("uncall_loss_r{n}")] {
                entry(
                    f.clone(),
                    format!("{f}(&mut *s8, *s0, *s1, *s2, *s3, &v[..], site)"),
                );
            }
            assert!(
                exists(&format!("loss_r{n}_adjoint_accumulating")),
                "loss_r{n} has no accumulating reverse pass"
            );
            for suffix in ["_grad", "_adjoint", "_adjoint_accumulating"] {
                for un in ["", "uncall_"] {
                    let f = format!("{un}loss_r{n}{suffix}");
                    if exists(&f) {
                        entry(f.clone(), format!("{f}::<f64>({lb})"));
                    }
                }
            }
        } else {
            let (_, constants) = variants.iter().find(|(k, _)| *k == n).expect("variant");
            let name = format!("r_p{n}_const_{}", constants.join("_"));
            assert!(exists(&name), "{name} not generated");
            let vbars: Vec<String> = (0..4)
                .map(|k| {
                    if m[k] {
                        format!("&mut *s{k}, &mut *g{k}")
                    } else {
                        format!("*s{k}")
                    }
                })
                .collect();
            for f in [name.clone(), format!("uncall_{name}")] {
                entry(f.clone(), format!("{f}({}, &v[..], site)", args.join(", ")));
            }
            for f in [
                format!("{name}_grad"),
                format!("uncall_{name}_grad"),
                format!("{name}_adjoint"),
                format!("uncall_{name}_adjoint"),
            ] {
                if exists(&f) {
                    entry(
                        f.clone(),
                        format!("{f}::<f64>({}, &v[..], site)", vbars.join(", ")),
                    );
                }
            }
        }
        if derived.contains(&n) {
            for kind in ["grad_of", "tan_of"] {
                let name = format!("{kind}_r{n}");
                let m = mutated(&name);
                // a, ga, b, gb, .. in s[0..8], their adjoints in g[0..8].
                let arg = |k: usize| match (k, m[k]) {
                    (8, true) => "&mut v[..]".to_string(),
                    (8, false) => "&v[..]".to_string(),
                    (9, true) => "&mut gv[..]".to_string(),
                    (9, false) => "&gv[..]".to_string(),
                    (k, m) => sc(k, m),
                };
                let args: Vec<String> = (0..10).map(arg).collect();
                for f in [name.clone(), format!("uncall_{name}")] {
                    entry(f.clone(), format!("{f}({}, site)", args.join(", ")));
                }
                let bars: Vec<String> = (0..10)
                    .map(|k| {
                        let bar = match k {
                            8 => "&mut v_bar[..]".to_string(),
                            9 => "&mut gv_bar[..]".to_string(),
                            k => format!("&mut *g{k}"),
                        };
                        format!("{}, {bar}", arg(k))
                    })
                    .collect();
                for f in [
                    format!("{name}_grad"),
                    format!("uncall_{name}_grad"),
                    format!("{name}_adjoint"),
                    format!("uncall_{name}_adjoint"),
                ] {
                    if exists(&f) {
                        entry(
                            f.clone(),
                            format!("{f}::<f64, f64>({}, site)", bars.join(", ")),
                        );
                    }
                }
            }
        }
        rows.push(format!("    (\"p{n}\", {}, &[{}]),", total, row.join(", ")));
    }
    let _ = writeln!(
        table,
        "/// Every instrumented random program: name, number of site ids, and\n/// its entry points (name, entry).\npub const ROLLBACK: &[(&str, usize, &[(&str, Entry)])] = &[\n{}\n];",
        rows.join("\n")
    );
    write_if_changed(&out.join("rollback_table.rs"), &table);
}

/// The built-ins with a singular point or a local derivative that is not
/// finite somewhere (issue 42 item 1), as `(case, kind, expression)`:
/// `real` reads `x` (and `w`), `int` reads `x` and the integer `n`,
/// `complex` reads the complex `z` (and `w`) and writes a complex `y`,
/// `complex_real` the same into a real `y`.
const SINGULAR: &[(&str, &str, &str)] = &[
    ("sqrt", "real", "sqrt(x)"),
    ("abs", "real", "abs(x)"),
    ("log", "real", "log(x)"),
    ("exp", "real", "exp(x)"),
    ("sin", "real", "sin(x)"),
    ("cos", "real", "cos(x)"),
    ("tan", "real", "tan(x)"),
    ("sinh", "real", "sinh(x)"),
    ("cosh", "real", "cosh(x)"),
    ("tanh", "real", "tanh(x)"),
    ("asin", "real", "asin(x)"),
    ("acos", "real", "acos(x)"),
    ("atan", "real", "atan(x)"),
    ("inv", "real", "inv(x)"),
    ("abs2", "real", "abs2(x)"),
    ("pow", "real", "x ^ w"),
    ("div", "real", "x / w"),
    ("mul", "real", "x * w"),
    ("rem", "real", "x % w"),
    ("atan2", "real", "atan(x, w)"),
    ("logaddexp", "real", "logaddexp(x, w)"),
    ("logsubexp", "real", "logsubexp(x, w)"),
    ("min", "real", "min(x, w)"),
    ("max", "real", "max(x, w)"),
    ("powi", "int", "x ^ n"),
    ("zsqrt", "complex", "sqrt(z)"),
    ("zlog", "complex", "log(z)"),
    ("zexp", "complex", "exp(z)"),
    ("zsin", "complex", "sin(z)"),
    ("zcos", "complex", "cos(z)"),
    ("zinv", "complex", "inv(z)"),
    ("zpow", "complex", "z ^ w"),
    ("zdiv", "complex", "z / w"),
    ("zmul", "complex", "z * w"),
    ("zpowi", "complex", "z ^ n"),
    ("zabs", "complex_real", "abs(z)"),
    ("zangle", "complex_real", "angle(z)"),
    ("zabs2", "complex_real", "abs2(z)"),
];

/// The instructions whose rules divide or read an angle, as `(case,
/// statement)` on `a!` (and `b!`, the angle `t`, the integer `n`).
const SINGULAR_INSTRUCTIONS: &[(&str, &str)] = &[
    ("divint", "DIVINT(a!, n)\n    NEG(b!)"),
    ("mulint", "MULINT(a!, n)\n    NEG(b!)"),
    ("rot", "ROT(a!, b!, t)"),
    ("irot", "IROT(a!, b!, t)"),
];

/// `OUT_DIR/singular/singular_builtins.nil` and
/// `OUT_DIR/singular_table.rs` (`tests/singular_builtins.rs`): for each
/// case of [`SINGULAR`] three functions that add the built-in's value to
/// `y!` and `2x + 3w` (`2z + 3w`) to `l!`: `sb_d_C` (`y! += e`, only
/// accumulated: the accumulating reverse pass), `sb_f_C` (`y! += e;
/// NEG(y!)`: the whole gradient, and a cotangent of -0.0) and `sb_c_C`
/// (`y! += c * e`: the built-in's cotangent is `ȳ c`, zero for `c = 0`
/// inside one expression); for each of [`SINGULAR_INSTRUCTIONS`] `sb_i_C`
/// (`l! += 2a + 3b + 5t`, then the instruction). `sb_ref`, `sb_zref`:
/// the `l!` term alone. The table gives each behind one signature.
fn singular_builtins(out: &std::path::Path) {
    let mut nil = String::from(
        "# Built-ins at their singular points (tests/build.rs: `singular_builtins`).\n\n\
         function sb_ref(l!::f64, x::f64, w::f64, t::f64)\n    l! += x * 2.0 + w * 3.0 + t * 5.0\nend\n\n\
         function sb_zref(l!::Complex{f64}, z::Complex{f64}, w::Complex{f64})\n    l! += z * 2.0 + w * 3.0\nend\n\n",
    );
    let mut table = String::new();
    let mut rows = Vec::new();
    for &(case, kind, e) in SINGULAR {
        let two = e.contains('w');
        let (params, l) = match kind {
            "real" if two => ("y!::f64, l!::f64, x::f64, w::f64", "x * 2.0 + w * 3.0"),
            "real" => ("y!::f64, l!::f64, x::f64", "x * 2.0"),
            "int" => ("y!::f64, l!::f64, x::f64, n::i64", "x * 2.0"),
            "complex" if two => (
                "y!::Complex{f64}, l!::Complex{f64}, z::Complex{f64}, w::Complex{f64}",
                "z * 2.0 + w * 3.0",
            ),
            "complex" if e.ends_with("^ n") => (
                "y!::Complex{f64}, l!::Complex{f64}, z::Complex{f64}, n::i64",
                "z * 2.0",
            ),
            "complex" => (
                "y!::Complex{f64}, l!::Complex{f64}, z::Complex{f64}",
                "z * 2.0",
            ),
            _ => ("y!::f64, l!::Complex{f64}, z::Complex{f64}", "z * 2.0"),
        };
        let complex = kind.starts_with("complex");
        for (form, extra, stmt) in [
            ("d", "", format!("y! += {e}")),
            ("f", "", format!("y! += {e}\n    NEG(y!)")),
            ("c", ", c::f64", format!("y! += c * ({e})")),
        ] {
            let name = format!("sb_{form}_{case}");
            let _ = write!(
                nil,
                "function {name}({params}{extra})\n    {stmt}\n    l! += {l}\nend\n\n"
            );
            // The wrapper: inputs, `n`, `c`, ȳ, l̄, the inputs' adjoints
            // (seeded, and returned).
            let c = if form == "c" { ", c, &mut 0.0" } else { "" };
            let call = if complex {
                let y = if kind == "complex" {
                    "let mut y = nilang::Complex::new(0.0, 0.0); let mut y_bar = ybar;"
                } else {
                    "let mut y = 0.0; let mut y_bar = ybar.re;"
                };
                let w = if two {
                    ", x[1], &mut *xb1"
                } else if e.ends_with("^ n") {
                    ", n"
                } else {
                    ""
                };
                format!(
                    "{y}\n    let mut l = nilang::Complex::new(0.0, 0.0);\n    let mut l_bar = lbar;\n    let _ = (&c, &n);\n    singular_builtins::{name}_grad::<f64>(&mut y, &mut y_bar, &mut l, &mut l_bar, x[0], &mut *xb0{w}{c})"
                )
            } else {
                let w = if two {
                    ", x[1].re, &mut xb1.re"
                } else if kind == "int" {
                    ", n"
                } else {
                    ""
                };
                format!(
                    "let (mut y, mut y_bar, mut l, mut l_bar) = (0.0, ybar.re, 0.0, lbar.re);\n    let _ = (&c, &n);\n    singular_builtins::{name}_grad::<f64>(&mut y, &mut y_bar, &mut l, &mut l_bar, x[0].re, &mut xb0.re{w}{c})"
                )
            };
            let _ = writeln!(
                table,
                "fn w_{name}(x: [C; 3], n: i64, c: f64, ybar: C, lbar: C, x_bar: &mut [C; 3]) -> nilang::Result {{\n    let [xb0, xb1, _] = x_bar;\n    let _ = &xb1;\n    {call}\n}}"
            );
        }
        // The built-in's value: `sb_d_C` run forwards from `y = 0`.
        let (y0, yv, args) = if complex {
            let y = if kind == "complex" {
                "nilang::Complex::new(0.0, 0.0)"
            } else {
                "0.0"
            };
            let w = if two {
                ", x[1]"
            } else if e.ends_with("^ n") {
                ", n"
            } else {
                ""
            };
            (y, "y", format!("x[0]{w}"))
        } else {
            let w = if two {
                ", x[1].re"
            } else if kind == "int" {
                ", n"
            } else {
                ""
            };
            ("0.0", "y", format!("x[0].re{w}"))
        };
        let to_c = if kind == "complex" {
            yv.to_string()
        } else {
            format!("nilang::Complex::new({yv}, 0.0)")
        };
        let _ = writeln!(
            table,
            "fn v_{case}(x: [C; 3], n: i64) -> C {{\n    let _ = n;\n    let mut y = {y0};\n    let mut l = {};\n    singular_builtins::sb_d_{case}(&mut y, &mut l, {args}).unwrap();\n    {to_c}\n}}",
            if complex {
                "nilang::Complex::new(0.0, 0.0)"
            } else {
                "0.0"
            }
        );
        let arity = if two { 2 } else { 1 };
        rows.push(format!(
            "    Case {{ name: {case:?}, kind: {kind:?}, expression: {e:?}, arity: {arity}, value: v_{case}, direct: w_sb_d_{case}, full: w_sb_f_{case}, composed: w_sb_c_{case} }},"
        ));
    }
    let mut instrs = Vec::new();
    for &(case, stmt) in SINGULAR_INSTRUCTIONS {
        let name = format!("sb_i_{case}");
        let _ = write!(
            nil,
            "function {name}(a!::f64, b!::f64, t::f64, n::i64, l!::f64)\n    l! += a! * 2.0 + b! * 3.0 + t * 5.0\n    {stmt}\nend\n\n"
        );
        // ȳ seeds the adjoints of the changed `a!`, `b!`.
        let _ = writeln!(
            table,
            "fn w_{name}(x: [C; 3], n: i64, _c: f64, ybar: C, lbar: C, x_bar: &mut [C; 3]) -> nilang::Result {{\n    let (mut a, mut b, mut l, mut l_bar) = (x[0].re, x[1].re, 0.0, lbar.re);\n    x_bar[0].re = ybar.re;\n    x_bar[1].re = ybar.re;\n    let [a_bar, b_bar, t_bar] = x_bar;\n    singular_builtins::{name}_grad::<f64>(&mut a, &mut a_bar.re, &mut b, &mut b_bar.re, x[2].re, &mut t_bar.re, n, &mut l, &mut l_bar)\n}}"
        );
        instrs.push(format!("    ({case:?}, {stmt:?}, w_{name}),"));
    }
    let _ = writeln!(
        table,
        "fn w_sb_ref(x: [C; 3], _n: i64, _c: f64, _ybar: C, lbar: C, x_bar: &mut [C; 3]) -> nilang::Result {{\n    let (mut l, mut l_bar) = (0.0, lbar.re);\n    let [a, b, c] = x_bar;\n    singular_builtins::sb_ref_grad::<f64>(&mut l, &mut l_bar, x[0].re, &mut a.re, x[1].re, &mut b.re, x[2].re, &mut c.re)\n}}\n\
         fn w_sb_zref(x: [C; 3], _n: i64, _c: f64, _ybar: C, lbar: C, x_bar: &mut [C; 3]) -> nilang::Result {{\n    let (mut l, mut l_bar) = (nilang::Complex::new(0.0, 0.0), lbar);\n    let [a, b, _] = x_bar;\n    singular_builtins::sb_zref_grad::<f64>(&mut l, &mut l_bar, x[0], a, x[1], b)\n}}\n\
         pub const REAL_REF: Wrapper = w_sb_ref;\npub const COMPLEX_REF: Wrapper = w_sb_zref;\n\
         /// Every case: the built-in, its three forms.\npub const CASES: &[Case] = &[\n{}\n];\n\
         /// Every instruction case: name, statement, gradient.\npub const INSTRUCTIONS: &[(&str, &str, Wrapper)] = &[\n{}\n];",
        rows.join("\n"),
        instrs.join("\n")
    );
    let dir = out.join("singular");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/singular");
    write_if_changed(&dir.join("singular_builtins.nil"), &nil);
    write_if_changed(&out.join("singular_table.rs"), &table);
    nilang_build::report(
        nilang_build::Config::new()
            .manifest_dir(out)
            .read_metadata(false)
            .runtime_path("nilang")
            .compile_dir("singular"),
    );
}

/// `OUT_DIR/differential_table.rs`: every function of `nil/` whose
/// parameters are numbers (the number systems too), booleans, complex
/// numbers, arrays of numbers or `f64` matrices (no keyword parameters, not a
/// template; one that records a tape only in the gradient table) behind one signature, `fn(&mut [Arg], bool) -> nilang::Result`
/// (the arguments, and whether to run the uncall), for
/// `tests/interpreter.rs` to run against the reference interpreter.
fn differential_table(out: &std::path::Path) {
    use nilang_compiler::db::{self, RootDatabase, SourceFile};
    use nilang_compiler::ty::{Ctor, Scalar, Ty};
    let database = RootDatabase::default();
    let mut paths: Vec<PathBuf> = std::fs::read_dir("nil")
        .expect("nil/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    paths.sort();
    let files: Vec<SourceFile> = paths
        .iter()
        .map(|p| {
            let name = format!("tests/nil/{}", p.file_name().unwrap().to_string_lossy());
            SourceFile::new(&database, name, std::fs::read_to_string(p).expect("read"))
        })
        .collect();
    let project = db::project_with_std(&database, files.clone(), Vec::new());
    let taped = db::project_taped(&database, project, false);
    // The Rust of one parameter: the `Arg` variant it is read from, and
    // how the call passes it (changed or read).
    fn arg(ty: &Ty, changed: bool, k: usize) -> Option<(String, String)> {
        let scalar = |variant: &str| {
            let pass = if changed {
                format!("a{k}")
            } else {
                format!("*a{k}")
            };
            Some((variant.to_string(), pass))
        };
        let slice = |variant: &str| {
            let pass = if changed {
                format!("&mut a{k}[..]")
            } else {
                format!("&a{k}[..]")
            };
            Some((variant.to_string(), pass))
        };
        match ty {
            Ty::Scalar(Scalar::F64) | Ty::Generic(_) => scalar("F64"),
            Ty::Scalar(Scalar::F32) => scalar("F32"),
            Ty::Scalar(Scalar::Bool) => scalar("Bool"),
            Ty::Scalar(Scalar::I64) => scalar("I64"),
            Ty::Scalar(Scalar::I32) => scalar("I32"),
            Ty::Constructed(Ctor::Complex, a)
                if matches!(a.as_slice(), [Ty::Scalar(Scalar::F64) | Ty::Generic(_)]) =>
            {
                scalar("Complex")
            }
            Ty::Constructed(Ctor::Fixed43, _) => scalar("Fixed"),
            Ty::Constructed(Ctor::ULogarithmic, a) => match a.as_slice() {
                [Ty::Scalar(Scalar::F64) | Ty::Generic(_)] => scalar("ULogF64"),
                [Ty::Constructed(Ctor::Fixed43, _)] => scalar("ULogFixed"),
                _ => None,
            },
            Ty::Constructed(Ctor::Tropical, a)
                if matches!(a.as_slice(), [Ty::Scalar(Scalar::F64) | Ty::Generic(_)]) =>
            {
                scalar("Tropical")
            }
            Ty::Slice(e) => match &**e {
                Ty::Scalar(Scalar::F64) | Ty::Generic(_) => slice("VecF64"),
                Ty::Scalar(Scalar::I64) => slice("VecI64"),
                Ty::Constructed(Ctor::Tropical, a)
                    if matches!(a.as_slice(), [Ty::Scalar(Scalar::F64) | Ty::Generic(_)]) =>
                {
                    slice("VecTropical")
                }
                Ty::Constructed(Ctor::Complex, a)
                    if matches!(a.as_slice(), [Ty::Scalar(Scalar::F64) | Ty::Generic(_)]) =>
                {
                    slice("VecComplex")
                }
                _ => None,
            },
            Ty::Constructed(Ctor::Matrix, a)
                if matches!(a.as_slice(), [Ty::Scalar(Scalar::F64) | Ty::Generic(_)]) =>
            {
                let pass = if changed {
                    format!(
                        "nilang::ndarray::ArrayViewMut2::from_shape((a{k}.0, a{k}.1).f(), &mut a{k}.2[..]).unwrap()"
                    )
                } else {
                    format!(
                        "nilang::ndarray::ArrayView2::from_shape((a{k}.0, a{k}.1).f(), &a{k}.2[..]).unwrap()"
                    )
                };
                Some(("Matrix".to_string(), pass))
            }
            _ => None,
        }
    }
    // The adjoint a gradient program takes after a parameter (`x_bar`), as
    // the Rust backend passes it (`bar_param_type`): floats, log numbers
    // (their logarithm's), complex numbers, arrays and matrices of them
    // that are not `Const`.
    fn bar(ty: &Ty, k: usize) -> Option<(String, String)> {
        let float = |t: &Ty| matches!(t, Ty::Scalar(Scalar::F64) | Ty::Generic(_));
        match ty {
            t if float(t) => Some(("F64".into(), format!("b{k}"))),
            // A log number's adjoint is its logarithm's.
            Ty::Constructed(Ctor::ULogarithmic, a) if a.len() == 1 && float(&a[0]) => {
                Some(("F64".into(), format!("b{k}")))
            }
            Ty::Constructed(Ctor::Complex, a) if a.len() == 1 && float(&a[0]) => {
                Some(("Complex".into(), format!("b{k}")))
            }
            Ty::Slice(e) if float(e) => Some(("VecF64".into(), format!("&mut b{k}[..]"))),
            Ty::Slice(e) if matches!(&**e, Ty::Constructed(Ctor::Complex, a) if a.len() == 1 && float(&a[0])) => {
                Some(("VecComplex".into(), format!("&mut b{k}[..]")))
            }
            Ty::Constructed(Ctor::Matrix, a) if a.len() == 1 && float(&a[0]) => Some((
                "Matrix".into(),
                format!(
                    "nilang::ndarray::ArrayViewMut2::from_shape((b{k}.0, b{k}.1).f(), &mut b{k}.2[..]).unwrap()"
                ),
            )),
            _ => None,
        }
    }
    let mut gradients =
        String::from("pub static GRADIENTS: &[(&str, &str, GradientGlue, &[usize])] = &[\n");
    let mut table = String::from("pub static FUNCTIONS: &[(&str, &str, Glue)] = &[\n");
    for &file in &files {
        // A file that does not check here (`modules.nil` imports the
        // `nilang-testlib` crate) is left out.
        if db::file_diagnostics(&database, project, file)
            .iter()
            .any(|d| d.severity == nilang_compiler::diagnostics::Severity::Error)
        {
            continue;
        }
        let path = file.path(&database).clone();
        let module = db::module_name(&path);
        for &f in db::file_functions(&database, project, file) {
            let name = f.name(&database).clone();
            let Some(ast) = db::function_ast(&database, f) else {
                continue;
            };
            let Some(body) = db::function_body(&database, f) else {
                continue;
            };
            if ast.kernel || !ast.kwparams.is_empty() {
                continue;
            }
            // A function that records takes a tape; its gradient program
            // does not, so only the gradient is compared.
            let records = taped.contains(&name);
            let Some(changed) = db::mutated_params(&database, project, &name) else {
                continue;
            };
            let params: Option<Vec<(String, String)>> = body
                .params
                .iter()
                .enumerate()
                .map(|(k, &l)| {
                    arg(
                        &body.local(l).ty,
                        changed.get(k).copied().unwrap_or(true),
                        k,
                    )
                })
                .collect();
            let Some(params) = params else {
                continue;
            };
            let names: Vec<String> = (0..params.len()).map(|k| format!("a{k}")).collect();
            let mut glue = format!(
                "    ({path:?}, {name:?}, |args: &mut [Arg], uncall: bool| -> nilang::Result {{\n        let [{}] = args else {{ panic!(\"arity\") }};\n",
                names.join(", ")
            );
            for (k, (variant, _)) in params.iter().enumerate() {
                let _ = writeln!(
                    glue,
                    "        let Arg::{variant}(a{k}) = a{k} else {{ panic!(\"argument {k}: {variant}\") }};"
                );
            }
            let passed: Vec<&str> = params.iter().map(|(_, p)| p.as_str()).collect();
            let rust = nilang_compiler::codegen::rust_name(&name);
            let uncall = nilang_compiler::codegen::uncall_name(&name);
            let _ = writeln!(
                glue,
                "        if uncall {{ {module}::{uncall}({0}) }} else {{ {module}::{rust}({0}) }}\n    }}),",
                passed.join(", ")
            );
            if !records {
                table.push_str(&glue);
            }
            // The gradient program, where some parameter has an adjoint and
            // none is `f32` (whose adjoints are `f32`).
            let bars: Vec<Option<(String, String)>> = body
                .params
                .iter()
                .enumerate()
                .map(|(k, &l)| {
                    let constant = ast.params.get(k).is_some_and(|p| p.constant);
                    (!constant).then(|| bar(&body.local(l).ty, k)).flatten()
                })
                .collect();
            if bars.iter().all(Option::is_none) || params.iter().any(|(v, _)| v == "F32") {
                continue;
            }
            let with: Vec<usize> = (0..bars.len()).filter(|&k| bars[k].is_some()).collect();
            let mut glue = format!(
                "    ({path:?}, {name:?}, |args: &mut [Arg], bars: &mut [Arg]| -> nilang::Result {{\n        let [{}] = args else {{ panic!(\"arity\") }};\n        let [{}] = bars else {{ panic!(\"adjoints\") }};\n",
                names.join(", "),
                with.iter()
                    .map(|k| format!("b{k}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for (k, (variant, _)) in params.iter().enumerate() {
                let _ = writeln!(
                    glue,
                    "        let Arg::{variant}(a{k}) = a{k} else {{ panic!(\"argument {k}: {variant}\") }};"
                );
            }
            let mut passed = Vec::new();
            for (k, (_, pass)) in params.iter().enumerate() {
                passed.push(pass.clone());
                if let Some((variant, pass)) = &bars[k] {
                    let _ = writeln!(
                        glue,
                        "        let Arg::{variant}(b{k}) = b{k} else {{ panic!(\"adjoint {k}: {variant}\") }};"
                    );
                    passed.push(pass.clone());
                }
            }
            let program = nilang_compiler::names::generated_name(
                &rust,
                false,
                nilang_compiler::names::Pass::Grad,
                nilang_compiler::names::Launcher::Cpu,
            );
            // The positions of the parameters with adjoints, in the order
            // the glue takes their adjoints.
            let _ = writeln!(
                glue,
                "        {module}::{program}({})\n    }}, &{with:?}),",
                passed.join(", ")
            );
            gradients.push_str(&glue);
        }
    }
    table.push_str("];\n");
    gradients.push_str("];\n");
    table.push_str(&gradients);
    write_if_changed(&out.join("differential_table.rs"), &table);
}
