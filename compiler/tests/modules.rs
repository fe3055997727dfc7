//! Modules: a project of this crate's files and other packages' modules
//! (two fake dependency crates here, and the standard library), checked
//! as every shell checks them; the diagnostics rendered as users see them.

use expect_test::{Expect, expect};
use nilang_compiler::db::{self, LibraryModule, RootDatabase, SourceFile};
use nilang_compiler::render::render_human;

const SHAPES_A: &str = "\
function area!(a::f64, w::f64, h::f64)
    a += w * h
end

function perimeter!(p::f64, w::f64, h::f64)
    twice!(p, w)
    twice!(p, h)
end
";

/// `alib`'s other module: called by `shapes.nil` without an import.
const HELPERS_A: &str = "\
function twice!(y::f64, x::f64)
    y += 2 * x
end

function add_twice!(y::T, x::T) where T: Real
    y += 2 * x
end
";

const SHAPES_B: &str = "\
function area!(a::f64, r::f64, unused::f64)
    a += 3.0 * r^2
end

function volume!(v::f64, r::f64, h::f64)
    v += 3.0 * r^2 * h
end
";

/// Checks `main` (this crate's only file) in a project with `alib` (modules
/// `alib.shapes`, `alib.helpers`) and `blib` (`blib.shapes`).
fn check(main: &str, expect: Expect) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "main.nil".into(), main.to_string());
    let library = |package: &str, module: &str, text: &str| {
        let file = SourceFile::new(&db, format!("{package}/{module}.nil"), text.to_string());
        LibraryModule {
            file,
            package: package.to_string(),
            path: format!("{package}.{module}"),
            rust_path: format!("::{package}::{module}"),
        }
    };
    let libraries = vec![
        library("alib", "shapes", SHAPES_A),
        library("alib", "helpers", HELPERS_A),
        library("blib", "shapes", SHAPES_B),
    ];
    let project = db::project_with_std(&db, vec![file], libraries.clone());
    for l in &libraries {
        let d = db::file_diagnostics(&db, project, l.file);
        assert!(d.is_empty(), "{}: {d:?}", l.path);
    }
    let diagnostics = db::file_diagnostics(&db, project, file);
    expect.assert_eq(&render_human("main.nil", main, diagnostics, false));
}

#[test]
fn using_a_module_and_importing_names() {
    check(
        "\
using alib.shapes
import blib.shapes: volume!

function f(a::f64, p::f64, v::f64, w::f64, h::f64)
    area!(a, w, h)
    perimeter!(p, w, h)
    volume!(v, w, h)
end
",
        expect![""],
    );
}

#[test]
fn using_a_whole_package() {
    check(
        "\
using alib

function f(y::f64, x::f64)
    twice!(y, x)
end
",
        expect![""],
    );
}

#[test]
fn a_name_two_usings_bring_in_is_ambiguous_until_imported() {
    check(
        "\
using alib.shapes
using blib.shapes

function f(a::f64, w::f64, h::f64)
    area!(a, w, h)
end
",
        expect![[r#"
            error[E0114]: `area!` is defined in `alib.shapes` and `blib.shapes`
              ┌─ main.nil:5:5
              │
            5 │     area!(a, w, h)
              │     ^^^^^ which one is meant is ambiguous
              │
              = help: import it by name from one of them: `import alib.shapes: area!`

        "#]],
    );
    check(
        "\
using alib.shapes
using blib.shapes
import blib.shapes: area!

function f(a::f64, w::f64, h::f64)
    area!(a, w, h)
end
",
        expect![""],
    );
}

#[test]
fn this_crates_functions_win_over_using_and_clash_with_import() {
    // `using` brings `area!` in, but the crate's own is called: no error.
    check(
        "\
using alib.shapes

function area!(a::f64, w::f64, h::f64)
    a += w + h
end

function f(a::f64, w::f64, h::f64)
    area!(a, w, h)
end
",
        expect![""],
    );
    check(
        "\
import alib.shapes: area!

function area!(a::f64, w::f64, h::f64)
    a += w + h
end
",
        expect![[r#"
            error[E0113]: `area!` is imported from `alib.shapes` and also defined in this crate
              ┌─ main.nil:1:21
              │
            1 │ import alib.shapes: area!
              │                     ^^^^^ imported here
              │
              = help: rename this crate's `area!`, or leave it out of the import

        "#]],
    );
}

#[test]
fn unknown_modules_and_names() {
    check(
        "\
using alib.shape
import blib.shapes: volume, area!
using nowhere

function f(y::f64, x::f64)
    y += x
end
",
        expect![[r#"
            error[E0111]: unknown module `alib.shape`
              ┌─ main.nil:1:7
              │
            1 │ using alib.shape
              │       ^^^^^^^^^^ no module of this name
              │
              = help: a module with a similar name exists: `alib.shapes`

            error[E0112]: module `blib.shapes` has no function `volume`
              ┌─ main.nil:2:21
              │
            2 │ import blib.shapes: volume, area!
              │                     ^^^^^^ not defined there
              │
              = help: a function with a similar name exists: `volume!`

            error[E0111]: unknown module `nowhere`
              ┌─ main.nil:3:7
              │
            3 │ using nowhere
              │       ^^^^^^^ no module of this name
              │
              = help: the modules are the standard library's (std.functional, std.linalg, std.lognumber, std.sorting, std.sparse, std.special, std.stats), this crate's files and the `.nil` modules of its dependencies

        "#]],
    );
}

#[test]
fn a_library_function_not_imported_says_where_it_is() {
    check(
        "\
function f(v::f64, r::f64, h::f64)
    volume!(v, r, h)
end
",
        expect![[r#"
            error[E0102]: unknown function `volume!`
              ┌─ main.nil:2:5
              │
            2 │     volume!(v, r, h)
              │     ^^^^^^^ not defined in this project
              │
              = help: `volume!` is defined in `blib.shapes`: add `using blib.shapes` at the top of the file

        "#]],
    );
}

#[test]
fn a_library_template_instance_and_a_function_passed_from_a_library() {
    check(
        "\
using alib.helpers

function apply!(g::Fn<f64, f64>, y::f64, x::f64)
    g(y, x)
end

function f(y::f64, x::f64)
    apply!(twice!, y, x)
end
",
        expect![""],
    );
}

#[test]
fn a_kernel_calls_a_library_function() {
    let db = RootDatabase::default();
    let main = "\
using alib.helpers

@kernel function k(ys::[T], xs::[T]) where T: Real
    g ← global_index()
    add_twice!(ys[g], xs[g])
    g → global_index()
end
";
    let file = SourceFile::new(&db, "main.nil".into(), main.to_string());
    let helpers = SourceFile::new(&db, "alib/helpers.nil".into(), HELPERS_A.to_string());
    let project = db::project_with_std(
        &db,
        vec![file],
        vec![LibraryModule {
            file: helpers,
            package: "alib".into(),
            path: "alib.helpers".into(),
            rust_path: "::alib::helpers".into(),
        }],
    );
    let d = db::file_diagnostics(&db, project, file);
    assert!(d.is_empty(), "{d:?}");
    let k = db::lookup_function(&db, project, "k").expect("the kernel");
    let shaders = db::kernel_shaders(&db, k).expect("shaders");
    assert!(!shaders.is_empty());
    for (name, wgsl) in &shaders {
        assert!(wgsl.contains("alib__helpers__add_twice"), "{name}: {wgsl}");
        let module = naga::front::wgsl::parse_str(wgsl).unwrap_or_else(|e| panic!("{name}: {e}"));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::FLOAT64,
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
}
