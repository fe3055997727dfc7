//! The gradient through a long leapfrog chain (`leapfrog.nil`, the outer
//! solar system of `nilang_examples::solar`): the gradient of half the sum
//! of the squared final positions with respect to the initial state (36
//! numbers), after T steps of 10 days, by
//!
//! - reverse computing: T steps forwards in place, then T reverse passes of
//!   the step, each uncomputing the state before it (one state alive);
//! - Bennett's schedule (`nilang_runtime::bennett`) with k sectors per level;
//! - the `@tape` loop `leap_run_taped`: T steps forwards recording each
//!   state on a `nilang_runtime::Tape`, then its reverse pass reading them back
//!   (O(T));
//! - a hand-written baseline that stores every state (what a tape of the
//!   states would hold, O(T)).
//!
//! A second table shows how time and peak heap grow with T (`--growth`,
//! 10^4 and 10^5 steps by default, and T) for reverse computing, the tape
//! and Bennett's schedule.
//!
//! ```sh
//! cargo run --release -p nilang-examples --bin leapfrog_gradient -- [--steps T] [--k 10,100] [--growth 10000,100000]
//! ```
//!
//! Peak heap comes from a counting global allocator (the most bytes held at
//! once during the method, beyond what was allocated before it). The
//! gradients are compared with the stored-states one, whose reverse pass
//! starts every step from the state the forward run computed.

use std::error::Error;
use std::time::Instant;

use nilang_examples::solar::{self, Gradient};

#[global_allocator]
static ALLOCATOR: nilang_examples::heap::Counting = nilang_examples::heap::Counting;

/// Runs `f` and returns its result, its time in seconds and the most heap
/// it held at once beyond what was allocated before.
fn measure<R>(f: impl FnOnce() -> R) -> (R, f64, usize) {
    let start = Instant::now();
    let (r, peak) = nilang_examples::heap::peak_since(f);
    (r, start.elapsed().as_secs_f64(), peak)
}

