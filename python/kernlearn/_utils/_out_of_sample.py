"""Out-of-sample rules: where a point that was not in ``fit`` lands in a learned kernel.

The transductive learners (SimpleNPKL and the saddle-point embeddings) learn K = F F' on the
training points only. A new point x is attached to its k nearest *training* points N(x) (new
points are never each other's neighbours, so transforming a batch is the same as transforming
its points one at a time) and gets a factor row f(x); the cross-kernel is then
K(x, x_j) = f(x) . f_j. Two rules, each derived in its function's docstring:

* ``harmonic_rows``: the graph-smoothness extension of a Laplacian-regularised kernel (Zhu,
  Ghahramani & Lafferty 2003; Bengio et al. 2004, "Out-of-sample extensions for LLE, Isomap, MDS,
  eigenmaps and spectral clustering", Section 4). Not a Nystrom rule: a training point queried
  as a new point is its own nearest neighbour, so its row is a smoothed version of f_i, not f_i.
* ``reconstruction_rows``: the locally linear extension of LLE (Saul & Roweis 2003, Section 6.1;
  Bengio et al. 2004): x is reconstructed from N(x) by affine weights, and f(x) is the same
  combination of their rows. A point that coincides with a training point gets that point's row
  exactly, so the rule reproduces the fitted embedding on the training points.

The neighbour search is scikit-learn's exact ``NearestNeighbors`` over the stored training
points (dense or sparse rows; brute force on sparse rows in row blocks, never densified).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

__all__ = ["TrainingNeighbors", "harmonic_rows", "reconstruction_rows", "RECONSTRUCTION_REG"]

# The Tikhonov term of the local Gram matrix, relative to its trace: scikit-learn's LLE default.
# It makes the weights unique when k exceeds the local dimension.
RECONSTRUCTION_REG = 1e-3

# Rows per block of the dense local differences (block x k x n_features floats).
_BLOCK = 1024


class TrainingNeighbors:
    """The training points and an exact kNN index over them (pickles with its estimator)."""

    def __init__(self, X, n_neighbors):
        self.X = X
        self.n_neighbors = int(n_neighbors)
        self._index = NearestNeighbors(n_neighbors=self.n_neighbors).fit(X)

    def query(self, X_new):
        """(indices, distances) of each new row's n_neighbors nearest training points, nearest first."""
        distances, indices = self._index.kneighbors(X_new)
        return indices.astype(np.int64), distances


def harmonic_rows(F, degrees, indices):
    """Factor rows of new points by the harmonic extension of tr(L K), L = I - D^-1/2 W D^-1/2.

    Attach x to its k nearest training points with binary edges (the training graph's weights):
    d_x = k and each neighbour's degree becomes d_j + 1. With the training rows F fixed, the
    terms of tr(L' K') = sum_ab L'_ab f_a . f_b that involve f(x) are minimised where
    L'_xx f(x) + sum_j L'_xj f_j = 0, i.e.

        f(x) = sum_{j in N(x)} f_j / sqrt(d_x (d_j + 1)),

    a degree-weighted average of the neighbours' rows (tests/test_out_of_sample.py checks it
    against this minimiser computed from scipy's Laplacian of the augmented graph)."""
    k = indices.shape[1]
    weights = 1.0 / np.sqrt(k * (degrees[indices] + 1.0))
    return np.einsum("mk,mkr->mr", weights, F[indices])


def _rowwise_dots(A, B):
    """a_i . b_i for each row pair of two (dense or CSR) matrices of the same shape."""
    if sp.issparse(A):
        return np.asarray(A.multiply(B).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", A, B)


def reconstruction_rows(F, X_train, X_new, indices, distances, reg=RECONSTRUCTION_REG):
    """Factor rows of new points by LLE's locally linear extension.

    The weights w(x) minimise |x - sum_j w_j x_j|^2 subject to sum_j w_j = 1 over the k nearest
    training points: w = G^-1 1 / (1' G^-1 1) with the local Gram G_jl = (x - x_j) . (x - x_l),
    regularised by ``reg * tr G`` on its diagonal as in scikit-learn's LLE. Then
    f(x) = sum_j w_j f_j. A new point at distance 0 from training points takes the mean of their
    rows instead (G is singular there), which is f_i itself for a training point without
    duplicates. G is assembled from k^2 row-wise dot products, so sparse rows stay sparse."""
    m, k = indices.shape
    if sp.issparse(X_new):
        columns = [X_train[indices[:, j]] for j in range(k)]
        xx = _rowwise_dots(X_new, X_new)
        x_dot = np.column_stack([_rowwise_dots(X_new, c) for c in columns])
        G = np.empty((m, k, k))
        for j in range(k):
            for l in range(j, k):
                G[:, j, l] = G[:, l, j] = _rowwise_dots(columns[j], columns[l]) - x_dot[:, j] - x_dot[:, l] + xx
    else:  # the differences themselves, in row blocks: no cancellation
        G = np.empty((m, k, k))
        for start in range(0, m, _BLOCK):
            rows = slice(start, start + _BLOCK)
            Z = X_train[indices[rows]] - X_new[rows, None, :]
            # Each point's differences divided by a power of two near their largest entry: the
            # weights do not depend on G's scale, and G's squares no longer overflow (exact).
            peak = np.abs(Z).max(axis=(1, 2))
            Z = np.ldexp(Z, -np.frexp(np.where(peak > 0, peak, 1.0))[1][:, None, None])
            G[rows] = Z @ Z.transpose(0, 2, 1)
    trace = np.trace(G, axis1=1, axis2=2)
    G += (reg * np.where(trace > 0, trace, 1.0))[:, None, None] * np.eye(k)
    w = np.linalg.solve(G, np.ones((m, k, 1)))[:, :, 0]
    w /= w.sum(axis=1, keepdims=True)
    exact = distances == 0.0
    hit = exact.any(axis=1)
    w[hit] = exact[hit] / exact[hit].sum(axis=1, keepdims=True)
    return np.einsum("mk,mkr->mr", w, F[indices])
