//! Generated programs that pair array elements through index parameters
//! (`build.rs`, `aliased`): for every choice of `i, j, k` in 1..=3, a
//! program whose statements pair two equal indices stops with
//! `Check::Alias` and leaves the array as it was, bit for bit; the others
//! run, and their uncall gives the array back.

use nilang::Check;
use nilang_tests::ALIASED;

#[test]
fn aliased_pairs_stop_and_restore_distinct_pairs_run_and_undo() {
    assert!(ALIASED.len() >= 40);
    let (mut stopped, mut ran) = (0, 0);
    for (name, call, uncall, pairs) in ALIASED {
        for i in 1..=3 {
            for j in 1..=3 {
                for k in 1..=3 {
                    let ijk = [i, j, k];
                    let w0: Vec<f64> = (0..8).map(|n| 0.1 + 0.37 * f64::from(n)).collect();
                    let mut w = w0.clone();
                    let aliased = pairs.iter().any(|&(a, b)| ijk[a] == ijk[b]);
                    match call(&mut w, ijk) {
                        Err(e) => {
                            assert!(aliased, "{name} {ijk:?}: {e}");
                            assert_eq!(e.check, Check::Alias, "{name} {ijk:?}: {e}");
                            let bits =
                                |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                            assert_eq!(bits(&w), bits(&w0), "{name} {ijk:?}: rolled back");
                            stopped += 1;
                        }
                        Ok(()) => {
                            assert!(!aliased, "{name} {ijk:?}: aliased but ran");
                            uncall(&mut w, ijk).unwrap();
                            for (a, b) in w.iter().zip(&w0) {
                                assert!((a - b).abs() < 1e-12, "{name} {ijk:?}: {w:?}");
                            }
                            ran += 1;
                        }
                    }
                }
            }
        }
    }
    // Both outcomes are exercised.
    assert!(stopped > 100 && ran > 100, "stopped {stopped}, ran {ran}");
}
