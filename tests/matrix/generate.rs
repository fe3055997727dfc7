//! The built-in matrix's runtime half, generated: which cells the analysis
//! accepts, and for a set of them one `.nil` file, its Rust (checked and
//! unchecked) and a driver per cell. `build.rs` generates a slice of them
//! into this crate; `tests/every_cell.rs` generates all of them into
//! crates of its own and builds those.

use std::fmt::Write as _;

use nilang_compiler::codegen::Options;
use nilang_compiler::db::{self, RootDatabase, SourceFile};
use salsa::Setter as _;

use crate::cells::{Cell, Num, PRELUDE, Pos, Shape};

/// The operations compiled at every position in the workspace's build.
const POSITION_OPS: &[&str] = &["SWAP", "add_mul", "mul_sum", "sin", "ancilla", "COPYPUSH"];

/// The slice of the cells the workspace's build compiles (`build.rs`):
/// every operation at every type in the scalar position, every position at
/// every type for the operations of [`POSITION_OPS`], and every operation's
/// generic form at f64, which also runs on dual numbers.
#[allow(dead_code)]
pub fn in_slice(cell: &Cell) -> bool {
    cell.pos == Pos::Scalar
        || POSITION_OPS.contains(&cell.op.name)
        || (cell.pos == Pos::Generic && cell.num == Num::F64)
}

/// The cells `keep` selects that the analysis accepts, each checked alone.
pub fn accepted(keep: impl Fn(&Cell) -> bool) -> Vec<Cell> {
    let mut db = RootDatabase::default();
    let alone = SourceFile::new(&db, "cell.nil".into(), String::new());
    let alone_project = db::Project::new(&db, vec![alone]);
    let with_std = SourceFile::new(&db, "cell.nil".into(), String::new());
    let std_project = db::project_with_std(&db, vec![with_std], Vec::new());
    let mut out = Vec::new();
    for cell in Cell::all().into_iter().filter(|c| keep(c)) {
        let (file, project) = if cell.needs_std() {
            (with_std, std_project)
        } else {
            (alone, alone_project)
        };
        file.set_text(&mut db).to(cell.file());
        let clean = !db::file_diagnostics(&db, project, file)
            .iter()
            .any(|d| d.severity == nilang_compiler::Severity::Error);
        if clean {
            out.push(cell);
        }
    }
    out
}

/// The `.nil` file of `cells` (accepted ones) and its Rust: the module
/// generated checked and unchecked, a driver per cell, and `CELLS`, the
/// table of drivers.
pub fn generate(cells: &[Cell]) -> (String, String) {
    let mut nil = format!("using std.functional\n\n{PRELUDE}\n");
    for cell in cells {
        nil.push_str(&cell.text());
        nil.push('\n');
    }
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "matrix.nil".into(), nil.clone());
    let project = db::project_with_std(&db, vec![file], Vec::new());
    let module = |options: Options| -> String {
        db::rust_module_text(&db, project, file, &options).unwrap_or_else(|errors| {
            panic!(
                "the matrix's accepted cells, in one file, are refused:\n{}",
                errors
                    .iter()
                    .map(|d| format!("{} {}", d.code, d.message))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })
    };
    let checked = module(Options {
        runtime_path: "nilang".into(),
        ..Options::default()
    });
    let unchecked = module(Options {
        runtime_path: "nilang".into(),
        checks: false,
        gradients: false,
        ..Options::default()
    });

    let mut rs = String::new();
    let _ = writeln!(
        rs,
        "#[allow(clippy::all, unused, non_snake_case, unused_parens)]\npub mod checked {{\n{checked}\n}}\n\
         #[allow(clippy::all, unused, non_snake_case, unused_parens)]\npub mod unchecked {{\n{unchecked}\n}}\n"
    );
    let mut table = String::from("pub const CELLS: &[(&str, Run)] = &[\n");
    for cell in cells {
        let name = cell.name();
        let mutated = db::mutated_params(&db, project, &name).unwrap_or_default();
        let _ = writeln!(table, "    ({name:?}, run_{name}),");
        rs.push_str(&driver(cell, &mutated, &checked));
        // A generic cell's body also runs on dual numbers: the tangents it
        // gives are directional derivatives.
        if on_duals(cell) {
            let helper = format!("{name}_gen");
            let mutated = db::mutated_params(&db, project, &helper).unwrap_or_default();
            let _ = writeln!(table, "    (\"{name} on duals\", run_{name}_dual),");
            rs.push_str(&dual_driver(cell, &helper, &mutated));
        }
    }
    table.push_str("];\n");
    rs.push_str(&table);
    (nil, rs)
}

