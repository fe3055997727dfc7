#!/usr/bin/env python3
"""BENCHMARKS.md, the page of current results, regenerated from the benches.

Usage:
  python3 benchmarks/report.py run [--only ID,ID...] [--gradbench GB_DIR]
  python3 benchmarks/report.py render
  python3 benchmarks/report.py check
  python3 benchmarks/report.py list

`run` builds every bench of the workspace once (release, `cargo bench
--workspace --benches --no-run`, and the release binaries), runs each suite
in turn, one at a time, and keeps its raw output in benchmarks/results/
(ID.txt, with ID.json saying when, at which commit, under what load, and how
long it took); then it renders. `--only` runs some suites and keeps the
others' last results, each section saying when it was measured (and on which
machine, where that is not the page's); `--only gradbench` builds no bench.
`--gradbench GB_DIR` also runs gradbench/compare.sh against a harness made by
../shared/tools/gradbench/setup.sh (GradBench's CLI, manual, ADOL-C,
PyTorch); without it that section keeps its last results. Run it on a quiet
machine: the page records the load average before and after each suite.

`render` writes BENCHMARKS.md from benchmarks/results/ alone. `check` renders
in memory and fails if BENCHMARKS.md differs, so that the page is never
edited by hand (CI runs it). `list` prints the suites.

The history of the experiments behind these numbers, with their reasoning,
is benchmarks/HISTORY.md (written by hand, not regenerated).
"""

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
PAGE = REPO / "BENCHMARKS.md"

# ---------------------------------------------------------------------------
# The suites


class Suite:
    """One bench (or script) whose output is one section of the page."""

    def __init__(self, id, title, command, kind, about, package=None, bench=None,
                 env=None, ratios=()):
        self.id = id
        self.title = title
        # What a reader types to run it alone (shown on the page).
        self.command = command
        # "divan": divan's tree of timings, rendered as a table with ratios;
        # "markdown": the output is Markdown already (tables), kept as it is;
        # "text": kept as it is, in a fenced block.
        self.kind = kind
        self.about = about
        self.package = package
        self.bench = bench
        self.env = env or {}
        # (what, ours, peer, peer's name[, depth]): every leaf whose path
        # holds the segment `ours` (at that depth, if given) is divided by
        # the leaf with `peer` in its place.
        self.ratios = ratios


def gpu_note():
    return ("CI and this page run the kernels on whatever Vulkan adapter wgpu "
            "finds; on a machine without a GPU that is Mesa's software driver "
            "(lavapipe), so these rows say nothing about a GPU's speed.")


# The examples' benches: each program's builds against its `plain` Rust.
AGAINST_PLAIN = [
    ("forward, checked / plain Rust", "reversible_forward", "plain", "plain Rust"),
    ("forward, unchecked / plain Rust", "reversible_forward_unchecked", "plain",
     "plain Rust"),
    ("forward, checked / unchecked keeping its uncomputation", "reversible_forward",
     "reversible_forward_uncomputing", "the same work without checks"),
    ("forward through a function pointer, checked / unchecked keeping its uncomputation",
     "pointer_checked", "pointer_uncomputing",
     "the same work without checks, neither build inlined"),
    ("gradient / plain Rust forward", "gradient", "plain", "plain Rust"),
    ("gradient, unchecked / plain Rust forward", "gradient_unchecked", "plain",
     "plain Rust"),
]

