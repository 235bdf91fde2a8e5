"""Exact kNN and kNN graphs on a Dask cluster: one task per diagonal block and per pair of distinct
blocks (answered both ways), a tree of merges per block, the graph assembled here."""

import math
import warnings

import numpy as np

from .. import _core
from .._utils._validation import check_choice
from ..graph import (
    _INFINITE_DISTANCES,
    _check_graph_arguments,
    _check_knn_arguments,
    _graph_from_neighbors,
    _heat_sigma,
    _warn_if_infinite,
)
from ._cluster import Cluster
from ._graph_operator import (
    GraphOperator,
    all_finite,
    assemble_group,
    block_distances,
    block_lists,
    edges_by_destination,
)
from ._row_blocks import BlockRule, check_block_size, check_rows, place_rows

__all__ = ["knn", "knn_graph"]

# Default blocks: one per worker thread. The (n / b)(n / b + 1) / 2 tasks already give every
# thread work, and fewer, larger blocks cost no more: each task's search starts from empty
# k-lists, so smaller blocks screen fewer candidates out (2 workers at n = 50,000: n / 4-row
# blocks took the default's time to within 3 %; bench/results/distributed.md, "Overhead"). A
# block pair's search costs about 1.7e-9 s per point pair at d = 16 on one thread (the same
# file), which sets the rows that keep the scheduler's share small on many workers. A task holds
# two row blocks and their k-lists, O(b (d + k)), and its brute-force work grows as b^2 d: the
# cap keeps a default task within seconds.
_BLOCKS = BlockRule(blocks_per_thread=1, max_rows=32768, seconds_per_pair=1.7e-9)

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
        worker thread, at least enough rows that a task outlasts the scheduler's work on it and
        at most 32768 (the user guide, "Choosing the block size"); a dask array keeps
        its own row chunks.
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
    output="csr",
):
    """Symmetric k-nearest-neighbour graph, the search on a Dask cluster: a scipy CSR matrix here,
    or a :class:`GraphOperator` whose row blocks stay on the workers.

    The kNN lists come from :func:`knn` (bitwise those of :func:`kernlearn.graph.knn`). With
    ``output="csr"`` the graph is assembled here by the code of :func:`kernlearn.graph.knn_graph`;
    with ``output="operator"`` each worker assembles the rows of its blocks from their lists and
    the parts of the other lists that point into them, by the same rule and the same weights: the
    two outputs and :func:`kernlearn.graph.knn_graph` hold bitwise equal entries. The graph holds
    at most 2 n k entries.

    Parameters
    ----------
    X, n_neighbors, metric, client, block_size
        As in :func:`knn`.
    mode, weight, sigma
        As in :func:`kernlearn.graph.knn_graph`. ``weight="heat"`` with ``sigma=None`` takes the
        median of the n k distances, which come to this process for it (O(n k), as the lists
        of :func:`knn`).
    output : {"csr", "operator"}, default "csr"
        "operator" for a graph that should not (or cannot) be gathered into this process: a
        :class:`GraphOperator` (a LinearOperator; :meth:`GraphOperator.laplacian` gives the
        Laplacian the same way), multiplied on the workers.

    Returns
    -------
    scipy.sparse.csr_matrix or GraphOperator of shape (n_samples, n_samples)
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
    check_choice(output, "output", ("csr", "operator"))
    if output == "operator":
        return _graph_operator(
            X, n_neighbors, mode=mode, weight=weight, sigma=sigma, metric=metric, client=client, block_size=block_size
        )
    result = _search(X, n_neighbors, metric=metric, client=client, block_size=block_size)
    return _graph_from_neighbors(result, mode=mode, weight=weight, sigma=sigma)


def _search(X, n_neighbors, *, metric, client, block_size):
    """The core's Neighbors result of the whole search, arguments checked."""
    cluster, _, exponent, tasks = _merged_blocks(X, n_neighbors, metric=metric, client=client, block_size=block_size)
    parts = cluster.compute(tasks)
    neighbors = _core.neighbors
    result = neighbors.neighbors_from_keys(
        np.concatenate([indices for indices, _ in parts]),
        np.concatenate([keys for _, keys in parts]),
        metric=neighbors.Metric.__members__[metric],
        scale_exponent=exponent,
    )
    _warn_if_infinite(result, stacklevel=4)
    return result


def _merged_blocks(X, n_neighbors, *, metric, client, block_size):
    """The search's task graph, arguments checked: (cluster, the RowBlocks of X, the ranking
    keys' scale exponent, one delayed (indices, keys) per query block, its k best)."""
    cluster = Cluster(client)
    X = check_rows(X, cluster, min_samples=2)
    n_neighbors = _check_knn_arguments(X.shape[0], n_neighbors, metric)
    block_size = check_block_size(block_size)
    rows = place_rows(X, block_size, cluster, _BLOCKS)
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
    return cluster, rows, exponent, [_merge_tree(parts, merge) for parts in partial]


def _graph_operator(X, n_neighbors, *, mode, weight, sigma, metric, client, block_size):
    """knn_graph's GraphOperator: the kNN lists, then the graph's row blocks, built and kept on
    the workers. The B blocks form groups of about sqrt(B) consecutive blocks. Block J's lists
    are cut by the group of each neighbour (one task per block); a group's rows are its blocks'
    own lists joined with the pieces of every list pointing into it (one task per group). That
    is B + B sqrt(B) + 2 B tasks, selections included, where one assembly per block would take
    B^2 selections: the scheduler's time per task is what bounds this step
    (bench/results/distributed.md)."""
    cluster, rows, exponent, merged = _merged_blocks(
        X, n_neighbors, metric=metric, client=client, block_size=block_size
    )
    delayed = cluster.dask.delayed
    lists = cluster.persist([delayed(block_lists, pure=False)(m, metric, exponent) for m in merged])
    if not all(cluster.compute([delayed(all_finite, pure=False)(block) for block in lists])):
        warnings.warn(_INFINITE_DISTANCES, RuntimeWarning, stacklevel=3)
    if weight == "heat":
        # sigma=None: the median of all n k distances, exactly as the single-machine graph takes it
        # (they come here, O(n k) like the lists knn returns; the graph's entries do not)
        if sigma is None:
            sigma = _heat_sigma(None, np.concatenate(cluster.compute([delayed(block_distances)(b) for b in lists])))
        else:
            sigma = _heat_sigma(sigma, None)
    n, B, offsets = rows.offsets[-1], len(lists), rows.offsets
    size = math.isqrt(B - 1) + 1  # blocks per group: ceil(sqrt(B))
    groups = [range(g, min(g + size, B)) for g in range(0, B, size)]
    cut = delayed(edges_by_destination, pure=False, nout=len(groups))
    pieces = [cut(block, start, offsets, size) for block, start in zip(lists, offsets[:-1])]
    blocks = []
    for g, group in enumerate(groups):
        assemble = delayed(assemble_group, pure=False, nout=len(group))
        starts = [offsets[I] for I in group] + [offsets[group[-1] + 1]]
        built = assemble([lists[I] for I in group], starts, n, mode, weight, sigma, *[part[g] for part in pieces])
        blocks += [built[i] for i in range(len(group))]
    return GraphOperator(cluster.persist(blocks), offsets, cluster)


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
