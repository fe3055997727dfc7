#!/bin/bash
# Runs nilang-gradbench (checked and unchecked) and GradBench's own tools on
# every eval through GradBench's real CLI, interleaved, and writes their
# times side by side with the date and the machine.
#
#   Usage: gradbench/compare.sh GB_DIR [OUT_DIR]
#
# GB_DIR is a harness made by ../shared/tools/gradbench/setup.sh (GradBench's
# CLI and evals, `manual`, ADOL-C and PyTorch); OUT_DIR (default
# compare-DATE under the current directory) receives logs/ (one GradBench
# log per eval, tool and round), machine.md and table.md.
#
# Interleaving: for each round, for each eval, every tool in turn, so that
# a slow spell of a shared machine falls on all the tools alike; the table
# keeps each input's fastest run over all rounds.
#
# Environment:
#   TOOLS        the tools, in order (default: nilang nilang-unchecked manual
#                adol-c pytorch); nilang and nilang-unchecked are this
#                repository's tool in its two builds, the others run.sh's
#   ROUNDS       rounds of every eval and tool (default 2)
#   MIN_SECONDS  passed to every eval as --min-seconds (hello aside); unset,
#                each eval's own default (1 s an input)
#   RUNS         a file of the evals to run, one a line, EVAL then its
#                options (# starts a comment); default: every eval at its
#                default sizes, as listed below
#   NILANG_BIN   the tool's binary; unset, it is built here with
#                RUSTFLAGS="-C target-cpu=native" into target/native, as
#                GradBench's C++ tools are built with -march=native
#   RUN_SH       run.sh of the harness scripts (default
#                ../shared/tools/gradbench/run.sh beside the repository)
#   TIMEOUT      seconds one eval may take with one tool (default 3600)
#   RUN_ANNOTATED  1 to run a tool on evals its evals.txt marks (pytorch's
#                "ba error", "ht timeout"); by default they are skipped
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    usage >&2
    exit 2
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
gb=$(cd "$1" && pwd)
out=${2:-compare-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)

tools=${TOOLS:-nilang nilang-unchecked manual adol-c pytorch}
rounds=${ROUNDS:-2}
run_sh=${RUN_SH:-$repo/../shared/tools/gradbench/run.sh}
timeout_s=${TIMEOUT:-3600}

[ -f "$run_sh" ] || { echo "compare.sh: no run.sh at $run_sh (set RUN_SH)" >&2; exit 2; }
[ -x "$gb/src/target/release/gradbench" ] || {
    echo "compare.sh: $gb is no harness (no src/target/release/gradbench): run setup.sh first" >&2
    exit 2
}
case $rounds in '' | *[!0-9]* | 0) echo "compare.sh: ROUNDS must be a positive number" >&2; exit 2 ;; esac

# Every eval at its defaults. ht stops at hand 11 in both variants: the
# snapshot setup.sh clones lacks hand12's data.
default_runs() {
    cat <<'RUNS'
hello
lse
llsq
det
kmeans
ode
gmm
lstm
ba
ht --variant complicated --max 11
ht --variant simple --max 11
particle
saddle
RUNS
}
runs_file=$out/runs.txt
if [ -n "${RUNS:-}" ]; then
    cp "$RUNS" "$runs_file"
else
    default_runs > "$runs_file"
fi

if [ -n "${NILANG_BIN:-}" ]; then
    bin=$(realpath "$NILANG_BIN")
    built="the binary $bin (NILANG_BIN)"
else
    built='built with RUSTFLAGS="-C target-cpu=native"'
    echo "compare.sh: building nilang-gradbench (release, target-cpu=native)" >&2
    (cd "$repo" && RUSTFLAGS="-C target-cpu=native" \
        cargo build --quiet --release -p nilang-gradbench --target-dir target/native)
    bin=$repo/target/native/release/nilang-gradbench
fi
[ -x "$bin" ] || { echo "compare.sh: no tool binary at $bin" >&2; exit 2; }

# What the tool's evals.txt says of an eval: nothing when it supports it,
# else why not ("not implemented", or the file's own word: error, timeout).
support() {
    local tool=$1 ev=$2 list line
    case $tool in
        nilang | nilang-unchecked) list=$here/tools/nilang/evals.txt ;;
        *) list=$gb/src/tools/$tool/evals.txt ;;
    esac
    [ -f "$list" ] || { echo "no evals.txt"; return; }
    line=$(awk -v ev="$ev" '$1 == ev' "$list")
    if [ -z "$line" ]; then
        echo "not implemented"
    elif [ "$line" != "$ev" ] && [ "${RUN_ANNOTATED:-0}" != 1 ]; then
        echo "${line#"$ev" }"
    fi
}

# The machine and the versions, for the table's header.
{
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo 'CPU unknown'), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null || echo 'memory unknown')"
    echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
    echo "- nilang: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- gradbench 2>/dev/null || echo ' (gradbench/ modified)'), $(rustc --version 2>/dev/null || echo 'rustc unknown'), $built"
    echo "- GradBench: $(git -C "$gb/src" rev-parse --short HEAD 2>/dev/null || echo unknown), $(c++ --version 2>/dev/null | head -1 || echo 'c++ unknown') (-O3 -march=native)"
    echo "- tools: $tools; rounds: $rounds; min seconds: ${MIN_SECONDS:-as each eval sets it}"
} > "$out/machine.md"
cat "$out/machine.md" >&2

: > "$out/skipped.tsv"
for round in $(seq 1 "$rounds"); do
    while read -r ev opts <&3; do
        case $ev in '' | '#'*) continue ;; esac
        # One folder per eval and options: "ht --variant simple" -> ht_variant_simple.
        key=$(printf '%s %s' "$ev" "$opts" | tr -cs 'A-Za-z0-9.' '_' | sed 's/_*$//')
        extra=()
        if [ -n "${MIN_SECONDS:-}" ] && [ "$ev" != hello ]; then
            extra=(--min-seconds "$MIN_SECONDS")
        fi
        mkdir -p "$out/logs/$key"
        printf '%s\t%s\n' "$key" "$ev $opts" > "$out/logs/$key/eval.txt"
        for tool in $tools; do
            why=$(support "$tool" "$ev")
            if [ -n "$why" ]; then
                [ "$round" = 1 ] && printf '%s\t%s\t%s\n' "$key" "$tool" "$why" >> "$out/skipped.tsv"
                continue
            fi
            case $tool in
                nilang) t=$bin build=checked ;;
                nilang-unchecked) t=$bin build=unchecked ;;
                *) t=$tool build= ;;
            esac
            log=$out/logs/$key/$tool.$round.jsonl
            echo "compare.sh: round $round, $ev${opts:+ $opts}, $tool" >&2
            # shellcheck disable=SC2086 # the options are words
            if ! NILANG_GRADBENCH_BUILD=$build timeout "$timeout_s" \
                bash "$run_sh" "$gb" "$t" "$ev" "$log" $opts "${extra[@]}" \
                < /dev/null > "$out/logs/$key/$tool.$round.out" 2>&1; then
                echo "compare.sh: $tool on $ev${opts:+ $opts} ended with an error (see $out/logs/$key/$tool.$round.out)" >&2
            fi
        done
    done 3< "$runs_file"
done

python3 "$here/compare_table.py" "$out" > "$out/table.md"
cat "$out/table.md"
