"""EMKL at its defaults: how it stops, and its certificate with and without the suffix bound
(issue 47), on development data only.

    python bench/bench_emkl_convergence.py [--splits 3] [--out bench/results/emkl_convergence.md]

Protocol: bench/suite_similarity.py's (balanced transductive splits, seeds 3000 + split; the
suite's three similarities, TL1 / tanh / -distance, each scaled to tr S_+ = n) on sonar and
ionosphere (40 / 20 and 50 / 25 points per class) and on the Pima development set of
bench/heldback_data.py (532 points; 60 / 30 per class, the suite's diabetes sizes), plus the
issue's case: all 532 Pima points, 70 % labelled (stratified, seed 0), rank 30 (``rank="auto"``
above 500 points). ``EMKL()`` with every parameter at its default; "before" runs the certificate
on the full aggregate of linearisations only (``_mirror_descent.SUFFIX_BOUND = False``), "after"
also on the iterates since the last power of two. Columns: iterations, stop reasons, the final
certified relative gap (best f - lower bound) / best f, fit time, test accuracy (%).
"""

import argparse
import datetime
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).parent))
from heldback_data import load_development  # noqa: E402
from kernlearn.similarity import EMKL  # noqa: E402
from kernlearn.similarity import _mirror_descent as md  # noqa: E402
from reproduce_similarity import balanced_split, load, similarities  # noqa: E402
from tables import to_markdown  # noqa: E402

PER_CLASS = {"sonar": (40, 20), "ionosphere": (50, 25), "pima": (60, 30)}


def problems(name, splits):
    """(S, y with -1 for the test points, test indices) per split."""
    if name.startswith("pima"):
        from sklearn.preprocessing import StandardScaler

        X, y, _ = load_development("pima")
        X = StandardScaler().fit_transform(X)
    else:
        X, y = load(name)
    if name == "pima (532, rank 30)":
        train, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=0)
        y_semi = y.copy()
        y_semi[test] = -1
        yield similarities(X), y_semi, test, y
        return
    for split in range(splits):
        tr, te = balanced_split(y, *PER_CLASS[name], np.random.default_rng(3000 + split))
        pts = np.concatenate([tr, te])
        y_semi = np.full(len(pts), -1)
        y_semi[: len(tr)] = y[tr]
        yield similarities(X[pts]), y_semi, np.arange(len(tr), len(pts)), y[pts]


def fit(S, y_semi, test, y, suffix):
    md.SUFFIX_BOUND = suffix
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        est = EMKL(random_state=0).fit(S, y_semi)
        elapsed = time.perf_counter() - start
    md.SUFFIX_BOUND = True
    pred = est.classes_[(est.decision_transductive_[test] > 0).astype(int)]
    return {
        "n_iter": int(np.max(est.n_iter_)),
        "reason": est.stop_reason_,
        "gap": float(np.max(est.gap_ / np.abs(est.objective_))),
        "time": elapsed,
        "acc": 100 * np.mean(pred == y[test]),
        "warned": len(caught),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "emkl_convergence.md")
    args = parser.parse_args(argv)
    rows = []
    for name in ("sonar", "ionosphere", "pima", "pima (532, rank 30)"):
        runs = {False: [], True: []}
        for S, y_semi, test, y in problems(name, args.splits):
            for suffix in (False, True):
                runs[suffix].append(fit(S, y_semi, test, y, suffix))
        for suffix, label in ((False, "before (full aggregate)"), (True, "after (+ suffix)")):
            r = runs[suffix]
            rows.append(
                {
                    "data set": name,
                    "certificate": label,
                    "iterations": ", ".join(str(x["n_iter"]) for x in r),
                    "stop": ", ".join(str(x["reason"]) for x in r),
                    "gap / f": ", ".join(f"{x['gap']:.3f}" for x in r),
                    "fit s": f"{np.mean([x['time'] for x in r]):.1f}",
                    "accuracy": f"{np.mean([x['acc'] for x in r]):.1f} ± {np.std([x['acc'] for x in r]):.1f}",
                    "warnings": sum(x["warned"] for x in r),
                }
            )
            print(rows[-1], flush=True)
    text = (
        f"# EMKL at its defaults: stopping and certificate, {datetime.date.today()}\n\n"
        f"`python bench/bench_emkl_convergence.py {' '.join(argv if argv is not None else sys.argv[1:])}`\n\n"
        + to_markdown(rows)
        + "\n"
    )
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
