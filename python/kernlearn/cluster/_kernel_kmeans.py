"""Clustering on learned kernels."""

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans

from .._utils._validation import check_choice, check_data, check_int

__all__ = ["KernelKMeans"]


class KernelKMeans(ClusterMixin, BaseEstimator):
    """k-means in the feature space of a kernel.

    Kernel k-means on K = F F' is k-means on the rows of F (the feature-space distances are the
    same), so a low-rank kernel is clustered through its factor at O(n r) per iteration; a
    dense kernel matrix is factored once by its eigendecomposition (negative eigenvalues,
    rounding in a PSD kernel, are clipped).

    Parameters
    ----------
    n_clusters : int, default 2
    kernel : {"factor", "precomputed"}, default "factor"
        What ``fit`` receives: a factor F (n x r, e.g. ``SimpleNPKL().embedding_``) or the
        n x n kernel matrix.
    n_init, max_iter, tol, random_state
        As in :class:`sklearn.cluster.KMeans`.
    """

    def __init__(self, n_clusters=2, *, kernel="factor", n_init=10, max_iter=300, tol=1e-4, random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None):
        check_choice(self.kernel, "kernel", ("factor", "precomputed"))
        if self.kernel == "factor" and np.ndim(X) == 2 and np.shape(X)[1] == 0:
            # scikit-learn's convention for empty features; say what it means for a kernel factor.
            raise ValueError(
                f"X has 0 feature(s) (shape={np.shape(X)}) while a minimum of 1 is required: the "
                "kernel is zero (e.g. SimpleNPKL found no positive part), so every point is the same point"
            )
        F = check_data(X, "X")
        self.n_features_in_ = F.shape[1]
        n_clusters = check_int(self.n_clusters, "n_clusters", low=1, high=F.shape[0] + 1)
        if self.kernel == "precomputed":
            if F.shape[0] != F.shape[1]:
                raise ValueError(f"a precomputed kernel must be square, got shape {F.shape}")
            if not np.allclose(F, F.T, rtol=1e-10, atol=1e-12 * np.abs(F).max()):
                raise ValueError("a precomputed kernel must be symmetric")
            w, V = scipy.linalg.eigh(F)
            F = V * np.sqrt(np.clip(w, 0.0, None))
        km = KMeans(
            n_clusters, n_init=self.n_init, max_iter=self.max_iter, tol=self.tol, random_state=self.random_state
        ).fit(F)
        self.labels_ = km.labels_
        self.inertia_ = float(km.inertia_)
        self.n_iter_ = int(km.n_iter_)
        return self
