//! Property: each of the 100 random programs passed to a template
//! (`via!(pN, ...)` in build.rs's `random_const.nil`, which calls its
//! function once) behaves exactly as the program itself: the same results,
//! bit for bit, forwards, backwards and through the gradient, on random
//! inputs. The instance's call is a direct call of `pN`.

use nilang_tests::{GRADIENTS, PROGRAMS, Rng, VIA};

#[test]
fn a_program_through_a_template_is_the_program() {
    assert_eq!(VIA.len(), PROGRAMS.len());
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for ((name, call, uncall), (via_name, via_call, via_uncall, via_grad)) in
        PROGRAMS.iter().zip(VIA)
    {
        assert_eq!(name, via_name);
        let (_, _, grad, _) = GRADIENTS
            .iter()
            .find(|(n, ..)| n == name)
            .expect("every program has a gradient");
        for _ in 0..16 {
            let v = [rng.next(), rng.next(), rng.next(), rng.next()];
            let start = [rng.next(), rng.next(), rng.next(), rng.next()];
            let (mut s, mut t) = (start, start);
            call(&mut s, &v).unwrap_or_else(|e| panic!("{name}: {e}"));
            via_call(&mut t, &v).unwrap_or_else(|e| panic!("via {name}: {e}"));
            assert_eq!(s.map(f64::to_bits), t.map(f64::to_bits), "{name}");
            uncall(&mut s, &v).unwrap_or_else(|e| panic!("{name} uncall: {e}"));
            via_uncall(&mut t, &v).unwrap_or_else(|e| panic!("via {name} uncall: {e}"));
            assert_eq!(s.map(f64::to_bits), t.map(f64::to_bits), "{name} uncall");
            let seed = [rng.next(), rng.next(), rng.next(), rng.next()];
            let (mut s, mut t) = (start, start);
            let (mut g, mut h) = (seed, seed);
            let (mut v_bar, mut w_bar) = ([0.0; 4], [0.0; 4]);
            grad(&mut s, &mut g, &v, &mut v_bar).unwrap_or_else(|e| panic!("{name} grad: {e}"));
            via_grad(&mut t, &mut h, &v, &mut w_bar)
                .unwrap_or_else(|e| panic!("via {name} grad: {e}"));
            assert_eq!(g.map(f64::to_bits), h.map(f64::to_bits), "{name} gradient");
            assert_eq!(
                v_bar.map(f64::to_bits),
                w_bar.map(f64::to_bits),
                "{name} gradient of v"
            );
        }
    }
}

/// Property: each random program passed partially applied behaves exactly
/// as the program: `pN(_, _, _, _, v)` to `part!` (the array captured) and,
/// where it leaves a scalar unchanged, `pN` with that scalar captured to
/// `cap!`. Bit for bit, forwards, backwards and through the gradient (the
/// adjoints of the captured values included).
#[test]
fn a_program_partially_applied_is_the_program() {
    use nilang_tests::PARTIAL;
    assert!(
        PARTIAL.len() > PROGRAMS.len(),
        "{} partial cases",
        PARTIAL.len()
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, call, uncall, grad) in PARTIAL {
        let (_, own_call, own_uncall) = PROGRAMS
            .iter()
            .find(|(n, ..)| n == name)
            .expect("a program");
        let (_, _, own_grad, _) = GRADIENTS
            .iter()
            .find(|(n, ..)| n == name)
            .expect("every program has a gradient");
        for _ in 0..8 {
            let v = [rng.next(), rng.next(), rng.next(), rng.next()];
            let start = [rng.next(), rng.next(), rng.next(), rng.next()];
            let (mut s, mut t) = (start, start);
            own_call(&mut s, &v).unwrap_or_else(|e| panic!("{name}: {e}"));
            call(&mut t, &v).unwrap_or_else(|e| panic!("partial {name}: {e}"));
            assert_eq!(s.map(f64::to_bits), t.map(f64::to_bits), "{name}");
            own_uncall(&mut s, &v).unwrap_or_else(|e| panic!("{name} uncall: {e}"));
            uncall(&mut t, &v).unwrap_or_else(|e| panic!("partial {name} uncall: {e}"));
            assert_eq!(s.map(f64::to_bits), t.map(f64::to_bits), "{name} uncall");
            let seed = [rng.next(), rng.next(), rng.next(), rng.next()];
            let (mut s, mut t) = (start, start);
            let (mut g, mut h) = (seed, seed);
            let (mut v_bar, mut w_bar) = ([0.0; 4], [0.0; 4]);
            own_grad(&mut s, &mut g, &v, &mut v_bar).unwrap_or_else(|e| panic!("{name} grad: {e}"));
            grad(&mut t, &mut h, &v, &mut w_bar)
                .unwrap_or_else(|e| panic!("partial {name} grad: {e}"));
            assert_eq!(g.map(f64::to_bits), h.map(f64::to_bits), "{name} gradient");
            assert_eq!(
                v_bar.map(f64::to_bits),
                w_bar.map(f64::to_bits),
                "{name} gradient of v"
            );
        }
    }
}