SUITES = [
    Suite(
        "check", "Checking", "cargo bench -p nilang-compiler --bench check", "divan",
        "The analysis of a generated 2,020-line file (cold, and after one line "
        "edited), and `nilc check`'s whole pipeline on one function of 2,000 and "
        "20,000 statements (target: 0.2 s at 20,000).",
        package="nilang-compiler", bench="check"),
    Suite(
        "latency", "The language server", "cargo bench -p nilang-lsp --bench latency",
        "divan",
        "A keystroke in a 2,000-line file, from `didChange` to its "
        "`publishDiagnostics`, through the server's own loop; then 1,000 more "
        "edits for the percentiles divan does not give.",
        package="nilang-lsp", bench="latency"),
    Suite(
        "keystroke10mb", "The language server on a 10 MB file",
        "python3 lsp/scripts/stdio_keystroke.py target/release/nilang-lsp 10 --examples",
        "text",
        "The release server over stdio; the repository's examples tiled to 10 MB, "
        "a statement in the middle turned into a comment and back 40 times "
        "(target: under 100 ms median)."),
    Suite(
        "plugin", "The build plugin", "cargo bench -p nilang-build --bench plugin", "divan",
        "`nilang_build` compiling 100 functions, and a rebuild where nothing changed.",
        package="nilang-build", bench="plugin"),
    Suite(
        "forward", "Generated Rust against plain Rust",
        "cargo bench -p nilang-examples --bench forward", "divan",
        "The paper's programs: the reversible forward (checked, and unchecked) and "
        "the gradient, each against the same computation written in plain Rust.",
        package="nilang-examples", bench="forward",
        ratios=AGAINST_PLAIN),
    Suite(
        "gradients", "Gradients against the plain forward",
        "cargo bench -p nilang-examples --bench gradients", "divan",
        "The graph embedding (k = 5) and a sparse product: the gradient program "
        "against the plain forward in Rust.",
        package="nilang-examples", bench="gradients",
        ratios=AGAINST_PLAIN),
    Suite(
        "gmm", "ADBench GMM", "cargo bench -p nilang-adbench --bench gmm", "divan",
        "ADBench's Gaussian mixture model on its 10k-point inputs: the objective "
        "and its gradient from `.nil`, against the objective in plain Rust and "
        "the hand-written gradient (ADBench's `manual`, ported to Rust).",
        package="nilang-adbench", bench="gmm",
        ratios=[("GMM objective / plain Rust", "nil_objective", "plain_objective",
                 "plain Rust"),
                ("GMM objective, unchecked / plain Rust", "nil_objective_unchecked",
                 "plain_objective", "plain Rust"),
                ("GMM objective, checked / unchecked keeping its uncomputation",
                 "nil_objective", "nil_objective_uncomputing",
                 "the same work without checks"),
                ("GMM gradient / hand-written", "nil_gradient", "manual_gradient",
                 "hand-written gradient"),
                ("GMM gradient, unchecked / hand-written", "nil_gradient_unchecked",
                 "manual_gradient", "hand-written gradient")]),
    Suite(
        "interpreter", "The reference interpreter",
        "cargo bench -p nilang-examples --bench interpreter", "divan",
        "`nilang-interp` (what `nilc run` uses) against the generated Rust on the "
        "same arguments: the Bessel function forwards and through its gradient, a "
        "1,000-element `dot`, `umm!` on 20 elements (target: within 100x).",
        package="nilang-examples", bench="interpreter",
        ratios=[("interpreted / generated", "interpreted", "generated", "generated Rust"),
                ("interpreted gradient / generated gradient", "interpreted_gradient",
                 "generated_gradient", "generated Rust")]),
    Suite(
        "interpreter_gmm", "The reference interpreter on GMM",
        "cargo bench -p nilang-adbench --bench interpreter", "divan",
        "The GMM objective on ADBench's smallest 10k-point input (d = 2, K = 5), "
        "interpreted against generated (target: within 100x).",
        package="nilang-adbench", bench="interpreter",
        ratios=[("interpreted / generated", "interpreted_objective",
                 "generated_objective", "generated Rust")]),
    Suite(
        "ba", "ADBench bundle adjustment", "cargo bench -p nilang-adbench --bench ba",
        "divan",
        "ADBench's bundle adjustment: residuals, and the sparse Jacobian with its "
        "structure, against plain Rust and ADBench's hand-written Jacobian.",
        package="nilang-adbench", bench="ba",
        ratios=[("BA residuals / plain Rust", "residuals_nil", "residuals_plain",
                 "plain Rust"),
                ("BA residuals, checked / unchecked keeping its uncomputation",
                 "residuals_nil", "residuals_nil_uncomputing",
                 "the same work without checks"),
                ("BA Jacobian / hand-written", "jacobian_nil", "jacobian_manual",
                 "hand-written Jacobian"),
                ("BA Jacobian, unchecked / hand-written", "jacobian_nil_unchecked",
                 "jacobian_manual", "hand-written Jacobian")]),
    Suite(
        "summary", "The benchmark issue's cases against peers",
        "cargo bench -p nilang-adbench --bench summary", "markdown",
        "Bessel, the graph embedding, the sparse product, GMM and BA: ours against "
        "plain Rust, hand-written derivatives, num-dual (forward mode) and the "
        "tape-based echidna and easy-ml, with medians, ratios, targets and peak heap.",
        package="nilang-adbench", bench="summary"),
    Suite(
        "evals", "GradBench's evals through the tool's code",
        "cargo bench -p nilang-gradbench --bench evals", "divan",
        "Each eval at GradBench's default sizes, called as the tool calls it: "
        "`0` is the primal, `1` the derivative (checked build). The side-by-side "
        "run against GradBench's other tools is the next section.",
        package="nilang-gradbench", bench="evals",
        ratios=[("GradBench derivative / primal", "1", "0", "our primal", 1)]),
    Suite(
        "gradbench", "GradBench, side by side with manual C++, ADOL-C and PyTorch",
        "gradbench/compare.sh GB_DIR", "gradbench",
        "GradBench's own CLI runs every eval against our tool (checked and "
        "unchecked builds) and the tools that install here: the hand-written C++ "
        "`manual`, ADOL-C and PyTorch (one thread), interleaved; each cell is "
        "the fastest `evaluate` of its input, as GradBench times it. `manual` "
        "computes `ode`'s derivative in closed form, so the ratios of that row "
        "compare a closed form with a derivative program."),
    Suite(
        "leapfrog", "A gradient through 10^6 leapfrog steps",
        "cargo run --release -p nilang-examples --bin leapfrog_gradient", "markdown",
        "Reverse computing against Bennett's checkpointing and stored states: "
        "time and peak heap."),
    Suite(
        "kernels", "GPU kernels", "cargo bench -p nilang-gpu --bench kernels", "divan",
        "Kernels generated from `.nil` (WGSL) against the same work on the CPU. "
        + gpu_note(),
        package="nilang-gpu", bench="kernels",
        ratios=[("GPU kernel / CPU", "gpu", "cpu", "the CPU")]),
    Suite(
        "transfers", "GPU workloads on device-resident arrays",
        "cargo bench -p nilang-gpu --bench transfers", "markdown",
        "Workloads whose arrays stay on the device between calls. " + gpu_note(),
        package="nilang-gpu", bench="transfers"),
]

