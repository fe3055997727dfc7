//! The outer solar system for the leapfrog study (`leapfrog.nil`): the
//! bodies, a plain (irreversible) Rust leapfrog to compare with, and the
//! error and energy measures shared by the tests, the `leapfrog_error`
//! binary and the long-chain benchmark.
//!
//! # Where the numbers come from
//!
//! The six bodies and their state are the "outer solar system" data set of
//! E. Hairer, C. Lubich and G. Wanner, *Geometric Numerical Integration*
//! (Springer, 2nd ed. 2006), chapter I, section 2.4: the Sun (its mass
//! increased by the four inner planets, which are not simulated), Jupiter,
//! Saturn, Uranus, Neptune and Pluto, on 5 September 1994 at 0h00 GST.
//! Units: astronomical units, Earth days and solar masses, so that the
//! gravitational constant is `G = 2.95912208286e-4` AU³ / (M☉ day²).
//! Positions and velocities are heliocentric; the Sun starts at rest at the
//! origin. The study only needs a realistic, long-lived gravitational
//! system, not an ephemeris: a small error in these digits would not change
//! its conclusions.

use nilang_runtime::Real;

/// The gravitational constant in AU³ / (M☉ day²).
pub const G: f64 = 2.95912208286e-4;

/// The bodies, in state order.
pub const NAMES: [&str; 6] = ["Sun", "Jupiter", "Saturn", "Uranus", "Neptune", "Pluto"];

/// Masses in solar masses (the Sun's includes the inner planets).
pub const MASSES: [f64; 6] = [
    1.00000597682,
    0.000954786104043,
    0.000285583733151,
    0.0000437273164546,
    0.0000517759138449,
    1.0 / 1.3e8,
];

/// Heliocentric positions in AU.
pub const POSITIONS: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [-3.5023653, -3.8169847, -1.5507963],
    [9.0755314, -3.0458353, -1.6483708],
    [8.3101420, -16.2901086, -7.2521278],
    [11.4707666, -25.7294829, -10.8169456],
    [-15.5387357, -25.2225594, -3.1902382],
];

/// Heliocentric velocities in AU / day.
pub const VELOCITIES: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [0.00565429, -0.00412490, -0.00190589],
    [0.00168318, 0.00483525, 0.00192462],
    [0.00354178, 0.00137102, 0.00055029],
    [0.00288930, 0.00114527, 0.00039677],
    [0.00276725, -0.00170702, -0.00136504],
];

/// The time step of the study, in days (about 430 steps per orbit of
/// Jupiter).
pub const STEP_DAYS: f64 = 10.0;

/// `G m` of every body, in precision `T`.
pub fn gm<T: Real>() -> Vec<T> {
    MASSES.iter().map(|m| T::from_f64(G * m)).collect()
}

/// The initial state in the layout of `leapfrog.nil`: all positions, then
/// all velocities, rounded to `T`.
pub fn initial_state<T: Real>() -> Vec<T> {
    POSITIONS
        .iter()
        .chain(VELOCITIES.iter())
        .flatten()
        .map(|&v| T::from_f64(v))
        .collect()
}

/// One step of the textbook leapfrog, written as ordinary Rust: the
/// accelerations go into a buffer, then the velocities take half a kick,
/// the positions drift, and the velocities take the other half kick. Run
/// with `-h` it retraces its steps (in exact arithmetic).
pub fn regular_step<T: Real>(s: &mut [T], gm: &[T], h: T, acc: &mut Vec<T>) {
    let hh = h / T::from_i64(2);
    regular_kick(s, gm, hh, acc);
    let p = s.len() / 2;
    let (x, v) = s.split_at_mut(p);
    for (xk, vk) in x.iter_mut().zip(v.iter()) {
        *xk += h * *vk;
    }
    regular_kick(s, gm, hh, acc);
}

fn regular_kick<T: Real>(s: &mut [T], gm: &[T], hh: T, acc: &mut Vec<T>) {
    let n = gm.len();
    let p = 3 * n;
    acc.clear();
    acc.resize(p, T::from_i64(0));
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            let dx = s[3 * j] - s[3 * i];
            let dy = s[3 * j + 1] - s[3 * i + 1];
            let dz = s[3 * j + 2] - s[3 * i + 2];
            let r = (dx * dx + dy * dy + dz * dz).sqrt();
            let c = gm[j] / (r * r * r);
            acc[3 * i] += c * dx;
            acc[3 * i + 1] += c * dy;
            acc[3 * i + 2] += c * dz;
        }
    }
    for k in 0..p {
        s[p + k] += hh * acc[k];
    }
}

