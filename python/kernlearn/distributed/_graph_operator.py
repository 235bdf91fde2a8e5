"""A kNN graph (or its Laplacian) that stays on the Dask cluster: CSR row blocks held by the
workers, multiplied where they are. For graphs larger than one machine's memory; products and
degrees bring back O(n m) and O(n) numbers only."""

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .. import _core

__all__ = ["GraphOperator"]

# Beyond this r = d / sigma the heat weight exp(-r^2 / 2) is 0 in float64 (the core's cut-off in
# graph.cpp, which keeps r * r from overflowing).
_HEAT_CUTOFF = 2.0**500
# math.exp is the C library's exp, the function the core's heat weight calls: the weights come out
# bitwise equal to the single-machine graph's (numpy's vectorised exp differs in the last bit for
# a few percent of arguments).
_c_exp = np.frompyfunc(math.exp, 1, 1)

LAPLACIAN_KINDS = ("normalized", "unnormalized", "random_walk")


class GraphOperator(LinearOperator):
    """A sparse n x n matrix held on a Dask cluster as CSR blocks of consecutive rows.

    Returned by :func:`kernlearn.distributed.knn_graph` with ``output="operator"`` (the kNN graph)
    and by :meth:`laplacian`. Each block (b x n, about 2 b k entries for a kNN graph) stays on the
    worker that built it; a product sends V to the workers and brings back the n x m result, so
    nothing of size nnz ever reaches this process unless :meth:`to_csr` asks for it.
    :func:`kernlearn.linalg.eigsh` and SciPy's solvers take it as any LinearOperator.

    Attributes
    ----------
    offsets : list of int
        Block ``I`` holds rows ``offsets[I]:offsets[I + 1]``.
    nnz : int
        Stored entries over all blocks.
    n_blocks_ : int
    symmetric : bool
        True for a kNN graph and its normalized and unnormalized Laplacians; False for the
        random-walk Laplacian.

    Examples
    --------
    Without a client the blocks live in this process (Dask's local scheduler); with one they stay
    on its workers:

    >>> from kernlearn import graph, linalg
    >>> from kernlearn.distributed import knn_graph
    >>> X = np.random.default_rng(0).standard_normal((400, 3))
    >>> G = knn_graph(X, 8, weight="heat", block_size=100, output="operator")
    >>> G.shape, G.n_blocks_
    ((400, 400), 4)
    >>> (G.to_csr() != graph.knn_graph(X, 8, weight="heat")).nnz  # the same entries, bitwise
    0
    >>> L = G.laplacian("normalized")
    >>> values, vectors, info = linalg.eigsh(L, 3, "LA", random_state=0)
    >>> bool(np.allclose(L @ vectors, vectors * values, atol=1e-8))
    True
    """

    def __init__(self, blocks, offsets, cluster, *, symmetric=True):
        self._blocks, self.offsets, self._cluster = blocks, list(offsets), cluster
        self.n_blocks_ = len(blocks)
        self.symmetric = symmetric
        self.nnz = int(sum(cluster.compute([cluster.dask.delayed(_nnz, pure=False)(b) for b in blocks])))
        n = self.offsets[-1]
        super().__init__(dtype=np.dtype(np.float64), shape=(n, n))

    def _matmat(self, V):
        if np.iscomplexobj(V):
            raise TypeError(
                "V must be real: the graph is a real operator (multiply the real and imaginary parts apart)"
            )
        V = np.ascontiguousarray(V, dtype=np.float64)
        if not np.isfinite(V).all():
            raise ValueError("V must be finite (no NaN or infinity)")
        cluster = self._cluster
        operand = cluster.embed(V)
        product = cluster.dask.delayed(_block_times, pure=False)
        return np.concatenate(cluster.compute([product(b, operand) for b in self._blocks], embedded_bytes=V.nbytes))

    def _matvec(self, v):
        return self._matmat(np.reshape(v, (-1, 1))).ravel()

    def _adjoint(self):
        if not self.symmetric:
            raise NotImplementedError("the transpose of a random-walk Laplacian operator is not available")
        return self

    def degrees(self):
        """d_i = sum_{j != i} G_ij (the diagonal left out, as :func:`kernlearn.graph.laplacian` does),
        one task per block; an ndarray of shape (n,)."""
        task = self._cluster.dask.delayed(_block_degrees, pure=False)
        return np.concatenate(
            self._cluster.compute([task(b, start) for b, start in zip(self._blocks, self.offsets[:-1])])
        )

    def laplacian(self, kind="normalized"):
        """The graph Laplacian as a GraphOperator on the same workers, block by block.

        The kinds and the rule for isolated nodes are those of :func:`kernlearn.graph.laplacian`
        (``"normalized"``: I - D^-1/2 G D^-1/2; ``"unnormalized"``: D - G; ``"random_walk"``:
        I - D^-1 G; an isolated node gets a zero row and column), for a graph with non-negative
        finite weights. Entries agree with that function's to rounding (degrees are summed in
        another order).
        """
        if kind not in LAPLACIAN_KINDS:
            raise ValueError(f"kind must be one of {', '.join(map(repr, LAPLACIAN_KINDS))}, got {kind!r}")
        if not self.symmetric:
            raise ValueError("laplacian needs a symmetric graph operator (a kNN graph), not a Laplacian")
        degrees = self.degrees()
        operand = self._cluster.embed(degrees)
        task = self._cluster.dask.delayed(_block_laplacian, pure=False)
        blocks = self._cluster.persist(
            [task(b, start, operand, kind) for b, start in zip(self._blocks, self.offsets[:-1])],
            embedded_bytes=degrees.nbytes,
        )
        return GraphOperator(blocks, self.offsets, self._cluster, symmetric=kind != "random_walk")

    def to_csr(self):
        """The whole matrix gathered into this process as a scipy CSR matrix (when it fits here)."""
        return sp.vstack(
            self._cluster.compute([self._cluster.dask.delayed(_identity, pure=False)(b) for b in self._blocks]),
            format="csr",
        )


