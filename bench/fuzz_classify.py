"""Classify thousands of hostile calls over every public entry point and ``_core`` binding.

Each case (tests/fuzz_cases.py) runs in its own forked child of a fork-server worker (imports done
once per worker) under an 8 GiB address-space limit and a wall clock (60 s by default), and lands in
one class: crash / hang / nan / wrong / accepted / weak / clear / ok (fuzz_cases.CLASSES).

    python bench/fuzz_classify.py                       # ~3.8k cases, 2 workers, writes bench/results/fuzz.md
    python bench/fuzz_classify.py --filter graph.knn    # only the entries whose name contains this
    python bench/fuzz_classify.py --report-only         # rewrite the table from the saved results
    python bench/fuzz_classify.py --interrupt           # Ctrl-C latency of the long paths, into the report

Resumable: every verdict is appended to ``--state`` (build/fuzz_state.jsonl); a rerun skips the cases
it holds (``--fresh`` starts over). Repro of one case: the one-liner printed next to it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "python")]

import fuzz_cases as fz  # noqa: E402

CLASS_TITLES = {
    "crash": "crash (signal)",
    "hang": "hang (timeout)",
    "nan": "silent NaN/inf",
    "wrong": "wrong result",
    "accepted": "accepted bad input",
    "weak": "weak error",
    "clear": "clear error",
    "ok": "ok",
    "harness": "harness error (a bug in the fuzz cases)",
}


def family(entry):
    """graph.knn -> graph; _core.neighbors.knn -> _core.neighbors."""
    parts = entry.split(".")
    return ".".join(parts[:2]) if entry.startswith("_core") else parts[0]


def run(cases, state_path, workers, timeout):
    lock = threading.Lock()
    todo = collections.deque(cases)
    done = [0]
    t0 = time.monotonic()

    def drive():
        w = fz.Worker()
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    case = todo.popleft()
                try:
                    res = w.run(case, timeout=timeout)
                except RuntimeError:  # the server itself died (it should not): restart it
                    res = {"cls": "crash", "detail": "fork server died"}
                    w.close()
                    w = fz.Worker()
                res["case"] = case
                with lock:
                    with open(state_path, "a") as f:
                        f.write(json.dumps(res) + "\n")
                    done[0] += 1
                    if done[0] % 100 == 0:
                        rate = done[0] / (time.monotonic() - t0)
                        print(f"{done[0]}/{len(cases)} cases, {rate:.1f}/s", flush=True)
        finally:
            w.close()

    with ThreadPoolExecutor(workers) as ex:
        for f in [ex.submit(drive) for _ in range(workers)]:
            f.result()


def load(state_path):
    results = {}
    if os.path.exists(state_path):
        with open(state_path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    results[r["case"]] = r
    return results


# The long paths of issue 48 whose Ctrl-C latency the report lists: (name, setup, call, seconds
# before the signal). Each runs in its own process (tests/test_interrupt.py's harness), which gets
# SIGINT that long after printing "ready" and must reach its KeyboardInterrupt handler within 1 s.
INTERRUPT_PATHS = [
    (
        "IKLR approximation='nystrom' fit, n = 30,000 (n_centers 'auto' = 1,000)",
        "import numpy as np\nfrom kernlearn.indefinite import IndefiniteKernelLogisticRegression as I\n"
        "rng = np.random.default_rng(0); X = rng.standard_normal((30000, 10)); y = (X[:, 0] > 0).astype(int)\n",
        "I(approximation='nystrom', alpha=1e-8, tol=1e-300, max_iter=1000).fit(X, y)",
        2.0,
    ),
    (
        "IKLR approximation='nystrom' fit, n = 30,000, n_centers = 3,000",
        "import numpy as np\nfrom kernlearn.indefinite import IndefiniteKernelLogisticRegression as I\n"
        "rng = np.random.default_rng(0); X = rng.standard_normal((30000, 10)); y = (X[:, 0] > 0).astype(int)\n",
        "I(approximation='nystrom', n_centers=3000, alpha=1e-8, tol=1e-300, max_iter=1000).fit(X, y)",
        2.0,
    ),
    (
        "KDAC approximation='nystrom' fit, n = 20,000",
        "import numpy as np\nfrom kernlearn.cluster import KDAC\n"
        "rng = np.random.default_rng(0); X = rng.standard_normal((20000, 10)); y = (X[:, 0] > 0).astype(int)\n",
        "KDAC(approximation='nystrom', n_landmarks=1000, max_iter=1000, tol=1e-300, random_state=0).fit(X, y)",
        2.0,
    ),
    (
        "KDAC approximation='rff' fit, n = 20,000",
        "import numpy as np\nfrom kernlearn.cluster import KDAC\n"
        "rng = np.random.default_rng(0); X = rng.standard_normal((20000, 10)); y = (X[:, 0] > 0).astype(int)\n",
        "KDAC(approximation='rff', n_random_features=2048, max_iter=1000, tol=1e-300, random_state=0).fit(X, y)",
        2.0,
    ),
    (
        "S3ML's affinity_push (propagate_affinities, method='series'), n = 100,000",
        "import numpy as np\nfrom kernlearn.metric import propagate_affinities\n"
        "rng = np.random.default_rng(0); X = rng.standard_normal((100000, 3))\n"
        "pairs = rng.choice(100000, size=(5000, 2), replace=False); labels = np.where(rng.random(5000) < 0.5, 1, -1)\n",
        "propagate_affinities(X, pairs, labels, alpha=0.99, theta=1e-6, tol=1e-12)",
        2.0,
    ),
    (
        "ESKL rank path (rank=100), n = 4,000",
        "import numpy as np\nfrom kernlearn.similarity import ESKL\n"
        "rng = np.random.default_rng(0); Z = rng.standard_normal((4000, 200)); S = Z @ Z.T / 200\n"
        "y = (rng.random(4000) < 0.5).astype(int)\n",
        "ESKL(rank=100, max_iter=1000, tol=1e-300, n_iter_no_change=1000).fit(S, y)",
        2.0,
    ),
    (
        "SimpleNPKL fit, n = 10,000",
        "import numpy as np\nfrom kernlearn.npkl import SimpleNPKL\n"
        "rng = np.random.default_rng(0); X = rng.standard_normal((10000, 5)); y = (X[:, 0] > 0).astype(int)\n",
        "SimpleNPKL(max_iter=1000, tol=1e-300, random_state=0).fit(X, y)",
        2.0,
    ),
]


def measure_interrupts(path):
    """Seconds from SIGINT to the KeyboardInterrupt of each long path; saved as JSON at path."""
    from test_interrupt import interruptible, seconds_to_interrupt

    rows = []
    for name, setup, call, after in INTERRUPT_PATHS:
        try:
            latency = seconds_to_interrupt(interruptible(setup, call), after=after)
            rows.append({"path": name, "seconds": latency, "after": after})
        except AssertionError as err:  # the call ended before the signal
            rows.append({"path": name, "seconds": None, "after": after, "detail": str(err)[:200]})
        print(rows[-1], flush=True)
    with open(path, "w") as f:
        json.dump(rows, f, indent=1)


def interrupt_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        rows = json.load(f)
    worst = max((r["seconds"] for r in rows if r["seconds"] is not None), default=None)
    verdict = (
        f"Verdict: every path stopped within {worst:.2f} s of the signal (the bound is 1 s)."
        if worst is not None and worst < 1.0 and all(r["seconds"] is not None for r in rows)
        else "Verdict: see the rows; a path above 1 s or one that ended first needs attention."
    )
    lines = [
        "## Ctrl-C latency of the long paths",
        "",
        "`python bench/fuzz_classify.py --interrupt`: each path in its own process, SIGINT the stated "
        "seconds after it starts, then the seconds until its KeyboardInterrupt handler ran "
        "(tests/test_interrupt.py's harness). " + verdict,
        "",
        "| path | signal after (s) | latency (s) |",
        "|---|---:|---:|",
    ]
    for r in rows:
        latency = f"{r['seconds']:.3f}" if r["seconds"] is not None else f"ended first: {r.get('detail', '')}"
        lines.append(f"| {r['path']} | {r['after']:g} | {latency} |")
    return lines + [""]


def report(results, out_path, seconds=None, note="", interrupt_path=None):
    classes = list(fz.CLASSES) + (["harness"] if any(r["cls"] == "harness" for r in results.values()) else [])
    by_fam = collections.defaultdict(collections.Counter)
    by_area = collections.defaultdict(collections.Counter)
    for case, r in results.items():
        name = case.split("|")[0]
        by_fam[family(name)][r["cls"]] += 1
        area = fz.ENTRIES[name].area if name in fz.ENTRIES else "?"
        by_area[area][r["cls"]] += 1
    total = collections.Counter(r["cls"] for r in results.values())
    commit = subprocess.run(
        ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        "# Fuzz classification",
        "",
        f"`python bench/fuzz_classify.py` on commit {commit}: {len(results)} hostile calls over "
        f"{len({c.split('|')[0] for c in results})} entry points (every public function and estimator "
        "of kernlearn's `__all__` lists and the `_core` bindings), each in its own forked process "
        f"with an 8 GiB address-space limit and a wall clock"
        + (f"; {seconds / 60:.1f} min on 2 workers." if seconds else "."),
        "",
        *([note, ""] if note else []),
        "Classes: crash = killed by a signal; hang = passed the wall clock; silent NaN/inf = non-finite "
        "output without a warning; wrong = fails the independent check (true kNN distances, "
        "eigen-residuals against A, Laplacian against scipy, SPD-ness and the recomputed SICE gap, ...), "
        "modified an input, or rejected valid input; accepted = bad input returned without error; "
        "weak = wrong exception type (pybind11 signature dump, IndexError, RuntimeError, "
        "OverflowError, MemoryError, ...) or a ValueError/TypeError not naming the argument; clear = "
        "ValueError/TypeError naming the argument (or non-finite output with a warning); ok = valid "
        "input, checked result. Cases and checks: `tests/fuzz_cases.py`.",
        "",
        "## Totals",
        "",
        "| class | count |",
        "|---|---:|",
    ]
    lines += [f"| {CLASS_TITLES[c]} | {total[c]} |" for c in classes]
    lines += [""] + (interrupt_lines(interrupt_path) if interrupt_path else [])
    lines += ["## Per entry-point family", ""]
    lines.append("| family | " + " | ".join(classes) + " | total |")
    lines.append("|---|" + "---:|" * (len(classes) + 1))
    for fam in sorted(by_fam):
        cnt = by_fam[fam]
        lines.append(f"| {fam} | " + " | ".join(str(cnt[c]) for c in classes) + f" | {sum(cnt.values())} |")
    lines += ["", "## Per area (where a fix belongs)", ""]
    lines.append("| area | " + " | ".join(classes) + " |")
    lines.append("|---|" + "---:|" * len(classes))
    for area in sorted(by_area):
        cnt = by_area[area]
        lines.append(f"| {area} | " + " | ".join(str(cnt[c]) for c in classes) + " |")
    lines += ["", "## Every case in the failing classes", ""]
    for c in list(fz.FAILURES) + (["harness"] if "harness" in classes else []):
        rows = sorted((k, r) for k, r in results.items() if r["cls"] == c)
        lines += [f"### {CLASS_TITLES[c]} ({len(rows)})", ""]
        if not rows:
            lines += ["None.", ""]
            continue
        for case, r in rows:
            detail = r.get("detail", "").replace("|", "\\|").replace("\n", " ")
            lines.append(f"- `{case}`: {detail}  ")
            lines.append(f"  `{fz.repro_line(case)}`")
        lines.append("")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--seeds-valid", type=int, default=1, help="seeds per random / entry-specific mutation")
    ap.add_argument("--seeds-other", type=int, default=1, help="seeds per fixed hostile value")
    ap.add_argument("--filter", default="", help="only entries whose name contains this")
    ap.add_argument("--state", default=os.path.join(ROOT, "build", "fuzz_state.jsonl"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "fuzz.md"))
    ap.add_argument("--fresh", action="store_true", help="forget saved verdicts")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--note", default="", help="a paragraph for the report (conditions of the run)")
    ap.add_argument("--interrupt", action="store_true", help="measure the Ctrl-C latencies (then report)")
    ap.add_argument("--interrupt-state", default=os.path.join(ROOT, "build", "interrupt_latency.json"))
    args = ap.parse_args()
    if args.interrupt:
        measure_interrupts(args.interrupt_state)
        args.report_only = True
    os.makedirs(os.path.dirname(args.state), exist_ok=True)
    if args.fresh and os.path.exists(args.state):
        os.remove(args.state)
    cases = [c for c in fz.all_cases(args.seeds_valid, args.seeds_other) if args.filter in c.split("|")[0]]
    t0 = time.monotonic()
    if not args.report_only:
        done = load(args.state)
        todo = [c for c in cases if c not in done]
        print(f"{len(cases)} cases, {len(cases) - len(todo)} already classified, {len(todo)} to run", flush=True)
        run(todo, args.state, args.workers, args.timeout)
    results = {c: r for c, r in load(args.state).items() if c in set(cases)}
    seconds = None if args.report_only else time.monotonic() - t0
    report(results, args.out, seconds, args.note, args.interrupt_state)
    total = collections.Counter(r["cls"] for r in results.values())
    print(" ".join(f"{c}={total[c]}" for c in list(fz.CLASSES) + ["harness"]))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
