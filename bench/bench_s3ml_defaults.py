"""The evidence for S3ML's prior="auto" / beta="auto": 1-NN error of every candidate, of the
former default, of the new one and of Euclidean 1-NN, and the selection's cost.

    python bench/bench_s3ml_defaults.py error [--data iris crabs ...] [--splits 5] [--out FILE]
    python bench/bench_s3ml_defaults.py cost [--n 10000] [--out FILE]

Development sets only (issue 47's held-back rule): bench/suite_metric.py's six (iris, wine,
breast cancer, sonar, ionosphere, glass) and bench/heldback_data.py's ``load_development``
crabs and penguins (4 and 6 groups: species x sex), skulls (epoch), pima, synth.

error: ``--splits`` draws (seed = split) of 20 % of every class labelled (bench/reproduce_s3ml.py's
``split``), the rest unlabelled; 1-NN error (%) of the unlabelled points against the labelled
ones in each metric (``transform``), mean ± std. Rows: Euclidean (standardised features); the
former default (prior="identity", beta = 0.9 beta_max: the first candidate); the new default
(prior="auto", beta="auto"); each candidate (prior x beta fraction) fitted with explicit values;
"best candidate": the lowest test error among them per split (what a perfect criterion would
get). "time ratio": CPU time of the default fit over that of the former default's explicit fit,
median over splits.

cost: the scale benchmark's mixture (kernlearn.datasets._mixture.make_labelled_mixture, 10
features, 5 classes, 10 % labelled) at ``--n`` points: the default fit against the former
default (explicit prior="identity" and its beta), wall and CPU seconds.
"""

import argparse
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).parent))
from kernlearn.metric import S3ML  # noqa: E402
from reproduce_s3ml import one_nn_error, split  # noqa: E402

SETS = ("iris", "wine", "breast cancer", "sonar", "ionosphere", "glass", "crabs", "penguins", "skulls", "pima", "synth")


def load(name):
    if name in ("crabs", "penguins", "skulls", "pima", "synth"):
        from heldback_data import load_development

        X, y, other = load_development(name)
        if name in ("crabs", "penguins"):  # the groups: species x sex
            y = y * (other.max() + 1) + other
        return X, y
    from suite_metric import DATA

    return DATA[name]()


def _fit(model, X, ys):
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, ys)
    return model, time.process_time() - start


def section_error(args):
    data = " ".join(shlex.quote(d) for d in args.data)
    lines = [
        f"## 1-NN error (%) of the unlabelled points, 20 % labelled, {args.splits} draws, mean ± std",
        "",
        f"`python bench/bench_s3ml_defaults.py error --splits {args.splits} --data {data}` "
        f"({time.strftime('%Y-%m-%d')})",
        "",
    ]
    candidates = [(p, f) for p in ("identity", "covariance") for f in (0.9, 0.45, 0.0)]
    names = [f"{p} {f:g}" for p, f in candidates]
    header = ["data", "n", "groups", "Euclidean", "former default", "new default", "best candidate", *names]
    header += ["time ratio", "chosen"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name in args.data:
        X, y = load(name)
        errors = {key: [] for key in ["Euclidean", "former default", "new default", "best candidate", *names]}
        ratios, chosen = [], []
        for draw in range(args.splits):
            labelled, unlabelled = split(y, np.random.default_rng(draw), 0.2)
            ys = np.full_like(y, -1)
            ys[labelled] = y[labelled]
            model, seconds = _fit(S3ML(random_state=draw), X, ys)
            c = model.candidates_
            errors["new default"].append(100 * one_nn_error(model.transform(X), y, labelled, unlabelled))
            errors["Euclidean"].append(100 * one_nn_error(StandardScaler().fit_transform(X), y, labelled, unlabelled))
            per_candidate = []
            for key, prior, fraction in zip(names, *zip(*candidates)):
                index = np.flatnonzero((c["prior"] == prior) & np.isclose(c["beta_fraction"], fraction))
                if index.size == 0:  # a singular covariance prior: left out by the selection
                    continue
                explicit, cost = _fit(S3ML(prior=prior, beta=float(c["beta"][index[0]]), random_state=draw), X, ys)
                error = 100 * one_nn_error(explicit.transform(X), y, labelled, unlabelled)
                errors[key].append(error)
                per_candidate.append(error)
                if key == names[0]:
                    errors["former default"].append(error)
                    ratios.append(seconds / cost)
            errors["best candidate"].append(min(per_candidate))
            chosen.append(f"{model.prior_[:3]} {model.beta_ / model.beta_max_:.2g}")
        cells = [name, str(len(y)), str(len(np.unique(y)))]
        cells += [f"{np.mean(v):.1f} ± {np.std(v):.1f}" if v else "" for v in errors.values()]
        cells += [f"{np.median(ratios):.1f}", ", ".join(chosen)]
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def section_cost(args):
    from kernlearn.datasets._mixture import make_labelled_mixture

    X, _, y = make_labelled_mixture(args.n)
    lines = [
        f"## Fit time of the default against the former default, mixture of {args.n:,} points",
        "",
        f"`python bench/bench_s3ml_defaults.py cost --n {args.n}` ({time.strftime('%Y-%m-%d')})",
        "",
        "| fit | prior_ | beta_ / beta_max_ | wall seconds | CPU seconds |",
        "|---|---|---|---|---|",
    ]
    rows = []
    for _ in range(2):  # interleaved, twice: the machine is shared
        start = time.perf_counter()
        auto, cpu = _fit(S3ML(random_state=0), X, y)
        rows.append(("default (prior and beta auto)", auto, time.perf_counter() - start, cpu))
        beta = float(auto.candidates_["beta"][0])
        start = time.perf_counter()
        former, cpu = _fit(S3ML(prior="identity", beta=beta, random_state=0), X, y)
        rows.append(("former default (identity, 0.9 beta_max)", former, time.perf_counter() - start, cpu))
    for label, model, wall, cpu in rows:
        lines.append(f"| {label} | {model.prior_} | {model.beta_ / model.beta_max_:.2g} | {wall:.1f} | {cpu:.1f} |")
        print(lines[-1], flush=True)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("section", choices=("error", "cost"))
    parser.add_argument("--data", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = section_error(args) if args.section == "error" else section_cost(args)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