BY_ID = {s.id: s for s in SUITES}

# ---------------------------------------------------------------------------
# Running


def sh(*args, **kw):
    return subprocess.run(args, check=True, text=True, capture_output=True, **kw).stdout


def loadavg():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1048576:.0f} GiB"
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory": mem,
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "rustc": sh("rustc", "--version").strip(),
    }


def commit():
    rev = sh("git", "-C", str(REPO), "rev-parse", "--short", "HEAD").strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "diff", "--quiet", "HEAD", "--",
                            ".", ":!benchmarks", ":!BENCHMARKS.md"]).returncode
    return rev + (" (with uncommitted changes)" if dirty else "")


def build():
    """Every bench executable of the workspace, by (package, bench)."""
    import tomllib  # Python 3.11; `render` and `check` do without it
    print("report.py: building the benches (release)", file=sys.stderr)
    out = subprocess.run(
        ["cargo", "bench", "--workspace", "--benches", "--no-run",
         "--message-format=json-render-diagnostics"],
        cwd=REPO, check=True, text=True, stdout=subprocess.PIPE).stdout
    exes, dirs = {}, {}
    for line in out.splitlines():
        if not line.startswith("{"):
            continue
        m = json.loads(line)
        if m.get("reason") != "compiler-artifact" or not m.get("executable"):
            continue
        if "bench" not in m["target"]["kind"]:
            continue
        manifest = Path(m["manifest_path"])
        package = tomllib.loads(manifest.read_text())["package"]["name"]
        exes[(package, m["target"]["name"])] = m["executable"]
        dirs[(package, m["target"]["name"])] = str(manifest.parent)
    print("report.py: building the release binaries", file=sys.stderr)
    subprocess.run(["cargo", "build", "--release", "--workspace", "--bins"], cwd=REPO,
                   check=True)
    return exes, dirs


