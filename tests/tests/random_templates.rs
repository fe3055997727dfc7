//! Property: each of the 100 random programs passed to a template
//! (`via!(pN, ...)` in build.rs's `random_const.nil`, which calls its
//! function once) behaves exactly as the program itself: the same results,
//! bit for bit, forwards, backwards and through the gradient, on random
//! inputs. The instance's call is a direct call of `pN`. The same holds
//! for each program passed partially applied.

use nilang_tests::{GRADIENTS, Gradient, PARTIAL, PROGRAMS, Program, Rng, VIA};

/// Runs the program `name` and its stand-in (`call`, `uncall`, `grad`) on
/// `runs` random inputs drawn from `rng`, and asserts that they agree bit
/// for bit forwards, backwards and in the gradient, `v`'s included.
fn same_as_program(
    name: &str,
    (call, uncall, grad): (Program, Program, Gradient),
    rng: &mut Rng,
    runs: usize,
) {
    let (_, own_call, own_uncall) = PROGRAMS
        .iter()
        .find(|(n, ..)| *n == name)
        .expect("a program");
    let (_, _, own_grad, _) = GRADIENTS
        .iter()
        .find(|(n, ..)| *n == name)
        .expect("every program has a gradient");
    for _ in 0..runs {
        let v = [rng.next(), rng.next(), rng.next(), rng.next()];
        let start = [rng.next(), rng.next(), rng.next(), rng.next()];
        let (mut s, mut t) = (start, start);
        own_call(&mut s, &v).unwrap_or_else(|e| panic!("{name}: {e}"));
        call(&mut t, &v).unwrap_or_else(|e| panic!("stand-in of {name}: {e}"));
        assert_eq!(s.map(f64::to_bits), t.map(f64::to_bits), "{name}");
        own_uncall(&mut s, &v).unwrap_or_else(|e| panic!("{name} uncall: {e}"));
        uncall(&mut t, &v).unwrap_or_else(|e| panic!("stand-in of {name} uncall: {e}"));
        assert_eq!(s.map(f64::to_bits), t.map(f64::to_bits), "{name} uncall");
        let seed = [rng.next(), rng.next(), rng.next(), rng.next()];
        let (mut s, mut t) = (start, start);
        let (mut g, mut h) = (seed, seed);
        let (mut v_bar, mut w_bar) = ([0.0; 4], [0.0; 4]);
        own_grad(&mut s, &mut g, &v, &mut v_bar).unwrap_or_else(|e| panic!("{name} grad: {e}"));
        grad(&mut t, &mut h, &v, &mut w_bar)
            .unwrap_or_else(|e| panic!("stand-in of {name} grad: {e}"));
        assert_eq!(g.map(f64::to_bits), h.map(f64::to_bits), "{name} gradient");
        assert_eq!(
            v_bar.map(f64::to_bits),
            w_bar.map(f64::to_bits),
            "{name} gradient of v"
        );
    }
}

#[test]
fn a_program_through_a_template_is_the_program() {
    assert_eq!(VIA.len(), PROGRAMS.len());
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for ((name, ..), (via_name, call, uncall, grad)) in PROGRAMS.iter().zip(VIA) {
        assert_eq!(name, via_name);
        same_as_program(name, (*call, *uncall, *grad), &mut rng, 16);
    }
}

/// Each random program passed partially applied: `pN(_, _, _, _, v)` to
/// `part!` (the array captured) and, where it leaves a scalar unchanged,
/// `pN` with that scalar captured to `cap!` (the adjoints of the captured
/// values included).
#[test]
fn a_program_partially_applied_is_the_program() {
    assert!(
        PARTIAL.len() > PROGRAMS.len(),
        "{} partial cases",
        PARTIAL.len()
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, call, uncall, grad) in PARTIAL {
        same_as_program(name, (*call, *uncall, *grad), &mut rng, 8);
    }
}
