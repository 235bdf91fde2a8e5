"""Helpers the benchmark scripts share: median timing and markdown result tables."""

import statistics
import time


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
