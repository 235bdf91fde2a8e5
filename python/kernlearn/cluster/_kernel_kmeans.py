"""Clustering on learned kernels."""

import numbers

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans

from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._validation import check_data

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

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None)],
        "kernel": [StrOptions({"factor", "precomputed"})],
        "n_init": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_clusters=2, *, kernel="factor", n_init=10, max_iter=300, tol=1e-4, random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None):
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        if self.kernel == "factor" and np.ndim(X) == 2 and np.shape(X)[1] == 0:
            # scikit-learn's convention for empty features; say what it means for a kernel factor.
            raise ValueError(
                f"X has 0 feature(s) (shape={np.shape(X)}) while a minimum of 1 is required: the "
                "kernel is zero (e.g. SimpleNPKL found no positive part), so every point is the same point"
            )
        F = check_data(X, "X")
        self.n_features_in_ = F.shape[1]
        n_clusters = int(self.n_clusters)
        if n_clusters > F.shape[0]:
            raise ValueError(f"n_clusters must be <= the number of samples ({F.shape[0]}), got {n_clusters}")
        if self.kernel == "precomputed":
            if F.shape[0] != F.shape[1]:
                raise ValueError(f"a precomputed kernel must be square, got shape {F.shape}")
            if not np.allclose(F, F.T, rtol=1e-10, atol=1e-12 * np.abs(F).max()):
                raise ValueError("X, a precomputed kernel, must be symmetric")
            w, V = scipy.linalg.eigh(F)
            F = V * np.sqrt(np.clip(w, 0.0, None))
        km = KMeans(
            n_clusters, n_init=self.n_init, max_iter=self.max_iter, tol=self.tol, random_state=self.random_state
        ).fit(F)
        self.labels_ = km.labels_
        self.inertia_ = float(km.inertia_)
        self.n_iter_ = int(km.n_iter_)
        return self
