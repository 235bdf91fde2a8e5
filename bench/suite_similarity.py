"""ESKL / EMKL / REKL against an SVC on each single similarity and on their average.

    python bench/suite_similarity.py [--datasets sonar ionosphere] [--splits 2] [--max-iter 50]
                                     [--out bench/results/suite_similarity.md]

For every data set and split (balanced, transductive, as ``bench/reproduce_similarity.py``):
three indefinite similarities over the training + test points (TL1 with tau = the median
distance, tanh(<x, x'>/d - 0.5), the negative Euclidean distance; each scaled to tr S_+ = n:
``reproduce_similarity.similarities``), then

* SVC on each single similarity S_i made a kernel by a spectrum transform: Clip (= Denoise,
  negative eigenvalues set to 0) and Flip (|eigenvalues|), and on the average similarity
  (1/m) sum_i S_i, Clip and Flip;
* ESKL, EMKL, REKL on the m similarities (loss "fro", Denoise start, tol 1e-3,
  n_iter_no_change 20, max_iter ``--max-iter``), tuned; and each at its defaults (no parameter
  set), with the warnings the default fit raised.

Verdict column: each learned row against "SVC best by CV" (per split, the single-similarity or
average SVC with the best CV score: what a user comparing the options would deploy), paired
over the splits: "win" / "loss" when the mean difference is beyond twice its standard error.

Tuning budget, the same for every method: C from (0.01, 0.1, 1, 10, 100) by ``--folds``-fold
stratified CV on the training points (the held-out fold joins the unlabelled points), ties to
the smaller C; the learned methods also choose rho from (0.1, 1, 10) in the same CV (15
candidates instead of 5: that is their extra parameter, not extra folds). Each row reports test
accuracy (mean ± std over the splits), and for the learned methods the mean start_change_
(||K - K^(1)||_F / ||K^(1)||_F) and how many final fits stopped without leaving their start.
"""

import argparse
import functools
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from kernlearn.similarity import EMKL, ESKL, REKL  # noqa: E402
from repetitions import add_dask_option, dask_backend, repeat  # noqa: E402
from reproduce_similarity import (  # noqa: E402
    C_GRID,
    balanced_split,
    cv_learned,
    cv_svc,
    fit_learned,
    load,
    similarities,
    spectrum,
    svc_scores,
)
from tables import paired_verdict, to_markdown, write_report  # noqa: E402

PER_CLASS = {"sonar": (40, 20), "ionosphere": (50, 25), "diabetes": (60, 30)}
SIM_NAMES = ("TL1", "tanh", "-dist")
RHO_GRID = (0.1, 1.0, 10.0)
# The baseline a user would pick instead: per split, the SVC column (similarity x transform, 8 of
# them) with the best CV score, its C tuned in the same CV.
BASELINE = "SVC best by CV"


def verdict(values, baseline):
    """The paired verdict (bench/tables.py) with the mean difference."""
    return f"{paired_verdict(values, baseline)} ({float(np.mean(np.subtract(values, baseline))):+.1f})"


def svc_columns(S, ys, tr, te, folds, seed, average):
    """SVC on each single similarity of S (n, n, m) (and on their average if ``average``) made a
    kernel by Clip and by Flip, C by ``folds``-fold CV on the training points ``tr``: returns
    ({column: (test accuracy %, C)}, (test accuracy %, description) of the column with the best
    CV score, the baseline a user comparing the options would deploy)."""
    singles = [(SIM_NAMES[i], S[:, :, i]) for i in range(S.shape[2])]
    if average:
        singles.append(("average", S.mean(axis=-1)))
    columns, best_cv = {}, (-1.0, None, None)
    for sim, Si in singles:
        for method, label in (("denoise", "Clip"), ("flip", "Flip")):
            K = spectrum(Si, method)
            C, cv_score = cv_svc(K, ys, tr, folds, seed)
            a = svc_scores(K, ys, tr, te, C)[0]
            columns[f"SVC {label}({sim})"] = (a, C)
            if cv_score > best_cv[0]:
                best_cv = (cv_score, a, f"{label}({sim}) C={C:g}")
    return columns, best_cv[1:]


