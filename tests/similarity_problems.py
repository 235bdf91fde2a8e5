"""The semi-supervised problem of the similarity operator and rank tests (shared by
tests/test_distributed_similarity.py and tests/test_similarity_rank.py)."""

import numpy as np

from kernlearn import kernels


def problem(n, seed=0, labelled=60):
    """Two classes in 4-D, the first ``labelled`` points labelled (the rest -1); the RBF and TL1
    kernels of the points (TL1 is indefinite)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    X = rng.standard_normal((n, 4)) + 1.2 * labels[:, None]
    y = np.where(np.arange(n) < labelled, labels, -1)
    return X, y, [kernels.rbf_kernel(X, gamma=0.25), kernels.tl1_kernel(X, tau=2.0)]
