"""ESKL, EMKL and REKL at scale: the fit restricted to a rank against the dense fit, and the
default fits (rank="auto") on three similarity operators, each fit in a fresh process.

    python bench/bench_similarity_scale.py --part accuracy [--sizes 1000 2000 3000] [--ranks 10 30 50] [--separation 1]
    python bench/bench_similarity_scale.py --part scale [--sizes 3000 10000 20000] [--timeout 600]

Data: kernlearn.datasets._mixture.make_labelled_mixture(n) (bench/scale.py's: 10 features, 5
Gaussian classes, 10 % of the points labelled at random, -1 for the rest; ``--separation`` of the
centres, 3 as scale.py, smaller for overlapping classes, where the rank shows). Three similarities of
the points: RBF with gamma = 1 / (d Var X) ("scale"), RBF with a tenth of that gamma (wide), and
TL1 with tau = 0.7 d (indefinite). Multi-class: one-vs-rest, five binary problems per fit.

* ``--part accuracy``: dense S (n, n, 3) for every fit; the dense fit (rank=None) and the fits
  restricted to each rank, every estimator with its other parameters at their defaults. Quality:
  accuracy of ``transduction_`` on the unlabelled points, and the agreement of those labels with
  the dense fit's.
* ``--part scale``: the similarities as three :class:`kernlearn.kernels.KernelOperator` (never
  formed), the estimators with every parameter at its default (rank="auto"). Baselines: SVC
  (kernel="precomputed", C = 1) on the best single similarity or their mean, chosen by 3-fold
  cross-validation on the labelled points (the kernel only on labelled x labelled and unlabelled
  x labelled: n_l = 0.1 n), and SVC (RBF, gamma="scale") on the features of the labelled points.

Peak: VmHWM of the child above its VmHWM with the data loaded. Writes
bench/results/similarity_scale.md (the part run, with the load average at the start and end).
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    def peak_mb():
        with open("/proc/self/status") as status:
            return next(float(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024.0
    method, n, params, dense = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4] == "dense"
    separation = float(sys.argv[5])
    from kernlearn import kernels
    from kernlearn.datasets._mixture import make_labelled_mixture
    X, labels, y = make_labelled_mixture(n, separation=separation)
    unlabelled = y < 0
    gamma = 1.0 / (X.shape[1] * X.var())
    specs = [("rbf", {"gamma": gamma}), ("rbf", {"gamma": gamma / 10}), ("tl1", {"tau": 0.7 * X.shape[1]})]
    def dense_block(A, B):
        return [kernels.rbf_kernel(A, B, **kw) if kind == "rbf" else kernels.tl1_kernel(A, B, **kw)
                for kind, kw in specs]
    if method.startswith("SVC"):
        S = None
    elif dense:
        S = dense_block(X, None)
    else:
        S = [kernels.KernelOperator(X, kind, **kw) for kind, kw in specs]
    base = peak_mb()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    extra, predicted = {}, None
    if method in ("ESKL", "EMKL", "REKL"):
        from kernlearn import similarity
        from kernlearn._utils import _solver_choice
        for name, value in params.pop("solver_choice", {}).items():  # e.g. the eigensolver's budget
            setattr(_solver_choice, name, value)
        model = getattr(similarity, method)(random_state=0, **params).fit(S, y)
        predicted = model.transduction_
        extra = {"rank": model.rank_, "iterations": int(model.n_iter_), "reason": model.stop_reason_,
                 "gap": float(np.max(model.gap_ / np.abs(model.objective_)))}
    elif method == "SVC best similarity":
        from sklearn.model_selection import cross_val_score
        from sklearn.svm import SVC
        lab = ~unlabelled
        K_ll = dense_block(X[lab], X[lab])
        K_ul = dense_block(X[unlabelled], X[lab])
        K_ll.append(sum(K_ll) / 3); K_ul.append(sum(K_ul) / 3)
        names = ["rbf", "rbf wide", "tl1", "mean"]
        scores = [cross_val_score(SVC(kernel="precomputed"), K, y[lab], cv=3).mean() for K in K_ll]
        best = int(np.argmax(scores))
        predicted = y.copy()
        predicted[unlabelled] = SVC(kernel="precomputed").fit(K_ll[best], y[lab]).predict(K_ul[best])
        extra = {"chosen": names[best]}
    elif method == "SVC features":
        from sklearn.svm import SVC
        lab = ~unlabelled
        predicted = y.copy()
        predicted[unlabelled] = SVC().fit(X[lab], y[lab]).predict(X[unlabelled])
    else:
        raise SystemExit(f"unknown method {method}")
    seconds = time.perf_counter() - start
    accuracy = float(np.mean(predicted[unlabelled] == labels[unlabelled]))
    out = {"seconds": seconds, "peak_mb": peak_mb() - base, "accuracy": accuracy, **extra}
    if "--labels" in sys.argv:
        out["labels"] = predicted[unlabelled].tolist()
    print(json.dumps(out))
    """
)