def release_bin(name):
    """A release binary of the workspace, wherever Cargo puts its target."""
    meta = json.loads(sh("cargo", "metadata", "--format-version", "1", "--no-deps",
                         cwd=REPO))
    return str(Path(meta["target_directory"]) / "release" / name)


def run_suite(suite, exes, dirs, gb):
    env = dict(os.environ, **suite.env)
    if suite.kind == "gradbench":
        out_dir = Path(os.environ.get("TMPDIR", "/tmp")) / "nilang-compare"
        shutil.rmtree(out_dir, ignore_errors=True)
        subprocess.run(["bash", str(REPO / "gradbench/compare.sh"), gb, str(out_dir)], cwd=REPO,
                       check=True, env=env, stdout=subprocess.DEVNULL)
        return ((out_dir / "machine.md").read_text() + "\n"
                + (out_dir / "table.md").read_text())
    if suite.id == "keystroke10mb":
        argv = ["python3", "lsp/scripts/stdio_keystroke.py", release_bin("nilang-lsp"),
                "10", "--examples"]
        cwd = REPO
    elif suite.id == "leapfrog":
        argv = [release_bin("leapfrog_gradient")]
        cwd = REPO
    else:
        key = (suite.package, suite.bench)
        if key not in exes:
            raise SystemExit(f"report.py: no bench {suite.bench} of {suite.package} was built")
        argv = [exes[key], "--bench"]
        cwd = dirs[key]
    done = subprocess.run(argv, cwd=cwd, env=env, text=True, capture_output=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"report.py: {suite.id} failed (exit {done.returncode})")
    return done.stdout


def run(only, gb):
    if gb is None and only and "gradbench" in only:
        raise SystemExit("report.py: the gradbench suite needs --gradbench GB_DIR")
    suites = [s for s in SUITES if (not only or s.id in only)]
    if gb is None:
        suites = [s for s in suites if s.kind != "gradbench"]
    RESULTS.mkdir(exist_ok=True)
    here = machine()
    # The page's machine line is the machine of a full run; a run of some
    # suites records its machine in each suite's own results instead.
    if not only:
        (RESULTS / "machine.json").write_text(json.dumps(here, indent=1) + "\n")
    # GradBench's run builds its own tool (compare.sh): no bench to build.
    exes, dirs = build() if any(s.kind != "gradbench" for s in suites) else ({}, {})
    for suite in suites:
        print(f"report.py: {suite.id}: {suite.command}", file=sys.stderr)
        before, started = loadavg(), time.time()
        stdout = run_suite(suite, exes, dirs, gb)
        meta = {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
            "commit": commit(),
            "load_before": before,
            "load_after": loadavg(),
            "seconds": round(time.time() - started),
            "machine": describe(here),
        }
        (RESULTS / f"{suite.id}.txt").write_text(stdout)
        (RESULTS / f"{suite.id}.json").write_text(json.dumps(meta, indent=1) + "\n")
    PAGE.write_text(render())
    print(f"report.py: wrote {PAGE.relative_to(REPO)}", file=sys.stderr)


# ---------------------------------------------------------------------------
# divan's output

UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds(cell):
    """The time a cell starts with (divan's `18.75 ms`, compare_table.py's
    `1.2 ms invalid`), in seconds; None for a cell without one."""
    m = re.match(r"\s*([0-9.]+)\s*(ns|µs|us|ms|s)\b", cell or "")
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def parse_divan(text):
    """divan's tree of timings: [(path, fastest, median, samples)], path a
    tuple of the tree's names from the bench's top (the binary's name left
    out), times in seconds. Other lines (what a bench prints) are skipped."""
    rows, stack = [], []
    for line in text.splitlines():
        m = re.match(r"^((?:│  |   )*)(├─|╰─) (.*)$", line)
        if not m:
            continue
        depth = len(m.group(1)) // 3
        cells = m.group(3).split("│")
        parts = re.split(r"\s{2,}", cells[0].strip())
        name = parts[0]
        stack[depth:] = [name]
        if len(cells) < 6 or len(parts) < 2:
            continue
        fastest = seconds(parts[1])
        median = seconds(cells[2])
        if fastest is None or median is None:
            continue
        rows.append((tuple(stack), fastest, median, cells[4].strip()))
    return rows


def duration(s):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def ratio_rows(suite, rows):
    """(what, case, ours, peer's name, peer, ratio) for each ratio of the suite."""
    by_path = {r[0]: r for r in rows}
    out = []
    for what, ours, peer, peer_name, *at in suite.ratios:
        for path, _, median, _ in rows:
            if at:
                if len(path) <= at[0] or path[at[0]] != ours:
                    continue
                i = at[0]
            elif ours in path:
                i = path.index(ours)
            else:
                continue
            other = by_path.get(path[:i] + (peer,) + path[i + 1:])
            if other is None:
                continue
            case = " / ".join(p for j, p in enumerate(path) if j != i) or suite.id
            out.append((what, case, median, peer_name, other[2], median / other[2]))
    return out


# ---------------------------------------------------------------------------
# Rendering


def meta(suite):
    path = RESULTS / f"{suite.id}.json"
    return json.loads(path.read_text()) if path.exists() else None


def describe(m):
    """A machine in the words of the page's machine line."""
    return f"{m['cpu']}, {m['cpus']} CPUs, {m['memory']}, {m['os']}; {m['rustc']}"


def when(m):
    """When, at which commit and under what load a suite ran, and on which
    machine where that is not the page's."""
    page = json.loads((RESULTS / "machine.json").read_text())
    on = (f" on {m['machine']}" if m.get("machine") and m["machine"] != describe(page)
          else "")
    return (f"Measured {m['date']} at {m['commit']}{on}, in {m['seconds']} s; load average "
            f"{m['load_before']} before, {m['load_after']} after.")


def section(suite):
    m = meta(suite)
    lines = [f"## {suite.title}", "", f"`{suite.command}`", "", suite.about, ""]
    if m is None:
        lines += ["Not measured yet: `report.py run` without this suite's tools "
                  "keeps it empty.", ""]
        return lines
    lines += [when(m), ""]
    text = (RESULTS / f"{suite.id}.txt").read_text()
    if suite.kind == "divan":
        rows = parse_divan(text)
        ratios = ratio_rows(suite, rows)
        if ratios:
            lines += ["| ratio | case | ours | peer | ratio |", "| --- | --- | ---: | ---: | ---: |"]
            for what, case, ours, _, peer, r in ratios:
                lines.append(f"| {what} | {case} | {duration(ours)} | {duration(peer)} | "
                             f"{r:.2f}x |")
            lines.append("")
        lines += ["| bench | median | fastest | samples |", "| --- | ---: | ---: | ---: |"]
        for path, fastest, median, samples in rows:
            lines.append(f"| {' / '.join(path)} | {duration(median)} | {duration(fastest)} "
                         f"| {samples} |")
        extra = [l for l in text.splitlines() if l.strip() and not is_divan_line(l)]
        if extra:
            lines += ["", "```text", *extra, "```"]
        lines.append("")
    elif suite.kind == "gradbench":
        # compare_table.py's headings, one level down under this section's.
        for line in text.strip().splitlines():
            if line.startswith("# "):
                continue
            lines.append("#" + line if line.startswith("## ") else line)
        lines.append("")
    elif suite.kind == "markdown":
        lines += [text.strip(), ""]
    else:
        lines += ["```text", text.strip(), "```", ""]
    return lines


