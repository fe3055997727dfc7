//! Rollback as a property over the random programs (issue 42 item 2): a
//! failure injected at each check site of each program leaves every
//! argument of every generated entry point bit-identical: values, adjoint
//! buffers, the arrays of derivative calls.
//!
//! `build.rs` (`rollback_programs`, `instrument`) writes each random
//! program `pN` again as `r_pN(a, b, c, d, v, site)`, in which check site
//! number `site` fails: an `@assert` before each top-level statement and at
//! the end, each ancilla allocation (off by one, so that a `while` counter
//! fails its loop's entry condition and a float ancilla its deallocation),
//! each deallocation, each `while` postcondition and each `if`
//! postcondition; a call `pK(..)` becomes `r_pK(.., site - off)`, so the
//! ids of a program run on into its callees', uncalled ones included. The
//! entry points: `r_pN` and `uncall_r_pN`, their `_grad` and `_adjoint`
//! and the uncalls of those; for every third program a loss `loss_rN`
//! (which runs `r_pN` on copies inside a `@routine` and only adds into
//! `out`, so its gradient is `loss_rN_adjoint_accumulating`) with all of
//! those and the accumulating reverse pass; for the others the variant of
//! `r_pN` with its unchanged parameters `Const` (`Config::variant`) and its
//! entry points; and for eight programs the derivative calls `(∇gen_r_pN)`
//! and `(∂gen_r_pN)` wrapped in `grad_of_rN` / `tan_of_rN`, with theirs.
//! No random program is a kernel, so no device launcher is among them.

use nilang_tests::{PROGRAMS, Rng};

nilang::include_nil!(mod random_rollback);

/// Everything an entry point may be given: the scalars (`a, b, c, d` at
/// 0..4, a derivative call's `a, ga, .., d, gd` at 0..8, a loss's `out` at
/// 8), their adjoints, `v` and its adjoint, a derivative call's `gv` and
/// its adjoint.
#[derive(Clone, Debug)]
struct State {
    s: [f64; 9],
    g: [f64; 9],
    v: Vec<f64>,
    v_bar: Vec<f64>,
    gv: Vec<f64>,
    gv_bar: Vec<f64>,
}

impl State {
    fn random(rng: &mut Rng) -> State {
        let mut n = |len: usize| (0..len).map(|_| rng.next()).collect::<Vec<f64>>();
        State {
            s: n(9).try_into().unwrap(),
            g: n(9).try_into().unwrap(),
            v: n(4),
            v_bar: n(4),
            gv: n(4),
            gv_bar: n(4),
        }
    }

    /// Every number's bits, in a fixed order.
    fn bits(&self) -> Vec<u64> {
        self.s
            .iter()
            .chain(&self.g)
            .chain(&self.v)
            .chain(&self.v_bar)
            .chain(&self.gv)
            .chain(&self.gv_bar)
            .map(|x| x.to_bits())
            .collect()
    }
}

type Entry = fn(&mut State, i64) -> nilang::Result;

#[allow(clippy::all, unused)]
mod table {
    use super::{Entry, State, random_rollback};
    include!(concat!(env!("OUT_DIR"), "/rollback_table.rs"));
}
use table::ROLLBACK;

/// Random states per (program, site).
const POINTS: usize = 2;
/// The most site ids tried per program: past it, a seeded sample (the
/// program's own sites come first in its numbering only in part, so the
/// sample is spread over all of them).
const MAX_SITES: usize = 60;

#[test]
fn without_a_failure_the_instrumented_programs_are_the_originals() {
    assert_eq!(ROLLBACK.len(), PROGRAMS.len());
    let mut rng = Rng(0x6A09_E667_F3BC_C909);
    for ((name, _, entries), (original, call, _)) in ROLLBACK.iter().zip(PROGRAMS) {
        assert_eq!(name, original);
        for _ in 0..8 {
            let st0 = State::random(&mut rng);
            // `r_pN` with site 0 computes what `pN` computes, bit for bit.
            let mut st = st0.clone();
            (entries[0].1)(&mut st, 0).unwrap_or_else(|e| panic!("r_{name}: {e}"));
            let mut s = [st0.s[0], st0.s[1], st0.s[2], st0.s[3]];
            call(&mut s, &st0.v).unwrap();
            let bits = |x: &[f64]| x.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&st.s[..4]), bits(&s), "r_{name} is not {name}");
            // And no entry point fails.
            for (entry, f) in *entries {
                let mut st = st0.clone();
                f(&mut st, 0).unwrap_or_else(|e| panic!("{entry} with no failure injected: {e}"));
            }
        }
    }
}

#[test]
fn a_failure_at_any_check_site_leaves_every_argument_bit_identical() {
    let mut rng = Rng(0xBB67_AE85_84CA_A73B);
    let (mut runs, mut errors, mut sites_tried, mut sites_failing) = (0usize, 0usize, 0, 0);
    let mut entries_failing = 0;
    let mut entries_total = 0;
    let mut checks = std::collections::BTreeMap::<String, usize>::new();
    let mut not_rolled_back = Vec::new();
    for (name, total, entries) in ROLLBACK {
        let sites: Vec<usize> = if *total <= MAX_SITES {
            (1..=*total).collect()
        } else {
            let mut s: Vec<usize> = (0..MAX_SITES)
                .map(|_| 1 + (rng.next().to_bits() as usize >> 3) % total)
                .collect();
            s.sort();
            s.dedup();
            s
        };
        let mut failed = vec![false; entries.len()];
        for &site in &sites {
            sites_tried += 1;
            let mut any = false;
            for _ in 0..POINTS {
                let st0 = State::random(&mut rng);
                let bits0 = st0.bits();
                for (k, (entry, f)) in entries.iter().enumerate() {
                    runs += 1;
                    let mut st = st0.clone();
                    if let Err(e) = f(&mut st, site as i64) {
                        errors += 1;
                        any = true;
                        failed[k] = true;
                        *checks.entry(format!("{:?}", e.check)).or_default() += 1;
                        if st.bits() != bits0 {
                            not_rolled_back.push(format!(
                                "{entry} (of {name}), site {site}: {e}\n  before {st0:?}\n  after  {st:?}"
                            ));
                        }
                    }
                }
            }
            sites_failing += usize::from(any);
        }
        entries_total += entries.len();
        entries_failing += failed.iter().filter(|f| **f).count();
        let never: Vec<&str> = entries
            .iter()
            .zip(&failed)
            .filter(|(_, f)| !**f)
            .map(|((e, _), _)| *e)
            .collect();
        assert!(
            never.is_empty(),
            "{name}: no injected failure made these fail: {never:?}"
        );
    }
    eprintln!(
        "{} programs, {entries_total} entry points; {sites_tried} (program, site) pairs, {sites_failing} of them failing somewhere; {runs} runs, {errors} failed: {checks:?}",
        ROLLBACK.len()
    );
    assert!(
        not_rolled_back.is_empty(),
        "{} failed calls changed an argument:\n{}",
        not_rolled_back.len(),
        not_rolled_back.join("\n")
    );
    assert_eq!(entries_failing, entries_total);
    // Most injected sites are reached by some input: those behind an `if`
    // branch or in a loop that runs zero times may not be.
    assert!(
        sites_failing * 10 >= sites_tried * 7,
        "only {sites_failing} of {sites_tried} sites failed"
    );
}
