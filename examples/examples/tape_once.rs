//! Runs one taped or reverse-computed gradient many times, for instruction
//! counts that do not depend on machine noise (the tape's cost per call):
//!
//! ```sh
//! cargo build --release -p nilang-examples --example tape_once
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/tape_once bessel taped 1000
//! ```
//!
//! Arguments: `bessel` (dJ_2/dz at z = 1) or `graph` (the Petersen
//! embedding loss, k = 6), then `rev` (the reverse-computed gradient of the
//! checked-free build) or `taped` (the same source with every loop taped),
//! then the number of runs (`0` for the start-up cost alone).

use nilang_examples::petersen::{self, Rng};
use nilang_examples::unchecked;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!("usage: tape_once bessel|graph rev|taped RUNS");
        std::process::exit(2)
    };
    if args.len() != 4 {
        usage();
    }
    let runs: usize = args[3].parse().unwrap_or_else(|_| usage());
    let taped = match args[2].as_str() {
        "rev" => false,
        "taped" => true,
        _ => usage(),
    };
    let mut sum = 0.0;
    match args[1].as_str() {
        "bessel" => {
            for _ in 0..runs {
                let (mut out, mut out_bar, mut z_bar) = (0.0, 1.0, 0.0);
                let z = std::hint::black_box(1.0);
                if taped {
                    unchecked::taped::bessel::ibesselj_grad(
                        &mut out,
                        &mut out_bar,
                        2,
                        z,
                        &mut z_bar,
                        1e-8,
                    )
                } else {
                    unchecked::bessel::ibesselj_grad(&mut out, &mut out_bar, 2, z, &mut z_bar, 1e-8)
                }
                .unwrap();
                sum += z_bar;
            }
        }
        "graph" => {
            let k = 6;
            let mut rng = Rng::new(7);
            let x: Vec<f64> = (0..10 * k).map(|_| rng.uniform()).collect();
            let mut g = vec![0.0; x.len()];
            for _ in 0..runs {
                let x = std::hint::black_box(&x);
                if taped {
                    petersen::gradient_by(
                        unchecked::taped::graph::embedding_loss_grad,
                        x,
                        k,
                        &mut g,
                    )
                } else {
                    petersen::gradient_by(unchecked::graph::embedding_loss_grad, x, k, &mut g)
                }
                .unwrap();
                sum += g[0];
            }
        }
        _ => usage(),
    }
    std::hint::black_box(sum);
}