def is_divan_line(line):
    return (line.startswith("Timer precision") or re.match(r"^(│  |   )*(├─|╰─)", line)
            or "│ slowest" in line)


def spread(ratios):
    """A list of ratios as the page states them: one, or the range."""
    lo, hi = min(ratios), max(ratios)
    return f"{lo:.2f}x" if len(ratios) == 1 or f"{lo:.2f}" == f"{hi:.2f}" else \
        f"{lo:.2f}x to {hi:.2f}x"


def anchor(title):
    """GitHub's anchor of a heading."""
    return re.sub(r"[^a-z0-9 _-]", "", title.lower()).replace(" ", "-")


def gradbench_tables(text):
    """compare_table.py's Markdown: {eval: [{column: cell}]}."""
    tables, ev, head = {}, None, None
    for line in text.splitlines():
        if line.startswith("## "):
            ev, head = line[3:].strip(), None
        elif line.startswith("|") and ev:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if head is None:
                head = cells
            elif not set(cells[0]) <= set("-: "):
                tables.setdefault(ev, []).append(dict(zip(head, cells)))
    return tables


def gradbench_headlines(text):
    """Per eval and function, our fastest time over manual's (the table's
    ratio column) and over the fastest of the other tools that ran (from
    the cells' times), as ranges over the inputs."""
    rows = []
    for ev, table in gradbench_tables(text).items():
        # (function, build) -> (ratios to manual, to the best peer, the peers)
        groups = {}
        for row in table:
            for ours in ("nilang", "nilang-unchecked"):
                t = seconds(row.get(ours))
                if t is None:
                    continue
                manual, best, peers = groups.setdefault((row["function"], ours),
                                                        ([], [], set()))
                # compare_table.py's own ratio, from the unrounded times.
                m = re.match(r"([0-9.]+)x$", row.get(f"{ours} / manual", ""))
                if m:
                    manual.append(float(m.group(1)))
                others = {k: seconds(row.get(k)) for k in ("adol-c", "pytorch")}
                others = {k: v for k, v in others.items() if v}
                if others:
                    name = min(others, key=others.get)
                    peers.add(name)
                    best.append(t / others[name])
        rows += [(ev, function, ours, manual, best, peers)
                 for (function, ours), (manual, best, peers) in groups.items()
                 if manual or best]
    return rows


def summary_headlines(text):
    """The summary bench's ratio rows (bold cells): (case, row, ratios)."""
    rows, case = [], None
    for line in text.splitlines():
        if line.startswith("### "):
            case = line[4:].strip()
        elif line.startswith("|") and case:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            values = [re.fullmatch(r"\*\*([0-9.]+)x\*\*", c) for c in cells[1:]]
            if values and all(values):
                rows.append((case, cells[0], [float(v.group(1)) for v in values]))
    return rows


