//! `db::signature`: what a call knows of its callee, decided once per name
//! for a function, a derived function and a template instance (issue "one
//! typed body", item 4). The typing, the checks and the Rust backend read
//! these; here they are printed, one callee a line.

use expect_test::expect;
use nilang_analysis::db::{project_instances, signature};
use nilang_analysis::{Project, RootDatabase, SourceFile};

const PROGRAM: &str = "\
function scale!(y!::T, x::T, c::Const<T>; k::i64 = 2) where T: Real
    y! += x * c
end

function g(y!::T, x::T, n::i64) where T: Real
    y! += x * n
end

function apply!(f::Fn<T, T>, y!::T, x::T) where T: Real
    f(y!, x)
end

function add!(y!::f64, x::f64)
    y! += x
end

function user(y!::f64, x::f64)
    apply!(add!, y!, x)
end
";

#[test]
fn functions_derived_functions_and_instances() {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "s.nil".into(), PROGRAM.to_string());
    let other = SourceFile::new(&db, "other.nil".into(), String::new());
    let project = Project::new(&db, vec![file, other]);
    let instances: Vec<String> = project_instances(&db, project)
        .iter()
        .map(|i| i.name())
        .collect();
    let mut names = vec!["scale!", "g", "∇g", "∂g", "add!", "nothing"];
    names.extend(instances.iter().map(String::as_str));
    let mut out = String::new();
    for name in names {
        let Some(s) = signature(&db, project, name) else {
            out.push_str(&format!("{name}: none\n"));
            continue;
        };
        let params: Vec<String> = s
            .params
            .iter()
            .map(|p| {
                format!(
                    "{}: {}{}{}",
                    p.name,
                    p.ty.display(),
                    if p.mutated { " changed" } else { "" },
                    if p.constant { " const" } else { "" }
                )
            })
            .collect();
        let kw: Vec<String> = s
            .kwparams
            .iter()
            .map(|(n, t, d)| {
                format!(
                    "; {n}: {} = {}",
                    t.display(),
                    nilang_analysis::printer::print_expr(d)
                )
            })
            .collect();
        out.push_str(&format!(
            "{name} in {}{}: ({}{})\n",
            s.home.path(&db),
            s.derivative.map_or(String::new(), |d| format!(", {d:?}"))
                + &if s.tape_of == name {
                    String::new()
                } else {
                    format!(", tape of {}", s.tape_of)
                },
            params.join(", "),
            kw.join("")
        ));
    }
    expect![[r#"
        scale! in s.nil: (y!: T changed, x: T, c: T const; k: i64 = 2)
        g in s.nil: (y!: T changed, x: T, n: i64)
        ∇g in s.nil, Gradient, tape of g: (y!: T changed, y_bar: T changed, x: T, x_bar: T changed, n: i64)
        ∂g in s.nil, Tangent, tape of g: (y!: T changed, y_dot: T changed, x: T, x_dot: T changed, n: i64)
        add! in s.nil: (y!: f64 changed, x: f64)
        nothing: none
        apply!_with_add! in s.nil, tape of apply!: (y!: f64 changed, x: f64)
    "#]]
    .assert_eq(&out);
}
