//! One run of every case of the benchmark issue, printed as one markdown
//! table per case: medians, ratios, and peak heap where it matters.
//!
//! ```sh
//! cargo bench -p nilang-adbench --bench summary            # everything
//! cargo bench -p nilang-adbench --bench summary -- graph   # some cases
//! ```
//!
//! Cases: `bessel`, `graph`, `sparse`, `gmm`, `ba`. Each measurement runs
//! its function once to warm up, then in batches of at least 1 ms until
//! `NILANG_BENCH_BUDGET` seconds (default 0.5) are spent (3 to 101
//! batches); the median of the per-call times is reported. A function whose
//! warm-up run alone exceeds the budget is reported from that one run (the
//! largest BA and GMM inputs). A peer whose time, extrapolated from its
//! smaller inputs, exceeds `NILANG_BENCH_PEER_LIMIT` seconds (default 5) per
//! run is not run, and the table says so with the estimate.
//!
//! Peak heap comes from a counting global allocator (every allocation adds
//! its size to a running total, the peak of which is read around a call;
//! inputs allocated before the call do not count).

#[path = "../peers/mod.rs"]
mod peers;

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

use nilang_adbench::ba::{self, BaInput, BaJacobian};
use nilang_adbench::gmm::{self, Gmm};
use nilang_adbench::{data_dir, unchecked};
use nilang_examples::petersen::{self, L1, L2, view, view_mut};
use nilang_runtime::sprs::CsMat;
use peers::*;

// ---------------------------------------------------------------------------
// Peak heap

#[global_allocator]
static ALLOCATOR: nilang_examples::heap::Counting = nilang_examples::heap::Counting;

/// The most heap `f` held at once beyond what was allocated before it, in
/// bytes.
fn peak_heap<R>(f: impl FnOnce() -> R) -> usize {
    nilang_examples::heap::peak_since(|| black_box(f())).1
}

// ---------------------------------------------------------------------------
// Timing

fn env_f64(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn budget() -> f64 {
    env_f64("NILANG_BENCH_BUDGET", 0.5)
}

fn peer_limit() -> f64 {
    env_f64("NILANG_BENCH_PEER_LIMIT", 5.0)
}

#[derive(Clone, Copy)]
struct Meas {
    /// Median seconds per call.
    median: f64,
    /// Calls timed.
    calls: usize,
}

fn measure<R>(mut f: impl FnMut() -> R) -> Meas {
    let budget = budget();
    let start = Instant::now();
    black_box(f());
    let first = start.elapsed().as_secs_f64();
    if first > budget {
        return Meas {
            median: first,
            calls: 1,
        };
    }
    // Estimate the time per call on warm caches.
    let mut calls = 0_usize;
    let start = Instant::now();
    while calls == 0 || (start.elapsed().as_secs_f64() < 0.02f64.min(budget / 10.0)) {
        black_box(f());
        calls += 1;
    }
    let est = start.elapsed().as_secs_f64() / calls as f64;
    let batch = ((1e-3 / est).ceil() as usize).max(1);
    let samples = ((budget / (est * batch as f64)) as usize).clamp(3, 101);
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let start = Instant::now();
        for _ in 0..batch {
            black_box(f());
        }
        times.push(start.elapsed().as_secs_f64() / batch as f64);
    }
    times.sort_by(f64::total_cmp);
    Meas {
        median: times[times.len() / 2],
        calls: samples * batch,
    }
}

