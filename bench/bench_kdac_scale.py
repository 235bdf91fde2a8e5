"""KDAC at scale: the low-rank path against the exact one, its cost up to 100,000 points, and the
default q rule.

    python bench/bench_kdac_scale.py [--sections accuracy settings rff scale q-rule]
                                     [--sizes 1000 10000 30000 100000] [--timeout 150]
                                     [--out bench/results/kdac_scale.md]

Data (kernlearn.datasets._mixture.make_alternative_mixture): a 10-feature 2 x 2 design, the given
grouping a moving features 0-1 by +-2.5, the hidden alternative b features 2-3 the same way, both
drawn independently and uniformly, unit noise on all ten features. KDAC is given a and should find b.

Sections:

* accuracy: at n = 1,000, 2,000, 5,000 and three seeds (the data's and the fit's), KDAC with
  every default but ``approximation`` fitted both ways ("exact" and "low-rank"): NMI between the
  two fits' labels, each fit's NMI against b and against a, the projection distance between the
  two W (when both have the same q), and the seconds (n_jobs=2).
* settings: at n = 5,000 (seed 0), the low-rank fit for several n_random_features (F) and
  n_landmarks (M): NMI against the exact fit and seconds; what the defaults rest on.
* rff: the relative Frobenius error of Phi(W) from F random features against the exact Phi, at
  n = 2,000 (X of this data, a random orthonormal W of q columns, a random gamma factor), the
  mean over 5 draws of the frequencies: the 1 / sqrt(F) law the tests check.
* scale: time, peak memory (VmHWM above the data's) and NMI against b of the default fit, each in
  a fresh process with a time limit: KDAC(2) with every default (n_jobs=None: one thread), KDAC
  with n_jobs=2, and the baselines "orthogonal projection + KMeans" (X projected onto the
  orthogonal complement of the span of a's centred class means, then KMeans(2, n_init=10)) and
  "orthogonal projection + SpectralClustering" (the same residual, SpectralClustering(2,
  affinity="nearest_neighbors")).
* q-rule: the default n_components before ("auto", the paper's rule: a fit at q = k, then a refit
  at the largest gap of Phi(W*)) and after ("init-gap", one fit) on the six data sets of
  bench/suite_kdac.py at every other default, three seeds: NMI against the alternative labelling,
  novelty, q, seconds (n_jobs=None).
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from kernlearn import _core  # noqa: E402
from kernlearn.cluster import KDAC  # noqa: E402
from kernlearn.datasets._mixture import make_alternative_mixture  # noqa: E402
from kernlearn.evaluation import nmi  # noqa: E402
from tables import to_markdown, write_report  # noqa: E402

SECTIONS = ("accuracy", "settings", "rff", "scale", "q-rule")


def projection_distance(W1, W2):
    """|W2 - W1 W1'W2|_F: sqrt of the sum of squared sines of the principal angles (as the core's)."""
    return float(np.linalg.norm(W2 - W1 @ (W1.T @ W2)))


def fit(X, a, **params):
    """A KDAC fit (ConvergenceWarnings counted, not shown) and its seconds."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model = KDAC(2, **params).fit(X, a)
        seconds = time.perf_counter() - start
    return model, seconds, len(caught)


def accuracy(args):
    rows = []
    for n in (1000, 2000, 5000):
        for seed in range(3):
            X, a, b = make_alternative_mixture(n, random_state=seed)
            exact, t_exact, _ = fit(X, a, approximation="exact", random_state=seed, n_jobs=2)
            low, t_low, _ = fit(X, a, approximation="low-rank", random_state=seed, n_jobs=2)
            same_q = exact.n_components_ == low.n_components_
            distance = projection_distance(exact.projection_, low.projection_) if same_q else float("nan")
            rows.append(
                {
                    "n": f"{n:,}",
                    "seed": seed,
                    "NMI(low-rank, exact)": f"{nmi(low.labels_, exact.labels_):.3f}",
                    "NMI(exact, hidden b)": f"{nmi(exact.labels_, b):.3f}",
                    "NMI(low-rank, hidden b)": f"{nmi(low.labels_, b):.3f}",
                    "NMI(low-rank, given a)": f"{nmi(low.labels_, a):.3f}",
                    "q exact / low-rank": f"{exact.n_components_} / {low.n_components_}",
                    "dist(W_exact, W_low-rank)": f"{distance:.1e}",
                    "exact (s)": f"{t_exact:.2f}",
                    "low-rank (s)": f"{t_low:.2f}",
                }
            )
            print(rows[-1], flush=True)
    return rows