def headlines():
    lines = ["| what | against | cases | ours / peer | section |",
             "| --- | --- | ---: | ---: | --- |"]
    summary = []
    for suite in SUITES:
        if meta(suite) is None:
            continue
        text = (RESULTS / f"{suite.id}.txt").read_text()
        link = f"[{suite.title}](#{anchor(suite.title)})"
        if suite.kind == "gradbench":
            for ev, function, ours, manual, best, peers in gradbench_headlines(text):
                build = "checked" if ours == "nilang" else "unchecked"
                what = f"GradBench `{ev}` {function}, {build}"
                if manual:
                    lines.append(f"| {what} | GradBench's hand-written C++ (`manual`) | "
                                 f"{len(manual)} | {spread(manual)} | {link} |")
                if best:
                    against = (next(iter(peers)) if len(peers) == 1
                               else f"the faster of {' and '.join(sorted(peers))}")
                    lines.append(f"| {what} | {against} | "
                                 f"{len(best)} | {spread(best)} | {link} |")
            continue
        if suite.id == "summary":
            summary = summary_headlines(text)
            continue
        if suite.kind != "divan":
            continue
        groups = {}
        for what, _, _, peer_name, _, r in ratio_rows(suite, parse_divan(text)):
            groups.setdefault((what, peer_name), []).append(r)
        for (what, peer_name), ratios in groups.items():
            lines.append(f"| {what} | {peer_name} | {len(ratios)} | {spread(ratios)} | {link} |")
    if summary:
        title = BY_ID["summary"].title
        lines += ["", f"The ratios of [{title}](#{anchor(title)}), each the way its row "
                  "names it (a peer's time over ours where the row says `/ ours`), with "
                  "the benchmark issue's targets:", "",
                  "| case | ratio | cases | value |", "| --- | --- | ---: | ---: |"]
        for case, row, ratios in summary:
            lines.append(f"| {case} | {row} | {len(ratios)} | {spread(ratios)} |")
    return lines


def render():
    if not (RESULTS / "machine.json").exists():
        raise SystemExit("report.py: no benchmarks/results/machine.json: "
                         "run `python3 benchmarks/report.py run` first")
    m = json.loads((RESULTS / "machine.json").read_text())
    lines = [
        "# Benchmarks",
        "",
        "<!-- Generated by `python3 benchmarks/report.py run`; do not edit by hand "
        "(CI checks it with `report.py check`). -->",
        "",
        "The current results of every benchmark of the repository, each with the command "
        "that runs it alone, the peer it is measured against and when it was measured. "
        "The page is regenerated, not edited: `python3 benchmarks/report.py run` builds "
        "and runs every suite, one after the other, keeps their raw output in "
        "[`benchmarks/results/`](benchmarks/results/) and writes this page from it "
        "(`--gradbench GB_DIR` adds GradBench's side-by-side run). The experiments "
        "behind these numbers, and why the code is as it is, are told in "
        "[`benchmarks/HISTORY.md`](benchmarks/HISTORY.md).",
        "",
        f"Machine: {describe(m)}, release profile (a section measured elsewhere says "
        "where). Ratios are of medians taken in one run of a suite, so a slow "
        "spell of the machine falls on both sides; times move from run to run on a "
        "shared machine, ratios much less.",
        "",
        "## Headline ratios",
        "",
        "Our time over the peer's, the range over a suite's cases (each case is in its "
        "section): below 1x is faster than the peer. The summary bench's tables, with "
        "their targets and peak heap, are in their own section.",
        "",
        *headlines(),
        "",
    ]
    for suite in SUITES:
        lines += section(suite)
    return "\n".join(lines).rstrip() + "\n"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "list":
        for s in SUITES:
            print(f"{s.id:14} {s.command}")
        return 0
    if cmd == "render":
        PAGE.write_text(render())
        return 0
    if cmd == "check":
        if PAGE.read_text() != render():
            print("report.py: BENCHMARKS.md is not what benchmarks/results/ renders to; "
                  "run `python3 benchmarks/report.py render` (or `run`)", file=sys.stderr)
            return 1
        return 0
    if cmd == "run":
        only, gb = None, None
        i = 0
        while i < len(rest):
            if rest[i] == "--only" and i + 1 < len(rest):
                only = set(rest[i + 1].split(","))
                unknown = only - set(BY_ID)
                if unknown:
                    print(f"report.py: no suite {', '.join(sorted(unknown))} "
                          f"(see `report.py list`)", file=sys.stderr)
                    return 2
                i += 2
            elif rest[i] == "--gradbench" and i + 1 < len(rest):
                gb = rest[i + 1]
                i += 2
            else:
                print(f"report.py: unknown argument {rest[i]!r}\n\n{__doc__.strip()}",
                      file=sys.stderr)
                return 2
        run(only, gb)
        return 0
    print(f"report.py: unknown command {cmd!r}\n\n{__doc__.strip()}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