fn fmt_time(s: f64) -> String {
    let (v, unit) = if s < 1e-6 {
        (s * 1e9, "ns")
    } else if s < 1e-3 {
        (s * 1e6, "µs")
    } else if s < 1.0 {
        (s * 1e3, "ms")
    } else {
        (s, "s")
    };
    if v < 10.0 {
        format!("{v:.2} {unit}")
    } else if v < 100.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

fn fmt_bytes(b: usize) -> String {
    let b = b as f64;
    if b < 1024.0 {
        format!("{b} B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / 1024.0 / 1024.0)
    } else {
        format!("{:.2} GiB", b / 1024.0 / 1024.0 / 1024.0)
    }
}

// ---------------------------------------------------------------------------
// Tables

/// One case's table: a row per measurement, a column per input size.
struct Table {
    title: String,
    cols: Vec<String>,
    rows: Vec<(String, Vec<String>)>,
    times: HashMap<(String, usize), f64>,
}

impl Table {
    fn new(title: &str, cols: Vec<String>) -> Self {
        println!("\n<!-- {title}: running -->");
        Table {
            title: title.to_string(),
            cols,
            rows: Vec::new(),
            times: HashMap::new(),
        }
    }

    fn cell(&mut self, row: &str, col: usize, text: String) {
        let n = self.cols.len();
        let i = match self.rows.iter().position(|(r, _)| r == row) {
            Some(i) => i,
            None => {
                self.rows.push((row.to_string(), vec![String::new(); n]));
                self.rows.len() - 1
            }
        };
        self.rows[i].1[col] = text;
    }

    fn time<R>(&mut self, row: &str, col: usize, f: impl FnMut() -> R) -> f64 {
        let m = measure(f);
        let note = if m.calls == 1 { " (1 run)" } else { "" };
        self.cell(row, col, format!("{}{note}", fmt_time(m.median)));
        self.times.insert((row.to_string(), col), m.median);
        eprintln!(
            "{} / {row} / {}: {}",
            self.title,
            self.cols[col],
            fmt_time(m.median)
        );
        m.median
    }

    fn get(&self, row: &str, col: usize) -> Option<f64> {
        self.times.get(&(row.to_string(), col)).copied()
    }

    /// A row of ratios `num / den`, column by column, where both were run.
    fn ratio(&mut self, label: &str, num: &str, den: &str) {
        for c in 0..self.cols.len() {
            if let (Some(a), Some(b)) = (self.get(num, c), self.get(den, c)) {
                self.cell(label, c, format!("{:.2}x", a / b));
            }
        }
    }

    fn print(&self) {
        println!("\n### {}\n", self.title);
        println!("| | {} |", self.cols.join(" | "));
        println!("| --- |{}", " --- |".repeat(self.cols.len()));
        for (r, cells) in &self.rows {
            let bold = r.contains(" / ");
            let cells: Vec<String> = cells
                .iter()
                .map(|c| {
                    if bold && !c.is_empty() {
                        format!("**{c}**")
                    } else {
                        c.clone()
                    }
                })
                .collect();
            println!("| {r} | {} |", cells.join(" | "));
        }
    }
}

/// Extrapolates a peer's time from its rate on smaller inputs: `None` means
/// run it, `Some(text)` is the cell to print instead.
struct Extrapolate {
    rate: HashMap<String, f64>,
}

impl Extrapolate {
    fn skip(&self, peer: &str, work: f64) -> Option<String> {
        let est = self.rate.get(peer)? * work;
        (est > peer_limit()).then(|| format!("not run (~{} est.)", fmt_time(est)))
    }

    fn record(&mut self, peer: &str, work: f64, secs: f64) {
        self.rate.insert(peer.to_string(), secs / work);
    }
}

// ---------------------------------------------------------------------------
// Bessel

fn bessel() {
    let mut t = Table::new("Bessel J2(1.0)", vec!["time".into()]);
    let z = 1.0;
    t.time("plain forward (`besselj`)", 0, || {
        besselj::<f64>(black_box(2), black_box(z), 1e-8)
    });
    t.time("reversible forward, checked", 0, || {
        let mut out = 0.0;
        nilang_examples::bessel::ibesselj(&mut out, black_box(2), black_box(z), 1e-8).unwrap();
        out
    });
    t.time("reversible forward, unchecked", 0, || {
        let mut out = 0.0;
        nilang_examples::unchecked::bessel::ibesselj(&mut out, black_box(2), black_box(z), 1e-8)
            .unwrap();
        out
    });
    let j2 = besselj::<f64>(2, z, 1e-8);
    t.time("uncall (`uncall_ibesselj`)", 0, || {
        let mut out = j2;
        nilang_examples::bessel::uncall_ibesselj(&mut out, black_box(2), black_box(z), 1e-8)
            .unwrap();
        out
    });
    t.time("gradient, ours (`ibesselj_grad`)", 0, || {
        bessel_nil_gradient(black_box(2), black_box(z))
    });
    t.time("gradient, ours, unchecked", 0, || {
        let (mut out, mut out_bar, mut z_bar) = (0.0, 1.0, 0.0);
        nilang_examples::unchecked::bessel::ibesselj_grad(
            &mut out,
            &mut out_bar,
            black_box(2),
            black_box(z),
            &mut z_bar,
            1e-8,
        )
        .unwrap();
        z_bar
    });
    t.time("gradient, ours, loops taped", 0, || {
        bessel_nil_gradient_taped(black_box(2), black_box(z))
    });
    t.cell(
        "peak heap: gradient, ours",
        0,
        fmt_bytes(peak_heap(|| bessel_nil_gradient(2, z))),
    );
    t.cell(
        "peak heap: gradient, ours, loops taped",
        0,
        fmt_bytes(peak_heap(|| bessel_nil_gradient_taped(2, z))),
    );
    t.time("gradient, num-dual (`Dual64`)", 0, || {
        bessel_num_dual(black_box(2), black_box(z))
    });
    t.time("gradient, echidna (tape)", 0, || {
        bessel_echidna(black_box(2), black_box(z))
    });
    t.time("gradient, easy-ml (tape)", 0, || {
        bessel_easy_ml(black_box(2), black_box(z))
    });
    t.time("Hessian, ours (forward over reverse)", 0, || {
        bessel_nil_second(black_box(2), black_box(z))
    });
    t.time("Hessian, num-dual (`Dual2_64`)", 0, || {
        bessel_num_dual_second(black_box(2), black_box(z))
    });
    let plain = "plain forward (`besselj`)";
    t.ratio(
        "reversible forward (checked) / plain",
        "reversible forward, checked",
        plain,
    );
    t.ratio(
        "reversible forward (unchecked) / plain",
        "reversible forward, unchecked",
        plain,
    );
    t.ratio(
        "gradient / plain (target <= 4)",
        "gradient, ours (`ibesselj_grad`)",
        plain,
    );
    t.ratio(
        "gradient, unchecked / plain",
        "gradient, ours, unchecked",
        plain,
    );
    t.ratio(
        "gradient, loops taped / plain",
        "gradient, ours, loops taped",
        plain,
    );
    t.ratio(
        "echidna gradient / ours",
        "gradient, echidna (tape)",
        "gradient, ours (`ibesselj_grad`)",
    );
    t.ratio(
        "easy-ml gradient / ours",
        "gradient, easy-ml (tape)",
        "gradient, ours (`ibesselj_grad`)",
    );
    t.ratio(
        "num-dual Hessian / ours",
        "Hessian, num-dual (`Dual2_64`)",
        "Hessian, ours (forward over reverse)",
    );
    t.print();
}

// ---------------------------------------------------------------------------
// Graph embedding

fn graph_column<const N: usize>(t: &mut Table, col: usize) {
    let k = N / 10;
    let x = petersen::Rng::new(1).positions(k);
    let f = Graph(k);
    t.time("objective, plain", col, || {
        petersen::plain_loss(black_box(&x), k)
    });
    t.time("objective, reversible (checked)", col, || {
        let mut out = 0.0;
        nilang_examples::graph::embedding_loss(&mut out, view(black_box(&x), k), &L1, &L2).unwrap();
        out
    });
    t.time("objective, reversible (unchecked)", col, || {
        let mut out = 0.0;
        nilang_examples::unchecked::graph::embedding_loss(
            &mut out,
            view(black_box(&x), k),
            &L1,
            &L2,
        )
        .unwrap();
        out
    });
    let value = petersen::plain_loss(&x, k);
    t.time("uncall", col, || {
        let mut out = value;
        nilang_examples::graph::uncall_embedding_loss(&mut out, view(black_box(&x), k), &L1, &L2)
            .unwrap();
        out
    });
    let mut g = vec![0.0; N];
    t.time("gradient, ours (`embedding_loss_grad`)", col, || {
        petersen::gradient_by(
            nilang_examples::graph::embedding_loss_grad,
            black_box(&x),
            k,
            &mut g,
        )
        .unwrap();
        g[0]
    });
    t.time("gradient, ours, unchecked", col, || {
        petersen::gradient_by(
            nilang_examples::unchecked::graph::embedding_loss_grad,
            black_box(&x),
            k,
            &mut g,
        )
        .unwrap();
        g[0]
    });
    t.time("gradient, ours, loops taped", col, || {
        petersen::gradient_by(
            nilang_examples::taped::graph::embedding_loss_grad,
            black_box(&x),
            k,
            &mut g,
        )
        .unwrap();
        g[0]
    });
    t.time("gradient, num-dual (`DualSVec64<N>`)", col, || {
        num_dual_gradient::<N>(&f, black_box(&x))
    });
    t.time("gradient, echidna (tape)", col, || {
        echidna_gradient(&f, black_box(&x))
    });
    t.time("gradient, easy-ml (tape)", col, || {
        easy_ml_gradient(&f, black_box(&x))
    });
    t.time(
        "Hessian, ours (forward over reverse, N sweeps)",
        col,
        || petersen::hessian(black_box(&x), k, 0..N).unwrap(),
    );
    t.time("Hessian, num-dual (`Dual2SVec64<N>`)", col, || {
        num_dual_hessian::<N>(&f, black_box(&x))
    });
    let heap = |f: &mut dyn FnMut()| peak_heap(f);
    let obj = heap(&mut || {
        let mut out = 0.0;
        nilang_examples::graph::embedding_loss(&mut out, view(&x, k), &L1, &L2).unwrap();
    });
    let grad = heap(&mut || {
        let mut g = vec![0.0; N];
        petersen::value_and_gradient(&x, k, &mut g).unwrap();
    });
    let taped = heap(&mut || {
        let mut g = vec![0.0; N];
        let (mut out, mut out_bar) = (0.0, 1.0);
        nilang_examples::taped::graph::embedding_loss_grad(
            &mut out,
            &mut out_bar,
            view(&x, k),
            view_mut(&mut g, k),
            &L1,
            &L2,
        )
        .unwrap();
    });
    let ech = heap(&mut || {
        echidna_gradient(&f, &x);
    });
    t.cell(
        "peak heap: gradient, ours, loops taped (with its output)",
        col,
        fmt_bytes(taped),
    );
    t.cell("peak heap: reversible objective", col, fmt_bytes(obj));
    t.cell(
        "peak heap: gradient, ours (with its output)",
        col,
        fmt_bytes(grad),
    );
    t.cell("peak heap: gradient, echidna", col, fmt_bytes(ech));
}

fn graph() {
    let mut t = Table::new(
        "Graph embedding (Petersen graph), 10 k inputs",
        [2, 4, 6, 8, 10]
            .iter()
            .map(|k| format!("k = {k}"))
            .collect(),
    );
    graph_column::<20>(&mut t, 0);
    graph_column::<40>(&mut t, 1);
    graph_column::<60>(&mut t, 2);
    graph_column::<80>(&mut t, 3);
    graph_column::<100>(&mut t, 4);
    let (plain, ours) = ("objective, plain", "gradient, ours (`embedding_loss_grad`)");
    t.ratio(
        "reversible objective (checked) / plain",
        "objective, reversible (checked)",
        plain,
    );
    t.ratio(
        "reversible objective (unchecked) / plain",
        "objective, reversible (unchecked)",
        plain,
    );
    t.ratio("gradient / plain objective (target <= 3)", ours, plain);
    t.ratio(
        "gradient, unchecked / plain objective",
        "gradient, ours, unchecked",
        plain,
    );
    t.ratio(
        "gradient, loops taped / plain objective",
        "gradient, ours, loops taped",
        plain,
    );
    t.ratio(
        "num-dual gradient / ours",
        "gradient, num-dual (`DualSVec64<N>`)",
        ours,
    );
    t.ratio("echidna gradient / ours", "gradient, echidna (tape)", ours);
    t.ratio("easy-ml gradient / ours", "gradient, easy-ml (tape)", ours);
    t.ratio(
        "num-dual Hessian / ours (target >= 10 at k = 10)",
        "Hessian, num-dual (`Dual2SVec64<N>`)",
        "Hessian, ours (forward over reverse, N sweeps)",
    );
    t.print();
}

// ---------------------------------------------------------------------------
// Sparse

/// Two 1000 x 1000 CSC matrices with 50,000 nonzeros each (5% dense), in
/// different random patterns.
fn sparse_pair() -> (CsMat<f64>, CsMat<f64>) {
    nilang_examples::baseline::random_csc_pair(11, 1000, 50_000)
}

use nilang_examples::baseline::sparse_dot as plain_sparse_dot;

fn sparse() {
    use nilang_examples::sparse as sp;
    let mut t = Table::new(
        "Sparse trace(A'B), 1000 x 1000, density 0.05",
        vec!["time".into()],
    );
    let (a, b) = sparse_pair();
    let value = plain_sparse_dot(&a, &b);
    t.time("plain forward", 0, || {
        plain_sparse_dot(black_box(&a), black_box(&b))
    });
    t.time("reversible forward, checked", 0, || {
        let mut r = 0.0;
        sp::sparse_dot(&mut r, black_box(&a).view(), black_box(&b).view()).unwrap();
        r
    });
    t.time("reversible forward, unchecked", 0, || {
        let mut r = 0.0;
        nilang_examples::unchecked::sparse::sparse_dot(
            &mut r,
            black_box(&a).view(),
            black_box(&b).view(),
        )
        .unwrap();
        r
    });
    let (mut ga, mut gb) = (vec![0.0; a.nnz()], vec![0.0; b.nnz()]);
    t.time("backward pass alone (`sparse_dot_adjoint`)", 0, || {
        let (mut r, mut r_bar) = (value, 1.0);
        sp::sparse_dot_adjoint(
            &mut r,
            &mut r_bar,
            black_box(&a).view(),
            &mut ga,
            black_box(&b).view(),
            &mut gb,
        )
        .unwrap();
        r
    });
    t.time(
        "gradient: forward and backward (`sparse_dot_grad`)",
        0,
        || {
            let (mut r, mut r_bar) = (0.0, 1.0);
            sp::sparse_dot_grad(
                &mut r,
                &mut r_bar,
                black_box(&a).view(),
                &mut ga,
                black_box(&b).view(),
                &mut gb,
            )
            .unwrap();
            r
        },
    );
    let plain = "plain forward";
    t.ratio(
        "reversible forward (checked) / plain",
        "reversible forward, checked",
        plain,
    );
    t.ratio(
        "backward pass / plain forward (target <= 1.5)",
        "backward pass alone (`sparse_dot_adjoint`)",
        plain,
    );
    t.ratio(
        "gradient / plain forward",
        "gradient: forward and backward (`sparse_dot_grad`)",
        plain,
    );
    t.print();
}

type C64 = nilang_runtime::Complex<f64>;

/// y += A x for a complex CSC matrix, column after column.
fn plain_cmul(y: &mut [C64], a: &CsMat<C64>, x: &[C64]) {
    for (j, col) in a.outer_iterator().enumerate() {
        let xj = x[j];
        for (&i, &v) in col.indices().iter().zip(col.data()) {
            y[i] += v * xj;
        }
    }
}

fn sparse_complex() {
    use nilang_adbench::cmul_nil;
    let mut t = Table::new(
        "Sparse complex `mul!` (y += A x), 1000 x 1000, density 0.05",
        vec!["time".into()],
    );
    let (re, im) = sparse_pair();
    // Complex values on the pattern of `re` (imaginary parts from `im`'s
    // values, in order).
    let a = CsMat::new_csc(
        (1000, 1000),
        re.indptr().raw_storage().to_vec(),
        re.indices().to_vec(),
        re.data()
            .iter()
            .zip(im.data())
            .map(|(&r, &i)| C64::new(r, i))
            .collect(),
    );
    let mut rng = petersen::Rng::new(5);
    let x: Vec<C64> = (0..1000)
        .map(|_| C64::new(rng.normal(), rng.normal()))
        .collect();
    let zero = C64::new(0.0, 0.0);
    let mut y = vec![zero; 1000];
    t.time("plain forward", 0, || {
        y.fill(zero);
        plain_cmul(&mut y, black_box(&a), black_box(&x));
        y[0]
    });
    t.time("reversible forward, checked", 0, || {
        y.fill(zero);
        cmul_nil::cmul(&mut y, black_box(&a).view(), black_box(&x)).unwrap();
        y[0]
    });
    let mut value = vec![zero; 1000];
    plain_cmul(&mut value, &a, &x);
    let y_bar: Vec<C64> = (0..1000)
        .map(|_| C64::new(rng.normal(), rng.normal()))
        .collect();
    let (mut a_bar, mut x_bar) = (vec![zero; a.nnz()], vec![zero; 1000]);
    let mut yb = y_bar.clone();
    t.time("backward pass alone (`cmul_adjoint`)", 0, || {
        y.copy_from_slice(&value);
        cmul_nil::cmul_adjoint(
            &mut y,
            &mut yb,
            black_box(&a).view(),
            &mut a_bar,
            black_box(&x),
            &mut x_bar,
        )
        .unwrap();
        y[0]
    });
    t.time(
        "gradient (`cmul_grad`: the reverse pass alone, `y` untouched)",
        0,
        || {
            y.fill(zero);
            cmul_nil::cmul_grad(
                &mut y,
                &mut yb,
                black_box(&a).view(),
                &mut a_bar,
                black_box(&x),
                &mut x_bar,
            )
            .unwrap();
            y[0]
        },
    );
    let mut x_bar_only = vec![zero; 1000];
    t.time(
        "backward pass alone, `A` `Const` (`cmul_const_A_adjoint`)",
        0,
        || {
            y.copy_from_slice(&value);
            cmul_nil::cmul_const_A_adjoint(
                &mut y,
                &mut yb,
                black_box(&a).view(),
                black_box(&x),
                &mut x_bar_only,
            )
            .unwrap();
            y[0]
        },
    );
    t.time("gradient, `A` `Const` (`cmul_const_A_grad`)", 0, || {
        y.fill(zero);
        cmul_nil::cmul_const_A_grad(
            &mut y,
            &mut yb,
            black_box(&a).view(),
            black_box(&x),
            &mut x_bar_only,
        )
        .unwrap();
        y[0]
    });
    let plain = "plain forward";
    t.ratio(
        "reversible forward / plain",
        "reversible forward, checked",
        plain,
    );
    t.ratio(
        "backward pass, `A` `Const` / plain forward (target <= 1.5)",
        "backward pass alone, `A` `Const` (`cmul_const_A_adjoint`)",
        plain,
    );
    t.ratio(
        "gradient, `A` `Const` / plain forward (target <= 1.5)",
        "gradient, `A` `Const` (`cmul_const_A_grad`)",
        plain,
    );
    t.ratio(
        "backward pass / plain forward (target <= 1.5)",
        "backward pass alone (`cmul_adjoint`)",
        plain,
    );
    t.ratio(
        "gradient / plain forward",
        "gradient (`cmul_grad`: the reverse pass alone, `y` untouched)",
        plain,
    );
    t.print();
}

// ---------------------------------------------------------------------------
// GMM

const GMM_FILES: [&str; 8] = [
    "1k/gmm_d2_K5",
    "10k/gmm_d2_K5",
    "1k/gmm_d10_K5",
    "10k/gmm_d10_K5",
    "1k/gmm_d64_K5",
    "10k/gmm_d2_K200",
    "1k/gmm_d64_K10",
    "10k/gmm_d10_K50",
];

/// The work of one objective: about `n k d (d + 1) / 2` multiply-adds.
fn gmm_work(g: &Gmm) -> f64 {
    (g.n * g.k * (g.d * (g.d + 3) / 2 + 4)) as f64
}

fn num_dual_gmm(g: &Gmm, p: &[f64]) -> Option<Vec<f64>> {
    let f = GmmObjective(g);
    Some(match p.len() {
        30 => num_dual_gradient::<30>(&f, p).1,
        330 => num_dual_gradient::<330>(&f, p).1,
        1200 => num_dual_gradient::<1200>(&f, p).1,
        _ => return None,
    })
}

/// A peer's gradient of one fixed objective.
type GradFn<'a> = dyn Fn(&[f64]) -> Vec<f64> + 'a;

fn gmm_bench() {
    let mut t = Table::new(
        "GMM (ADBench), gradient of the objective",
        GMM_FILES
            .iter()
            .map(|f| {
                let (n, rest) = f.split_once('/').unwrap();
                format!("{n} {}", &rest[4..])
            })
            .collect(),
    );
    let mut ex = Extrapolate {
        rate: HashMap::new(),
    };
    for (col, file) in GMM_FILES.iter().enumerate() {
        let g = Gmm::read(data_dir().join("gmm").join(format!("{file}.txt"))).unwrap();
        let c = g.constant_term();
        let p = gmm_params(&g);
        let w = gmm_work(&g);
        t.time("objective, plain", col, || gmm::objective(black_box(&g)));
        t.time("objective, reversible (checked)", col, || {
            gmm_nil_objective(black_box(&g), c)
        });
        t.time("objective, reversible (unchecked)", col, || {
            let mut out = 0.0;
            unchecked::gmm_nil::gmm_objective(
                &mut out, &g.alphas, &g.means, &g.icf, &g.x, g.d as i64, g.k as i64, g.n as i64,
                g.gamma, g.m, c,
            )
            .unwrap();
            out
        });
        let mut bars = GmmBars::new(&g);
        t.time("gradient, ours (`gmm_objective_grad`)", col, || {
            gmm_nil_gradient(black_box(&g), c, &mut bars);
            bars.alphas[0]
        });
        t.time("gradient, ours, loops taped", col, || {
            gmm_nil_gradient_taped(black_box(&g), c, &mut bars);
            bars.alphas[0]
        });
        let mut grad = vec![0.0; g.n_params()];
        t.time("gradient, by hand", col, || {
            gmm::manual_gradient(black_box(&g), &mut grad);
            grad[0]
        });
        // Peers.
        let nd_work = w * p.len() as f64;
        match ex.skip("num-dual", nd_work) {
            Some(text) => t.cell("gradient, num-dual (`DualSVec64<P>`)", col, text),
            None if matches!(p.len(), 30 | 330 | 1200) => {
                let s = t.time("gradient, num-dual (`DualSVec64<P>`)", col, || {
                    num_dual_gmm(black_box(&g), &p)
                });
                ex.record("num-dual", nd_work, s);
            }
            None => t.cell(
                "gradient, num-dual (`DualSVec64<P>`)",
                col,
                format!("not run (P = {} not compiled)", p.len()),
            ),
        }
        let obj = GmmObjective(&g);
        let tapes: [(&str, &str, &GradFn); 2] = [
            ("echidna", "gradient, echidna (tape)", &|p| {
                echidna_gradient(&obj, p)
            }),
            ("easy-ml", "gradient, easy-ml (tape)", &|p| {
                easy_ml_gradient(&obj, p)
            }),
        ];
        let mut tape_heap = Vec::new();
        for (peer, row, grad) in tapes {
            match ex.skip(peer, w) {
                Some(text) => t.cell(row, col, text),
                None => {
                    let s = t.time(row, col, || grad(black_box(&p)));
                    ex.record(peer, w, s);
                    tape_heap.push((peer, peak_heap(|| grad(&p))));
                }
            }
        }
        // Peak heap, in f64 words, against the paper's formulas (which count
        // the parameters P and leave out the data).
        let (d, k) = (g.d as f64, g.k as f64);
        let np = p.len();
        let s = (2.0 + d * d) * k + 2.0 * d + np as f64;
        let s_r = (3.0 + d * d + d) * k + 2.0 * k.log2() + np as f64;
        let words = |b: usize| format!("{:.0}", b as f64 / 8.0 + np as f64);
        let plain = peak_heap(|| gmm::objective(&g));
        let nil = peak_heap(|| gmm_nil_objective(&g, c));
        let nil_grad = peak_heap(|| {
            let mut b = GmmBars::new(&g);
            gmm_nil_gradient(&g, c, &mut b);
            b.alphas[0]
        });
        let nil_taped = peak_heap(|| {
            let mut b = GmmBars::new(&g);
            gmm_nil_gradient_taped(&g, c, &mut b);
            b.alphas[0]
        });
        let manual = peak_heap(|| {
            let mut grad = vec![0.0; g.n_params()];
            gmm::manual_gradient(&g, &mut grad);
            grad[0]
        });
        t.cell("memory: S (paper, words)", col, format!("{s:.0}"));
        t.cell("memory: S_r (paper, words)", col, format!("{s_r:.0}"));
        t.cell("memory: plain objective, words + P", col, words(plain));
        t.cell("memory: reversible objective, words + P", col, words(nil));
        t.cell("peak heap: reversible objective", col, fmt_bytes(nil));
        t.cell(
            "peak heap: gradient, ours (with its adjoints; `x` is `Const`)",
            col,
            fmt_bytes(nil_grad),
        );
        t.cell(
            "peak heap: gradient, ours, loops taped",
            col,
            fmt_bytes(nil_taped),
        );
        t.cell("peak heap: gradient, by hand", col, fmt_bytes(manual));
        for (peer, bytes) in tape_heap {
            t.cell(
                &format!("peak heap: gradient, {peer}"),
                col,
                fmt_bytes(bytes),
            );
        }
    }
    let (plain, ours) = ("objective, plain", "gradient, ours (`gmm_objective_grad`)");
    t.ratio(
        "reversible objective (checked) / plain",
        "objective, reversible (checked)",
        plain,
    );
    t.ratio(
        "reversible objective (unchecked) / plain",
        "objective, reversible (unchecked)",
        plain,
    );
    t.ratio("gradient / plain objective (target <= 5)", ours, plain);
    t.ratio(
        "gradient, loops taped / plain objective",
        "gradient, ours, loops taped",
        plain,
    );
    t.ratio(
        "gradient, ours / by hand (target <= 1)",
        ours,
        "gradient, by hand",
    );
    t.ratio("by hand / plain objective", "gradient, by hand", plain);
    t.ratio(
        "num-dual gradient / ours",
        "gradient, num-dual (`DualSVec64<P>`)",
        ours,
    );
    t.ratio(
        "echidna gradient / ours (target >= 10)",
        "gradient, echidna (tape)",
        ours,
    );
    t.ratio(
        "easy-ml gradient / ours (target >= 10)",
        "gradient, easy-ml (tape)",
        ours,
    );
    t.print();
}

// ---------------------------------------------------------------------------
// Bundle adjustment

fn ba_files() -> Vec<String> {
    let mut files: Vec<(usize, String)> = std::fs::read_dir(data_dir().join("ba"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let num: usize = name.strip_prefix("ba")?.split('_').next()?.parse().ok()?;
            (num <= max_ba()).then_some((num, name))
        })
        .collect();
    files.sort();
    files.into_iter().map(|(_, f)| f).collect()
}

/// The largest instance run: 19 by default (ba20's Jacobian alone would
/// take some 14 GiB), `NILANG_BENCH_MAX_BA` to change it.
fn max_ba() -> usize {
    env_f64("NILANG_BENCH_MAX_BA", 19.0) as usize
}

fn ba_bench() {
    let files = ba_files();
    let mut t = Table::new(
        "Bundle adjustment (ADBench), full sparse Jacobian",
        files
            .iter()
            .map(|f| f.split('_').next().unwrap().to_string())
            .collect(),
    );
    let mut ex = Extrapolate {
        rate: HashMap::new(),
    };
    for (col, file) in files.iter().enumerate() {
        let input = BaInput::read(data_dir().join("ba").join(file)).unwrap();
        let w = input.p as f64;
        let (mut r, mut e) = (vec![0.0; 2 * input.p], vec![0.0; input.p]);
        t.time("residuals, plain", col, || {
            ba::residuals(black_box(&input), &mut r, &mut e)
        });
        t.time("residuals, reversible (checked)", col, || {
            ba::nil_residuals(black_box(&input), &mut r, &mut e).unwrap()
        });
        t.time("residuals, reversible (unchecked)", col, || {
            ba::nil_unchecked_residuals(black_box(&input), &mut r, &mut e).unwrap()
        });
        drop((r, e));
        let mut jac = BaJacobian::new(&input);
        // Touch every page of the values once before timing.
        ba::manual_jacobian(&input, &mut jac);
        t.time("Jacobian, ours (checked)", col, || {
            ba::nil_jacobian(black_box(&input), &mut jac).unwrap()
        });
        t.time("Jacobian, ours (unchecked)", col, || {
            ba::nil_unchecked_jacobian(black_box(&input), &mut jac).unwrap()
        });
        t.time("Jacobian, by hand", col, || {
            ba::manual_jacobian(black_box(&input), &mut jac)
        });
        type Fill = fn(&BaInput, &mut BaJacobian);
        for (peer, row, fill) in [
            (
                "num-dual",
                "Jacobian, num-dual (`DualSVec64<15>`)",
                ba_jacobian_num_dual as Fill,
            ),
            ("echidna", "Jacobian, echidna (tape)", ba_jacobian_echidna),
            ("easy-ml", "Jacobian, easy-ml (tape)", ba_jacobian_easy_ml),
        ] {
            match ex.skip(peer, w) {
                Some(text) => t.cell(row, col, text),
                None => {
                    let s = t.time(row, col, || fill(black_box(&input), &mut jac));
                    ex.record(peer, w, s);
                }
            }
        }
    }
    let (plain, ours) = ("residuals, plain", "Jacobian, ours (checked)");
    t.ratio(
        "reversible residuals (checked) / plain",
        "residuals, reversible (checked)",
        plain,
    );
    t.ratio(
        "reversible residuals (unchecked) / plain",
        "residuals, reversible (unchecked)",
        plain,
    );
    t.ratio("Jacobian (checked) / plain (target <= 5)", ours, plain);
    t.ratio(
        "Jacobian (unchecked) / plain",
        "Jacobian, ours (unchecked)",
        plain,
    );
    t.ratio("by hand / plain", "Jacobian, by hand", plain);
    t.ratio(
        "num-dual Jacobian / ours",
        "Jacobian, num-dual (`DualSVec64<15>`)",
        ours,
    );
    t.ratio(
        "echidna Jacobian / ours (target >= 10)",
        "Jacobian, echidna (tape)",
        ours,
    );
    t.ratio(
        "easy-ml Jacobian / ours (target >= 10)",
        "Jacobian, easy-ml (tape)",
        ours,
    );
    t.print();
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let want =
        move |case: &str| filters.is_empty() || filters.iter().any(|f| case.contains(f.as_str()));
    println!(
        "Benchmark summary: budget {} s per measurement, peers skipped above {} s per run (estimated).",
        budget(),
        peer_limit()
    );
    // num-dual's second-order vector duals are large (a 100 x 100 block
    // each) and its `hessian` takes them by value: run on a big stack.
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || {
            if want("bessel") {
                bessel();
            }
            if want("graph") {
                graph();
            }
            if want("sparse") {
                sparse();
                sparse_complex();
            }
            if want("gmm") {
                gmm_bench();
            }
            if want("ba") {
                ba_bench();
            }
        })
        .unwrap()
        .join()
        .unwrap();
}
