//! The main job: run the paper's programs forwards, then backwards, and show
//! that the uncall restores the inputs.

use nilang_examples::{arithmetic, bessel, complex, fib, qr, sparse, unitary};
use nilang_runtime::Complex;
use nilang_runtime::ndarray::{Array2, ShapeBuilder};
use nilang_runtime::sprs::TriMat;

fn main() -> Result<(), nilang_runtime::Error> {
    end_quietly_on_a_closed_pipe();
    // The Bessel function of the first kind, J_2(1.0) (seed 000, section 4.1).
    let (v, z) = (2, 1.0_f64);
    let mut out = 0.0_f64;
    bessel::ibesselj(&mut out, v, z, 1e-8)?;
    println!("ibesselj:   J_{v}({z}) = {out:.17}");
    bessel::uncall_ibesselj(&mut out, v, z, 1e-8)?;
    println!("            uncalled: out = {out}, v = {v}, z = {z}");
    // Its derivative from the generated reverse pass (no tape), and the
    // second derivative by running that reverse pass on dual numbers.
    let (mut out, mut out_bar, mut z_bar) = (0.0_f64, 1.0_f64, 0.0_f64);
    bessel::ibesselj_grad(&mut out, &mut out_bar, v, z, &mut z_bar, 1e-8)?;
    let dual = nilang_runtime::num_dual::Dual64::new(z, 1.0);
    let one = nilang_runtime::num_dual::Dual64::from(1.0);
    let (mut out_d, mut out_bar_d, mut z_bar_d) = (one * 0.0, one, one * 0.0);
    bessel::ibesselj_grad(&mut out_d, &mut out_bar_d, v, dual, &mut z_bar_d, 1e-8)?;
    println!(
        "            dJ/dz = {z_bar:.16}, d2J/dz2 = {:.16}",
        z_bar_d.eps
    );

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

    // QR decomposition by Gram-Schmidt (seed 000, section 4.4).
    let a = Array2::from_shape_vec(
        (3, 3).f(),
        vec![4.0, 1.0, -2.0, 1.0, 3.0, 0.5, -2.0, 0.0, 5.0],
    )
    .expect("3x3");
    let mut q = Array2::<f64>::zeros((3, 3).f());
    let mut r = Array2::<f64>::zeros((3, 3).f());
    qr::qr(q.view_mut(), r.view_mut(), a.view())?;
    let error = (q.dot(&r) - &a).iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    println!(
        "qr:         R = {:.6?}",
        r.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>()
    );
    println!("            max |QR - A| = {error:.1e}");
    qr::uncall_qr(q.view_mut(), r.view_mut(), a.view())?;
    let left = q
        .iter()
        .chain(r.iter())
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    println!("            uncalled: max |Q|, |R| entry = {left:.1e}, A unchanged");

    // The Frobenius dot product of two sparse CSC matrices (section 4.2).
    let mut ta = TriMat::new((4, 3));
    let mut tb = TriMat::new((4, 3));
    for (i, j, v) in [(0, 0, 1.5), (3, 0, -2.0), (1, 1, 4.0), (2, 2, 0.5)] {
        ta.add_triplet(i, j, v);
    }
    for (i, j, v) in [(0, 0, 2.0), (3, 0, 1.0), (2, 1, 7.0), (2, 2, -4.0)] {
        tb.add_triplet(i, j, v);
    }
    let (sa, sb) = (ta.to_csc::<usize>(), tb.to_csc::<usize>());
    let mut d = 0.0_f64;
    sparse::sparse_dot(&mut d, sa.view(), sb.view())?;
    println!(
        "sparse_dot: trace(A'B) = {d} (nnz {} and {})",
        sa.nnz(),
        sb.nnz()
    );
    sparse::uncall_sparse_dot(&mut d, sa.view(), sb.view())?;
    println!("            uncalled: {d}");

    // The complex logarithm (seed 000, listing 1).
    let x = Complex::new(2.0_f64, -1.0);
    let mut y = Complex::new(0.0_f64, 0.0);
    complex::complex_log(&mut y, x)?;
    println!("complex_log: log({x}) = {y:.15}");
    complex::uncall_complex_log(&mut y, x)?;
    println!("            uncalled: {y}");
    Ok(())
}

/// A reader that stops reading (`| head`) ends the demo as SIGPIPE ends
/// other programs, quietly, instead of with a panic of `println!` on the
/// closed pipe (Rust starts programs with the signal ignored).
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's action to its default, before any thread
    // starts, has no precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
