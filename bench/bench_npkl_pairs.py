"""SimpleNPKL's default pairs from partially labelled y, and the C / G that go with them: all pairs
of labelled points against a fixed number of partners per labelled point, on the suite's held-out
protocol and on the scale benchmark's mixture.

    python bench/bench_npkl_pairs.py [--repeats 5] [--sizes 3000 10000]

Suite: bench/suite.py's held-out protocol (30 % of the points keep their label; ARI in % over the
points in no pair, KernelKMeans with k = the number of classes on the learned embedding), the same
seeds, the squared hinge (SimpleNPKL's default loss). Mixture: bench/scale.py's data (5 classes in
10 dimensions, 10 % labelled; ARI on the unlabelled points), one repetition.

Variants (pairs; C; G): the pair degree d = 2 m / (points in a pair).
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score

from kernlearn.constraints import from_labels
from kernlearn.datasets._mixture import make_labelled_mixture
from kernlearn.npkl import SimpleNPKL

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite import DATASETS, LABELLED, kernel_kmeans, load  # noqa: E402

VARIANTS = {
    "all pairs; C 0.3; G 1e-3 (before)": (None, lambda d, n: 0.3, lambda n: 1e-3),
    "5 partners; C 0.3; G 1e-3": (5, lambda d, n: 0.3, lambda n: 1e-3),
    "5 partners; C min(0.3, 2/d); G min(1e-3, 0.3/n)": (5, lambda d, n: min(0.3, 2 / d), lambda n: min(1e-3, 0.3 / n)),
    "5 partners; C min(0.3, 1/d); G min(1e-3, 0.1/n)": (5, lambda d, n: min(0.3, 1 / d), lambda n: min(1e-3, 0.1 / n)),
    "3 partners; C min(0.3, 2/d); G min(1e-3, 0.3/n)": (3, lambda d, n: min(0.3, 2 / d), lambda n: min(1e-3, 0.3 / n)),
    "all pairs; C min(0.3, 2/d); G min(1e-3, 0.3/n)": (
        None,
        lambda d, n: min(0.3, 2 / d),
        lambda n: min(1e-3, 0.3 / n),
    ),
}


def fit_score(X, y_partial, truth, scored, k, variant, seed):
    partners, c_rule, g_rule = VARIANTS[variant]
    pairs, labels = from_labels(y_partial, partners=partners, random_state=np.random.RandomState(seed))
    n = X.shape[0]
    d = 2 * len(pairs) / np.unique(pairs).size
    start = time.perf_counter()
    model = SimpleNPKL(C=c_rule(d, n), G=g_rule(n), random_state=seed).fit(X, pairs=pairs, pair_labels=labels)
    seconds = time.perf_counter() - start
    assignment = kernel_kmeans(model.embedding_, k, seed)
    return 100 * adjusted_rand_score(truth[scored], assignment[scored]), seconds, len(pairs), model.eigenvalues_.size


def suite_rows(repeats):
    print("### Suite, held-out protocol: ARI (%) mean +- std, mean pairs, mean fit seconds\n")
    print("| data set | n | " + " | ".join(VARIANTS) + " |")
    print("|---|---|" + "---|" * len(VARIANTS))
    for name in DATASETS:
        X, y = load(name)
        k = np.unique(y).size
        cells = []
        for variant in VARIANTS:
            scores, times, counts = [], [], []
            for seed in range(repeats):
                rng = np.random.RandomState(seed)
                labelled = rng.rand(y.size) < LABELLED
                partial = np.where(labelled, y, -1)
                scored = ~labelled
                s, t, m, _ = fit_score(X, partial, y, scored, k, variant, seed)
                scores.append(s), times.append(t), counts.append(m)
            cells.append(
                f"{np.mean(scores):.1f} ± {np.std(scores):.1f} ({np.mean(counts):.0f}; {np.mean(times):.2f} s)"
            )
        print(f"| {name} | {y.size} | " + " | ".join(cells) + " |", flush=True)


def mixture_rows(sizes):
    print("\n### Mixture (bench/scale.py's data): ARI on the unlabelled points, pairs, rank, fit seconds\n")
    print("| n | " + " | ".join(VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    for n in sizes:
        X, truth, partial = make_labelled_mixture(n)
        cells = []
        for variant in VARIANTS:
            if VARIANTS[variant][0] is None and n > 10000:
                cells.append("-")  # the 2^20-pair sample: minutes per fit, shown at 3,000 and 10,000
                continue
            s, t, m, r = fit_score(X, partial, truth, partial < 0, 5, variant, 0)
            cells.append(f"{s / 100:.3f} ({m} pairs; rank {r}; {t:.1f} s)")
        print(f"| {n:,} | " + " | ".join(cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000])
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}\n")
    suite_rows(args.repeats)
    mixture_rows(args.sizes)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
