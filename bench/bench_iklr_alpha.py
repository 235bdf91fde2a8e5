"""The evidence for IKLR's alpha="auto": test accuracy and fit time against fixed alphas and SVC.

    python bench/bench_iklr_alpha.py accuracy [--data pima synth ...] [--splits 5] [--out FILE]
    python bench/bench_iklr_alpha.py cost [--sizes 3000 30000] [--out FILE]

Development sets only (issue 47's held-back rule): bench/suite_iklr.py's six (breast cancer, UCI
breast, digits, sonar, ionosphere, moons) and bench/heldback_data.py's ``load_development``
crabs (species), penguins (species), pima, synth, skulls (epoch, 5 classes).

accuracy: ``--splits`` stratified 70 / 30 splits (seed = split); StandardScaler then the
classifier, fitted on the 70 %; test accuracy in %, mean ± std. Rows: IKLR at alpha=1e-4 (the old
default), alpha="auto" (validation log-loss, the default) and alpha="auto" with the accuracy
criterion (``_ALPHA_CRITERION = "accuracy"``) and with a grid in half-decades (13 points instead
of 7), fixed alphas 1e-6 ... 1e-1, and ``SVC()``. The time ratios are the fit's CPU time (all
threads; the machine is shared, and CPU time moves less with the other jobs than wall time) of
"auto" over that of 1e-4 on the same split (median over splits); "chosen" lists the default's
alpha_ per split (as log10).

cost: the Nystrom model (approximation="auto" above 5,000 points) on the diamonds table
(bench/diamonds.py), ``--sizes`` training rows (3,000: the exact model) and 10,000 test rows:
fit seconds (wall and CPU) and test accuracy of alpha=1e-4, of alpha="auto" and of one fit at
the alpha "auto" chose.
"""

import argparse
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).parent))
from kernlearn import indefinite  # noqa: E402
from kernlearn.indefinite import IndefiniteKernelLogisticRegression as IKLR  # noqa: E402

FIXED = (1e-6, 1e-4, 1e-3, 1e-2, 1e-1)
SETS = (
    "breast cancer",
    "UCI breast",
    "digits",
    "sonar",
    "ionosphere",
    "moons",
    "crabs",
    "penguins",
    "pima",
    "synth",
    "skulls",
)


def load(name):
    if name in ("crabs", "penguins", "pima", "synth", "skulls"):
        from heldback_data import load_development

        X, y, _ = load_development(name)
        return X, y
    from suite_iklr import DATA

    return DATA[name]()


HALF_DECADES = tuple(10.0 ** (-k / 2) for k in range(13))


def methods():
    """(name, estimator factory, module settings of kernlearn.indefinite for the fit)."""
    rows = [("IKLR 1e-4 (old default)", lambda: IKLR(alpha=1e-4), {})]
    rows.append(("IKLR auto (default)", lambda: IKLR(random_state=0), {}))
    rows.append(("IKLR auto, accuracy", lambda: IKLR(random_state=0), {"_ALPHA_CRITERION": "accuracy"}))
    rows.append(("IKLR auto, half-decades", lambda: IKLR(random_state=0), {"ALPHA_GRID": HALF_DECADES}))
    rows += [(f"IKLR {a:g}", lambda a=a: IKLR(alpha=a), {}) for a in FIXED if a != 1e-4]
    rows.append(("SVC()", SVC, {}))
    return rows


def section_accuracy(args):
    data = " ".join(shlex.quote(d) for d in args.data)
    lines = [
        f"## Test accuracy (%), {args.splits} stratified 70 / 30 splits, mean ± std",
        "",
        f"`python bench/bench_iklr_alpha.py accuracy --splits {args.splits} --data {data}` "
        f"({time.strftime('%Y-%m-%d')})",
        "",
    ]
    header = ["data", "n", "classes"] + [name for name, _, _ in methods()]
    header += ["auto / 1e-4 time", "half-decades / 1e-4 time", "chosen log10 alpha"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    defaults = {key: getattr(indefinite, key) for key in ("_ALPHA_CRITERION", "ALPHA_GRID")}
    for name in args.data:
        X, y = load(name)
        acc = {m: [] for m, _, _ in methods()}
        seconds = {m: [] for m, _, _ in methods()}
        chosen = []
        for split in range(args.splits):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=split)
            for method, make, settings in methods():
                for key, value in {**defaults, **settings}.items():
                    setattr(indefinite, key, value)
                model = make_pipeline(StandardScaler(), make())
                start = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(Xtr, ytr)
                seconds[method].append(time.process_time() - start)
                acc[method].append(100 * model.score(Xte, yte))
                if method == "IKLR auto (default)":
                    chosen.append(f"{np.log10(model[-1].alpha_):.1f}")
        for key, value in defaults.items():
            setattr(indefinite, key, value)
        base = np.array(seconds["IKLR 1e-4 (old default)"])
        cells = [name, str(len(y)), str(len(np.unique(y)))]
        cells += [f"{np.mean(acc[m]):.1f} ± {np.std(acc[m]):.1f}" for m, _, _ in methods()]
        for method in ("IKLR auto (default)", "IKLR auto, half-decades"):
            cells.append(f"{np.median(np.array(seconds[method]) / base):.1f}")
        cells.append(" ".join(chosen))
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def section_cost(args):
    from diamonds import load_diamonds

    X, y = load_diamonds()
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    test = order[:10_000]
    lines = [
        '## Fit time of alpha="auto" against one fit (diamonds, Ideal cut or not; test set of 10,000 rows)',
        "",
        f"`python bench/bench_iklr_alpha.py cost --sizes {' '.join(map(str, args.sizes))}` "
        f"({time.strftime('%Y-%m-%d')})",
        "",
        "| n | model | alpha | fit seconds (wall / CPU) | test accuracy % | alpha_ | alphas tried "
        "| ratio auto / fixed (wall / CPU) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n in args.sizes:
        train = order[10_000 : 10_000 + n]
        timing, chosen = {}, None
        for alpha in (1e-4, "auto", "chosen"):
            if alpha == "chosen":  # one fit at the alpha "auto" chose: the model the path selects
                alpha = chosen
            model = IKLR(alpha=alpha, random_state=0, n_jobs=2)
            start, cpu = time.perf_counter(), time.process_time()
            model.fit(X[train], y[train])
            timing[alpha] = (time.perf_counter() - start, time.process_time() - cpu)
            chosen = float(model.alpha_) if alpha == "auto" else chosen
            tried = "" if model.alpha_path_ is None else str(model.alpha_path_.size)
            ratio = ""
            if alpha == "auto":
                ratio = f"{timing['auto'][0] / timing[1e-4][0]:.2f} / {timing['auto'][1] / timing[1e-4][1]:.2f}"
            elif alpha != 1e-4:
                wall, cpu = (timing["auto"][i] / timing[alpha][i] for i in (0, 1))
                ratio = f"auto / this: {wall:.2f} / {cpu:.2f}"
            cells = [
                f"{n:,}",
                model.approximation_,
                str(alpha),
                f"{timing[alpha][0]:.1f} / {timing[alpha][1]:.1f}",
                f"{100 * model.score(X[test], y[test]):.2f}",
                f"{model.alpha_:.3g}",
                tried,
                ratio,
            ]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("section", choices=("accuracy", "cost"))
    parser.add_argument("--data", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3_000, 30_000])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = section_accuracy(args) if args.section == "accuracy" else section_cost(args)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
