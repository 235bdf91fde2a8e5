"""Exact k-nearest-neighbour graphs and graph Laplacians (C++ core, threads, no n x n arrays).

Conventions
-----------
* A point is never its own neighbour. Ties in distance go to the lower index, so results do not
  depend on the search algorithm or the number of threads.
* ``mode="symmetric"`` joins i and j when either is among the other's k nearest (the union of the
  directed kNN graph and its transpose); ``mode="mutual"`` when both are (the intersection).
  Mutual graphs can leave nodes isolated; the Laplacians handle that (see :func:`laplacian`).
* Integer, boolean and float32 input is converted to float64. Inputs are never modified.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from . import _core
from ._utils._validation import (
    check_choice,
    check_data,
    check_int,
    check_real,
    check_square_sparse,
    resolve_n_threads,
)

__all__ = ["knn", "knn_graph", "laplacian"]

_METRICS = ("euclidean", "cosine")
_ALGORITHMS = ("auto", "kd_tree", "brute")


def knn(X, n_neighbors, *, metric="euclidean", algorithm="auto", n_jobs=None):
    """Exact k nearest neighbours of every sample among the other samples.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite real data; converted to float64 (a copy when it is not already float64 C-order).
    n_neighbors : int
        Neighbours per sample, ``1 <= n_neighbors < n_samples``.
    metric : {"euclidean", "cosine"}
        Cosine distance is ``1 - cos(x, y)``; an all-zero row is at distance 1 from every row,
        as in :func:`sklearn.metrics.pairwise.cosine_distances`.
    algorithm : {"auto", "kd_tree", "brute"}
        ``"kd_tree"`` (euclidean only) or a blocked brute force that screens candidates with a
        matrix product and confirms them exactly. Both give bitwise identical results;
        ``"auto"`` picks the faster by a rule measured in ``bench/bench_knn.py``.
    n_jobs : int or None
        Threads, scikit-learn's convention: None means 1 (unless inside a joblib
        ``parallel_config`` context), -1 all cores.

    Returns
    -------
    indices : ndarray of shape (n_samples, n_neighbors), int64
        Sorted by increasing distance, ties by increasing index; ``i`` itself never appears.
    distances : ndarray of shape (n_samples, n_neighbors), float64
        Exact for data of any finite magnitude (the search runs on X scaled by a power of two
        when its entries are above 2**200 or below 2**-200); a distance above the largest
        float64 is inf, with a RuntimeWarning.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.graph import knn
    >>> X = np.array([[0.0], [1.0], [2.0], [4.0], [10.0]])
    >>> indices, distances = knn(X, 2)
    >>> indices.tolist()  # no point is its own neighbour; point 1's tie (0 and 2) in index order
    [[1, 2], [0, 2], [1, 0], [2, 1], [3, 2]]
    >>> distances.tolist()
    [[1.0, 2.0], [1.0, 1.0], [1.0, 2.0], [2.0, 3.0], [6.0, 8.0]]

    On real data, with two threads:

    >>> from kernlearn.datasets import load_iris
    >>> indices, distances = knn(load_iris().data, 5, n_jobs=2)
    >>> indices.shape, distances.shape
    ((150, 5), (150, 5))
    """
    result = _knn(X, n_neighbors, metric=metric, algorithm=algorithm, n_jobs=n_jobs)
    # The core's fields are read-only views; the caller gets arrays of its own (2 n k entries,
    # nothing next to the search). knn_graph reads the views.
    return np.array(result.indices), np.array(result.distances)


def _knn(X, n_neighbors, *, metric, algorithm, n_jobs):
    """Checks the arguments; the core's Neighbors result (read-only indices and distances)."""
    X = check_data(X, "X", min_samples=2)
    n_neighbors = _check_knn_arguments(X.shape[0], n_neighbors, metric)
    check_choice(algorithm, "algorithm", _ALGORITHMS)
    if algorithm == "kd_tree" and metric != "euclidean":
        raise ValueError("algorithm='kd_tree' supports metric='euclidean' only")
    neighbors = _core.neighbors
    result = neighbors.knn(
        X,
        n_neighbors=n_neighbors,
        metric=neighbors.Metric.__members__[metric],
        algorithm=neighbors.KnnAlgorithm.__members__[algorithm],
        n_threads=resolve_n_threads(n_jobs),
    )
    _warn_if_infinite(result, stacklevel=4)
    return result


