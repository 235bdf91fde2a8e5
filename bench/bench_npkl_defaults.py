"""The evidence behind SimpleNPKL's default capacity (G = 1e-3) and the linear loss's default C.

    python bench/bench_npkl_defaults.py [--repeats 3] [--out bench/results/npkl_defaults.md]
    python bench/bench_npkl_defaults.py --sections basis --out bench/results/npkl_basis.md

Protocols and data as in bench/suite.py (its ``load`` and ``protocol_pairs``; digits left out
for time): held-out (30 % labelled, all their pairs, ARI on the points in no pair) and paper
(pairs until 0.7 n must-link components, ARI on all points). KernelKMeans(k) on ``embedding_``,
seeds 0 .. repeats-1, ConvergenceWarnings silenced and counted in "converged".

Section 1, capacity, C = 0.3, for each saddle-point loss: the paper's B = 1, the bound B = n^2
that lets the unit margins be met, and the penalty G in {1e-4, 1e-3, 1e-2}. Columns: ARI (%),
mean iterations, share of fits converged, mean fit time.

Section 2, the linear loss's C: fixed C in {0.003, 0.01, 0.03, 0.1, 0.3} against the default
0.5 / d (d = 2 m / points in a pair), on both protocols.

Section 3, the graph and the loss at the defaults otherwise: n_neighbors in {3, 5, 10, 15} and
graph in {symmetric, mutual} for the squared hinge, held-out protocol, and the four losses side
by side (held-out / paper).

Section "tol" (its own file, bench/results/npkl_tol.md): the held-out ARI and iterations of the
squared hinge at tol in {1e-2, 1e-3, 1e-4, 1e-6}.

Section "basis" (Section 5.4, its own file): the fixed basis U of ``basis`` = r columns, from
the linear-loss kernel ("kernel", the paper's) or from the Laplacian ("laplacian"), against the
full fit, squared hinge at the defaults, both protocols: ARI % and fit seconds.
"""

import argparse
import datetime
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

import kernlearn
from kernlearn.cluster import KernelKMeans
from kernlearn.npkl import SimpleNPKL

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite import load, protocol_pairs  # noqa: E402

DATASETS = ("iris", "wine", "sonar", "ionosphere", "glass", "breast_cancer")
SADDLE_LOSSES = ("squared_hinge", "hinge", "square")
LINEAR_CS = (0.003, 0.01, 0.03, 0.1, 0.3, None)


def run(X, y, protocol, seed, **params):
    """(ARI %, iterations, converged, seconds) of one fit + kernel k-means."""
    pairs, labels, scored = protocol_pairs(y, protocol, seed)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", message="the learned kernel is zero", category=UserWarning)
        model = SimpleNPKL(random_state=seed, **params).fit(X, pairs=pairs, pair_labels=labels)
    elapsed = time.perf_counter() - start
    k = np.unique(y).size
    if model.embedding_.shape[1] == 0:
        assignment = np.zeros(y.size, dtype=int)  # a zero kernel: every point is one point
    else:
        assignment = KernelKMeans(k, random_state=seed).fit_predict(model.embedding_)
    return 100 * adjusted_rand_score(y[scored], assignment[scored]), model.n_iter_, model.converged_, elapsed