def default_fit(Est, S, ys, tr, te):
    """(test accuracy %, estimator, warnings raised) of ``Est()`` with every parameter at its
    default, fitted transductively on S with the labels of ``tr`` (the rest unlabelled)."""
    y_semi = np.full(len(ys), -1)
    y_semi[tr] = ys[tr]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = Est().fit(S, y_semi)
    return 100 * np.mean(est.transduction_[te] == ys[te]), est, list(caught)


def _similarity_split(name, X, y, seed, folds, max_iter, split):
    """Accuracies, start changes, stalls, chosen grid points and warnings of one split."""
    acc, change, stalled, chosen, warned = {}, {}, {}, {}, {}
    rng = np.random.default_rng(seed + split)
    tr, te = balanced_split(y, *PER_CLASS[name], rng)
    pts = np.concatenate([tr, te])
    S, ys = similarities(X[pts]), y[pts]
    tr_l, te_l = np.arange(len(tr)), np.arange(len(tr), len(pts))
    columns, best = svc_columns(S, ys, tr_l, te_l, folds, split, average=True)
    for col, (a, C) in columns.items():
        acc.setdefault(col, []).append(a)
        chosen.setdefault(col, []).append(f"{C:g}")
    acc.setdefault(BASELINE, []).append(best[0])
    chosen.setdefault(BASELINE, []).append(best[1])
    for Est in (ESKL, EMKL, REKL):
        col = Est.__name__
        params = dict(loss="fro", max_iter=max_iter)
        C, rho = cv_learned(Est, S, ys, tr_l, folds, split, RHO_GRID, **params)
        a, _, est, _ = fit_learned(Est, S, ys, tr_l, te_l, C=C, rho=rho, **params)
        acc.setdefault(col, []).append(a)
        chosen.setdefault(col, []).append(f"{C:g}/{rho:g}")
        change.setdefault(col, []).append(float(est.start_change_[0]))
        stalled[col] = stalled.get(col, 0) + int(est.stop_reason_ == "stalled_at_start")
        # the estimator as a user first meets it: every parameter at its default
        col = f"{Est.__name__} (defaults)"
        a, est, caught = default_fit(Est, S, ys, tr_l, te_l)
        acc.setdefault(col, []).append(a)
        chosen.setdefault(col, []).append(f"{est.C:g}/{est.rho:g}")
        change.setdefault(col, []).append(float(est.start_change_[0]))
        stalled[col] = stalled.get(col, 0) + int(est.stop_reason_ == "stalled_at_start")
        warned.setdefault(col, []).extend(sorted({w.category.__name__ for w in caught}))
    return acc, change, stalled, chosen, warned


