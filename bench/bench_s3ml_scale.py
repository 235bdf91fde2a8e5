"""S3ML at scale: the evidence for partners="auto" and propagation_tol="auto" (S3ML_* in
python/kernlearn/_utils/_solver_choice.py), and the default fit's time and memory against n.

    python bench/bench_s3ml_scale.py [--sizes 1000 3000 10000 30000 100000] [--out bench/results/s3ml_scale.md]

Data: kernlearn.datasets._mixture.make_labelled_mixture(n) (10 features, 5 classes, 10 %
labelled), the scale benchmark's. Quality: 1-NN accuracy of the unlabelled points from the
labelled ones in the learned metric (``transform``), beside Euclidean 1-NN on standardised
features; each fit in a fresh process (peak = VmHWM above the loaded data).

* choices: at n = 3,000 and 10,000, the exact propagation (tol 1e-12) against tol 1e-2, and
  every labelled pair against 5 partners per labelled point: time and accuracy, on a harder
  mixture (centres 1.2 N(0, I) instead of 3 N(0, I), where the classes overlap and 1-NN errs).
* scale: the default fit at each size.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tables import to_markdown, write_report  # noqa: E402

CHOICES_SEPARATION = 1.2

CHILD = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.preprocessing import StandardScaler
    def peak_mb():
        with open("/proc/self/status") as status:
            return next(float(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024.0
    n, params, separation = int(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
    from kernlearn.datasets._mixture import make_labelled_mixture
    from kernlearn.metric import S3ML
    X, labels, y = make_labelled_mixture(n, separation=separation)
    known = y >= 0
    base = peak_mb()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    if params.pop("pairs", None) == "all":  # the paper's protocol: every pair among the labelled points
        from kernlearn.constraints import from_labels
        pairs, pair_labels = from_labels(y)
        model = S3ML(random_state=0, **params).fit(X, pairs=pairs, pair_labels=pair_labels)
    else:
        model = S3ML(random_state=0, **params).fit(X, y)
    seconds = time.perf_counter() - start
    Z = model.transform(X)
    accuracy = KNeighborsClassifier(1).fit(Z[known], y[known]).score(Z[~known], labels[~known])
    E = StandardScaler().fit_transform(X)
    euclidean = KNeighborsClassifier(1).fit(E[known], y[known]).score(E[~known], labels[~known])
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb() - base, "accuracy": accuracy,
                      "euclidean": euclidean, "pairs": int(len(model.pairs_)),
                      "affinity_nnz": int(model.affinity_.nnz), "converged": bool(model.converged_)}))
    """
)


def run(n, params, timeout, separation=3.0):
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(n), json.dumps(params), str(separation)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def row(n, label, r):
    if r is None:
        return {"n": f"{n:,}", "setting": label, "seconds": "timeout"}
    return {
        "n": f"{n:,}",
        "setting": label,
        "seconds": f"{r['seconds']:.1f}",
        "peak MB above data": f"{r['peak_mb']:.0f}",
        "pairs": f"{r['pairs']:,}",
        "nnz(W)": f"{r['affinity_nnz']:,}",
        "1-NN accuracy (S3ML)": f"{r['accuracy']:.3f}",
        "1-NN accuracy (Euclidean)": f"{r['euclidean']:.3f}",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000, 30000, 100000])
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--sections", nargs="+", default=["choices", "scale"], choices=["choices", "scale"])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    lines = [
        "# S3ML at scale",
        "",
        f"`python bench/bench_s3ml_scale.py`, {time.strftime('%Y-%m-%d')}, the project's 2-core VM, load "
        f"average {os.getloadavg()[0]:.2f} at the start. Data and quality: the script's docstring.",
        "",
        f"## The choices: propagation accuracy and pairs (separation {CHOICES_SEPARATION})",
        "",
    ]
    table = []
    for n in (3000, 10000) if "choices" in args.sections else ():
        for label, params in (
            ("every pair, tol 1e-12 (before)", {"pairs": "all", "propagation_tol": 1e-12}),
            ("every pair, tol 1e-2", {"pairs": "all", "propagation_tol": 1e-2}),
            ("5 partners, tol 1e-12", {"partners": 5, "propagation_tol": 1e-12}),
            ("5 partners, tol 1e-2 (the default above both limits)", {"partners": 5, "propagation_tol": 1e-2}),
        ):
            table.append(row(n, label, run(n, params, args.timeout, separation=CHOICES_SEPARATION)))
            print(table[-1], flush=True)
    lines += [to_markdown(table), ""]
    table = []
    for n in args.sizes if "scale" in args.sections else ():
        table.append(row(n, "default", run(n, {}, args.timeout)))
        print(table[-1], flush=True)
    lines += ["## The default fit against n", "", to_markdown(table), ""]
    lines.append(f"Load average at the end: {os.getloadavg()[0]:.2f}.")
    if args.out:
        write_report(args.out, lines)
    else:
        print("\n".join(lines))


if __name__ == "__main__":
    main()