def _identity(block):
    return block


def _nnz(block):
    return block.nnz


def _block_times(block, V):
    """Task: rows of G V for one row block."""
    return block @ V


def _block_degrees(block, start):
    """Task: the off-diagonal row sums of one row block starting at row ``start``."""
    rows = np.repeat(np.arange(block.shape[0]), np.diff(block.indptr))
    off = block.indices != rows + start
    return np.bincount(rows[off], weights=block.data[off], minlength=block.shape[0])


def _inverse_root(degrees):
    out = np.zeros_like(degrees)
    positive = degrees > 0
    out[positive] = 1.0 / np.sqrt(degrees[positive])
    return out


def _block_laplacian(block, start, degrees, kind):
    """Task: rows ``start:start + b`` of the Laplacian of the graph with these degrees: the block's
    off-diagonal pattern plus its diagonal (zero for an isolated node)."""
    b = block.shape[0]
    own = degrees[start : start + b]
    rows = np.repeat(np.arange(b), np.diff(block.indptr))
    off = block.indices != rows + start
    rows, cols, data = rows[off], block.indices[off], block.data[off]
    if kind == "unnormalized":
        values, diagonal = -data, own
    elif kind == "normalized":
        scale = _inverse_root(degrees)
        values, diagonal = -data * scale[rows + start] * scale[cols], (own > 0).astype(np.float64)
    else:  # random_walk
        inverse = np.zeros_like(own)
        inverse[own > 0] = 1.0 / own[own > 0]
        values, diagonal = -data * inverse[rows], (own > 0).astype(np.float64)
    matrix = sp.csr_matrix(
        (np.r_[values, diagonal], (np.r_[rows, np.arange(b)], np.r_[cols, np.arange(b) + start])),
        shape=(b, degrees.size),
    )
    matrix.sort_indices()
    return matrix


