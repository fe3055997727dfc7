//! Runs one BA case once, for instruction counts that do not depend on
//! machine noise (as `gmm_once` does for GMM):
//!
//! ```sh
//! cargo build --release -p nilang-adbench --example ba_once
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/ba_once ba1_n49_m7776_p31843 jac
//! ```
//!
//! The first argument names a file of `data/ba`; the second is `load`
//! (read the file only: subtract its count from the others), `obj` (the
//! `.nil` residuals and weight errors) or `jac` (the Jacobian by the
//! `.nil` gradient programs).

use nilang_adbench::ba::{self, BaInput, BaJacobian};
use nilang_adbench::data_dir;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: ba_once <file of data/ba, e.g. ba1_n49_m7776_p31843> load|obj|jac");
        std::process::exit(2);
    }
    let input = BaInput::read(data_dir().join("ba").join(format!("{}.txt", args[1])))
        .unwrap_or_else(|e| {
            eprintln!("ba_once: {e}");
            std::process::exit(2)
        });
    match args[2].as_str() {
        "load" => {}
        "obj" => {
            let mut r = vec![0.0; 2 * input.p];
            let mut w = vec![0.0; input.p];
            ba::nil_residuals(&input, &mut r, &mut w).unwrap_or_else(|e| panic!("{e}"));
            std::hint::black_box((r, w));
        }
        "jac" => {
            let mut j = BaJacobian::new(&input);
            ba::nil_jacobian(&input, &mut j).unwrap_or_else(|e| panic!("{e}"));
            std::hint::black_box(j);
        }
        other => {
            eprintln!("ba_once: `{other}` is none of load, obj, jac");
            std::process::exit(2);
        }
    }
}
