//! Runs one forward program many times, for instruction counts that do not
//! depend on machine noise: what the run-time checks cost against the same
//! work unchecked (BENCHMARKS.md, "checked / unchecked keeping its
//! uncomputation"):
//!
//! ```sh
//! cargo build --release -p nilang-examples --example forward_once
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/forward_once graph checked 1000
//! ```
//!
//! Arguments: `bessel` (J_2(1.0)) or `graph` (the Petersen embedding loss,
//! k = 5, as the benchmark runs it), then `checked`, `uncomputing` (no
//! checks, every uncomputation kept) or `unchecked`, then the number of
//! runs (`0` for the start-up cost alone; subtract it, and divide).

use nilang_examples::petersen::{L1, L2, Rng, view};
use nilang_examples::{bessel, graph, unchecked};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!("usage: forward_once bessel|graph checked|uncomputing|unchecked RUNS");
        std::process::exit(2)
    };
    if args.len() != 4 {
        usage();
    }
    let runs: usize = args[3].parse().unwrap_or_else(|_| usage());
    let build = args[2].as_str();
    if !matches!(build, "checked" | "uncomputing" | "unchecked") {
        usage();
    }
    let mut sum = 0.0;
    match args[1].as_str() {
        "bessel" => {
            for _ in 0..runs {
                let mut out = 0.0;
                let z = std::hint::black_box(1.0);
                match build {
                    "checked" => bessel::ibesselj(&mut out, 2, z, 1e-8),
                    "uncomputing" => unchecked::uncomputing::bessel::ibesselj(&mut out, 2, z, 1e-8),
                    _ => unchecked::bessel::ibesselj(&mut out, 2, z, 1e-8),
                }
                .unwrap();
                sum += out;
            }
        }
        "graph" => {
            let x = Rng::new(1).positions(5);
            for _ in 0..runs {
                let x = view(std::hint::black_box(&x), 5);
                let mut out = 0.0;
                match build {
                    "checked" => graph::embedding_loss(&mut out, x, &L1, &L2),
                    "uncomputing" => {
                        unchecked::uncomputing::graph::embedding_loss(&mut out, x, &L1, &L2)
                    }
                    _ => unchecked::graph::embedding_loss(&mut out, x, &L1, &L2),
                }
                .unwrap();
                sum += out;
            }
        }
        _ => usage(),
    }
    std::hint::black_box(sum);
}
