//! Long flat chains: a sum or a product of 10,000 terms is as deep as it
//! is long, and every pass walks it. Checked, inverted and generated here on a thread
//! with 2 MiB of stack (a test thread's default), in whatever build the
//! tests run in; `tests/tests/chains.rs` compiles and runs such chains and
//! their gradients.

use nilang_compiler::codegen::Options;
use nilang_compiler::db::{self, RootDatabase, SourceFile};
use nilang_compiler::printer::print_function;
use nilang_compiler::syntax;

const TERMS: usize = 10_000;

/// `y += x[1] + x[2] - x[3] + …`, a weighted sum, an `&&` chain in a
/// condition and a product, each `TERMS` long.
fn program() -> String {
    let mut sum = String::from("x[1]");
    let mut weighted = String::from("0.0");
    let mut all = String::from("x[1] > 0");
    let mut product = String::from("x[1]");
    for i in 2..=TERMS {
        product.push_str(&format!(" * x[{i}]"));
        let op = if i % 3 == 0 { '-' } else { '+' };
        sum.push_str(&format!(" {op} x[{i}]"));
        weighted.push_str(&format!(" + {}.0 * x[{i}]", i % 7 + 1));
        all.push_str(&format!(" && x[{i}] > 0"));
    }
    format!(
        "function long_sum!(y::f64, x::[f64])\n    y += {sum}\nend\n\n\
         function long_weighted!(y::f64, x::[f64])\n    y += {weighted}\nend\n\n\
         function long_and!(y::f64, x::[f64])\n    if ({all}, ~)\n        y += 1.0\n    end\nend\n\n\
         function long_product!(y::f64, x::[f64])\n    y += {product}\nend\n"
    )
}

/// Runs `f` on a thread with a test thread's default stack.
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic")
}

#[test]
fn a_ten_thousand_term_chain_is_checked_inverted_and_generated() {
    on_small_stack(|| {
        let text = program();
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "chains.nil".into(), text.clone());
        let project = db::project_with_std(&db, vec![file], Vec::new());
        let diagnostics = db::file_diagnostics(&db, project, file);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");

        // Inverting twice gives back the tree that was written.
        for name in ["long_sum!", "long_weighted!", "long_and!", "long_product!"] {
            let f = db::lookup_function(&db, project, name).expect(name);
            let inverse = db::inverse_function(&db, f).expect("inverse");
            let parsed = syntax::parse(&print_function(&inverse));
            assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
            let back = nilang_compiler::invert::invert_function(&parsed.items[0].function);
            let original = syntax::parse(&text);
            let written = original
                .items
                .iter()
                .find(|i| i.function.name.name == name)
                .expect("written");
            assert_eq!(print_function(&back), print_function(&written.function));
        }

        let code = db::rust_module_text(&db, project, file, &Options::default())
            .unwrap_or_else(|e| panic!("{e:?}"));
        // The chain is cut into `let`s of at most 1,000 terms, which rustc's
        // parser takes on its default stack (it overflows near 7,000).
        let forward = code
            .split("pub fn __nil_long_sum(")
            .nth(1)
            .and_then(|f| f.split("\n}\n").next())
            .expect("the forward function");
        // 9,999 operators: a `let` after each 1,000.
        assert_eq!(forward.matches("let __chain").count(), (TERMS - 1) / 1000);

        // A product's partials are a prefix and a suffix product per
        // factor, each computed once into an array: code linear in the
        // length, where writing each partial out was quadratic.
        let reverse = code
            .split("pub fn __nil_long_product_adjoint<")
            .nth(1)
            .and_then(|f| f.split("\n}\n").next())
            .expect("the reverse pass");
        assert_eq!(
            reverse.matches("let mut __pp").count(),
            1,
            "one array of products"
        );
        assert!(reverse.contains(&format!("; {}];", 2 * (TERMS - 1))));
        let per_term = reverse.len() / TERMS;
        assert!(
            per_term < 2_000,
            "{per_term} bytes of reverse pass per factor"
        );
    })
}
