//! A finite-difference gradient checker.
//!
//! Central differences, `(f(x + h e_i) - f(x - h e_i)) / 2h`, have an error
//! of order `h^2 f'''` from truncation and `eps |f| / h` from rounding; with
//! `f64` and `h = 1e-6` (the step the tests use) both are near `1e-10` for
//! smooth functions of moderate size, so agreement within `1e-6` relative
//! (plus `1e-8` absolute) separates a right adjoint rule from a wrong one.

/// The gradient of `f` at `x` by central differences with step `h`.
pub fn central_difference<F>(mut f: F, x: &[f64], h: f64) -> Vec<f64>
where
    F: FnMut(&[f64]) -> f64,
{
    let mut probe = x.to_vec();
    (0..x.len())
        .map(|i| {
            probe[i] = x[i] + h;
            let up = f(&probe);
            probe[i] = x[i] - h;
            let down = f(&probe);
            probe[i] = x[i];
            (up - down) / (2.0 * h)
        })
        .collect()
}

/// The default step of [`central_difference`] in [`check_gradient`].
pub const FD_STEP: f64 = 1e-6;

/// Compares `gradient` with central differences of `f` at `x`: each
/// component must agree within `atol + rtol * |fd|`. The error names the
/// first component that does not.
pub fn check_gradient<F>(
    f: F,
    x: &[f64],
    gradient: &[f64],
    rtol: f64,
    atol: f64,
) -> Result<(), String>
where
    F: FnMut(&[f64]) -> f64,
{
    let fd = central_difference(f, x, FD_STEP);
    if fd.len() != gradient.len() {
        return Err(format!(
            "{} gradient components for {} inputs",
            gradient.len(),
            fd.len()
        ));
    }
    for (i, (g, d)) in gradient.iter().zip(&fd).enumerate() {
        // NaN on either side fails too.
        let within = (g - d).abs() <= atol + rtol * d.abs();
        if !within {
            return Err(format!(
                "component {i}: adjoint {g}, central difference {d} (x = {x:?})"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_of_known_functions() {
        let f = |x: &[f64]| x[0].sin() * x[1] + x[1].powi(3);
        let x = [0.7_f64, -1.3];
        let exact = [x[0].cos() * x[1], x[0].sin() + 3.0 * x[1] * x[1]];
        assert!(check_gradient(f, &x, &exact, 1e-6, 1e-8).is_ok());
        let wrong = [exact[0], exact[1] + 1e-3];
        let err = check_gradient(f, &x, &wrong, 1e-6, 1e-8).unwrap_err();
        assert!(err.starts_with("component 1:"), "{err}");
    }
}