/// Whether `cell` also runs on dual numbers (a second driver): a generic
/// cell over a float type.
pub fn on_duals(cell: &Cell) -> bool {
    cell.pos == Pos::Generic && matches!(cell.num, Num::F64 | Num::F32)
}

/// A Rust expression of `shape` over `num` in module `m`, values from `k`.
fn value(shape: Shape, num: Num, k: usize, m: &str) -> String {
    match shape {
        Shape::One => num.value(k),
        Shape::Array => format!("vec![{}, {}]", num.value(k), num.value(k + 3)),
        // Row by row; the elements a column cell reads, `A[2, 2]` and
        // `B[1, 1]`, hold the values the element position reads, which
        // are in every function's domain.
        Shape::Matrix => format!(
            "nilang::ndarray::Array2::from_shape_vec((2, 2), vec![{}, {}, {}, {}]).unwrap()",
            num.value(k),
            num.value(k + 1),
            num.value(k + 2),
            num.value(k + 3)
        ),
        Shape::Struct => format!(
            "{m}::MPt {{ x: {}, y: {} }}",
            num.value(k),
            num.value(k + 3)
        ),
    }
}

/// How a value of `shape` named `v` is passed.
fn arg(shape: Shape, v: &str, mutated: bool) -> String {
    match (shape, mutated) {
        (Shape::Array, _) => format!("&mut {v}"),
        (Shape::Matrix, true) => format!("{v}.view_mut()"),
        (Shape::Matrix, false) => format!("{v}.view()"),
        (_, true) => format!("&mut {v}"),
        (_, false) => format!("{v}.clone()"),
    }
}

