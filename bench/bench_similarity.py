"""Time per iteration of REKL against EMKL (and ESKL), and the symmetric eigensolver behind the
matrix exponentiated-gradient step.

    python bench/bench_similarity.py [--n 500 2000] [--iters 4] [--repeats 3]
                                     [--out bench/results/similarity.md]

* Data: ``rng(0)`` Gaussian blobs in 10 dimensions, two classes, half the points labelled (the
  rest unlabelled, transductive fit); three similarities (TL1 with tau = median distance,
  tanh(<x, x'>/d - 0.5), negative distance), each scaled to tr S_+ = n.
* Per iteration: each estimator runs ``--iters`` iterations (tol = 0, so none stops early);
  the time of an iteration is its entry of ``history_["time"]`` (SVM/MKL solve, subgradient,
  certificate, mirror step), reported as the median over the iterations after the first, and
  the whole fit (including the m eigendecompositions of the S_i before the loop) as well.
* Eigensolvers: one full symmetric eigendecomposition of ``log K - eta G`` at the same n with
  SciPy's LAPACK drivers (``evd`` = dsyevd divide and conquer, the one used; ``evr`` = dsyevr
  MRRR; ``ev`` = dsyev QR), NumPy's ``eigh`` (dsyevd through numpy's own LAPACK lite or the
  linked one), median of ``--repeats``; the largest eigenvector residual is reported next to
  the time. kernlearn's Lanczos is not an alternative here: the step needs every eigenpair.
"""

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy
import scipy.linalg
from scipy.spatial.distance import cdist
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).parent))
from kernlearn.similarity import EMKL, ESKL, REKL  # noqa: E402
from tables import timed, to_markdown  # noqa: E402


def problem(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 10)) + 0.8 * y[:, None]
    D = cdist(X, X)
    med = np.median(D)
    mats = [np.maximum(med - D, 0.0), np.tanh(X @ X.T / 10 - 0.5), -D]
    S = np.stack([M * n / np.maximum(np.linalg.eigvalsh(M), 0).sum() for M in mats], axis=-1)  # (n, n, m)
    y_semi = y.copy()
    y_semi[rng.permutation(n)[: n // 2]] = -1
    return S, y_semi


def per_iteration(args, table):
    for n in args.n:
        S, y = problem(n)
        results = {}
        for Est in (ESKL, EMKL, REKL):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                start = time.perf_counter()
                est = Est(max_iter=args.iters, tol=0.0, n_jobs=1).fit(S, y)
                total = time.perf_counter() - start
            t = est.history_["time"][1:]
            results[Est.__name__] = statistics.median(t)
            table.append(
                {
                    "n": n,
                    "m": S.shape[2],
                    "method": Est.__name__,
                    "iterations": est.n_iter_,
                    "time / iteration [s]": f"{statistics.median(t):.3f}",
                    "min..max [s]": f"{t.min():.3f}..{t.max():.3f}",
                    "whole fit [s]": f"{total:.2f}",
                    "EMKL / this": "",
                }
            )
            print(table[-1], flush=True)
        for row in table:
            if row["n"] == n:
                row["EMKL / this"] = f"{results['EMKL'] / results[row['method']]:.1f}x"


def eigensolvers(args, table):
    rng = np.random.default_rng(1)
    for n in args.n:
        A = rng.normal(size=(n, n))
        M = (A + A.T) / 2

        def run(fn):
            return timed(lambda: fn(M.copy()), args.repeats)

        solvers = {
            "scipy evd (used)": lambda B: scipy.linalg.eigh(B, overwrite_a=True, check_finite=False, driver="evd"),
            "scipy evr": lambda B: scipy.linalg.eigh(B, overwrite_a=True, check_finite=False, driver="evr"),
            "scipy ev": lambda B: scipy.linalg.eigh(B, overwrite_a=True, check_finite=False, driver="ev"),
            "numpy eigh": np.linalg.eigh,
            "scipy evd, values only": lambda B: (
                scipy.linalg.eigh(B, overwrite_a=True, check_finite=False, eigvals_only=True, driver="evd"),
                None,
            ),
        }
        base = None
        for name, fn in solvers.items():
            seconds, (w, V) = run(fn)
            base = base or seconds
            resid = "" if V is None else f"{np.abs(M @ V - V * w).max() / np.abs(w).max():.1e}"
            table.append(
                {
                    "n": n,
                    "solver": name,
                    "time [s]": f"{seconds:.3f}",
                    "/ evd": f"{seconds / base:.2f}",
                    "max residual / |lambda|max": resid,
                }
            )
            print(table[-1], flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--iters", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "similarity.md")
    args = parser.parse_args()
    load = f"{os.getloadavg()[0]:.2f}"
    header = [
        "# ESKL / EMKL / REKL time per iteration, and the dense eigensolver\n",
        f"Generated by `bench/bench_similarity.py {' '.join(sys.argv[1:])}`; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared with another job, "
        f"load {load} at start), numpy {np.__version__}, scipy {scipy.__version__}.",
        "Every fit: m = 3 similarities, half of the n points labelled, n_jobs=1 (1 BLAS thread: on this "
        "shared machine two spinning OpenBLAS threads against another job made single iterations up to 30x "
        "slower, erratically). The eigensolver table runs with the BLAS default (2 threads).",
    ]
    t1, t2 = [], []
    per_iteration(args, t1)
    eigensolvers(args, t2)
    text = "\n".join(
        header
        + ["\n## Time per iteration (median over iterations 2..)\n", to_markdown(t1)]
        + ["\n## One full symmetric eigendecomposition (median of repeats)\n", to_markdown(t2)]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
