//! The main job: run the paper's programs forwards, then backwards, and show
//! that the uncall restores the inputs.

use nilang_examples::{arithmetic, bessel, fib, unitary};

fn main() -> Result<(), nilang::Error> {
    // The Bessel function of the first kind, J_2(1.0) (seed 000, section 4.1).
    let (v, z) = (2, 1.0_f64);
    let mut out = 0.0_f64;
    bessel::ibesselj(&mut out, v, z, 1e-8)?;
    println!("ibesselj:   J_{v}({z}) = {out:.17}");
    bessel::uncall_ibesselj(&mut out, v, z, 1e-8)?;
    println!("            uncalled: out = {out}, v = {v}, z = {z}");

    // The multiplier: out += x * y.
    let (mut out, x, y) = (2.0_f64, 3.0, 5.0);
    arithmetic::multiplier(&mut out, x, y)?;
    println!("multiplier: (2, 3, 5) -> ({out}, {x}, {y})");
    arithmetic::uncall_multiplier(&mut out, x, y)?;
    println!("            uncalled: ({out}, {x}, {y})");

    // umm!: a unitary matrix as N(N-1)/2 rotations applied to a vector.
    let mut x = [1.0_f64, 2.0, 3.0, 4.0];
    let theta = [0.1_f64, 0.2, 0.3, 0.4, 0.5, 0.6];
    let before = x;
    unitary::umm(&mut x, &theta)?;
    let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>().sqrt();
    println!(
        "umm!:       {before:?} -> {x:.6?} (norm {:.12} -> {:.12})",
        norm(&before),
        norm(&x)
    );
    unitary::uncall_umm(&mut x, &theta)?;
    println!("            uncalled: {x:.12?}");

    // Fibonacci, recursively and reversibly (seed 000, appendix G).
    let mut out = 0.0_f64;
    fib::rfib(&mut out, 10.0)?;
    println!("rfib:       rfib(0, 10) = {out}");
    fib::uncall_rfib(&mut out, 10.0)?;
    println!("            uncalled: out = {out}");

    println!("qr and sparse dot: checked by `nilc check`, not yet generated (matrix types)");
    Ok(())
}
