"""The kNN Laplacian as the CSR arrays the core takes, for the estimators that build one."""

from .. import _core


def knn_laplacian_arrays(X, n_neighbors, mode, n_threads):
    """Normalised Laplacian of the binary euclidean kNN graph of a checked X (float64, C order),
    as the CSR arrays the core takes: float64 data, int64 indices and indptr. The arrays skip the
    two scipy matrices kernlearn.graph would build (figures in bench/results/knn.md).

    ``mode`` is "symmetric" or "mutual" (kernlearn.graph.knn_graph's)."""
    neighbors = _core.neighbors
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