struct Args {
    steps: usize,
    ks: Vec<usize>,
    growth: Vec<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        steps: 1_000_000,
        ks: vec![10, 100],
        growth: vec![10_000, 100_000],
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--steps" => {
                let v = it.next().ok_or("--steps needs a number")?;
                args.steps = v
                    .parse()
                    .map_err(|_| format!("--steps: not a number: {v}"))?;
            }
            "--k" => {
                let v = it.next().ok_or("--k needs a list such as 10,100")?;
                args.ks = v
                    .split(',')
                    .map(|k| match k.trim().parse::<usize>() {
                        Ok(k) if k >= 2 => Ok(k),
                        _ => Err(format!("--k: {k} is not a number of at least 2")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--growth" => {
                let v = it
                    .next()
                    .ok_or("--growth needs a list such as 10000,100000")?;
                args.growth = v
                    .split(',')
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| {
                        t.trim()
                            .parse::<usize>()
                            .map_err(|_| format!("--growth: {t} is not a number"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "-h" | "--help" => {
                return Err(
                    "usage: leapfrog_gradient [--steps T] [--k 10,100] [--growth 10000,100000]"
                        .into(),
                );
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// One row of the table: a method's name, what it returned, its time and
/// peak heap, and how many states it kept alive at once.
struct Row {
    name: String,
    gradient: Gradient,
    secs: f64,
    heap: usize,
}

fn run() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    let t = args.steps;
    let s0 = solar::initial_state::<f64>();
    let state_bytes = std::mem::size_of_val(s0.as_slice());
    let mut rows = Vec::new();

    let (g, secs, heap) = measure(|| solar::gradient_reverse(&s0, t));
    rows.push(Row {
        name: "reverse computing (uncall)".into(),
        gradient: g?,
        secs,
        heap,
    });
    for &k in &args.ks {
        let (g, secs, heap) = measure(|| solar::gradient_bennett(&s0, t, k));
        let Some(g) = g? else { continue };
        rows.push(Row {
            name: format!("Bennett, k = {k}"),
            gradient: g,
            secs,
            heap,
        });
    }
    let (g, secs, heap) = measure(|| solar::gradient_taped(&s0, t));
    rows.push(Row {
        name: "taped (`@tape` loop, `leap_run_taped`)".into(),
        gradient: g?,
        secs,
        heap,
    });
    let (g, secs, heap) = measure(|| solar::gradient_stored(&s0, t));
    rows.push(Row {
        name: "every state stored (hand-written baseline)".into(),
        gradient: g?,
        secs,
        heap,
    });

    let reference = rows
        .last()
        .map(|r| r.gradient.grad.clone())
        .unwrap_or_default();
    println!(
        "gradient of half the squared final positions w.r.t. the initial state, T = {t} steps, state = {state_bytes} bytes\n"
    );
    println!(
        "| method | time (s) | step calls | peak live states | peak heap | gradient vs stored states (max rel. diff.) | initial state recovered (mean AU error) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let recovered = match &r.gradient.recovered {
            Some(s) => format!("{:.1e}", solar::position_error(s, &s0)),
            None => "-".into(),
        };
        println!(
            "| {} | {:.2} | {} | {} | {} | {:.1e} | {} |",
            r.name,
            r.secs,
            r.gradient.calls,
            r.gradient.peak_states,
            human(r.heap),
            solar::relative_difference(&reference, &r.gradient.grad),
            recovered
        );
    }
    let norm = reference.iter().map(|g| g * g).sum::<f64>().sqrt();
    println!(
        "\n|gradient| = {norm:.3e}; loss at the end = {:.6e}",
        solar::loss(&rows[0].gradient.last)
    );
    growth(&args, &s0, &rows)
}

/// Time and peak heap against the number of steps: the smaller counts of
/// `--growth` run here, T taken from the rows above.
fn growth(args: &Args, s0: &[f64], rows: &[Row]) -> Result<(), Box<dyn Error>> {
    let counts: Vec<usize> = args
        .growth
        .iter()
        .copied()
        .filter(|&n| n < args.steps)
        .collect();
    if counts.is_empty() {
        return Ok(());
    }
    println!("\ngrowth with the number of steps T: time (s) / peak heap\n");
    let mut head = String::from("| method |");
    let mut rule = String::from("|---|");
    for n in counts.iter().chain([&args.steps]) {
        head.push_str(&format!(" T = {n} |"));
        rule.push_str("---:|");
    }
    println!("{head}\n{rule}");
    type Method<'a> = (
        String,
        Box<dyn Fn(usize) -> nilang_runtime::Result<Option<Gradient>> + 'a>,
    );
    let mut methods: Vec<Method<'_>> = vec![
        (
            "reverse computing (uncall)".into(),
            Box::new(|n| solar::gradient_reverse(s0, n).map(Some)),
        ),
        (
            "taped (`@tape` loop, `leap_run_taped`)".into(),
            Box::new(|n| solar::gradient_taped(s0, n).map(Some)),
        ),
    ];
    for &k in &args.ks {
        methods.push((
            format!("Bennett, k = {k}"),
            Box::new(move |n| solar::gradient_bennett(s0, n, k)),
        ));
    }
    for (name, method) in &methods {
        let mut line = format!("| {name} |");
        for &n in &counts {
            let (g, secs, heap) = measure(|| method(n));
            match g? {
                Some(_) => line.push_str(&format!(" {secs:.3} / {} |", human(heap))),
                None => line.push_str(" - |"),
            }
        }
        match rows.iter().find(|r| r.name == *name) {
            Some(r) => line.push_str(&format!(" {:.3} / {} |", r.secs, human(r.heap))),
            None => line.push_str(" - |"),
        }
        println!("{line}");
    }
    Ok(())
}

fn human(bytes: usize) -> String {
    let b = bytes as f64;
    if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("leapfrog_gradient: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
