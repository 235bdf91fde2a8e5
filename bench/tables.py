"""Helpers the benchmark scripts share: median timing and markdown result tables."""

import statistics
import time
from pathlib import Path

import numpy as np


def timed(fn, repeats):
    """(median seconds over repeats, the last result)."""
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def row(table, **cells):
    """Append a result row and print it at once (long runs show progress)."""
    table.append(cells)
    print(" | ".join(f"{k}={v}" for k, v in cells.items()), flush=True)


def to_markdown(table):
    if not table:
        return ""
    keys = list(dict.fromkeys(k for r in table for k in r))
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in table]
    return "\n".join(lines)


def run_sections(args, header, sections):
    """Print the header, run each named section fn(args, table) in args.sections, and write
    the markdown report to args.out when given."""
    print(header)
    report = [header]
    for name in args.sections:
        table = []
        print(f"\n## {name}", flush=True)
        sections[name](args, table)
        report += [f"\n## {name}\n", to_markdown(table)]
    if args.out:
        args.out.write_text("\n".join(report) + "\n")


def paired_verdict(ours, theirs, min_margin=0.0):
    """ "win" / "loss" when the mean paired difference ours - theirs is beyond max(twice its
    standard error, min_margin), else "tie" (one pair: its sign decides, beyond min_margin)."""
    diff = np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float)
    if diff.size == 0:
        return "tie"
    se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else 0.0
    margin, mean = max(2.0 * se, min_margin), float(diff.mean())
    return "win" if mean > margin else "loss" if mean < -margin else "tie"


def one_std_verdict(ours, theirs, higher_is_better=True):
    """ "win" / "loss" when the mean paired difference ours - theirs is beyond one (population)
    standard deviation of the paired differences, else "tie" (one pair: only an exact tie is a
    tie). The held-back protocol's verdict (bench/heldback_data.py) and the embedding suite's."""
    diff = np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float)
    if not higher_is_better:
        diff = -diff
    mean, std = float(diff.mean()), float(diff.std())
    return "win" if mean > std else "loss" if mean < -std else "tie"


def write_report(path, lines):
    """Write the report's lines to path (making its folder) and print them."""
    text = "\n".join(lines)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text + "\n")
    print(text)
