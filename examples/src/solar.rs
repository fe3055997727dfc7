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

use nilang::Real;

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
    /// `leap_step_acc` of `leapfrog.nil`, run backwards by its uncall.
    Accumulative,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Regular, Variant::Reversible, Variant::Accumulative];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Regular => "regular",
            Variant::Reversible => "reversible",
            Variant::Accumulative => "accumulative",
        }
    }
}

/// Runs `n` steps of length `h` forwards from `s`, in place.
pub fn forward<T: Real>(variant: Variant, s: &mut [T], gm: &[T], h: T, n: usize) -> nilang::Result {
    let mut acc = Vec::new();
    for _ in 0..n {
        match variant {
            Variant::Regular => regular_step(s, gm, h, &mut acc),
            Variant::Reversible => crate::leapfrog::leap_step(s, gm, h)?,
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
) -> nilang::Result {
    let mut acc = Vec::new();
    for _ in 0..n {
        match variant {
            Variant::Regular => regular_step(s, gm, -h, &mut acc),
            Variant::Reversible => crate::leapfrog::uncall_leap_step(s, gm, h)?,
            Variant::Accumulative => crate::leapfrog::uncall_leap_step_acc(s, gm, h)?,
        }
    }
    Ok(())
}

/// `n` steps forwards and `n` backwards from the initial state: the state
/// that comes back.
pub fn round_trip<T: Real>(variant: Variant, n: usize) -> nilang::Result<Vec<T>> {
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
pub fn loss_after(s0: &[f64], n: usize) -> nilang::Result<f64> {
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
pub fn gradient_reverse(s0: &[f64], n: usize) -> nilang::Result<Gradient> {
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

/// Bennett's schedule with `k` sectors per level (`nilang::bennett`), on
/// `leap_into`: states are allocated and uncomputed as the schedule says,
/// and freed when they are zero again within `1e-9` (the round-off of
/// uncomputing a step).
pub fn gradient_bennett(s0: &[f64], n: usize, k: usize) -> nilang::Result<Option<Gradient>> {
    use crate::unchecked::leapfrog as lf;
    let Some(b) = nilang::bennett::Bennett::new(k, 1e-9) else {
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
pub fn gradient_stored(s0: &[f64], n: usize) -> nilang::Result<Gradient> {
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