/// The total energy (kinetic plus potential) of a state, in f64, in
/// M☉ AU² / day².
pub fn energy<T: Real>(s: &[T]) -> f64 {
    let n = MASSES.len();
    let p = 3 * n;
    let at = |k: usize| s[k].to_f64();
    let mut e = 0.0;
    for (i, mi) in MASSES.iter().enumerate().take(n) {
        let v2: f64 = (0..3).map(|c| at(p + 3 * i + c).powi(2)).sum();
        e += 0.5 * mi * v2;
        for (j, mj) in MASSES.iter().enumerate().take(i) {
            let r2: f64 = (0..3)
                .map(|c| (at(3 * i + c) - at(3 * j + c)).powi(2))
                .sum();
            e -= G * mi * mj / r2.sqrt();
        }
    }
    e
}

/// The mean over the bodies of the distance (in AU) between their
/// positions in two states: the error measure of the study.
pub fn position_error<T: Real>(a: &[T], b: &[T]) -> f64 {
    let n = a.len() / 6;
    let total: f64 = (0..n)
        .map(|i| {
            (0..3)
                .map(|c| (a[3 * i + c].to_f64() - b[3 * i + c].to_f64()).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .sum();
    total / n as f64
}

/// How many elements of two states are equal (bit for bit, for finite
/// values).
pub fn equal_elements<T: Real>(a: &[T], b: &[T]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

/// The three programs of the study.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// [`regular_step`], run backwards as `regular_step` with `-h`.
    Regular,
    /// `leap_step` of `leapfrog.nil`, run backwards by its uncall.
    Reversible,
    /// `leap_step_buffered` of `leapfrog.nil` (each velocity changes once
    /// per half kick, by its summed acceleration), run backwards by its
    /// uncall.
    Buffered,
    /// `leap_step_acc` of `leapfrog.nil`, run backwards by its uncall.
    Accumulative,
}

impl Variant {
    pub const ALL: [Variant; 4] = [
        Variant::Regular,
        Variant::Reversible,
        Variant::Buffered,
        Variant::Accumulative,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Regular => "regular",
            Variant::Reversible => "reversible",
            Variant::Buffered => "reversible-buffered",
            Variant::Accumulative => "accumulative",
        }
    }
}

/// Runs `n` steps of length `h` forwards from `s`, in place.
pub fn forward<T: Real>(
    variant: Variant,
    s: &mut [T],
    gm: &[T],
    h: T,
    n: usize,
) -> nilang_runtime::Result {
    let mut acc = Vec::new();
    for _ in 0..n {
        match variant {
            Variant::Regular => regular_step(s, gm, h, &mut acc),
            Variant::Reversible => crate::leapfrog::leap_step(s, gm, h)?,
            Variant::Buffered => crate::leapfrog::leap_step_buffered(s, gm, h)?,
            Variant::Accumulative => crate::leapfrog::leap_step_acc(s, gm, h)?,
        }
    }
    Ok(())
}

/// Undoes `n` steps of [`forward`]: the uncall of the `.nil` step, or the
/// regular step with `-h`.
pub fn backward<T: Real>(
    variant: Variant,
    s: &mut [T],
    gm: &[T],
    h: T,
    n: usize,
) -> nilang_runtime::Result {
    let mut acc = Vec::new();
    for _ in 0..n {
        match variant {
            Variant::Regular => regular_step(s, gm, -h, &mut acc),
            Variant::Reversible => crate::leapfrog::uncall_leap_step(s, gm, h)?,
            Variant::Buffered => crate::leapfrog::uncall_leap_step_buffered(s, gm, h)?,
            Variant::Accumulative => crate::leapfrog::uncall_leap_step_acc(s, gm, h)?,
        }
    }
    Ok(())
}

/// `n` steps forwards and `n` backwards from the initial state: the state
/// that comes back.
pub fn round_trip<T: Real>(variant: Variant, n: usize) -> nilang_runtime::Result<Vec<T>> {
    let gm = gm::<T>();
    let h = T::from_f64(STEP_DAYS);
    let mut s = initial_state::<T>();
    forward(variant, &mut s, &gm, h, n)?;
    backward(variant, &mut s, &gm, h, n)?;
    Ok(s)
}

/// The loss of the gradient measurement: half the sum of the squared
/// coordinates of every body at the end of the chain.
pub fn loss(s: &[f64]) -> f64 {
    s[..s.len() / 2].iter().map(|v| 0.5 * v * v).sum()
}

/// The adjoint of [`loss`] with respect to the state.
pub fn loss_bar(s: &[f64]) -> Vec<f64> {
    let p = s.len() / 2;
    s.iter()
        .enumerate()
        .map(|(k, v)| if k < p { *v } else { 0.0 })
        .collect()
}

/// The loss after `n` reversible steps from `s0` (for finite differences).
pub fn loss_after(s0: &[f64], n: usize) -> nilang_runtime::Result<f64> {
    let mut s = s0.to_vec();
    forward(Variant::Reversible, &mut s, &gm::<f64>(), STEP_DAYS, n)?;
    Ok(loss(&s))
}

/// A gradient of [`loss`] after `n` steps with respect to the initial
/// state, and the state the chain ended in.
#[derive(Clone, Debug)]
pub struct Gradient {
    pub last: Vec<f64>,
    pub grad: Vec<f64>,
    /// The state the reverse pass ended in (reverse computing only: the
    /// initial state recovered by uncomputing).
    pub recovered: Option<Vec<f64>>,
    /// States alive at once (the input included).
    pub peak_states: usize,
    /// Calls of the step, its inverse and their reverse passes.
    pub calls: u64,
}

/// Reverse computing: `n` steps forwards in place, then `n` reverse passes
/// of the step (`leap_step_adjoint`), each of which uncomputes the state it
/// came from while it carries the adjoint back. One state and one adjoint
/// are alive, whatever `n`.
pub fn gradient_reverse(s0: &[f64], n: usize) -> nilang_runtime::Result<Gradient> {
    let gm = gm::<f64>();
    let mut s = s0.to_vec();
    forward(Variant::Reversible, &mut s, &gm, STEP_DAYS, n)?;
    let last = s.clone();
    let mut s_bar = loss_bar(&last);
    let (mut gm_bar, mut h_bar) = (vec![0.0; gm.len()], 0.0);
    for _ in 0..n {
        crate::unchecked::leapfrog::leap_step_adjoint(
            &mut s,
            &mut s_bar,
            &gm,
            &mut gm_bar,
            STEP_DAYS,
            &mut h_bar,
        )?;
    }
    Ok(Gradient {
        last,
        grad: s_bar,
        recovered: Some(s),
        peak_states: 1,
        calls: 2 * n as u64,
    })
}

/// Bennett's schedule with `k` sectors per level (`nilang_runtime::bennett`), on
/// `leap_into`: states are allocated and uncomputed as the schedule says,
/// and freed when they are zero again within `1e-9` (the round-off of
/// uncomputing a step).
pub fn gradient_bennett(
    s0: &[f64],
    n: usize,
    k: usize,
) -> nilang_runtime::Result<Option<Gradient>> {
    use crate::unchecked::leapfrog as lf;
    let Some(b) = nilang_runtime::bennett::Bennett::new(k, 1e-9) else {
        return Ok(None);
    };
    let gm = gm::<f64>();
    let h = STEP_DAYS;
    let (mut gm_bar, mut h_bar) = (vec![0.0; gm.len()], 0.0);
    let (mut gm_bar2, mut h_bar2) = (vec![0.0; gm.len()], 0.0);
    // The seed needs the last state: run the chain once (O(1) memory).
    let mut s = s0.to_vec();
    forward(Variant::Reversible, &mut s, &gm, h, n)?;
    let (last, grad, counts) = b.gradient(
        s0,
        n,
        &loss_bar(&s),
        |y, x| lf::leap_into(y, x, &gm, h),
        |y, x| lf::uncall_leap_into(y, x, &gm, h),
        |y, yb, x, xb| lf::leap_into_adjoint(y, yb, x, xb, &gm, &mut gm_bar, h, &mut h_bar),
        |y, yb, x, xb| {
            lf::uncall_leap_into_adjoint(y, yb, x, xb, &gm, &mut gm_bar2, h, &mut h_bar2)
        },
    )?;
    Ok(Some(Gradient {
        last,
        grad,
        recovered: None,
        peak_states: counts.peak_states,
        calls: counts.total() + n as u64,
    }))
}

/// A hand-written baseline that keeps every state of the forward run
/// (`O(n)` memory, what a tape of the states would hold) and runs each
/// step's reverse pass from the stored state after it.
pub fn gradient_stored(s0: &[f64], n: usize) -> nilang_runtime::Result<Gradient> {
    let gm = gm::<f64>();
    let mut states = Vec::with_capacity(n + 1);
    states.push(s0.to_vec());
    for t in 0..n {
        let mut s = states[t].clone();
        crate::unchecked::leapfrog::leap_step(&mut s, &gm, STEP_DAYS)?;
        states.push(s);
    }
    let last = states[n].clone();
    let mut s_bar = loss_bar(&last);
    let (mut gm_bar, mut h_bar) = (vec![0.0; gm.len()], 0.0);
    let peak_states = states.len();
    while states.len() > 1 {
        let Some(mut s) = states.pop() else { break };
        crate::unchecked::leapfrog::leap_step_adjoint(
            &mut s,
            &mut s_bar,
            &gm,
            &mut gm_bar,
            STEP_DAYS,
            &mut h_bar,
        )?;
    }
    Ok(Gradient {
        last,
        grad: s_bar,
        recovered: None,
        peak_states,
        calls: 2 * n as u64,
    })
}

/// The `@tape` loop of `leapfrog.nil` (`leap_run_taped`): `n` steps
/// forwards, each recording the state it overwrites on a [`nilang_runtime::Tape`],
/// then its reverse pass (`leap_run_taped_adjoint`), which reads them back,
/// so that every step's reverse pass starts from the state the forward run
/// computed. The tape holds `n` states (`O(n)` memory); it is reserved up
/// front (36 `f64` a step) and freed when the reverse pass returns.
pub fn gradient_taped(s0: &[f64], n: usize) -> nilang_runtime::Result<Gradient> {
    use crate::unchecked::leapfrog as lf;
    let gm = gm::<f64>();
    let steps = i64::try_from(n).unwrap_or(i64::MAX);
    let mut tape = nilang_runtime::Tape::new();
    tape.reserve::<f64>(n.saturating_mul(s0.len()));
    let mut s = s0.to_vec();
    lf::leap_run_taped(&mut s, &gm, STEP_DAYS, steps, &mut tape)?;
    let last = s.clone();
    let mut s_bar = loss_bar(&last);
    let (mut gm_bar, mut h_bar) = (vec![0.0; gm.len()], 0.0);
    lf::leap_run_taped_adjoint(
        &mut s,
        &mut s_bar,
        &gm,
        &mut gm_bar,
        STEP_DAYS,
        &mut h_bar,
        steps,
        &mut tape,
    )?;
    debug_assert!(tape.is_empty());
    Ok(Gradient {
        last,
        grad: s_bar,
        recovered: Some(s),
        peak_states: n + 1,
        calls: 2 * n as u64,
    })
}

/// The largest difference between two gradients relative to the largest
/// component of the first.
pub fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let diff = a
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    if scale > 0.0 { diff / scale } else { diff }
}

/// Double-double numbers (an unevaluated sum `hi + lo` of two f64, about
/// 32 significant digits) for the high-precision reference trajectory of
/// the study: the same leapfrog map, so that the difference from it is
/// round-off alone.
pub mod dd {
    use std::ops::{Add, Div, Mul, Neg, Sub};

    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Dd {
        pub hi: f64,
        pub lo: f64,
    }

    impl From<f64> for Dd {
        fn from(hi: f64) -> Dd {
            Dd { hi, lo: 0.0 }
        }
    }

    /// `a + b` as a rounded sum and its exact error.
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    /// `two_sum` for `|a| >= |b|`.
    fn fast_two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        Dd {
            hi: s,
            lo: b - (s - a),
        }
    }

    impl Add for Dd {
        type Output = Dd;
        fn add(self, o: Dd) -> Dd {
            let (s, e) = two_sum(self.hi, o.hi);
            let (t, f) = two_sum(self.lo, o.lo);
            let r = fast_two_sum(s, e + t);
            fast_two_sum(r.hi, r.lo + f)
        }
    }

    impl Neg for Dd {
        type Output = Dd;
        fn neg(self) -> Dd {
            Dd {
                hi: -self.hi,
                lo: -self.lo,
            }
        }
    }

    impl Sub for Dd {
        type Output = Dd;
        fn sub(self, o: Dd) -> Dd {
            self + (-o)
        }
    }

    impl Mul for Dd {
        type Output = Dd;
        fn mul(self, o: Dd) -> Dd {
            let p = self.hi * o.hi;
            let e = self.hi.mul_add(o.hi, -p);
            fast_two_sum(p, e + (self.hi * o.lo + self.lo * o.hi))
        }
    }

    impl Div for Dd {
        type Output = Dd;
        fn div(self, o: Dd) -> Dd {
            // Three digits of long division, each an f64 quotient.
            let q1 = self.hi / o.hi;
            let r = self - o * Dd::from(q1);
            let q2 = r.hi / o.hi;
            let r = r - o * Dd::from(q2);
            let q3 = r.hi / o.hi;
            fast_two_sum(q1, q2) + Dd::from(q3)
        }
    }

    impl Dd {
        /// One Newton step from the f64 square root doubles its digits.
        pub fn sqrt(self) -> Dd {
            if self.hi <= 0.0 {
                return Dd::from(self.hi.max(0.0).sqrt());
            }
            let s = Dd::from(self.hi.sqrt());
            s + (self - s * s) / (Dd::from(2.0) * s)
        }
    }
}

