"""IKLR's Nystrom model against the exact model: test accuracy, fit time and peak memory, the
evidence for approximation="auto" (IKLR_EXACT_MAX_N) and n_centers="auto" (IKLR_NYSTROM_CENTERS)
in python/kernlearn/_utils/_solver_choice.py.

    python bench/bench_iklr_nystrom.py [--sections accuracy suite large] [--out bench/results/iklr_nystrom.md]

* accuracy: the diamonds table (bench/diamonds.py: Ideal cut or not from 7 numeric columns,
  53,940 rows): a fixed pool of 40,000 training rows and the 13,940 others as the test set;
  training subsets of n = 2,000 ... 30,000 rows. Exact model (approximation="exact") against the
  Nystrom model with M = 250 ... 2,000 uniform centres (same alpha, gamma="scale"), and SVC's
  default; test accuracy in %, fit seconds, and the Newton certificate (largest gradient-norm
  ratio over the classifiers).
* suite: the suite's multi-feature data sets (breast cancer 569 x 30, digits 1,797 x 64 with 10
  classes one-vs-rest), 3 stratified half / half splits, standardised: the exact model against
  the Nystrom model at M = 100, 250, 500 (at most the training size).
* large: the default fit (approximation="auto") on all 40,000 training rows of diamonds and on
  n = 10^5 points of the scale benchmark's 10-feature, 5-class mixture, each in a fresh process:
  time, peak memory (VmHWM above the loaded data) and test accuracy, beside SVC and
  scikit-learn's Nystroem (M components) + LogisticRegression.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diamonds import load_diamonds  # noqa: E402
from kernlearn.indefinite import IndefiniteKernelLogisticRegression  # noqa: E402
from tables import to_markdown, write_report  # noqa: E402

POOL = 40_000


def _fit(model, X, y, X_test, y_test):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    seconds = time.perf_counter() - start
    return 100.0 * model.score(X_test, y_test), seconds


def _certificate(model):
    return f"{np.max(model.gradient_norm_):.0e}" if model.converged_.all() else "not converged"


def section_accuracy(args, lines):
    X, y = load_diamonds()
    order = np.random.default_rng(0).permutation(len(y))
    pool, test = order[:POOL], order[POOL:]
    table = []
    for n in args.sizes:
        train = pool[:n]
        row = {"n": f"{n:,}"}
        if n <= args.exact_max_n:
            model = IndefiniteKernelLogisticRegression(approximation="exact", random_state=0)
            acc, sec = _fit(model, X[train], y[train], X[test], y[test])
            row["exact"] = f"{acc:.2f} ({sec:.1f} s, {_certificate(model)})"
        else:
            row["exact"] = "-"
        for m in args.centers:
            model = IndefiniteKernelLogisticRegression(approximation="nystrom", n_centers=m, random_state=0)
            acc, sec = _fit(model, X[train], y[train], X[test], y[test])
            row[f"M = {m}"] = f"{acc:.2f} ({sec:.1f} s, {_certificate(model)})"
        acc, sec = _fit(SVC(), X[train], y[train], X[test], y[test])
        row["SVC"] = f"{acc:.2f} ({sec:.1f} s)"
        table.append(row)
        print(row, flush=True)
    lines += [
        "## Accuracy against the exact model: diamonds (Ideal cut or not), test set of 13,940 rows",
        "",
        "Test accuracy in %, (fit seconds, largest ||grad F|| / ||grad F(0)|| over the classifiers).",
        "",
        to_markdown(table),
        "",
    ]


def section_suite(args, lines):
    table = []
    for name, loader in (("breast cancer", load_breast_cancer), ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        scores = {}
        for split, (train, test) in enumerate(StratifiedShuffleSplit(3, test_size=0.5, random_state=0).split(X, y)):
            scaler = StandardScaler().fit(X[train])
            Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
            candidates = [("exact", {"approximation": "exact"})] + [
                (f"M = {m}", {"approximation": "nystrom", "n_centers": m}) for m in (100, 250, 500) if m <= len(train)
            ]
            for label, params in candidates:
                model = IndefiniteKernelLogisticRegression(random_state=split, **params)
                scores.setdefault(label, []).append(_fit(model, Xtr, y[train], Xte, y[test]))
        row = {"data": f"{name} ({len(y)} x {X.shape[1]})"}
        for label, values in scores.items():
            acc = np.array([a for a, _ in values])
            sec = np.mean([s for _, s in values])
            row[label] = f"{acc.mean():.2f} ± {acc.std():.2f} ({sec:.2f} s)"
        table.append(row)
        print(row, flush=True)
    lines += [
        "## The suite's data sets: exact against Nystrom (3 half / half splits)",
        "",
        "Test accuracy in %, mean ± std, (mean fit seconds).",
        "",
        to_markdown(table),
        "",
    ]


CHILD = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    sys.path.insert(0, sys.argv[3])
    def peak_mb():
        with open("/proc/self/status") as status:
            return next(float(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024.0
    method, data = sys.argv[1], sys.argv[2]
    if data == "diamonds":
        from diamonds import load_diamonds
        X, y = load_diamonds()
        order = np.random.default_rng(0).permutation(len(y))
        train, test = order[:40000], order[40000:]
    else:
        from kernlearn.datasets._mixture import make_labelled_mixture
        n = int(data)
        X, y, _ = make_labelled_mixture(n + 10000)
        train, test = np.arange(n), np.arange(n, n + 10000)
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    base = peak_mb()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    extra = {}
    if method == "IKLR":
        from kernlearn.indefinite import IndefiniteKernelLogisticRegression
        model = IndefiniteKernelLogisticRegression(random_state=0).fit(X_train, y_train)
        extra = {"approximation": model.approximation_, "centres": model.n_centers_,
                 "converged": bool(model.converged_.all())}
    elif method == "SVC":
        from sklearn.svm import SVC
        model = SVC().fit(X_train, y_train)
    elif method == "Nystroem+LogisticRegression":
        from sklearn.kernel_approximation import Nystroem
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        model = make_pipeline(Nystroem(n_components=1000, random_state=0), LogisticRegression(max_iter=1000))
        model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    accuracy = 100.0 * model.score(X_test, y_test)
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb() - base, "accuracy": accuracy, **extra}))
    """
)


