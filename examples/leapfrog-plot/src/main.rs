//! The floating-point error study of seed 001, appendix F, on the outer
//! solar system (`examples/leapfrog.nil`, `nilang_examples::solar`): for
//! each number of steps N, every variant (regular, reversible,
//! accumulative) in f64 and f32 runs N leapfrog steps forwards and N
//! backwards, and the mean distance (AU) between the recovered and the
//! initial positions of the six bodies is recorded. Each variant's forward
//! run is also compared, as in the paper, with the same leapfrog computed
//! in double-double arithmetic from the same (rounded) inputs.
//!
//! ```sh
//! cargo run --release -p nilang-leapfrog-plot --bin leapfrog_error -- [--max-steps N] [--out DIR]
//! ```
//!
//! Writes `DIR/leapfrog_error.csv`, `DIR/leapfrog_error.png` (round trips)
//! and `DIR/leapfrog_forward_error.png` (default `docs/leapfrog`, up to
//! 10^6 steps) and prints the tables.

use std::error::Error;
use std::path::PathBuf;

use nilang_examples::solar::{self, Variant};
use nilang_runtime::Real;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

const FONT: &[u8] = include_bytes!("../fonts/DejaVuSansMono.ttf");
const WIDTH: u32 = 900;
const HEIGHT: u32 = 600;

struct Args {
    max_steps: usize,
    out: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        max_steps: 1_000_000,
        out: PathBuf::from("docs/leapfrog"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--max-steps" => {
                let v = it.next().ok_or("--max-steps needs a number")?;
                args.max_steps = v
                    .parse()
                    .map_err(|_| format!("--max-steps: not a number: {v}"))?;
                if args.max_steps == 0 {
                    return Err("--max-steps must be at least 1".into());
                }
            }
            "--out" => args.out = PathBuf::from(it.next().ok_or("--out needs a folder")?),
            "-h" | "--help" => {
                return Err("usage: leapfrog_error [--max-steps N] [--out DIR]".into());
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// 1, 2, 5, 10, 20, 50, ... up to `max`.
fn step_counts(max: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut decade = 1usize;
    'outer: loop {
        for m in [1, 2, 5] {
            let Some(n) = decade.checked_mul(m) else {
                break 'outer;
            };
            if n > max {
                break 'outer;
            }
            out.push(n);
        }
        match decade.checked_mul(10) {
            Some(d) => decade = d,
            None => break,
        }
    }
    out
}

struct Row {
    variant: Variant,
    precision: &'static str,
    steps: usize,
    error: f64,
    equal: usize,
    forward: f64,
}

fn measure<T: Real>(
    precision: &'static str,
    counts: &[usize],
    rows: &mut Vec<Row>,
) -> nilang_runtime::Result {
    let s0 = solar::initial_state::<T>();
    let reference = solar::reference_positions::<T>(counts);
    for v in Variant::ALL {
        let forward = solar::forward_errors::<T>(v, counts, &reference)?;
        for (&n, fwd) in counts.iter().zip(forward) {
            let s = solar::round_trip::<T>(v, n)?;
            rows.push(Row {
                variant: v,
                precision,
                steps: n,
                error: solar::position_error(&s, &s0),
                equal: solar::equal_elements(&s, &s0),
                forward: fwd,
            });
        }
    }
    Ok(())
}

/// What one figure shows.
struct Figure<'a> {
    title: &'a str,
    y_desc: &'a str,
    value: fn(&Row) -> f64,
}

