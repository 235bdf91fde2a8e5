"""SimpleNPKL("linear")'s default C: the fixed 0.5 / d against the rule that keeps the kernel
nonzero (issue 47), on the development sets only.

    python bench/bench_npkl_linear_c.py [--datasets iris skulls] [--repeats 5] [--factors 1.5 2 4]
                                        [--out bench/results/npkl_linear_c.md]

Protocol: bench/suite.py's held-out protocol (30 % of the points labelled, every pair among them;
ARI in % on the 70 % in no pair, KernelKMeans with k = the number of classes on ``embedding_``,
a zero kernel scored as one cluster, as bench/suite.py does), seeds 0 .. repeats - 1. Data: the
suite's seven sets (bench/suite.py ``load``) and the issue's development sets
(bench/heldback_data.py ``load_development``: crabs, penguins, pima, synth, skulls; standardised).
The held-back sets are not loaded.

Columns: d, the pairs per point; C_0, the smallest C for which A = C T - L has a positive
eigenvalue (``kernlearn.npkl._zero_kernel_threshold``, run to convergence), as a multiple of the
old default 0.5 / d; for the old default and for the rule max(0.5 / d, f C_0) at each factor f:
the share of zero kernels and the ARI (mean ± std). ``fit s`` is the mean time of the default
fit before (C = 0.5 / d given) and after (C=None: the rule at the shipped factor, its threshold
search included).
"""

import argparse
import datetime
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).parent))
from heldback_data import DEVELOPMENT, load_development  # noqa: E402
from kernlearn import npkl  # noqa: E402
from kernlearn._utils._graph_arrays import knn_laplacian_arrays  # noqa: E402
from kernlearn.npkl import SimpleNPKL  # noqa: E402
from suite import DATASETS, kernel_kmeans, load, protocol_pairs  # noqa: E402
from tables import to_markdown  # noqa: E402


def data(name):
    if name in DEVELOPMENT:
        X, y, _ = load_development(name)
        return np.ascontiguousarray(StandardScaler().fit_transform(X)), np.unique(y, return_inverse=True)[1]
    return load(name)


def repetition(X, y, seed, factors):
    k = np.unique(y).size
    pairs, labels, scored = protocol_pairs(y, "held-out", seed)
    n = X.shape[0]
    d = 2 * len(pairs) / np.unique(pairs).size
    old = npkl.LINEAR_C_TIMES_PAIRS_PER_POINT / d
    L = knn_laplacian_arrays(X, 5, "symmetric", 1)
    C_0 = npkl._zero_kernel_threshold(L, n, pairs, labels, old, 0.0, seed)
    out = {"d": d, "C_0 / old": C_0 / old}

    def fit(C):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = SimpleNPKL("linear", C=C, random_state=seed).fit(X, pairs=pairs, pair_labels=labels)
        elapsed = time.perf_counter() - start
        assignment = kernel_kmeans(model.embedding_, k, seed)
        ari = 100 * adjusted_rand_score(y[scored], assignment[scored])
        return model.embedding_.shape[1] == 0, ari, elapsed, model

    out["old"] = fit(old)[:3]
    for f in factors:
        out[f] = fit(max(old, f * C_0))[:3]
    zero, ari, elapsed, model = fit(None)  # the shipped default, threshold search included
    out["default"] = (zero, ari, elapsed)
    out["default C / old"] = model.C_ / old
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS) + list(DEVELOPMENT))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--factors", type=float, nargs="+", default=[1.5, 2.0, 4.0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "npkl_linear_c.md")
    args = parser.parse_args(argv)
    rows = []
    for name in args.datasets:
        X, y = data(name)
        runs = [repetition(X, y, seed, args.factors) for seed in range(args.repeats)]

        def cells(key, runs=runs):
            zero = np.mean([r[key][0] for r in runs])
            ari = np.array([r[key][1] for r in runs])
            return f"{zero:.0%}", f"{ari.mean():.1f} ± {ari.std():.1f}"

        row = {
            "data set": name,
            "n": X.shape[0],
            "d": f"{np.mean([r['d'] for r in runs]):.0f}",
            "C_0 / (0.5/d) (max)": f"{max(r['C_0 / old'] for r in runs):.2f}",
        }
        row["zero, 0.5/d"], row["ARI, 0.5/d"] = cells("old")
        for f in args.factors:
            row[f"zero, f={f:g}"], row[f"ARI, f={f:g}"] = cells(f)
        row["default C / (0.5/d) (max)"] = f"{max(r['default C / old'] for r in runs):.2f}"
        row["fit s, 0.5/d"] = f"{np.mean([r['old'][2] for r in runs]):.2f}"
        row["fit s, default"] = f"{np.mean([r['default'][2] for r in runs]):.2f}"
        rows.append(row)
        print(row, flush=True)
    command = "python bench/bench_npkl_linear_c.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = (
        f"# SimpleNPKL linear loss: default C, {datetime.date.today()}\n\n`{command.strip()}`\n\n"
        + to_markdown(rows)
        + "\n"
    )
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
