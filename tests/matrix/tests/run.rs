//! Runs every cell of the built-in matrix that the analysis accepts (see
//! the library's documentation).

/// Cells whose gradient the Rust backend does not generate yet, with what
/// their gradient program reports (a `NotDifferentiable` error naming the
/// `.nil` line, not a wrong number). The test fails when one of them
/// starts to work, so that it leaves this list.
const KNOWN_GAPS: &[(&str, &str)] = &[];

#[test]
fn every_accepted_cell_runs_forwards_backwards_and_through_its_gradient() {
    let cells = nilang_matrix_tests::CELLS;
    let mut failures = Vec::new();
    for (name, run) in cells {
        let gap = KNOWN_GAPS.iter().find(|(n, _)| n == name);
        match (std::panic::catch_unwind(run), gap) {
            (Ok(Err(why)), Some((_, known))) if why.contains(known) => {}
            (Ok(Ok(())), Some(_)) => {
                failures.push(format!("{name}: runs now: take it off KNOWN_GAPS"))
            }
            (Ok(Ok(())), None) => {}
            (Ok(Err(why)), _) => failures.push(format!("{name}: {why}")),
            (Err(panic), _) => failures.push(format!(
                "{name}: panicked: {}",
                panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cells fail:\n{}",
        failures.len(),
        cells.len(),
        failures.join("\n")
    );
}
