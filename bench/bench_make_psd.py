"""make_psd: LAPACK against threshold-mode Lanczos, and both against a plain dense eigh
(issue 47: the size up to which ``make_psd`` takes the dense route).

    python bench/bench_make_psd.py [--n 200 500 1000 2000 3000] [--repeats 1]
                                   [--lanczos-max-n 1000] [--out bench/results/make_psd.md]

Kernels, on ``np.random.default_rng(0).standard_normal((n, 8))``: the RBF kernel (gamma = 1 / d:
positive semidefinite, its eigenvalues clustered towards zero, the case the issue met) and the
TL1 kernel (tau = 0.7 d: indefinite, with a few hundred negative eigenvalues). Rows:

* ``scipy eigh``: ``scipy.linalg.eigh(K)``, every eigenpair (divide and conquer): what a user
  would write instead.
* ``dense``: ``make_psd(K)`` through LAPACK, only the negative eigenpairs computed (the route up
  to ``_solver_choice.MAKE_PSD_DENSE_MAX_N``).
* ``iterative``: ``make_psd(K)`` through ``eigsh(method="auto", threshold=0)``, the route above it
  (and the only one above 300 points before): a count estimate, then Lanczos, or LAPACK when the
  estimate exceeds a tenth of n. On the RBF kernel it runs to eigsh's cap of 100 n products, so
  it is measured up to ``--lanczos-max-n`` only.

Every output is compared with the clip computed from ``scipy eigh`` (max abs difference over
max abs K); ``warning`` names what the call warned.
"""

import argparse
import datetime
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import scipy
import scipy.linalg

import kernlearn
from kernlearn._utils import _solver_choice
from kernlearn.kernels import make_psd, rbf_kernel, tl1_kernel
from tables import to_markdown  # bench/tables.py


def kernels(n):
    X = np.random.default_rng(0).standard_normal((n, 8))
    return {"rbf": rbf_kernel(X), "tl1": tl1_kernel(X)}


def timed_call(fn, repeats):
    times, out, warned = [], None, []
    for _ in range(repeats):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - start)
        warned = sorted({w.category.__name__ for w in caught})
    return float(np.median(times)), out, warned


def measure(n, repeats, lanczos_max_n):
    rows = []
    for name, K in kernels(n).items():
        t_eigh, (w, V), _ = timed_call(lambda: scipy.linalg.eigh(K), repeats)
        reference = (V * np.maximum(w, 0)) @ V.T
        scale = np.abs(K).max()
        negative = int(np.sum(w < 0))
        rows.append({"kernel": name, "n": n, "negative": negative, "route": "scipy eigh", "s": f"{t_eigh:.3f}"})
        routes = [("dense", n)]
        if name != "rbf" or n <= lanczos_max_n:
            routes.append(("iterative", 0))
        for route, limit in routes:
            saved = _solver_choice.MAKE_PSD_DENSE_MAX_N
            _solver_choice.MAKE_PSD_DENSE_MAX_N = limit
            try:
                t, out, warned = timed_call(lambda: make_psd(K, random_state=0), repeats)
            finally:
                _solver_choice.MAKE_PSD_DENSE_MAX_N = saved
            rows.append(
                {
                    "kernel": name,
                    "n": n,
                    "negative": negative,
                    "route": route,
                    "s": f"{t:.3f}",
                    "/ scipy eigh": f"{t / t_eigh:.2f}",
                    "max diff / max K": f"{np.abs(out - reference).max() / scale:.1e}",
                    "warning": ", ".join(warned) or "none",
                }
            )
            print(rows[-1], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[200, 500, 1000, 2000, 3000])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--lanczos-max-n", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "make_psd.md")
    args = parser.parse_args(argv)
    rows = []
    for n in args.n:
        rows += measure(n, args.repeats, args.lanczos_max_n)
    header = (
        f"# make_psd: dense against iterative, {datetime.date.today()}, {platform.machine()}, "
        f"kernlearn {kernlearn.__version__}, numpy {np.__version__}, scipy {scipy.__version__}\n"
    )
    text = header + "\n" + to_markdown(rows) + "\n"
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