/// The leapfrog of [`regular_step`] in double-double arithmetic.
pub fn reference_step(s: &mut [dd::Dd], gm: &[dd::Dd], h: dd::Dd, acc: &mut Vec<dd::Dd>) {
    use dd::Dd;
    let hh = h * Dd::from(0.5);
    let kick = |s: &mut [Dd], acc: &mut Vec<Dd>| {
        let n = gm.len();
        let p = 3 * n;
        acc.clear();
        acc.resize(p, Dd::default());
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                let dx = s[3 * j] - s[3 * i];
                let dy = s[3 * j + 1] - s[3 * i + 1];
                let dz = s[3 * j + 2] - s[3 * i + 2];
                let r = (dx * dx + dy * dy + dz * dz).sqrt();
                let c = gm[j] / (r * r * r);
                acc[3 * i] = acc[3 * i] + c * dx;
                acc[3 * i + 1] = acc[3 * i + 1] + c * dy;
                acc[3 * i + 2] = acc[3 * i + 2] + c * dz;
            }
        }
        for k in 0..p {
            s[p + k] = s[p + k] + hh * acc[k];
        }
    };
    kick(s, acc);
    let p = s.len() / 2;
    for k in 0..p {
        s[k] = s[k] + h * s[p + k];
    }
    kick(s, acc);
}

