"""Exact kNN and kNN graphs on a Dask cluster: one task per diagonal block and per pair of distinct
blocks (answered both ways), a tree of merges per block, the graph assembled here."""

import numpy as np

from .. import _core
from ..graph import _check_graph_arguments, _check_knn_arguments, _graph_from_neighbors, _warn_if_infinite
from ._cluster import Cluster
from ._row_blocks import check_block_size, check_rows, place_rows

__all__ = ["knn", "knn_graph"]

# Default blocks: one per worker thread. The (n / b)(n / b + 1) / 2 tasks already give every
# thread work, and fewer, larger blocks cost less: each task's search starts from empty k-lists,
# so smaller blocks screen fewer candidates out (2 workers at n = 50,000: n / 4-row blocks took
# 1.15-1.2x, n / 6-row blocks 1.5-1.7x the default's time; bench/results/distributed.md). A task holds two row
# blocks and their k-lists, O(b (d + k)), and its brute-force work grows as b^2 d: the cap keeps
# a default task within seconds.
_BLOCKS_PER_THREAD = 1
_MAX_DEFAULT_BLOCK_ROWS = 32768

# Partial results merged per task of the reduction tree: depth log_4 of the number of blocks.
_MERGE_FAN_IN = 4


def knn(X, n_neighbors, *, client=None, block_size=None, metric="euclidean"):
    """Exact k nearest neighbours of every sample among the others, on a Dask cluster.

    The result equals :func:`kernlearn.graph.knn`'s bitwise (same neighbours, same distances,
    ties to the lower index), for any block size and number of workers.

    Parameters
    ----------
    X : array-like or dask.array.Array of shape (n_samples, n_features)
        Finite real data. A NumPy X is cut into row blocks that are sent to the workers; a dask
        array must be partitioned by rows only (one chunk along the columns) and is kept in the
        workers' memory while the search runs.
    n_neighbors : int
        Neighbours per sample, ``1 <= n_neighbors < n_samples``.
    client : distributed.Client or None
        Where the tasks run. None: the current default client, or Dask's local threaded
        scheduler in this process when there is none.
    block_size : int or None
        Rows per block (the last block holds the rest). None: a NumPy X gets one block per
        worker thread (at most 32768 rows each), a dask array keeps its own row chunks.
    metric : {"euclidean", "cosine"}
        As in :func:`kernlearn.graph.knn`.

    Returns
    -------
    indices : ndarray of shape (n_samples, n_neighbors), int64
    distances : ndarray of shape (n_samples, n_neighbors), float64

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn import graph
    >>> from kernlearn.distributed import knn
    >>> X = np.random.default_rng(0).standard_normal((300, 4))
    >>> indices, distances = knn(X, 5, block_size=64)  # no client: Dask's local threads
    >>> indices.shape
    (300, 5)
    >>> reference = graph.knn(X, 5)
    >>> bool((indices == reference[0]).all() and (distances == reference[1]).all())
    True
    """
    result = _search(X, n_neighbors, metric=metric, client=client, block_size=block_size)
    return np.array(result.indices), np.array(result.distances)


def knn_graph(
    X,
    n_neighbors,
    *,
    mode="symmetric",
    weight="binary",
    sigma=None,
    metric="euclidean",
    client=None,
    block_size=None,
):
    """Symmetric k-nearest-neighbour graph as a scipy CSR matrix, the search on a Dask cluster.

    The kNN lists come from :func:`knn` (bitwise those of :func:`kernlearn.graph.knn`); the graph
    is assembled here by the code of :func:`kernlearn.graph.knn_graph`, so the two functions
    return equal matrices. The graph holds at most 2 n k entries.

    Parameters
    ----------
    X, n_neighbors, metric, client, block_size
        As in :func:`knn`.
    mode, weight, sigma
        As in :func:`kernlearn.graph.knn_graph`.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Exactly symmetric, sorted indices, float64.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn import graph
    >>> from kernlearn.distributed import knn_graph
    >>> X = np.random.default_rng(0).standard_normal((300, 4))
    >>> G = knn_graph(X, 5, mode="mutual", weight="heat", block_size=100)
    >>> G.shape, (G != G.T).nnz
    ((300, 300), 0)
    >>> (G != graph.knn_graph(X, 5, mode="mutual", weight="heat")).nnz
    0
    """
    _check_graph_arguments(mode, weight, sigma)
    result = _search(X, n_neighbors, metric=metric, client=client, block_size=block_size)
    return _graph_from_neighbors(result, mode=mode, weight=weight, sigma=sigma)