def capacity_section(names, repeats):
    lines = [
        "## 1. Capacity (C = 0.3), held-out protocol",
        "",
        "ARI % / mean iterations / share converged / mean fit seconds.",
        "",
        "| data set | loss | B = 1 (paper) | B = n^2 | G = 1e-4 | G = 1e-3 (default) | G = 1e-2 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in names:
        X, y = load(name)
        n = X.shape[0]
        for loss in SADDLE_LOSSES:
            cells = []
            for params in (dict(B=1.0), dict(B=float(n) ** 2), dict(G=1e-4), dict(G=1e-3), dict(G=1e-2)):
                runs = np.array([run(X, y, "held-out", seed, loss=loss, C=0.3, **params) for seed in range(repeats)])
                ari, iters, conv, secs = runs.mean(axis=0)
                cells.append(f"{ari:.1f} / {iters:.0f} / {conv:.2f} / {secs:.2f}")
            lines.append(f"| {name} | {loss} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    return lines + [""]


def linear_section(names, repeats):
    lines = [
        "## 2. The linear loss's C (default G), ARI %: held-out / paper protocol",
        "",
        "| data set | " + " | ".join("C = 0.5 / d (default)" if C is None else f"C = {C:g}" for C in LINEAR_CS) + " |",
        "|---|" + "---|" * len(LINEAR_CS),
    ]
    for name in names:
        X, y = load(name)
        cells = []
        for C in LINEAR_CS:
            held = np.mean([run(X, y, "held-out", seed, loss="linear", C=C)[0] for seed in range(repeats)])
            paper = np.mean([run(X, y, "paper", seed, loss="linear", C=C)[0] for seed in range(repeats)])
            cells.append(f"{held:.1f} / {paper:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def graph_section(names, repeats):
    lines = [
        "## 3. Graph and loss at the other defaults, ARI %",
        "",
        "| data set | k = 3 | k = 5 (default) | k = 10 | k = 15 | mutual, k = 5 | "
        "linear | squared_hinge (default) | hinge | square |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in names:
        X, y = load(name)
        cells = []
        for params in (
            dict(n_neighbors=3),
            dict(n_neighbors=5),
            dict(n_neighbors=10),
            dict(n_neighbors=15),
            dict(graph="mutual"),
        ):
            cells.append(f"{np.mean([run(X, y, 'held-out', seed, **params)[0] for seed in range(repeats)]):.1f}")
        for loss in ("linear", "squared_hinge", "hinge", "square"):
            held = np.mean([run(X, y, "held-out", seed, loss=loss)[0] for seed in range(repeats)])
            paper = np.mean([run(X, y, "paper", seed, loss=loss)[0] for seed in range(repeats)])
            cells.append(f"{held:.1f} / {paper:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def tol_section(names, repeats):
    tols = (1e-2, 1e-3, 1e-4, 1e-6)
    lines = [
        "## tol: ARI % (held-out) / mean iterations, squared hinge at the defaults, max_iter 5000",
        "",
        "| data set | " + " | ".join("tol = 1e-4 (default)" if t == 1e-4 else f"tol = {t:g}" for t in tols) + " |",
        "|---|" + "---|" * len(tols),
    ]
    for name in names:
        X, y = load(name)
        cells = []
        for tol in tols:
            runs = np.array([run(X, y, "held-out", seed, tol=tol, max_iter=5000) for seed in range(repeats)])
            cells.append(f"{runs[:, 0].mean():.1f} / {runs[:, 1].mean():.0f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def basis_section(names, repeats):
    variants = [("full", {})] + [
        (f"{source}, r = {r}", dict(basis=r, basis_from=source)) for r in (10, 30) for source in ("kernel", "laplacian")
    ]
    lines = [
        "## Section 5.4 basis: ARI % (held-out / paper protocol) and mean fit seconds",
        "",
        "| data set | " + " | ".join(name for name, _ in variants) + " |",
        "|---|" + "---|" * len(variants),
    ]
    for name in names:
        X, y = load(name)
        cells = []
        for _, params in variants:
            held = np.array([run(X, y, "held-out", seed, **params) for seed in range(repeats)])
            paper = np.array([run(X, y, "paper", seed, **params) for seed in range(repeats)])
            seconds = np.r_[held[:, 3], paper[:, 3]].mean()
            cells.append(f"{held[:, 0].mean():.1f} / {paper[:, 0].mean():.1f} ({seconds:.2f} s)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--sections",
        nargs="+",
        default=["capacity", "linear", "graph"],
        choices=["capacity", "linear", "graph", "basis", "tol"],
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "npkl_defaults.md")
    args = parser.parse_args()
    start = time.perf_counter()
    sections = {
        "capacity": capacity_section,
        "linear": linear_section,
        "graph": graph_section,
        "basis": basis_section,
        "tol": tol_section,
    }
    lines = []
    for section in args.sections:
        lines += sections[section](args.datasets, args.repeats)
    header = [
        "# SimpleNPKL defaults and variants (bench/bench_npkl_defaults.py)",
        "",
        f"kernlearn {kernlearn.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}, {datetime.date.today()}; "
        f"{args.repeats} repetitions; run time {time.perf_counter() - start:.0f} s. "
        "Protocol: bench/bench_npkl_defaults.py's docstring.",
        "",
    ]
    args.out.write_text("\n".join(header + lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
