//! Property: for randomly generated well-formed programs (build.rs makes 100
//! of them from a fixed seed: instructions, calls and uncalls, `if`, `for`,
//! `while`, ancillas, `@routine`), running the call and then the uncall
//! restores every input, on many random inputs each.

use nilang::CheckEq;
use nilang_tests::{PROGRAMS, Rng};

#[test]
fn call_then_uncall_restores_the_inputs() {
    assert_eq!(PROGRAMS.len(), 100);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut changed = 0;
    for (name, call, uncall) in PROGRAMS {
        for _ in 0..50 {
            let v = [rng.next(), rng.next(), rng.next(), rng.next()];
            let start = [rng.next(), rng.next(), rng.next(), rng.next()];
            let mut s = start;
            call(&mut s, &v).unwrap_or_else(|e| panic!("{name}: {e}"));
            if !s.check_eq(&start, 1e-12) {
                changed += 1;
            }
            uncall(&mut s, &v).unwrap_or_else(|e| panic!("{name} uncall: {e}"));
            assert!(
                s.check_eq(&start, 1e-9),
                "{name}: {start:?} came back as {s:?}"
            );
        }
    }
    // The programs do something: most runs change the state.
    assert!(
        changed > PROGRAMS.len() * 50 / 2,
        "only {changed} runs changed anything"
    );
}