def _search(X, n_neighbors, *, metric, client, block_size):
    """The core's Neighbors result of the whole search, arguments checked."""
    cluster = Cluster(client)
    X = check_rows(X, cluster, min_samples=2)
    n_neighbors = _check_knn_arguments(X.shape[0], n_neighbors, metric)
    block_size = check_block_size(block_size)
    rows = place_rows(X, block_size, cluster, blocks_per_thread=_BLOCKS_PER_THREAD, max_rows=_MAX_DEFAULT_BLOCK_ROWS)
    neighbors = _core.neighbors
    # One exponent for every block: the ranking keys of all tasks are then those of one search.
    exponent = neighbors.knn_scale_exponent(rows.largest) if metric == "euclidean" else 0
    # Diagonal blocks search themselves; each pair of distinct blocks is one task that answers
    # both ways from one pass over its distance tiles (knn_block_pair). A block's partial results
    # are (task, side) references: the merges take a pair task's result whole and read their side,
    # which spares a selection task per side (scheduler time; bench/results/distributed.md).
    search_diagonal = cluster.dask.delayed(_search_diagonal_block, pure=False)
    search_pair = cluster.dask.delayed(_search_block_pair, pure=False)
    partial = [
        [(search_diagonal(block, offset, n_neighbors, metric, exponent), None)]
        for block, offset in zip(rows.blocks, rows.offsets)
    ]
    for I in range(len(rows.blocks)):
        for J in range(I + 1, len(rows.blocks)):
            both = search_pair(
                rows.blocks[I], rows.offsets[I], rows.blocks[J], rows.offsets[J], n_neighbors, metric, exponent
            )
            partial[I].append((both, 0))
            partial[J].append((both, 1))
    merge = cluster.dask.delayed(_merge_partial_results, pure=False)
    tasks = [_merge_tree(parts, merge) for parts in partial]
    parts = cluster.compute(tasks)
    result = neighbors.neighbors_from_keys(
        np.concatenate([indices for indices, _ in parts]),
        np.concatenate([keys for _, keys in parts]),
        metric=neighbors.Metric.__members__[metric],
        scale_exponent=exponent,
    )
    _warn_if_infinite(result, stacklevel=4)
    return result


def _search_diagonal_block(block, offset, n_neighbors, metric, exponent):
    """Task: the partial (indices, keys) of a block's rows among its other rows. One thread per
    task: Dask runs as many tasks at once as the workers have threads."""
    neighbors = _core.neighbors
    block = np.ascontiguousarray(block, dtype=np.float64)
    return neighbors.knn_block(
        block,
        block,
        n_neighbors,
        query_offset=offset,
        data_offset=offset,
        metric=neighbors.Metric.__members__[metric],
        scale_exponent=exponent,
        n_threads=1,
    )


def _search_block_pair(first, first_offset, second, second_offset, n_neighbors, metric, exponent):
    """Task: the partial results of two distinct blocks, each among the other's rows, as a pair
    ((indices, keys) of the first block's rows, same of the second's)."""
    neighbors = _core.neighbors
    return neighbors.knn_block_pair(
        np.ascontiguousarray(first, dtype=np.float64),
        np.ascontiguousarray(second, dtype=np.float64),
        n_neighbors,
        query_offset=first_offset,
        data_offset=second_offset,
        metric=neighbors.Metric.__members__[metric],
        scale_exponent=exponent,
        n_threads=1,
    )


def _merge_tree(parts, merge):
    """The delayed merge of one block's partial results ((task, side) references),
    _MERGE_FAN_IN at a time."""
    while len(parts) > 1:
        parts = [
            (merge([side for _, side in group], *[task for task, _ in group]), None)
            for group in (parts[i : i + _MERGE_FAN_IN] for i in range(0, len(parts), _MERGE_FAN_IN))
        ]
    return parts[0][0]


def _merge_partial_results(sides, *results):
    """Task: the k best of several partial results of one query block; results[i] is the partial
    result itself (side None) or a pair task's result, of which side sides[i] is this block's."""
    parts = [result if side is None else result[side] for side, result in zip(sides, results)]
    merged = parts[0]
    for part in parts[1:]:
        merged = _core.neighbors.merge_neighbor_keys(*merged, *part)
    return merged