/// The Rust that runs a generic cell's helper on dual numbers `x + ε t`:
/// the tangent parts after the call against central differences of the
/// cell along `t`.
fn dual_driver(cell: &Cell, helper: &str, mutated: &[bool]) -> String {
    let name = cell.name();
    let t = match cell.num {
        Num::F32 => "f32",
        _ => "f64",
    };
    let (h, tol) = if cell.num == Num::F32 {
        ("1e-2", "2e-2")
    } else {
        ("1e-6", "1e-5")
    };
    let names = ["a", "b", "c"];
    // The cell passes its values on to the helper as it takes them.
    let args = (0..3)
        .map(|i| {
            arg(
                Shape::One,
                names[i],
                mutated.get(i).copied().unwrap_or(false),
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = format!(
        "#[allow(unused_mut, unused_variables, clippy::all)]\npub fn run_{name}_dual() -> Result<(), String> {{\n    use self::checked as m;\n"
    );
    for (i, n) in names.iter().enumerate() {
        let _ = writeln!(s, "    let {n}0: {t} = {};", cell.num.value(i));
    }
    let _ = writeln!(
        s,
        "    let tangent: [{t}; 3] = [0.5, -0.25, 0.75];\n\
         \x20   let mut a = nilang::Dual::new(a0, tangent[0]);\n\
         \x20   let mut b = nilang::Dual::new(b0, tangent[1]);\n\
         \x20   let mut c = nilang::Dual::new(c0, tangent[2]);\n\
         \x20   m::{helper}({}).map_err(|e| format!(\"on duals: {{e}}\"))?;\n\
         \x20   let duals = [a.eps as f64, b.eps as f64, c.eps as f64];\n\
         \x20   let forward = |s: f64| -> Result<[f64; 3], String> {{\n\
         \x20       let at = |x: {t}, k: usize| x + (s as {t}) * tangent[k];\n\
         \x20       let (mut a, mut b, mut c) = (at(a0, 0), at(b0, 1), at(c0, 2));\n\
         \x20       m::{name}({}).map_err(|e| format!(\"checked, forwards: {{e}}\"))?;\n\
         \x20       Ok([a as f64, b as f64, c as f64])\n\
         \x20   }};\n\
         \x20   let (up, down) = (forward({h})?, forward(-{h})?);\n\
         \x20   for k in 0..3 {{\n\
         \x20       let fd = (up[k] - down[k]) / (2.0 * {h});\n\
         \x20       if (duals[k] - fd).abs() > {tol} * (1.0 + fd.abs()) {{\n\
         \x20           return Err(format!(\"on duals: tangent {{k}} is {{}}, central differences {{fd}}\", duals[k]));\n\
         \x20       }}\n\
         \x20   }}\n\
         \x20   Ok(())\n}}\n",
        args, args,
    );
    s
}

/// The parameter list of the generated function `name`.
fn signature<'c>(code: &'c str, name: &str) -> &'c str {
    let head = format!("pub fn {name}(");
    code.find(&head)
        .and_then(|at| {
            let rest = &code[at..];
            rest.find(") -> ").map(|end| &rest[..end])
        })
        .unwrap_or("")
}

/// The Rust that runs one cell.
fn driver(cell: &Cell, mutated: &[bool], checked_code: &str) -> String {
    let name = cell.name();
    let shapes = cell.pos.shapes();
    let names = ["a", "b", "c"];
    let args = |suffix: &str| -> String {
        (0..3)
            .map(|i| {
                arg(
                    shapes[i],
                    &format!("{}{suffix}", names[i]),
                    mutated.get(i).copied().unwrap_or(false),
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let tol = match cell.num {
        Num::F64 | Num::ComplexF64 | Num::ULogF64 | Num::Tropical => "1e-12",
        Num::F32 => "1e-5",
        _ => "0.0",
    };
    // A function with a `@tape` loop records on a tape its caller passes,
    // which its uncall reads back.
    let records = signature(checked_code, &name).contains("nilang::Tape");
    let with_tape = |args: String| {
        if records {
            format!("{args}, &mut tape")
        } else {
            args
        }
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "#[allow(unused_mut, unused_variables, clippy::all)]\npub fn run_{name}() -> Result<(), String> {{"
    );
    for m in ["checked", "unchecked"] {
        let _ = writeln!(s, "    {{\n        use self::{m} as m;");
        for (i, n) in names.iter().enumerate() {
            let _ = writeln!(
                s,
                "        let {n}0 = {};",
                value(shapes[i], cell.num, i, "m")
            );
        }
        let _ = writeln!(
            s,
            "        let (mut a, mut b, mut c) = (a0.clone(), b0.clone(), c0.clone());\n\
             \x20       let mut tape = nilang::Tape::new();\n\
             \x20       m::{name}({}).map_err(|e| format!(\"{m}, forwards: {{e}}\"))?;\n\
             \x20       m::uncall_{name}({}).map_err(|e| format!(\"{m}, uncalled: {{e}}\"))?;\n\
             \x20       restored(&flat3(&a, &b, &c), &flat3(&a0, &b0, &c0), {tol}, \"{m}\")?;",
            with_tape(args("")),
            with_tape(args(""))
        );
        if m == "checked"
            && cell.num.differentiable()
            && checked_code.contains(&format!("pub fn {name}_grad"))
        {
            let (h, gtol) = if cell.num == Num::F32 {
                ("1e-2", "2e-2")
            } else {
                ("1e-6", "1e-5")
            };
            let _ = writeln!(
                s,
                "        let forward = |x: &[f64]| -> Result<Vec<f64>, String> {{\n\
                 \x20           let (mut a, mut b, mut c) = (a0.clone(), b0.clone(), c0.clone());\n\
                 \x20           unflat3(x, &mut a, &mut b, &mut c);\n\
                 \x20           let mut tape = nilang::Tape::new();\n\
                 \x20           m::{name}({}).map_err(|e| format!(\"checked, forwards at a perturbed point: {{e}}\"))?;\n\
                 \x20           Ok(flat3(&a, &b, &c))\n\
                 \x20       }};\n\
                 \x20       let (mut a, mut b, mut c) = (a0.clone(), b0.clone(), c0.clone());\n\
                 \x20       let (mut a_bar, mut b_bar, mut c_bar) = (a0.clone(), b0.clone(), c0.clone());\n\
                 \x20       let seeds = weights(flat3(&a0, &b0, &c0).len());\n\
                 \x20       unflat3(&seeds, &mut a_bar, &mut b_bar, &mut c_bar);\n\
                 \x20       m::{name}_grad({}).map_err(|e| format!(\"checked, gradient: {{e}}\"))?;\n\
                 \x20       gradient_agrees(&flat3(&a_bar, &b_bar, &c_bar), &flat3(&a0, &b0, &c0), &seeds, forward, {h}, {gtol})?;",
                with_tape(args("")),
                (0..3)
                    .map(|i| {
                        let n = names[i];
                        let mutated = mutated.get(i).copied().unwrap_or(false);
                        let bar = match shapes[i] {
                            Shape::Matrix => format!("{n}_bar.view_mut()"),
                            _ => format!("&mut {n}_bar"),
                        };
                        format!("{}, {bar}", arg(shapes[i], n, mutated))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        s.push_str("    }\n");
    }
    s.push_str("    Ok(())\n}\n\n");
    s
}
