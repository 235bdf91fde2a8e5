import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# "default" is reproducible (CI); "long" (pytest --hypothesis-profile=long) is the deep fuzz run:
# ten times the examples, larger shapes (tests/test_fuzz.py reads the profile's name).
_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("default", max_examples=100, derandomize=True, database=None, **_COMMON)
settings.register_profile("long", max_examples=1000, derandomize=False, **_COMMON)
settings.load_profile("default")


# Under .ci/sanitize: ASan reserves terabytes of shadow address space, so an RLIMIT_AS cannot
# apply; its allocator bounds single allocations instead (ASAN_OPTIONS in .ci/sanitize).
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
needs_address_limit = pytest.mark.skipif(UNDER_ASAN, reason="an RLIMIT_AS cannot apply under AddressSanitizer")


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


def three_blobs(per_cluster, seed=0):
    """(X, y): three separated Gaussian clusters in 3-D, ``per_cluster`` points each. Continuous
    coordinates, so no distance ties (the kNN graph does not depend on tie-breaking)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 1.0], [0.0, 4.0, -1.0]])
    y = np.repeat(np.arange(3), per_cluster)
    return centres[y] + rng.standard_normal((3 * per_cluster, 3)), y