# -- assembling the graph's row blocks from the per-block kNN lists (kernlearn.distributed._knn) --


def block_lists(merged, metric, exponent):
    """Task: (indices, distances) of one query block from its merged (indices, keys)."""
    neighbors = _core.neighbors
    result = neighbors.neighbors_from_keys(
        *merged, metric=neighbors.Metric.__members__[metric], scale_exponent=exponent
    )
    return np.array(result.indices), np.array(result.distances)


def edges_by_destination(lists, start, offsets, group_size):
    """Task: the edges of one block's kNN lists (rows from ``start``) grouped by the group of
    ``group_size`` consecutive blocks that holds their neighbour: a tuple, one (neighbour, source
    row, distance) triple per group."""
    indices, distances = lists
    sources = np.repeat(np.arange(indices.shape[0]) + start, indices.shape[1])
    targets, distances = indices.ravel(), distances.ravel()
    group = (np.searchsorted(offsets, targets, side="right") - 1) // group_size
    n_groups = -(-(len(offsets) - 1) // group_size)
    return tuple((targets[group == g], sources[group == g], distances[group == g]) for g in range(n_groups))


def assemble_group(group_lists, starts, n, mode, weight, sigma, *pieces):
    """Task: the row blocks of one group (their own lists ``group_lists``, first rows ``starts``
    and the end of the group as the last entry), from the pieces of every block's lists that
    point into the group: a tuple of CSR blocks, one per block of the group."""
    targets = np.concatenate([t for t, _, _ in pieces])
    sources = np.concatenate([s for _, s, _ in pieces])
    dist = np.concatenate([d for _, _, d in pieces])
    owner = np.searchsorted(starts, targets, side="right") - 1
    return tuple(
        assemble_block(
            lists, starts[i], n, mode, weight, sigma, targets[owner == i], sources[owner == i], dist[owner == i]
        )
        for i, lists in enumerate(group_lists)
    )


def assemble_block(lists, start, n, mode, weight, sigma, targets, sources, in_dist):
    """Rows ``start:start + b`` of the kNN graph, equal to the core's knn_graph (graph.cpp): the
    union ("symmetric") or intersection ("mutual") of the block's own lists and the edges
    (source -> target, with distance) of the lists pointing into it, an edge's distance taken
    from the block's own list when both hold it (the distances of the two directions are bitwise
    equal), sorted columns."""
    indices, distances = lists
    b, k = indices.shape
    out_keys = np.repeat(np.arange(b, dtype=np.int64), k) * n + indices.ravel()
    out_dist = distances.ravel()
    in_keys = (targets - start) * n + sources
    if mode == "symmetric":
        keys = np.concatenate([out_keys, in_keys])
        dist = np.concatenate([out_dist, in_dist])
        keys, first = np.unique(keys, return_index=True)  # the own list's entry comes first
        dist = dist[first]
    else:
        order = np.argsort(out_keys, kind="stable")
        keys = np.intersect1d(out_keys, in_keys, assume_unique=True)
        dist = out_dist[order][np.searchsorted(out_keys[order], keys)]
    rows, cols = keys // n, keys % n
    data = _weights(dist, weight, sigma)
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=b))]
    return sp.csr_matrix((data, cols, indptr), shape=(b, n))


def _weights(dist, weight, sigma):
    if weight == "binary":
        return np.ones_like(dist)
    if weight == "distance":
        return dist  # a fresh array: assemble_block's selection
    r = dist / sigma
    out = np.zeros_like(r)
    finite = r <= _HEAT_CUTOFF
    out[finite] = _c_exp(-0.5 * (r[finite] * r[finite])).astype(np.float64)
    return out


def block_distances(lists):
    """Task: the distances of one block's lists (for the median heat width)."""
    return lists[1]


def all_finite(lists):
    """Task: whether every distance of one block's lists is finite."""
    return bool(np.isfinite(lists[1]).all())