fn plot(
    rows: &[Row],
    counts: &[usize],
    fig: &Figure,
    path: &std::path::Path,
) -> Result<(), Box<dyn Error>> {
    let mut buf = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    let value = fig.value;
    let positive = rows.iter().map(value).filter(|e| *e > 0.0);
    let lo = positive.clone().fold(f64::INFINITY, f64::min);
    let hi = positive.fold(0.0f64, f64::max);
    // Both axes are drawn as decimal exponents (log10 of the value), with
    // whole-decade bounds.
    let (lo, hi) = if lo.is_finite() && hi > 0.0 {
        (lo.log10().floor(), hi.log10().ceil())
    } else {
        (-20.0, 0.0)
    };
    let max_n = (counts.last().copied().unwrap_or(1).max(10) as f64)
        .log10()
        .ceil();
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(fig.title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0f64..max_n, lo..hi)?;
        chart
            .configure_mesh()
            .x_desc("steps N (10 days each)")
            .y_desc(fig.y_desc)
            .x_label_formatter(&|v| format!("1e{v:.0}"))
            .y_label_formatter(&|v| format!("1e{v:.0}"))
            .x_labels(max_n as usize + 1)
            .y_labels((hi - lo) as usize / 2 + 1)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()?;
        let palette = [
            RGBColor(31, 119, 180),
            RGBColor(44, 160, 44),
            RGBColor(0, 0, 0),
            RGBColor(214, 39, 40),
        ];
        for (vi, v) in Variant::ALL.iter().enumerate() {
            for (precision, thin) in [("f64", false), ("f32", true)] {
                let color = palette[vi];
                let points: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.variant == *v && r.precision == precision && value(r) > 0.0)
                    .map(|r| ((r.steps as f64).log10(), value(r).log10()))
                    .collect();
                let style = color.stroke_width(if thin { 1 } else { 2 });
                let label = format!("{} ({precision})", v.name());
                if *v == Variant::Buffered {
                    // Bit for bit the regular program: crosses on its line.
                    let size = if thin { 4 } else { 6 };
                    chart
                        .draw_series(points.iter().map(|&p| Cross::new(p, size, style)))?
                        .label(label)
                        .legend(move |(x, y)| Cross::new((x + 10, y), size, style));
                    continue;
                }
                chart
                    .draw_series(LineSeries::new(points.clone(), style))?
                    .label(label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                // f32: thin lines and open squares; f64: thick lines and dots.
                // A round trip that came back exactly (error 0) has no point.
                if thin {
                    chart.draw_series(points.iter().map(|&p| {
                        EmptyElement::at(p) + Rectangle::new([(-3, -3), (3, 3)], color)
                    }))?;
                } else {
                    chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                }
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        root.present()?;
    }
    let file = std::fs::File::create(path)?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&buf)?;
    Ok(())
}

fn run() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    let counts = step_counts(args.max_steps);
    let mut rows = Vec::new();
    let start = std::time::Instant::now();
    measure::<f64>("f64", &counts, &mut rows)?;
    measure::<f32>("f32", &counts, &mut rows)?;
    let elapsed = start.elapsed();
    std::fs::create_dir_all(&args.out)?;
    let mut csv = String::from(
        "variant,precision,steps,round_trip_error_au,equal_elements,forward_error_au\n",
    );
    for r in &rows {
        csv += &format!(
            "{},{},{},{:e},{},{:e}\n",
            r.variant.name(),
            r.precision,
            r.steps,
            r.error,
            r.equal,
            r.forward
        );
    }
    let csv_path = args.out.join("leapfrog_error.csv");
    std::fs::write(&csv_path, csv)?;
    register_font("sans-serif", FontStyle::Normal, FONT).map_err(|_| "the font does not load")?;
    let png_path = args.out.join("leapfrog_error.png");
    let round_trip = Figure {
        title: "Leapfrog, outer solar system: N steps forwards, N backwards",
        y_desc: "mean position error after the round trip (AU)",
        value: |r| r.error,
    };
    plot(&rows, &counts, &round_trip, &png_path)?;
    let forward_path = args.out.join("leapfrog_forward_error.png");
    let forward = Figure {
        title: "Leapfrog, outer solar system: N steps against double-double",
        y_desc: "mean position error after N steps (AU)",
        value: |r| r.forward,
    };
    plot(&rows, &counts, &forward, &forward_path)?;

    println!(
        "mean position error (AU) after N steps forwards and N backwards (of 36 state elements, how many came back bit for bit)\n"
    );
    print!("| N |");
    let lines: Vec<(Variant, &str)> = ["f64", "f32"]
        .iter()
        .flat_map(|p| Variant::ALL.map(|v| (v, *p)))
        .collect();
    for (v, p) in &lines {
        print!(" {} {p} |", v.name());
    }
    println!();
    println!("|---:|{}", "---:|".repeat(lines.len()));
    for &n in &counts {
        print!("| {n} |");
        for (v, p) in &lines {
            if let Some(r) = rows
                .iter()
                .find(|r| r.variant == *v && r.precision == *p && r.steps == n)
            {
                print!(" {:.1e} ({}) |", r.error, r.equal);
            }
        }
        println!();
    }
    println!(
        "\nmean position error (AU) after N steps forwards, against the double-double reference\n"
    );
    print!("| N |");
    for (v, p) in &lines {
        print!(" {} {p} |", v.name());
    }
    println!();
    println!("|---:|{}", "---:|".repeat(lines.len()));
    for &n in &counts {
        print!("| {n} |");
        for (v, p) in &lines {
            if let Some(r) = rows
                .iter()
                .find(|r| r.variant == *v && r.precision == *p && r.steps == n)
            {
                print!(" {:.1e} |", r.forward);
            }
        }
        println!();
    }
    println!(
        "\n{} rows in {:.1} s; wrote {}, {} and {}",
        rows.len(),
        elapsed.as_secs_f64(),
        csv_path.display(),
        png_path.display(),
        forward_path.display()
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("leapfrog_error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