def similarity_rows(datasets=("sonar", "ionosphere", "diabetes"), splits=5, folds=3, max_iter=50, seed=3000):
    """One row per (data set, method): test accuracy of SVC on each single similarity (Clip /
    Flip) and on the average similarity, and of ESKL / EMKL / REKL on all of them (module
    docstring for the protocol and the tuning budget)."""
    rows = []
    for name in datasets:
        X, y = load(name)
        acc, change, stalled, chosen, warned = {}, {}, {}, {}, {}
        start = time.perf_counter()
        # bench/repetitions.py: the repetitions one after another here, or as tasks on a Dask cluster
        one = functools.partial(_similarity_split, name, X, y, seed, folds, max_iter)
        for split, (part_acc, part_change, part_stalled, part_chosen, part_warned) in enumerate(
            repeat(one, range(splits))
        ):
            for key, values in part_acc.items():
                acc.setdefault(key, []).extend(values)
            for key, values in part_change.items():
                change.setdefault(key, []).extend(values)
            for key, count in part_stalled.items():
                stalled[key] = stalled.get(key, 0) + count
            for key, values in part_chosen.items():
                chosen.setdefault(key, []).extend(values)
            for key, values in part_warned.items():
                warned.setdefault(key, []).extend(values)
            print(f"{name} split {split}: " + ", ".join(f"{c} {v[-1]:.1f}" for c, v in acc.items()), flush=True)
        seconds = time.perf_counter() - start
        for col, values in acc.items():
            row = {
                "data set": name,
                "method": col,
                "accuracy": f"{np.mean(values):.1f} ± {np.std(values):.1f}",
                "chosen C (C/rho)": ", ".join(chosen[col]),
            }
            if col in change:
                row["start_change_"] = f"{np.mean(change[col]):.3g}"
                row["stalled at start"] = f"{stalled[col]}/{splits}"
                row[f"vs {BASELINE}"] = verdict(values, acc[BASELINE])
            if col in warned:
                row["warnings (defaults)"] = ", ".join(sorted(set(warned[col]))) or "none"
            rows.append(row)
        print(f"{name}: {seconds:.0f} s", flush=True)
    return rows


def rekl_start_check(datasets=("sonar", "ionosphere"), splits=3, seed=3000):
    """REKL() from its Denoise start against REKL(init="identity", max_iter=1000) on the suite's
    splits: does the stall at the start mean the start is as good as the method gets?"""
    rows = []
    for name in datasets:
        X, y = load(name)
        for split in range(splits):
            rng = np.random.default_rng(seed + split)
            tr, te = balanced_split(y, *PER_CLASS[name], rng)
            pts = np.concatenate([tr, te])
            S, ys = similarities(X[pts]), y[pts]
            y_semi = np.full(len(pts), -1)
            y_semi[: len(tr)] = ys[: len(tr)]
            row = {"data set": name, "split": split}
            runs = (("Denoise start (defaults)", {}), ("identity start", {"init": "identity", "max_iter": 1000}))
            for label, params in runs:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = REKL(**params).fit(S, y_semi)
                pred = est.classes_[(est.decision_transductive_[len(tr) :] > 0).astype(int)]
                acc = 100 * np.mean(pred == ys[len(tr) :])
                summary = f"{est.objective_[0]:.2f}, {est.n_iter_}, {est.stop_reason_}, {acc:.1f}"
                row[f"{label}: f, it, stop, acc"] = summary
            rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["sonar", "ionosphere", "diabetes"])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "suite_similarity.md")
    parser.add_argument(
        "--rekl-start-check", action="store_true", help="print only the REKL start table (the verdict's evidence)"
    )
    add_dask_option(parser)
    args = parser.parse_args(argv)
    if args.rekl_start_check:
        print(to_markdown(rekl_start_check()))
        return
    command_line = " ".join(sys.argv[1:] if argv is None else argv)
    start = time.perf_counter()
    with dask_backend(args.dask):
        rows = similarity_rows(args.datasets, args.splits, args.folds, args.max_iter)
    report = [
        "# Learned kernels from several similarities vs SVC on single / averaged similarities\n",
        "Generated by `bench/suite_similarity.py` " + command_line + ". Protocol and tuning budget "
        f"in the script's docstring: {args.splits} balanced splits per data set (per class train / test "
        f"{', '.join(f'{d} {PER_CLASS[d][0]}/{PER_CLASS[d][1]}' for d in args.datasets)}), C from {C_GRID} "
        f"by {args.folds}-fold CV for every method, rho from {RHO_GRID} in the same CV for ESKL / EMKL / "
        f"REKL, max_iter = {args.max_iter}. Test accuracy in %, mean ± std over the splits.\n",
        to_markdown(rows),
        f"\nTotal wall time: {time.perf_counter() - start:.0f} s (2 cores, shared).",
    ]
    write_report(args.out, report)


if __name__ == "__main__":
    main()
