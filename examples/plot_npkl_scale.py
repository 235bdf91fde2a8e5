"""
SimpleNPKL on 100,000 points: time and memory against n
=======================================================

A mixture of 5 Gaussian classes in 10 dimensions with 10 % of the points labelled (-1 marks the
rest), fitted with SimpleNPKL's defaults and clustered by kernel k-means on the learned kernel;
scikit-learn's LabelSpreading (kNN kernel) is what a user would try first, so it is timed beside.
The defaults are what make this scale: each labelled point is paired with 5 must-link and 5
cannot-link partners (pairs linear in the labelled count), C and the penalty G shrink with the
pairs per point and with n, and the kernel's positive part comes from threshold-mode Lanczos on
the sparse operator A = alpha o T - L, never from a dense n x n eigendecomposition
(``bench/results/scale.md`` has the curve with every method of the saddle-point family and its
baselines, each fit in a fresh process).

Peak memory is the process's resident-set high-water mark (``VmHWM``), reset before each fit on
Linux; elsewhere the right panel is left empty.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import adjusted_rand_score
from sklearn.semi_supervised import LabelSpreading

from kernlearn.cluster import KernelKMeans
from kernlearn.npkl import SimpleNPKL

SIZES = (1_000, 3_000, 10_000, 30_000, 100_000)
# sphinx_gallery_start_ignore
# tests/test_figures.py checks this figure's labels on two small sizes (hidden from the docs).
import os  # noqa: E402

if os.environ.get("KERNLEARN_EXAMPLES_QUICK"):
    SIZES = (300, 600)
# sphinx_gallery_end_ignore


def mixture(n):
    """bench/scale.py's data, written out so that the example stands alone."""
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((5, 10)) * 3
    truth = rng.integers(0, 5, n)
    return centres[truth] + rng.standard_normal((n, 10)), truth, np.where(rng.random(n) < 0.1, truth, -1)


def reset_peak():
    """Reset VmHWM (Linux: writing 5 to clear_refs); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def peak_mib():
    with open("/proc/self/status") as status:
        return next(float(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024.0


def timed(fit):
    """(seconds, peak MiB above the resident size at the start or NaN, result) of fit()."""
    measured = reset_peak()
    base = peak_mib() if measured else np.nan
    start = time.perf_counter()
    result = fit()
    seconds = time.perf_counter() - start
    return seconds, (peak_mib() - base) if measured else np.nan, result


rows = []
for n in SIZES:
    X, truth, y = mixture(n)
    unlabelled = y < 0

    def npkl():
        model = SimpleNPKL(random_state=0, n_jobs=2).fit(X, y)
        return model, KernelKMeans(5, random_state=0).fit(model.embedding_).labels_

    seconds, peak, (model, clusters) = timed(npkl)
    spread_seconds, spread_peak, spread = timed(lambda: LabelSpreading(kernel="knn").fit(X, y).transduction_)
    ari = adjusted_rand_score(truth[unlabelled], clusters[unlabelled])
    rows.append((n, seconds, peak, spread_seconds, spread_peak))
    print(
        f"n = {n:>7,}: SimpleNPKL {seconds:6.1f} s, {peak:6.0f} MiB, rank {model.eigenvalues_.size}, "
        f"{model.n_iter_} iterations, {len(model.pairs_):,} pairs, unlabelled ARI {ari:.3f}; "
        f"LabelSpreading {spread_seconds:5.1f} s, unlabelled ARI "
        f"{adjusted_rand_score(truth[unlabelled], spread[unlabelled]):.3f}"
    )

n, seconds, peak, spread_seconds, spread_peak = map(np.array, zip(*rows))
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
left.loglog(n, seconds, marker="o", label="SimpleNPKL + KernelKMeans")
left.loglog(n, spread_seconds, marker="s", label='LabelSpreading(kernel="knn")')
left.loglog(n, seconds[0] * n / n[0], color="grey", linestyle=":", label="linear in n")
left.set_xlabel("number of points n")
left.set_ylabel("fit time (s)")
left.set_title("5-class mixture, 10 % labelled:\nSimpleNPKL and LabelSpreading fit time")
left.legend()
right.loglog(n, peak, marker="o", label="SimpleNPKL + KernelKMeans")
right.loglog(n, spread_peak, marker="s", label='LabelSpreading(kernel="knn")')
right.loglog(n, n * n * 8 / 2**20, color="grey", linestyle=":", label="one dense n x n float64 array")
right.set_xlabel("number of points n")
right.set_ylabel("peak memory above the start (MiB)")
right.set_title("5-class mixture, 10 % labelled:\nSimpleNPKL and LabelSpreading peak memory")
right.legend()
fig.tight_layout()
plt.show()
