"""The kNN Laplacian as the CSR arrays the core takes, for the estimators that build one."""

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from .. import _core


def knn_laplacian_arrays(X, n_neighbors, mode, n_threads):
    """Normalised Laplacian of the binary euclidean kNN graph of a checked X (float64, C order),
    as the CSR arrays the core takes: float64 data, int64 indices and indptr. The arrays skip the
    two scipy matrices kernlearn.graph would build (figures in bench/results/knn.md).

    ``mode`` is "symmetric" or "mutual" (kernlearn.graph.knn_graph's). A sparse X (CSR) is
    searched by scikit-learn's exact brute force on the sparse rows, which works through row
    blocks of the distance matrix and never densifies X; its graph and Laplacian then go through
    the core as for dense X."""
    neighbors = _core.neighbors
    if sp.issparse(X):
        return _sparse_knn_laplacian_arrays(X, n_neighbors, mode, n_threads)
    result = neighbors.knn(
        X,
        n_neighbors=n_neighbors,
        metric=neighbors.Metric.euclidean,
        algorithm=neighbors.KnnAlgorithm.auto,
        n_threads=n_threads,
    )
    data, cols, indptr = neighbors.knn_graph(
        result, mode=neighbors.GraphMode.__members__[mode], weight=neighbors.EdgeWeight.binary
    )
    return neighbors.laplacian(data, cols, indptr, kind=neighbors.LaplacianKind.normalized)


def graph_degrees(laplacian):
    """Each node's number of edges in the binary graph behind a Laplacian's CSR arrays (the
    off-diagonal entries of its row; 0 for an isolated node)."""
    _, indices, indptr = laplacian
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return np.bincount(rows[indices != rows], minlength=len(indptr) - 1).astype(np.float64)


def _sparse_knn_laplacian_arrays(X, n_neighbors, mode, n_threads):
    """knn_laplacian_arrays for a CSR X (see there)."""
    graph = sparse_knn_graph(X, n_neighbors, mode, n_threads)
    return _core.neighbors.laplacian(
        np.ascontiguousarray(graph.data, dtype=np.float64),
        graph.indices.astype(np.int64),
        graph.indptr.astype(np.int64),
        kind=_core.neighbors.LaplacianKind.normalized,
    )


def sparse_knn_graph(X, n_neighbors, mode, n_threads):
    """The binary kNN graph (symmetric or mutual) of a CSR X as a scipy CSR matrix with sorted
    indices, by scikit-learn's exact brute force on the sparse rows (row blocks of the distance
    matrix, X never densified). Ties may order differently from the core's dense search."""
    n = X.shape[0]
    # n_neighbors + 1 with the point itself, which is then dropped by index (a duplicate point may
    # come first); where self is not among them, the farthest goes instead.
    found = NearestNeighbors(n_neighbors=n_neighbors + 1, algorithm="brute", n_jobs=n_threads).fit(X)
    indices = found.kneighbors(X, return_distance=False)
    others = indices != np.arange(n)[:, None]
    others[others.sum(axis=1) > n_neighbors, -1] = False
    indices = indices[others].reshape(n, n_neighbors)
    indptr = np.arange(0, indices.size + 1, n_neighbors)
    directed = sp.csr_matrix((np.ones(indices.size), indices.ravel(), indptr), shape=(n, n))
    graph = (directed.maximum(directed.T) if mode == "symmetric" else directed.minimum(directed.T)).tocsr()
    graph.sort_indices()
    return graph