def _check_knn_arguments(n_samples, n_neighbors, metric):
    """n_neighbors as an int in [1, n_samples) and a known metric (kernlearn.distributed checks by
    this too)."""
    n_neighbors = check_int(n_neighbors, "n_neighbors", low=1)
    if n_neighbors >= n_samples:
        raise ValueError(
            f"n_neighbors must be < n_samples = {n_samples} (a point is not its own neighbour); got {n_neighbors}"
        )
    check_choice(metric, "metric", _METRICS)
    return n_neighbors


def _warn_if_infinite(result, *, stacklevel):
    """A RuntimeWarning, at the user's call ``stacklevel`` frames up, when a kNN distance overflowed."""
    if not np.isfinite(result.distances).all():
        warnings.warn(_INFINITE_DISTANCES, RuntimeWarning, stacklevel=stacklevel)


_INFINITE_DISTANCES = "some kNN distances exceed the largest float64 (X spans more than about 1e308) and are inf"


def knn_graph(
    X,
    n_neighbors,
    *,
    mode="symmetric",
    weight="binary",
    sigma=None,
    metric="euclidean",
    algorithm="auto",
    n_jobs=None,
):
    """Symmetric k-nearest-neighbour graph as a scipy CSR matrix with a zero diagonal.

    Parameters
    ----------
    X, n_neighbors, metric, algorithm, n_jobs
        As in :func:`knn`.
    mode : {"symmetric", "mutual"}
        Edge when either (symmetric) or both (mutual) points are among the other's neighbours.
    weight : {"binary", "heat", "distance"}
        Edge weight 1, ``exp(-d**2 / (2 * sigma**2))`` or the distance ``d``. With
        ``"distance"``, duplicate points give edges of weight 0 that are stored explicitly, so
        the sparsity pattern is always the graph's edge set.
    sigma : float or None
        Heat-kernel width; None uses the median kNN distance (an error if that is 0, e.g. with
        many duplicate points: pass sigma explicitly then).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Exactly symmetric, sorted indices, float64.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.graph import knn_graph
    >>> X = np.array([[0.0], [1.0], [2.0], [4.0], [10.0]])
    >>> knn_graph(X, 1).toarray()  # each point joined to its nearest neighbour
    array([[0., 1., 0., 0., 0.],
           [1., 0., 1., 0., 0.],
           [0., 1., 0., 1., 0.],
           [0., 0., 1., 0., 1.],
           [0., 0., 0., 1., 0.]])
    >>> knn_graph(X, 1, mode="mutual").toarray()  # only 0 and 1 are each other's nearest
    array([[0., 1., 0., 0., 0.],
           [1., 0., 0., 0., 0.],
           [0., 0., 0., 0., 0.],
           [0., 0., 0., 0., 0.],
           [0., 0., 0., 0., 0.]])

    The mutual graph of real features falls apart into many components, the symmetric one
    does not:

    >>> from scipy.sparse.csgraph import connected_components
    >>> from kernlearn.datasets import load_iris
    >>> X = load_iris().data
    >>> W = knn_graph(X, 5, weight="heat")
    >>> W.shape, W.nnz
    ((150, 150), 1020)
    >>> connected_components(W)[0], connected_components(knn_graph(X, 5, mode="mutual"))[0]
    (2, 16)
    """
    _check_graph_arguments(mode, weight, sigma)
    result = _knn(X, n_neighbors, metric=metric, algorithm=algorithm, n_jobs=n_jobs)
    return _graph_from_neighbors(result, mode=mode, weight=weight, sigma=sigma)


def _check_graph_arguments(mode, weight, sigma):
    check_choice(mode, "mode", ("symmetric", "mutual"))
    check_choice(weight, "weight", ("binary", "heat", "distance"))
    if sigma is not None and weight != "heat":
        raise ValueError("sigma is used by weight='heat' only")


def _graph_from_neighbors(result, *, mode, weight, sigma):
    """The CSR graph of a core Neighbors result, arguments checked by _check_graph_arguments: the
    one assembly both knn_graph and kernlearn.distributed.knn_graph use."""
    n = result.indices.shape[0]
    if weight == "heat":
        sigma = _heat_sigma(sigma, result.distances)
    neighbors = _core.neighbors
    data, cols, indptr = neighbors.knn_graph(
        result,
        mode=neighbors.GraphMode.__members__[mode],
        weight=neighbors.EdgeWeight.__members__[weight],
        sigma=sigma,
    )
    return sp.csr_matrix((data, cols, indptr), shape=(n, n))


