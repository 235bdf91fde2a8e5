"""Exact kNN: kernlearn against scikit-learn and faiss-cpu (time, peak memory, agreement).

Every measurement runs in a fresh spawned process, so the reported memory is the RSS high-water
mark of that one method (C++ and BLAS allocations included, which tracemalloc cannot see) and a
hung or crashed method cannot take the rest of the run with it.

    python bench/bench_knn.py [--n 20000 100000] [--d 4 16 64] [--methods ...] [--repeats 3]
                              [--slow 30] [--timeout 600] [--out bench/results/knn.md]
"""

import argparse
import datetime
import importlib.util
import multiprocessing
import os
import platform
import resource
import statistics
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

K = 10
SEED = 0
REFERENCE = "ours-knn"  # kernlearn.graph.knn, auto, all cores: what every ratio divides by


class Method(NamedTuple):
    package: str  # import name, to skip the method when it is not installed
    setup: Callable  # setup(X) -> run(); run() returns the (n, K) neighbour indices or None


def _ours_knn(algorithm, n_jobs):
    def setup(X):
        from kernlearn.graph import knn

        return lambda: knn(X, K, algorithm=algorithm, n_jobs=n_jobs)[0]

    return setup


def _ours_graph(X):
    from kernlearn.graph import knn_graph

    def run():
        knn_graph(X, K, mode="symmetric", weight="distance", n_jobs=-1)
        return None  # symmetric graph: not comparable row by row with a directed kNN list

    return run


def _sklearn(algorithm, n_jobs):
    def setup(X):
        from sklearn.neighbors import NearestNeighbors

        def run():
            # = kneighbors_graph(X, K, mode="distance", include_self=False), which takes no
            # algorithm argument.
            nn = NearestNeighbors(n_neighbors=K, algorithm=algorithm, n_jobs=n_jobs).fit(X)
            G = nn.kneighbors_graph(mode="distance")
            # kneighbors_graph stores each row in neighbour order (not sorted by column).
            return G.indices.reshape(-1, K)

        return run

    return setup


def _faiss_flat(X):
    import faiss

    X32 = np.ascontiguousarray(X, dtype=np.float32)  # faiss is float32 only; not timed

    def run():
        index = faiss.IndexFlatL2(X32.shape[1])
        index.add(X32)
        _, idx = index.search(X32, K + 1)
        return _drop_self(idx)

    return run


def _drop_self(idx):
    """The first K neighbours other than the query itself. Float32 rounding can rank a near-twin
    ahead of the query, so self is not always in column 0."""
    is_self = idx == np.arange(len(idx))[:, None]
    order = np.argsort(is_self, axis=1, kind="stable")[:, :K]
    return np.take_along_axis(idx, order, axis=1)


METHODS = {
    "ours-knn": Method("kernlearn", _ours_knn("auto", -1)),
    "ours-knn-j1": Method("kernlearn", _ours_knn("auto", 1)),
    "ours-knn-kd_tree": Method("kernlearn", _ours_knn("kd_tree", -1)),
    "ours-knn-brute": Method("kernlearn", _ours_knn("brute", -1)),
    "ours-graph": Method("kernlearn", _ours_graph),
    "sklearn-auto": Method("sklearn", _sklearn("auto", None)),
    "sklearn-auto-j-1": Method("sklearn", _sklearn("auto", -1)),
    "sklearn-kd_tree": Method("sklearn", _sklearn("kd_tree", None)),
    "sklearn-brute": Method("sklearn", _sklearn("brute", None)),
    "sklearn-brute-j-1": Method("sklearn", _sklearn("brute", -1)),
    "faiss-flat": Method("faiss", _faiss_flat),
}


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _measure(name, n, d, repeats, slow, conn):
    """Child process: time one method and send (times, peak RSS increase, indices)."""
    X = np.random.default_rng(SEED).random((n, d))
    run = METHODS[name].setup(X)
    baseline = _peak_rss_mb()
    times = []
    for _ in range(repeats):
        indices = None  # free the previous result: it must not count in this run's peak
        start = time.perf_counter()
        indices = run()
        times.append(time.perf_counter() - start)
        if times[-1] > slow:  # one run of a slow method is informative enough
            break
    conn.send((times, _peak_rss_mb() - baseline, indices))


def measure(name, n, d, repeats, slow, timeout):
    """Run _measure in a fresh process; a dict with "status" and, when ok, the measurements."""
    ctx = multiprocessing.get_context("spawn")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_measure, args=(name, n, d, repeats, slow, sender))
    proc.start()
    sender.close()  # so a crashed child shows up as EOF here
    try:
        if not receiver.poll(timeout):
            return {"status": "timeout"}
        times, mem, indices = receiver.recv()
    except EOFError:
        proc.join()
        return {"status": f"crashed (exit code {proc.exitcode})"}
    finally:
        proc.kill()  # no-op if it already finished
        proc.join()
    # The load average tells whether other jobs competed for the cores during the measurement.
    return {
        "status": "ok",
        "time": statistics.median(times),
        "runs": len(times),
        "mem": mem,
        "load": os.getloadavg()[0],
        "indices": indices,
    }


