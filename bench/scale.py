"""Scale as a curve: fit time, peak memory and quality against n for a method's default fit and
the baselines a user would pick instead, each fit in a fresh process with a time limit.

    python bench/scale.py [--sizes 1000 3000 10000 30000 100000] [--timeout 150]
    python bench/scale.py --methods SimpleNPKL LabelSpreading --python /other/venv/bin/python

Data: a 10-feature mixture of 5 Gaussian classes (centres 3 N(0, I), unit noise), 10 % of the
points labelled at random (-1 for the rest), the issue's setting. Quality: the adjusted Rand
index on the unlabelled points of the clusters (SimpleNPKL: KernelKMeans with 5 clusters on the
learned embedding) or of the predicted labels (LabelSpreading). Peak: VmHWM of the child above
its VmHWM with the data loaded. A fit that exceeds --timeout is killed and shown as such.

So far the rows of the saddle-point family's SimpleNPKL; the other estimators of the two scale
issues join the same table.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    from sklearn.metrics import adjusted_rand_score
    def peak_mb():
        with open("/proc/self/status") as status:
            return next(float(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024.0
    method, n = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((5, 10)) * 3
    labels = rng.integers(0, 5, n)
    X = centres[labels] + rng.standard_normal((n, 10))
    y = np.where(rng.random(n) < 0.1, labels, -1)
    unlabelled = y < 0
    base = peak_mb()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    extra = {}
    if method == "SimpleNPKL":
        from kernlearn.cluster import KernelKMeans
        from kernlearn.npkl import SimpleNPKL
        model = SimpleNPKL(random_state=0).fit(X, y)
        predicted = KernelKMeans(5, random_state=0).fit(model.embedding_).labels_
        extra = {"iterations": int(model.n_iter_), "rank": int(model.eigenvalues_.size),
                 "solver": model.eigen_solver_, "pairs": int(len(model.pair_labels_))
                 if hasattr(model, "pair_labels_") else None}
    elif method == "LabelSpreading":
        from sklearn.semi_supervised import LabelSpreading
        predicted = LabelSpreading(kernel="knn").fit(X, y).transduction_
    else:
        raise SystemExit(f"unknown method {method}")
    seconds = time.perf_counter() - start
    ari = adjusted_rand_score(labels[unlabelled], predicted[unlabelled])
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb() - base, "ari": ari, **extra}))
    """
)


def run(method, n, timeout, python):
    try:
        out = subprocess.run(
            [python, "-c", CHILD, method, str(n)], capture_output=True, text=True, timeout=timeout, env=dict(os.environ)
        )
    except subprocess.TimeoutExpired:
        return {"error": f"no answer in {timeout:.0f} s"}
    if out.returncode != 0:
        last = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
        return {"error": last[:120]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000, 30000, 100000])
    parser.add_argument("--methods", nargs="+", default=["SimpleNPKL", "LabelSpreading"])
    parser.add_argument("--timeout", type=float, default=150.0)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose kernlearn runs the fits")
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}; python: {args.python}\n")
    print("| method | n | seconds | peak MB above data | ARI (unlabelled) | notes |")
    print("|---|---|---|---|---|---|")
    for method in args.methods:
        for n in args.sizes:
            r = run(method, n, args.timeout, args.python)
            if "error" in r:
                print(f"| {method} | {n:,} | - | - | - | {r['error']} |", flush=True)
                continue
            notes = ", ".join(
                f"{k} {v}" for k, v in r.items() if k not in ("seconds", "peak_mb", "ari") and v is not None
            )
            print(
                f"| {method} | {n:,} | {r['seconds']:.1f} | {r['peak_mb']:.0f} | {r['ari']:.3f} | {notes} |", flush=True
            )
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