def _heat_sigma(sigma, distances):
    if sigma is None:
        sigma = float(np.median(distances))
        if sigma <= 0.0:
            raise ValueError(
                "sigma=None uses the median kNN distance, which is 0 here (duplicate points); pass a positive sigma"
            )
        return sigma
    if isinstance(sigma, (bool, np.bool_)) or not isinstance(sigma, numbers.Real):
        raise TypeError(f"sigma must be a positive float, got {sigma!r}")
    sigma = float(sigma)
    if not (np.isfinite(sigma) and sigma > 0.0):
        raise ValueError(f"sigma must be positive and finite, got {sigma}")
    return sigma


def laplacian(S, kind="normalized", *, symmetry_tol=1e-12):
    """Graph Laplacian of a symmetric non-negative similarity matrix.

    With degrees ``d_i = sum_{j != i} S_ij`` (the diagonal of S is ignored, as self-loops do not
    change a Laplacian; scipy's ``csgraph.laplacian`` does the same):

    * ``"unnormalized"``: ``L = D - S``
    * ``"normalized"``: ``L = I - D^-1/2 S D^-1/2``
    * ``"random_walk"``: ``L = I - D^-1 S`` (not symmetric)

    An isolated node (``d_i = 0``, common in mutual kNN graphs) gets ``D_i^-1/2 = D_i^-1 = 0``
    and ``L_ii = 0``: its row and column of L are zero, never NaN. This equals
    ``scipy.sparse.csgraph.laplacian(S, normed=...)`` and eq. (8) of the SimpleNPKL paper.

    Parameters
    ----------
    S : sparse or dense array-like of shape (n, n)
        Symmetric (to ``symmetry_tol`` relative to its largest entry), non-negative, finite.
    kind : {"normalized", "unnormalized", "random_walk"}
    symmetry_tol : float
        Relative tolerance of the symmetry check, finite and >= 0.

    Returns
    -------
    L : scipy.sparse.csr_matrix, or ndarray if S was dense
        The pattern of S's off-diagonal plus the whole diagonal, sorted indices. Finite for
        weights of any finite magnitude, subnormal included (degrees are summed and divided in a
        scaled form); only an unnormalized degree above the largest float64 is inf, with a
        RuntimeWarning.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.graph import knn_graph, laplacian
    >>> X = np.array([[0.0], [1.0], [2.0], [4.0], [10.0]])
    >>> W = knn_graph(X, 1)
    >>> laplacian(W, "unnormalized").toarray()  # L = D - W: rows sum to 0
    array([[ 1., -1.,  0.,  0.,  0.],
           [-1.,  2., -1.,  0.,  0.],
           [ 0., -1.,  2., -1.,  0.],
           [ 0.,  0., -1.,  2., -1.],
           [ 0.,  0.,  0., -1.,  1.]])
    >>> laplacian(W).toarray().round(3)  # I - D^-1/2 W D^-1/2
    array([[ 1.   , -0.707,  0.   ,  0.   ,  0.   ],
           [-0.707,  1.   , -0.5  ,  0.   ,  0.   ],
           [ 0.   , -0.5  ,  1.   , -0.5  ,  0.   ],
           [ 0.   ,  0.   , -0.5  ,  1.   , -0.707],
           [ 0.   ,  0.   ,  0.   , -0.707,  1.   ]])

    Isolated nodes of a mutual graph get zero rows, not NaN:

    >>> laplacian(knn_graph(X, 1, mode="mutual")).toarray()
    array([[ 1., -1.,  0.,  0.,  0.],
           [-1.,  1.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  0.,  0.]])
    """
    check_choice(kind, "kind", ("normalized", "unnormalized", "random_walk"))
    check_real(symmetry_tol, "symmetry_tol", low=0.0)
    dense_input = not sp.issparse(S)
    S = check_square_sparse(S, "S")
    if S.data.size and S.data.min() < 0:
        raise ValueError("S must be non-negative (a similarity matrix); found negative weights")
    scale = float(np.abs(S.data).max()) if S.data.size else 0.0
    asym = abs(S - S.T)
    if asym.nnz and asym.max() > symmetry_tol * scale:
        raise ValueError(
            f"S must be symmetric: max |S - S.T| = {asym.max():.3g} exceeds "
            f"symmetry_tol * max |S| = {symmetry_tol * scale:.3g}"
        )
    n = S.shape[0]
    data, cols, indptr = _core.neighbors.laplacian(
        np.ascontiguousarray(S.data, dtype=np.float64),
        S.indices.astype(np.int64),
        S.indptr.astype(np.int64),
        kind=_core.neighbors.LaplacianKind.__members__[kind],
    )
    if not np.isfinite(data).all():
        warnings.warn("some degrees of S exceed the largest float64 and are inf in L", RuntimeWarning, stacklevel=2)
    L = sp.csr_matrix((data, cols, indptr), shape=(n, n))
    return L.toarray() if dense_input else L