/// The reference trajectory for precision `T`: it starts from the initial
/// state and `G m` rounded to `T` (exactly representable in double-double)
/// and returns the positions after each of `counts` steps (increasing).
pub fn reference_positions<T: Real>(counts: &[usize]) -> Vec<Vec<f64>> {
    let to_dd =
        |v: Vec<T>| -> Vec<dd::Dd> { v.into_iter().map(|x| dd::Dd::from(x.to_f64())).collect() };
    let mut s = to_dd(initial_state::<T>());
    let gm = to_dd(gm::<T>());
    let h = dd::Dd::from(T::from_f64(STEP_DAYS).to_f64());
    let mut acc = Vec::new();
    let mut done = 0;
    let mut out = Vec::with_capacity(counts.len());
    for &n in counts {
        while done < n {
            reference_step(&mut s, &gm, h, &mut acc);
            done += 1;
        }
        out.push(s[..s.len() / 2].iter().map(|x| x.hi + x.lo).collect());
    }
    out
}

/// The forward error of a variant: the mean distance (AU) between its
/// positions and the reference's after each of `counts` steps.
pub fn forward_errors<T: Real>(
    variant: Variant,
    counts: &[usize],
    reference: &[Vec<f64>],
) -> nilang_runtime::Result<Vec<f64>> {
    let gm = gm::<T>();
    let h = T::from_f64(STEP_DAYS);
    let mut s = initial_state::<T>();
    let mut done = 0;
    let mut out = Vec::with_capacity(counts.len());
    for (&n, r) in counts.iter().zip(reference) {
        forward(variant, &mut s, &gm, h, n - done)?;
        done = n;
        let pos: Vec<f64> = s[..s.len() / 2].iter().map(|x| x.to_f64()).collect();
        let n_bodies = pos.len() / 3;
        let total: f64 = (0..n_bodies)
            .map(|i| {
                (0..3)
                    .map(|c| (pos[3 * i + c] - r[3 * i + c]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .sum();
        out.push(total / n_bodies as f64);
    }
    Ok(out)
}