def settings(args):
    n, seed = 5000, 0
    X, a, b = make_alternative_mixture(n, random_state=seed)
    exact, t_exact, _ = fit(X, a, approximation="exact", random_state=seed, n_jobs=2)
    rows = [{"F": "-", "M": "-", "NMI vs exact": "1.000", "NMI vs b": f"{nmi(exact.labels_, b):.3f}"}]
    rows[0]["seconds"] = f"{t_exact:.2f} (exact)"
    for F, M in ((64, 300), (128, 300), (256, 300), (512, 300), (256, 100), (256, 1000)):
        low, t_low, _ = fit(
            X, a, approximation="low-rank", n_random_features=F, n_landmarks=M, random_state=seed, n_jobs=2
        )
        rows.append(
            {
                "F": F,
                "M": M,
                "NMI vs exact": f"{nmi(low.labels_, exact.labels_):.3f}",
                "NMI vs b": f"{nmi(low.labels_, b):.3f}",
                "seconds": f"{t_low:.2f}",
            }
        )
        print(rows[-1], flush=True)
    return rows


def rff(args):
    n, m = 2000, 5
    X, _, _ = make_alternative_mixture(n, random_state=0)
    rng = np.random.default_rng(0)
    A = np.ascontiguousarray(rng.standard_normal((n, m)) / np.sqrt(n))
    c = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    rows = []
    for q in (2, 9):
        W = np.ascontiguousarray(np.linalg.qr(rng.standard_normal((X.shape[1], q)))[0])
        sigma = 0.5 * np.median(np.linalg.norm(X[:500, None] - X[None, :500], axis=-1))
        exact = _core.kernels.hsic_phi(X, W, A, c, sigma=sigma, n_threads=2)[0]
        for F in (16, 64, 256, 1024, 4096):
            errors = [
                np.linalg.norm(
                    _core.kernels.hsic_phi_rff(X, W, A, c, sigma=sigma, n_random_features=F, seed=s, n_threads=2)[0]
                    - exact
                )
                / np.linalg.norm(exact)
                for s in range(5)
            ]
            rows.append({"q": q, "F": F, "relative error of Phi": f"{np.mean(errors):.4f}"})
            print(rows[-1], flush=True)
    return rows


CHILD = textwrap.dedent(
    """
    import json, sys, time, warnings
    def peak_mb():
        with open("/proc/self/status") as status:
            return next(float(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024.0
    method, n, bench = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    sys.path.insert(0, bench)
    from kernlearn.datasets._mixture import make_alternative_mixture
    from kernlearn.evaluation import nmi
    X, a, b = make_alternative_mixture(n)
    base = peak_mb()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    extra = {}
    if method.startswith("KDAC"):
        from kernlearn.cluster import KDAC
        model = KDAC(2, random_state=0, n_jobs=2 if "n_jobs=2" in method else None).fit(X, a)
        labels = model.labels_
        extra = {"path": model.approximation_, "q": int(model.n_components_), "iterations": int(model.n_iter_),
                 "converged": bool(model.converged_)}
    else:
        from suite_kdac import orthogonal_residual
        residual = orthogonal_residual(X, a)
        if method.endswith("KMeans"):
            from sklearn.cluster import KMeans
            labels = KMeans(2, n_init=10, random_state=0).fit(residual).labels_
        else:
            from sklearn.cluster import SpectralClustering
            labels = SpectralClustering(2, affinity="nearest_neighbors", random_state=0).fit(residual).labels_
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb() - base, "nmi_b": nmi(labels, b),
                      "nmi_a": nmi(labels, a), **extra}))
    """
)

SCALE_METHODS = (
    "KDAC (default)",
    "KDAC (default, n_jobs=2)",
    "orthogonal projection + KMeans",
    "orthogonal projection + SpectralClustering",
)


