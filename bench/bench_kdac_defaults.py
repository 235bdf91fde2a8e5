"""KDAC's default q rule and novelty weight, measured on development data only (issue 47).

    python bench/bench_kdac_defaults.py [--seeds 5] [--datasets ...] [--sections ...]
                                        [--out bench/results/kdac_defaults.md]

Data (development sets only; the held-back sets of bench/heldback_data.py are not read here):

* the paper's sets of bench/suite_kdac.py (Faces, Moon, MoonN, LG, Moon1000, LG1000), with its
  preprocessing, existing and alternative labellings and k;
* crabs and penguins (bench/heldback_data.py's ``load_development``): standardised features,
  species given, sex hidden, k = 2;
* Mixture: :func:`mixture`, 10 features with two independent structures (3 groups given in
  features 0-1, the hidden 2 groups in features 2-3, six uniform noise features), standardised,
  redrawn for each seed from that seed.

Rows (each fitted with ``random_state`` = the seed, seeds 0 .. --seeds - 1): the former default
(``n_components="init-gap"``, ``lambda_=1``, ``lambda_scale="absolute"``), the new default
(``KDAC(k)``), the candidate rules we chose among, q = 1 .. d fixed at the default lambda, a
lambda sweep at the default q, and the first baseline: orthogonal projection away from the
existing clusters' means + KMeans (bench/suite_kdac.py's). Scores: NMI (geometric) with the
hidden labelling (higher is better) and with the given one (lower is better), mean ± std over
the seeds; q chosen (median); fit time (median seconds). Sections: "rules" (former default,
candidates, baseline), "default" (the former and the new default and the baseline only), "q"
(fixed q), "lambda" (the sweep).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).parent))
from heldback_data import load_development  # noqa: E402
from kernlearn.cluster import KDAC  # noqa: E402
from kernlearn.evaluation import nmi  # noqa: E402
from suite_kdac import dataset, orthogonal_residual  # noqa: E402
from tables import to_markdown, write_report  # noqa: E402

PAPER = ("Faces", "Moon", "MoonN", "LG", "Moon1000", "LG1000")
DATASETS = PAPER + ("crabs", "penguins", "Mixture")
SECTIONS = ("default", "rules", "q", "lambda")
LAMBDAS = (0.1, 1.0, 10.0, 100.0, 1000.0)

OLD = dict(n_components="init-gap", lambda_=1.0, lambda_scale="absolute")
CANDIDATES = {
    "former default: init-gap, lambda 1 absolute": OLD,
    "init-gap, lambda 1 relative": dict(n_components="init-gap", lambda_=1.0),
    "init-gap, lambda 10 relative": dict(n_components="init-gap", lambda_=10.0),
    "residual, lambda 1 relative": dict(n_components="residual", lambda_=1.0),
    "residual, lambda 10 relative": dict(n_components="residual", lambda_=10.0),
    "residual, lambda 1 absolute": dict(n_components="residual", lambda_=1.0, lambda_scale="absolute"),
}


def mixture(seed, n=300):
    """10 features, two independent structures: 3 groups given (features 0-1, centres on a circle
    of radius 4), 2 hidden groups (features 2-3, centres 3.0 apart in each), 6 uniform noise
    features; standardised. Returns (X, given, hidden)."""
    rng = np.random.RandomState(seed)
    given = rng.randint(0, 3, n)
    hidden = rng.randint(0, 2, n)
    X = np.hstack([rng.normal(size=(n, 4)), rng.uniform(-1.7, 1.7, size=(n, 6))])
    X[:, 0] += 4.0 * np.cos(2 * np.pi * given / 3)
    X[:, 1] += 4.0 * np.sin(2 * np.pi * given / 3)
    X[:, 2:4] += 3.0 * hidden[:, None]
    return StandardScaler().fit_transform(X), given, hidden


def load(name, seed):
    """(X, given, hidden, k)."""
    if name in PAPER:
        return dataset(name)
    if name == "Mixture":
        X, given, hidden = mixture(seed)
        return X, given, hidden, 2
    X, species, sex = load_development(name)
    return StandardScaler().fit_transform(X), species, sex, 2


def configurations(section, d, k, qs=None):
    if section == "default":
        return {"former default: init-gap, lambda 1 absolute": OLD, "new default: residual, lambda 100 relative": {}}
    if section == "rules":
        out = dict(CANDIDATES)
        out["q = k, lambda 10 relative"] = dict(n_components=min(k, d))
        return out
    if section == "q":
        return {f"q = {q}": dict(n_components=q) for q in (qs or range(1, d + 1)) if q <= d}
    return {f"lambda {lam:g} relative": dict(lambda_=lam) for lam in LAMBDAS}


def run(name, section, seeds, qs=None):
    rows = []
    results = {}
    for seed in range(seeds):
        X, given, hidden, k = load(name, seed)
        configs = configurations(section, X.shape[1], k, qs)
        for label, params in configs.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                model = KDAC(k, random_state=seed, **params).fit(X, given)
                seconds = time.perf_counter() - start
            results.setdefault(label, []).append(
                (nmi(hidden, model.labels_), nmi(given, model.labels_), model.n_components_, seconds)
            )
        if section in ("default", "rules"):
            start = time.perf_counter()
            labels = KMeans(k, n_init=10, random_state=seed).fit(orthogonal_residual(X, given)).labels_
            seconds = time.perf_counter() - start
            results.setdefault("orthogonal projection + KMeans", []).append(
                (nmi(hidden, labels), nmi(given, labels), X.shape[1] - len(np.unique(given)) + 1, seconds)
            )
        print(f"{name} {section} seed {seed} done", flush=True)
    for label, values in results.items():
        hidden_nmi, given_nmi, q, seconds = (np.array(v, dtype=float) for v in zip(*values))
        rows.append(
            {
                "data set": f"{name} ({X.shape[0]} x {X.shape[1]}, k = {k})",
                "configuration": label,
                "NMI hidden ↑": f"{hidden_nmi.mean():.3f} ± {hidden_nmi.std():.3f}",
                "NMI given ↓": f"{given_nmi.mean():.3f}",
                "q": f"{np.median(q):g}",
                "fit (s)": f"{np.median(seconds):.2f}",
            }
        )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--sections", nargs="+", default=list(SECTIONS), choices=SECTIONS)
    parser.add_argument("--qs", type=int, nargs="+", default=None, help="the fixed q of section q (default 1 .. d)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    command = "python bench/bench_kdac_defaults.py " + " ".join(sys.argv[1:] if argv is None else argv)
    start = time.perf_counter()
    report = [f"Generated by `{command}` on {time.strftime('%Y-%m-%d', time.gmtime())}.\n"]
    for section in args.sections:
        rows = []
        for name in args.datasets:
            rows += run(name, section, args.seeds, args.qs)
        report += [f"\n### {section}\n", to_markdown(rows)]
    report.append(f"\nWall time: {time.perf_counter() - start:.0f} s (2 cores shared with other jobs).")
    text = "\n".join(report)
    print(text)
    if args.out:
        write_report(args.out, report)


if __name__ == "__main__":
    main()
