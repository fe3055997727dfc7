#!/usr/bin/env python3
"""The side-by-side table of compare.sh: from OUT_DIR's GradBench logs
(logs/KEY/TOOL.ROUND.jsonl, as `gradbench run -o` writes them), per eval
and input, each tool's fastest `evaluate` run over all rounds, with
GradBench's validation, and the ratios of our two builds to `manual`.

Usage: compare_table.py OUT_DIR   (writes Markdown on standard output)

A cell is the fastest run; "invalid" follows it when GradBench's analysis
rejected an output in some round, "failed" stands for an evaluation that
did not succeed, "-" for an input the tool never answered (it stopped, or
ran out of time), and a skipped tool shows why (its evals.txt).
"""

import json
import sys
from pathlib import Path

OURS = ("nilang", "nilang-unchecked")


def read_log(path):
    """The build the tool's answer to `start` names (None if none), and per
    evaluate message in order: (function, description) and its fastest
    evaluate run in ns (None if none), whether it succeeded, and whether
    GradBench's analysis found it valid (None if no analysis)."""
    messages, rows, build = {}, {}, None
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        if "message" in entry:
            m = entry["message"]
            messages[m.get("id")] = m
            if m.get("kind") == "analysis" and m.get("of") in rows:
                rows[m["of"]]["valid"] = m.get("valid")
        elif "response" in entry:
            r = entry["response"]
            m = messages.get(r.get("id"))
            if m and m.get("kind") == "start":
                build = (r.get("config") or {}).get("build")
            if not m or m.get("kind") != "evaluate":
                continue
            runs = [
                t["nanoseconds"]
                for t in r.get("timings") or []
                if t.get("name") == "evaluate"
            ]
            rows[r["id"]] = {
                "input": (m.get("function"), m.get("description") or ""),
                "min": min(runs) if runs else None,
                "success": bool(r.get("success")),
                "valid": None,
            }
    return build, list(rows.values())


def duration(ns):
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.3g} µs"
    if ns < 1e9:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e9:.3g} s"


def main(out):
    out = Path(out)
    skipped = {}
    skipped_file = out / "skipped.tsv"
    if skipped_file.exists():
        for line in skipped_file.read_text().splitlines():
            if line.strip():
                key, tool, why = line.split("\t", 2)
                skipped[key, tool] = why
    machine = out / "machine.md"
    print("# GradBench: nilang and the other tools side by side\n")
    if machine.exists():
        print(machine.read_text().rstrip() + "\n")
    print(
        "Each cell: the fastest `evaluate` run of the input over all rounds "
        "(GradBench's own timing, one thread). nilang is the checked build, "
        "nilang-unchecked the same programs without run-time checks.\n"
    )
    runs = (out / "runs.txt").read_text().splitlines() if (out / "runs.txt").exists() else []
    order = {}
    for i, line in enumerate(runs):
        order.setdefault(line.strip(), i)
    evals = []
    for folder in sorted((out / "logs").iterdir()):
        if not folder.is_dir():
            continue
        name_file = folder / "eval.txt"
        name = name_file.read_text().split("\t", 1)[1].strip() if name_file.exists() else folder.name
        evals.append((order.get(name, len(order)), name, folder))
    for _, name, folder in sorted(evals):
        tools = []
        for path in sorted(folder.glob("*.jsonl")):
            tool = path.name.split(".")[0]
            if tool not in tools:
                tools.append(tool)
        for (key, tool), _why in skipped.items():
            if key == folder.name and tool not in tools:
                tools.append(tool)
        preferred = list(OURS) + ["manual", "adol-c", "pytorch"]
        tools.sort(key=lambda t: (preferred.index(t) if t in preferred else len(preferred), t))
        # (function, description) -> tool -> {"min", "valid", "success"}
        cells, inputs, mismatched = {}, [], []
        for path in sorted(folder.glob("*.jsonl")):
            tool = path.name.split(".")[0]
            build, rows = read_log(path)
            want = {"nilang": "checked", "nilang-unchecked": "unchecked"}.get(tool)
            if want and build != want:
                mismatched.append(f"{path.name} ran the {build} build")
            for row in rows:
                key = row["input"]
                if key not in cells:
                    cells[key] = {}
                    inputs.append(key)
                cell = cells[key].setdefault(
                    tool, {"min": None, "valid": True, "success": True}
                )
                if row["min"] is not None and (cell["min"] is None or row["min"] < cell["min"]):
                    cell["min"] = row["min"]
                cell["success"] &= row["success"]
                if row["valid"] is False:
                    cell["valid"] = False
        ratios = [t for t in OURS if t in tools] if "manual" in tools else []
        print(f"## {name}\n")
        header = ["function", "input"] + tools + [f"{t} / manual" for t in ratios]
        print("| " + " | ".join(header) + " |")
        print("|" + " --- |" * len(header))
        if not inputs:
            print("| (no evaluation ran) | |" + " |" * (len(header) - 2))
        for key in inputs:
            row = list(key)
            for tool in tools:
                cell = cells[key].get(tool)
                if (folder.name, tool) in skipped:
                    row.append(f"skipped: {skipped[folder.name, tool]}")
                elif cell is None or (cell["min"] is None and cell["success"]):
                    row.append("-")
                elif not cell["success"]:
                    row.append("failed")
                else:
                    row.append(duration(cell["min"]) + ("" if cell["valid"] else " invalid"))
            manual = cells[key].get("manual")
            for tool in ratios:
                ours = cells[key].get(tool)
                if ours and manual and ours["min"] and manual["min"] and ours["success"] and manual["success"]:
                    row.append(f"{ours['min'] / manual['min']:.2f}x")
                else:
                    row.append("-")
            print("| " + " | ".join(row) + " |")
        for line in mismatched:
            print(f"\n**Wrong build**: {line}.")
        print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
