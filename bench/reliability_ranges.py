"""The measurements behind issue 48's new bounds. SimpleNPKL at the ends of the float64 range
of B, G and step: which values give a finite kernel and history, and which end in an error
(iris, every fifth point, n_neighbors=3); ESKL's fit time at the svm_tol floor and the default.

    python bench/reliability_ranges.py

The bounds B_MAX and STEP_MAX of kernlearn/npkl.py were read off this sweep run before they
existed (results: bench/results/reliability_round2.md); run now, the values beyond them are
refused by SimpleNPKL's parameter check.
"""

import time
import warnings

import numpy as np

from kernlearn.datasets import load_iris
from kernlearn.npkl import SimpleNPKL


def outcome(X, y, **params):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = SimpleNPKL(n_neighbors=3, random_state=0, **params).fit(X, y)
    except Exception as err:  # the sweep records every outcome, errors included
        return f"{type(err).__name__}: {str(err)[:70]}"
    bad = sum(int(np.sum(~np.isfinite(np.asarray(v, dtype=float)))) for v in model.history_.values())
    return f"non-finite history entries {bad}, rank {model.embedding_.shape[1]}"


def main():
    X, y = load_iris(return_X_y=True)
    X, y = X[::5], y[::5]
    print("| loss | parameter | value | outcome |\n|---|---|---|---|")
    for loss in ("linear", "squared_hinge", "hinge"):
        for B in (1e-300, 1e100, 1e250, 1e280, 1e300, 1e308):
            print(f"| {loss} | B | {B:g} | {outcome(X, y, B=B, loss=loss)} |")
        for G in (1e-320, 1e-300, 1e-200, 1e-150, 1e-100, 1e300):
            print(f"| {loss} | G | {G:g} | {outcome(X, y, G=G, loss=loss)} |")
    for step in (1e-300, 1e100, 1e250, 1e300, 1e308):
        print(f"| squared_hinge | step | {step:g} | {outcome(X, y, step=step, loss='squared_hinge')} |")
    print()
    svm_tol_times()


def svm_tol_times():
    from kernlearn.datasets import load_sonar
    from kernlearn.kernels import rbf_kernel, tl1_kernel
    from kernlearn.similarity import ESKL

    X, y = load_sonar(return_X_y=True)
    S = np.stack([rbf_kernel(X, gamma=0.05), X @ X.T / X.shape[1], tl1_kernel(X)], axis=2)
    print("| svm_tol | ESKL(max_iter=20) fit on sonar, s |\n|---|---|")
    for tol in (1e-5, 1e-10):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ESKL(svm_tol=tol, max_iter=20).fit(S, y)
        print(f"| {tol:g} | {time.perf_counter() - start:.2f} |")


if __name__ == "__main__":
    main()
