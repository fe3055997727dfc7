//! Runs one GMM case once, for instruction counts that do not depend on
//! machine noise:
//!
//! ```sh
//! cargo build --release -p nilang-adbench --example gmm_once
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/gmm_once gmm_d10_K5 grad
//! ```
//!
//! The first argument names a file of `data/gmm/1k`; the second is `load`
//! (read the file only: subtract its count from the others), `plain` (the
//! plain-Rust objective), `obj` (the `.nil` objective), `grad` (its
//! gradient), `body` (the gradient's body `__nil_gmm_objective_grad`
//! alone, without the entry point's rollback copies) or `taped` (the
//! gradient of `gmm.nil` compiled with every loop taped).

use nilang_adbench::gmm::{self, Gmm};
use nilang_adbench::{data_dir, gmm_nil};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!(
            "usage: gmm_once <file of data/gmm/1k, e.g. gmm_d10_K5> load|plain|obj|grad|body|taped"
        );
        std::process::exit(2);
    }
    let g =
        Gmm::read(data_dir().join("gmm/1k").join(format!("{}.txt", args[1]))).unwrap_or_else(|e| {
            eprintln!("gmm_once: {e}");
            std::process::exit(2)
        });
    let c = g.constant_term();
    match args[2].as_str() {
        "load" => {}
        "plain" => {
            std::hint::black_box(gmm::objective(&g));
        }
        "obj" => {
            let mut out = 0.0;
            gmm_nil::gmm_objective(
                &mut out, &g.alphas, &g.means, &g.icf, &g.x, g.d as i64, g.k as i64, g.n as i64,
                g.gamma, g.m, c,
            )
            .unwrap();
            std::hint::black_box(out);
        }
        "grad" | "body" | "taped" => {
            let grad = match args[2].as_str() {
                "grad" => gmm_nil::gmm_objective_grad,
                "body" => gmm_nil::__nil_gmm_objective_grad,
                _ => nilang_adbench::taped::gmm_nil::gmm_objective_grad,
            };
            let mut bars = gmm::Bars::new(&g);
            bars.run(grad, &g, c).unwrap();
            std::hint::black_box(bars);
        }
        other => {
            eprintln!("gmm_once: unknown case `{other}` (load, plain, obj, grad, body or taped)");
            std::process::exit(2);
        }
    }
}