ESTIMATORS = ["ESKL", "EMKL", "REKL"]


def load():
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def run(method, n, params, dense, timeout, labels=False, separation=3.0):
    argv = [sys.executable, "-c", CHILD, method, str(n), json.dumps(params), "dense" if dense else "operators"]
    argv.append(str(separation))
    try:
        out = subprocess.run(argv + (["--labels"] if labels else []), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no answer in {timeout:.0f} s"}
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"rc {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def part_accuracy(args):
    rows = [
        "| estimator | n | rank | seconds | peak MB | accuracy | agreement with dense | iterations |",
        "|---|---|---|---|---|---|---|---|",
    ]
    extra = {"solver_choice": json.loads(args.solver_choice)} if args.solver_choice != "{}" else {}
    for n in args.sizes:
        for method in args.methods:
            dense = (
                {}
                if args.no_dense
                else run(method, n, {"rank": None}, True, args.timeout, labels=True, separation=args.separation)
            )
            results = ([] if args.no_dense else [(None, dense)]) + [
                (r, run(method, n, {"rank": r, **extra}, True, args.timeout, labels=True, separation=args.separation))
                for r in args.ranks
                if r < n
            ]
            for rank, res in results:
                if "error" in res:
                    rows.append(f"| {method} | {n} | {rank or 'dense'} | {res['error']} | | | | |")
                    print(rows[-1], flush=True)
                    continue
                agree = "-"
                if rank is not None and "labels" in dense:
                    agree = f"{sum(a == b for a, b in zip(res['labels'], dense['labels'])) / len(res['labels']):.3f}"
                rows.append(
                    f"| {method} | {n} | {rank or 'dense'} | {res['seconds']:.1f} | {res['peak_mb']:.0f} | "
                    f"{res['accuracy']:.3f} | {agree} | {res['iterations']} |"
                )
                print(rows[-1], flush=True)
    return rows


def part_scale(args):
    rows = ["| method | n | seconds | peak MB | accuracy | details |", "|---|---|---|---|---|---|"]
    for n in args.sizes:
        for method in args.methods + ([] if args.no_baselines else ["SVC best similarity", "SVC features"]):
            res = run(method, n, {}, False, args.timeout, separation=args.separation)
            if "error" in res:
                rows.append(f"| {method} | {n} | {res['error']} | | | |")
            else:
                details = ", ".join(
                    f"{k} {v}" if not isinstance(v, float) else f"{k} {v:.2g}"
                    for k, v in res.items()
                    if k not in ("seconds", "peak_mb", "accuracy")
                )
                rows.append(
                    f"| {method} | {n} | {res['seconds']:.1f} | {res['peak_mb']:.0f} | "
                    f"{res['accuracy']:.3f} | {details} |"
                )
            print(rows[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["accuracy", "scale"], required=True)
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--ranks", type=int, nargs="+", default=[10, 30, 50])
    parser.add_argument("--methods", nargs="+", default=ESTIMATORS)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--no-dense", action="store_true", help="accuracy part: the rank fits only")
    parser.add_argument("--no-baselines", action="store_true", help="scale part: the three estimators only")
    parser.add_argument(
        "--solver-choice",
        default="{}",
        help="JSON: _solver_choice constants set in each child, e.g. '{\"SIMILARITY_BLOCK_MAX_STEPS\": 30}'",
    )
    parser.add_argument("--separation", type=float, default=3.0, help="of the mixture's centres (scale.py: 3)")
    parser.add_argument("--out", default=None, help="append the table to this markdown file")
    args = parser.parse_args()
    if args.sizes is None:
        args.sizes = [1000, 2000, 3000] if args.part == "accuracy" else [3000, 10000, 20000]
    started, load_start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load()
    rows = part_accuracy(args) if args.part == "accuracy" else part_scale(args)
    header = (
        f"\n`python bench/bench_similarity_scale.py --part {args.part} --sizes "
        f"{' '.join(map(str, args.sizes))} --methods {' '.join(args.methods)} --separation {args.separation}"
        f"{' --ranks ' + ' '.join(map(str, args.ranks)) if args.part == 'accuracy' else ''}"
        f"{' --no-dense' if args.no_dense else ''}{' --no-baselines' if args.no_baselines else ''}"
        f"{' --solver-choice ' + repr(args.solver_choice) if args.solver_choice != '{}' else ''}` "
        f"({started}; load average {load_start} at the start, "
        f"{load()} at the end; 2 cores shared with other work: times are noisy)\n"
    )
    text = header + "\n" + "\n".join(rows) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text)


if __name__ == "__main__":
    main()
