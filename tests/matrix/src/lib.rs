//! The built-in matrix, run (issue "one typed body", item 5): the cells
//! the analysis accepts (`compiler/tests/matrix/cells.rs`; which ones are
//! compiled: `build.rs`), their generated Rust, and a driver per cell
//! (`CELLS`, which `tests/run.rs` runs): forwards and uncalled back to its
//! inputs, in the checked and the unchecked build; a cell over floats or
//! complex numbers has a gradient that agrees with central differences.
//! `compiler/tests/matrix.rs` holds the other half: every cell is refused
//! with a code and a help line, or generated in every build.

use nilang::{Complex, Fixed43, Tropical, ULog};

/// A value as the numbers it holds (a complex number as two), and back.
trait Flat: Clone {
    fn flat(&self, out: &mut Vec<f64>);
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>);
}

macro_rules! flat_as {
    ($($t:ty),*) => {$(
        impl Flat for $t {
            fn flat(&self, out: &mut Vec<f64>) {
                out.push(*self as f64);
            }
            fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
                *self = *from.next().expect("a number") as $t;
            }
        }
    )*};
}
flat_as!(f64, f32, i64, i32, i8, u8);

impl Flat for bool {
    fn flat(&self, out: &mut Vec<f64>) {
        out.push(f64::from(u8::from(*self)));
    }
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
        *self = *from.next().expect("a number") != 0.0;
    }
}

impl Flat for Fixed43 {
    fn flat(&self, out: &mut Vec<f64>) {
        out.push(nilang::fixed::to_f64(*self));
    }
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
        *self = nilang::fixed::from_f64(*from.next().expect("a number"));
    }
}

impl<T: Flat> Flat for ULog<T> {
    fn flat(&self, out: &mut Vec<f64>) {
        self.log.flat(out);
    }
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
        self.log.unflat(from);
    }
}

impl<T: Flat> Flat for Tropical<T> {
    fn flat(&self, out: &mut Vec<f64>) {
        self.n.flat(out);
    }
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
        self.n.unflat(from);
    }
}

impl<T: Flat> Flat for Complex<T> {
    fn flat(&self, out: &mut Vec<f64>) {
        self.re.flat(out);
        self.im.flat(out);
    }
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
        self.re.unflat(from);
        self.im.unflat(from);
    }
}

impl<T: Flat> Flat for Vec<T> {
    fn flat(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|x| x.flat(out));
    }
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
        self.iter_mut().for_each(|x| x.unflat(from));
    }
}

impl<T: Flat> Flat for nilang::ndarray::Array2<T> {
    fn flat(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|x| x.flat(out));
    }
    fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
        self.iter_mut().for_each(|x| x.unflat(from));
    }
}

macro_rules! flat_struct {
    ($($m:ident),*) => {$(
        impl<T: Flat> Flat for $m::MPt<T> {
            fn flat(&self, out: &mut Vec<f64>) {
                self.x.flat(out);
                self.y.flat(out);
            }
            fn unflat(&mut self, from: &mut std::slice::Iter<'_, f64>) {
                self.x.unflat(from);
                self.y.unflat(from);
            }
        }
    )*};
}
flat_struct!(checked, unchecked);

fn flat3(a: &impl Flat, b: &impl Flat, c: &impl Flat) -> Vec<f64> {
    let mut out = Vec::new();
    a.flat(&mut out);
    b.flat(&mut out);
    c.flat(&mut out);
    out
}

fn unflat3(x: &[f64], a: &mut impl Flat, b: &mut impl Flat, c: &mut impl Flat) {
    let mut it = x.iter();
    a.unflat(&mut it);
    b.unflat(&mut it);
    c.unflat(&mut it);
}

/// The uncall gave the inputs back: bit for bit (`tol` 0) or within a
/// relative `tol` (floating-point products and quotients).
fn restored(now: &[f64], before: &[f64], tol: f64, build: &str) -> Result<(), String> {
    let off = now
        .iter()
        .zip(before)
        .any(|(x, y)| (x - y).abs() > tol * (1.0 + y.abs()) || x.is_nan() != y.is_nan());
    if off || now.len() != before.len() {
        return Err(format!(
            "{build}: uncalled back to {now:?}, not the inputs {before:?}"
        ));
    }
    Ok(())
}

/// The seeds of the outputs' adjoints: the weights of the loss
/// `L = Σ w_i out_i` whose gradient the gradient program gives.
fn weights(n: usize) -> Vec<f64> {
    (0..n).map(|i| 0.5 + 0.25 * (i % 4) as f64).collect()
}

/// The gradient program's adjoints (`grad`, of every input number) against
/// central differences of `L = seeds · forward(x)` at `x`.
fn gradient_agrees(
    grad: &[f64],
    x: &[f64],
    seeds: &[f64],
    forward: impl Fn(&[f64]) -> Result<Vec<f64>, String>,
    h: f64,
    tol: f64,
) -> Result<(), String> {
    let loss = |x: &[f64]| -> Result<f64, String> {
        Ok(forward(x)?.iter().zip(seeds).map(|(o, w)| o * w).sum())
    };
    for j in 0..x.len() {
        let (mut up, mut down) = (x.to_vec(), x.to_vec());
        up[j] += h;
        down[j] -= h;
        let fd = (loss(&up)? - loss(&down)?) / (2.0 * h);
        if (grad[j] - fd).abs() > tol * (1.0 + fd.abs()) {
            return Err(format!(
                "gradient: input {j} has adjoint {}, central differences {fd} (adjoints {grad:?})",
                grad[j]
            ));
        }
    }
    Ok(())
}

/// A cell's driver: `Err` says what went wrong.
pub type Run = fn() -> Result<(), String>;

include!(concat!(env!("OUT_DIR"), "/matrix.rs"));
