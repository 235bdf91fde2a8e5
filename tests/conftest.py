import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def reference_knn(X, k, metric="euclidean"):
    """Dense numpy kNN with kernlearn's rules: self excluded, ties to the lower index.

    Exact on small-integer data, where every squared distance is an exactly representable integer.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if metric == "euclidean":
        dist = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    else:
        norms = np.linalg.norm(X, axis=1)
        U = X / np.where(norms > 0, norms, 1.0)[:, None]
        dist = 1.0 - U @ U.T
    idx = np.empty((n, k), dtype=np.int64)
    for i in range(n):
        order = np.lexsort((np.arange(n), dist[i]))
        order = order[order != i][:k]
        idx[i] = order
    d = np.take_along_axis(dist, idx, axis=1)
    return idx, (np.sqrt(d) if metric == "euclidean" else d)