def agreement(indices, reference):
    """Fractions of rows whose neighbour list equals ours exactly (order too) and as a set."""
    same_order = np.mean(np.all(indices == reference, axis=1))
    same_set = np.mean(np.all(np.sort(indices, axis=1) == np.sort(reference, axis=1), axis=1))
    return same_order, same_set


def machine_info():
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown",
    )
    versions = ", ".join(
        f"{pkg} {_version(pkg)}" for pkg in ("kernlearn", "numpy", "scipy", "scikit-learn", "faiss-cpu")
    )
    return [
        f"date: {datetime.date.today()}",
        f"machine: {len(os.sched_getaffinity(0))} cores (nproc), {model}",
        f"python {platform.python_version()}, {versions}",
        f"source: {_git_head()}",
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}",
        # Other jobs on the machine skew every timing: a high load here means rerun.
        "load average at start (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()),
    ]


def _git_head():
    """The commit of the checkout this script is in (the installed kernlearn may be older)."""
    git = subprocess.run(
        ["git", "-C", str(Path(__file__).parent), "log", "-1", "--format=%h %ci"], capture_output=True, text=True
    )
    return git.stdout.strip() or "not a git checkout"


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _fmt(x, spec):
    return "—" if x is None else format(x, spec)


def results_table(rows):
    lines = [
        "| n | d | method | time (s) | runs | peak RSS +MB | same order | same set | time / ours | load |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["status"] != "ok":
            lines.append(f"| {r['n']} | {r['d']} | {r['method']} | {r['status']} | | | | | | |")
            continue
        lines.append(
            f"| {r['n']} | {r['d']} | {r['method']} | {r['time']:.3f} | {r['runs']} "
            f"| {r['mem']:.0f} | {_fmt(r['same_order'], '.2%')} | {_fmt(r['same_set'], '.2%')} "
            f"| {_fmt(r['ratio'], '.2f')} | {r['load']:.1f} |"
        )
    return lines


def summary_table(rows):
    """Per (n, d): ours against the fastest peer that finished."""
    lines = [
        "| n | d | ours-knn (s) | fastest peer | peer (s) | peer / ours |",
        "|---|---|---|---|---|---|",
    ]
    for n, d in dict.fromkeys((r["n"], r["d"]) for r in rows):
        ok = [r for r in rows if r["n"] == n and r["d"] == d and r["status"] == "ok"]
        ours = next((r for r in ok if r["method"] == REFERENCE), None)
        peers = [r for r in ok if not r["method"].startswith("ours")]
        if ours is None or not peers:
            continue
        best = min(peers, key=lambda r: r["time"])
        lines.append(
            f"| {n} | {d} | {ours['time']:.3f} | {best['method']} | {best['time']:.3f} "
            f"| {best['time'] / ours['time']:.2f} |"
        )
    return lines


def run_all(args):
    methods = [REFERENCE] + [m for m in args.methods if m != REFERENCE]
    missing = {m for m in methods if importlib.util.find_spec(METHODS[m].package) is None}
    for m in sorted(missing):
        print(f"skipping {m}: {METHODS[m].package} is not installed", flush=True)
    rows = []
    for n in args.n:
        for d in args.d:
            reference = ref_time = None
            for name in (m for m in methods if m not in missing):
                r = measure(name, n, d, args.repeats, args.slow, args.timeout)
                indices = r.pop("indices", None)
                if name == REFERENCE:
                    reference, ref_time = indices, r.get("time")
                comparable = indices is not None and reference is not None
                r.update(n=n, d=d, method=name, same_order=None, same_set=None, ratio=None)
                if comparable:
                    r["same_order"], r["same_set"] = agreement(indices, reference)
                if r["status"] == "ok" and ref_time:
                    r["ratio"] = r["time"] / ref_time
                rows.append(r)
                print(results_table([r])[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[20000, 100000])
    parser.add_argument("--d", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--methods", nargs="+", choices=list(METHODS), default=list(METHODS))
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--slow", type=float, default=30.0, help="a run longer than this many seconds is not repeated")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds per measurement before it is killed and reported"
    )
    parser.add_argument("--out", type=Path, default=Path("bench/results/knn.md"))
    args = parser.parse_args()

    header = machine_info()
    print("\n".join(header), flush=True)
    rows = run_all(args)
    report = [
        f"# kNN benchmark (k = {K}, uniform random float64 data)",
        "",
        *(f"- {line}" for line in header),
        "",
        *results_table(rows),
        "",
        *summary_table(rows),
        "",
    ]
    print("\n".join(report))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(report))


if __name__ == "__main__":
    main()
