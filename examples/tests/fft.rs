//! The reversible FFT of `fft.nil` (HADAMARD and ROT butterflies, SWAPs for
//! the bit reversal) against a plain O(n²) DFT written here, and its inverse.
//! The DFT in the test is the definition, summed term by term, so the two
//! share no code; an FFT crate would add a dependency to check against an
//! algorithm of the same family.

use nilang_examples::baseline::SplitMix;
use nilang_examples::fft;
use nilang_runtime::Check;

fn signal(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = SplitMix(seed);
    let re = (0..n).map(|_| rng.symmetric()).collect();
    let im = (0..n).map(|_| rng.symmetric()).collect();
    (re, im)
}

/// The unitary DFT X[k] = n^{-1/2} Σ_j x[j] e^{-2πi jk/n}, by the definition.
/// The angle is taken of jk mod n, so that it stays small and exact.
fn dft(re: &[f64], im: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = re.len();
    let scale = 1.0 / (n as f64).sqrt();
    let mut out = (vec![0.0; n], vec![0.0; n]);
    for k in 0..n {
        let (mut sr, mut si) = (0.0, 0.0);
        for j in 0..n {
            let phase = -2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
            let (s, c) = phase.sin_cos();
            sr += re[j] * c - im[j] * s;
            si += re[j] * s + im[j] * c;
        }
        out.0[k] = sr * scale;
        out.1[k] = si * scale;
    }
    out
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn fft_equals_the_dft_and_runs_backwards() {
    for bits in 0..=10 {
        let n = 1usize << bits;
        let (re0, im0) = signal(n, 17 + bits as u64);
        let (want_re, want_im) = dft(&re0, &im0);
        let (mut re, mut im) = (re0.clone(), im0.clone());
        fft::fft(&mut re, &mut im).unwrap();
        // The inputs are of order 1, so are the unitary outputs; the error
        // of both sums grows like log n (FFT) and sqrt n (DFT) ulps.
        let err = max_diff(&re, &want_re).max(max_diff(&im, &want_im));
        assert!(err < 1e-12, "n = {n}: max error {err:e}");
        fft::uncall_fft(&mut re, &mut im).unwrap();
        let back = max_diff(&re, &re0).max(max_diff(&im, &im0));
        assert!(back < 1e-13, "n = {n}: round trip error {back:e}");
        if n == 1024 {
            eprintln!("n = 1024: max error against the DFT {err:e}, round trip {back:e}");
        }
    }
}

#[test]
fn fft_of_known_signals() {
    // A unit impulse at 0 gives the constant n^{-1/2}; a pure tone
    // e^{2πi 3j/n} gives sqrt(n) at k = 3 and zero elsewhere.
    let n = 16;
    let (mut re, mut im) = (vec![0.0_f64; n], vec![0.0_f64; n]);
    re[0] = 1.0;
    fft::fft(&mut re, &mut im).unwrap();
    assert!(re.iter().all(|v| (v - 0.25).abs() < 1e-15), "{re:?}");
    assert!(im.iter().all(|v| v.abs() < 1e-15), "{im:?}");
    let phase = |j: usize| 2.0 * std::f64::consts::PI * (3 * j) as f64 / n as f64;
    let mut re: Vec<f64> = (0..n).map(|j| phase(j).cos()).collect();
    let mut im: Vec<f64> = (0..n).map(|j| phase(j).sin()).collect();
    fft::fft(&mut re, &mut im).unwrap();
    for k in 0..n {
        let want = if k == 3 { 4.0 } else { 0.0 };
        assert!(
            (re[k] - want).abs() < 1e-14 && im[k].abs() < 1e-14,
            "k = {k}: {} {}",
            re[k],
            im[k]
        );
    }
}

#[test]
fn fft_preserves_the_norm_in_f32() {
    // Generic over T: Real; in f32 the transform is still unitary to f32
    // precision and the round trip comes back to a few ulps.
    let n = 256;
    let (re0, im0) = signal(n, 5);
    let mut re: Vec<f32> = re0.iter().map(|&v| v as f32).collect();
    let mut im: Vec<f32> = im0.iter().map(|&v| v as f32).collect();
    let (r0, i0) = (re.clone(), im.clone());
    let norm =
        |re: &[f32], im: &[f32]| -> f64 { re.iter().chain(im).map(|&v| (v as f64).powi(2)).sum() };
    let before = norm(&re, &im);
    fft::fft(&mut re, &mut im).unwrap();
    assert!((norm(&re, &im) - before).abs() < 1e-4 * before);
    fft::uncall_fft(&mut re, &mut im).unwrap();
    let back = re
        .iter()
        .zip(&r0)
        .chain(im.iter().zip(&i0))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0_f32, f32::max);
    assert!(back < 1e-5, "{back:e}");
}

#[test]
fn wrong_lengths_are_errors_not_panics() {
    let (mut re, mut im) = (vec![1.0; 12], vec![0.0; 12]);
    let err = fft::fft(&mut re, &mut im).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(err.location.file, "examples/fft.nil");
    assert_eq!(
        (err.expected.as_str(), err.found.as_str()),
        ("12", "16"),
        "{err}"
    );
    assert_eq!(re, vec![1.0; 12], "nothing was changed");
    let (mut re, mut im) = (vec![1.0; 8], vec![0.0; 4]);
    let err = fft::fft(&mut re, &mut im).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(
        (err.expected.as_str(), err.found.as_str()),
        ("8", "4"),
        "{err}"
    );
}

#[test]
fn fft_gradient_is_the_transposed_transform() {
    // The FFT is linear; the gradient of L = Σ c_k re_k + d_k im_k with
    // respect to the input is the adjoint transform applied to (c, d), and
    // it must agree with central differences.
    let n = 8;
    let (re0, im0) = signal(n, 99);
    let (c, d) = signal(n, 100);
    let loss = |x: &[f64]| {
        let (mut re, mut im) = (x[..n].to_vec(), x[n..].to_vec());
        fft::fft(&mut re, &mut im).unwrap();
        re.iter()
            .zip(&c)
            .chain(im.iter().zip(&d))
            .map(|(a, b)| a * b)
            .sum::<f64>()
    };
    let (mut re, mut im) = (re0.clone(), im0.clone());
    let (mut gre, mut gim) = (c.clone(), d.clone());
    fft::fft_grad(&mut re, &mut gre, &mut im, &mut gim).unwrap();
    assert!(max_diff(&re, &re0) < 1e-14 && max_diff(&im, &im0) < 1e-14);
    let x: Vec<f64> = re0.iter().chain(&im0).copied().collect();
    let g: Vec<f64> = gre.iter().chain(&gim).copied().collect();
    nilang_runtime::check_gradient(loss, &x, &g, 1e-6, 1e-8).unwrap();
}