def section_large(args, lines):
    bench = os.path.dirname(os.path.abspath(__file__))
    table = []
    for data in ("diamonds", "100000"):
        for method in ("IKLR", "SVC", "Nystroem+LogisticRegression"):
            try:
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, method, data, bench],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=True,
                )
                r = json.loads(out.stdout.strip().splitlines()[-1])
                notes = ", ".join(f"{k} {v}" for k, v in r.items() if k not in ("seconds", "peak_mb", "accuracy"))
                row = {
                    "data": "diamonds, 40,000 rows" if data == "diamonds" else "mixture, 10^5 points",
                    "method": method,
                    "seconds": f"{r['seconds']:.1f}",
                    "peak MB above data": f"{r['peak_mb']:.0f}",
                    "test accuracy %": f"{r['accuracy']:.2f}",
                    "notes": notes,
                }
            except subprocess.TimeoutExpired:
                row = {"data": data, "method": method, "seconds": f"> {args.timeout:.0f}"}
            table.append(row)
            print(row, flush=True)
    lines += [
        "## Default fits at scale (fresh process each, default n_jobs)",
        "",
        "Nystroem + LogisticRegression: scikit-learn's Nystroem(n_components=1000) and "
        "LogisticRegression(max_iter=1000), the usual large-n kernel logistic regression.",
        "",
        to_markdown(table),
        "",
    ]


SECTIONS = {"accuracy": section_accuracy, "suite": section_suite, "large": section_large}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", nargs="+", default=list(SECTIONS), choices=list(SECTIONS))
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000, 30000])
    parser.add_argument("--centers", type=int, nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--exact-max-n", type=int, default=30000)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    lines = [
        "# IKLR: the Nystrom model against the exact model",
        "",
        f"`python bench/bench_iklr_nystrom.py`, load average {os.getloadavg()[0]:.2f} at the start "
        f"({time.strftime('%Y-%m-%d')}, the project's 2-core VM). alpha = 1e-4, gamma = 'scale', "
        "tol = 1e-8 (the defaults) in every IKLR fit.",
        "",
    ]
    for name in args.sections:
        SECTIONS[name](args, lines)
    lines.append(f"Load average at the end: {os.getloadavg()[0]:.2f}.")
    if args.out:
        write_report(args.out, lines)
    else:
        print("\n".join(lines))


if __name__ == "__main__":
    main()