def run_child(method, n, timeout):
    bench = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, method, str(n), bench], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"error": f"no answer in {timeout:.0f} s"}
    if out.returncode != 0:
        last = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
        return {"error": last[:120]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def scale(args):
    rows = []
    for method in SCALE_METHODS:
        for n in args.sizes:
            if method == "KDAC (default, n_jobs=2)" and n < max(args.sizes):
                continue  # the 2-thread figure at the largest size only
            load = os.getloadavg()[0]
            r = run_child(method, n, args.timeout)
            row = {"method": method, "n": f"{n:,}", "load (1 min)": f"{load:.2f}"}
            if "error" in r:
                row.update({"seconds": "-", "peak MB above data": "-", "NMI vs hidden b": "-", "notes": r["error"]})
            else:
                notes = ", ".join(f"{k} {v}" for k, v in r.items() if k not in ("seconds", "peak_mb", "nmi_b", "nmi_a"))
                row.update(
                    {
                        "seconds": f"{r['seconds']:.1f}",
                        "peak MB above data": f"{r['peak_mb']:.0f}",
                        "NMI vs hidden b": f"{r['nmi_b']:.3f}",
                        "NMI vs given a": f"{r['nmi_a']:.3f}",
                        "notes": notes,
                    }
                )
            rows.append(row)
            print(row, flush=True)
    return rows


def q_rule(args):
    from suite_kdac import DATASETS, dataset

    rows = []
    for name in DATASETS:
        X, existing, alternative, k = dataset(name)
        for rule in ("auto", "init-gap"):
            scores, novelty, seconds, qs, warned = [], [], [], [], 0
            for seed in range(3):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    start = time.perf_counter()
                    model = KDAC(k, n_components=rule, random_state=seed).fit(X, existing)
                    seconds.append(time.perf_counter() - start)
                warned += len(caught) > 0
                scores.append(nmi(alternative, model.labels_))
                novelty.append(nmi(existing, model.labels_))
                qs.append(model.n_components_)
            rows.append(
                {
                    "data set": f"{name} ({X.shape[0]} x {X.shape[1]}, k = {k})",
                    "n_components": rule + (" (before)" if rule == "auto" else " (after, default)"),
                    "NMI to alternative": f"{np.mean(scores):.3f} ± {np.std(scores):.3f}",
                    "novelty": f"{np.mean(novelty):.3f}",
                    "q": "/".join(str(q) for q in sorted(set(qs))),
                    "median seconds": f"{np.median(seconds):.2f}",
                    "fits with a warning": f"{warned}/3",
                }
            )
            print(rows[-1], flush=True)
    return rows


TITLES = {
    "accuracy": "(a) The low-rank path against the exact path (NMI, n = 1,000 - 5,000)",
    "settings": "(b) n_random_features and n_landmarks (n = 5,000, seed 0)",
    "rff": "(c) Random-feature Phi(W) against the exact Phi (n = 2,000)",
    "scale": "(d) Default fit: time, peak memory and quality, each in a fresh process",
    "q-rule": "(e) The default q rule before and after, on bench/suite_kdac.py's data sets",
}
RUNNERS = {"accuracy": accuracy, "settings": settings, "rff": rff, "scale": scale, "q-rule": q_rule}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", nargs="+", default=list(SECTIONS), choices=SECTIONS)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 30000, 100000])
    parser.add_argument("--timeout", type=float, default=150.0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "kdac_scale.md")
    args = parser.parse_args(argv)
    command_line = " ".join(sys.argv[1:] if argv is None else argv)
    report = [
        "# KDAC at scale: the low-rank path, its accuracy against the exact path, and the q rule\n",
        f"Generated by `bench/bench_kdac_scale.py {command_line}` (protocol and data in its docstring), "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, 2 cores shared with another engineer's "
        f"jobs; load average (1 min) at the start: {os.getloadavg()[0]:.2f}.\n",
    ]
    start = time.perf_counter()
    for name in args.sections:
        print(f"\n## {TITLES[name]}", flush=True)
        load = os.getloadavg()[0]
        rows = RUNNERS[name](args)
        report += [f"\n## {TITLES[name]}\n", f"Load average (1 min) at the section's start: {load:.2f}.\n"]
        report.append(to_markdown(rows))
    report.append(
        f"\nTotal wall time: {time.perf_counter() - start:.0f} s; load average at the end: {os.getloadavg()[0]:.2f}."
    )
    write_report(args.out, report)


if __name__ == "__main__":
    main()
