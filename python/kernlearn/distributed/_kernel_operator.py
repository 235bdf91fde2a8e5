"""A kernel matrix K = k(X, X) as a LinearOperator whose products run tile by tile on a Dask
cluster: no n x n array is ever formed, on the workers or here."""

import math

import numpy as np
from scipy.sparse.linalg import LinearOperator

from .. import _core
from ..kernels import _check_pairwise_parameters, _pairwise_parameters
from ._cluster import Cluster
from ._row_blocks import BlockRule, check_block_size, check_rows, place_rows

__all__ = ["KernelOperator"]

# Default blocks: a product has one task per row block, so two per worker thread let a thread
# that finishes early take another. A task holds one b x b float64 tile at a time: 128 MiB at
# the cap. A task's b x n kernel entries outlast the scheduler's work on it at any block size
# used here: no lower bound.
_BLOCKS = BlockRule(blocks_per_thread=2, max_rows=4096)

# The cached row blocks of a worker may fill this part of its memory limit; the rest is for the
# tasks' inputs and results (Dask starts spilling to disk at 60 % by default).
_CACHE_MEMORY_FRACTION = 0.5


class KernelOperator(LinearOperator):
    """The kernel matrix K = k(X, X) of a data set as a LinearOperator, multiplied on a Dask cluster.

    ``K @ V`` runs as one task per row block I of X: the task builds the tiles k(X_I, X_J) with the
    C++ kernels of :mod:`kernlearn.kernels` (one b x b tile at a time), multiplies each by the
    matching rows of V and returns the b x m block of the product, which is stacked here. With
    ``cache=True`` each row block k(X_I, X) (b x n) is built once and kept in the memory of the
    worker that built it, and later products only multiply. A worker holds at most O(b n) of K.

    Symmetric, so :func:`kernlearn.linalg.eigsh` and scipy's solvers accept it.

    Parameters
    ----------
    X : array-like or dask.array.Array of shape (n_samples, n_features)
        Finite real data, as in :func:`kernlearn.distributed.knn` (a NumPy X is sent to the
        workers in row blocks; a dask array must be partitioned by rows only).
    kernel : {"rbf", "tl1"}
        ``exp(-gamma ||x - y||^2)`` or ``max(tau - ||x - y||_1, 0)``, as in
        :func:`kernlearn.kernels.rbf_kernel` and :func:`kernlearn.kernels.tl1_kernel`, the kernels
        the estimators take by name.
    gamma : float, "scale" or None
        RBF width: None is ``1 / n_features`` (as :func:`kernlearn.kernels.rbf_kernel`),
        "scale" is ``1 / (n_features Var X)`` (SVC's and
        :class:`~kernlearn.indefinite.IndefiniteKernelLogisticRegression`'s default).
    tau : float or None
        TL1 truncation, default ``0.7 n_features``.
    client : distributed.Client or None
        As in :func:`kernlearn.distributed.knn`.
    block_size : int or None
        Rows per block. None: two blocks per worker thread, at most 4096 rows each (a b x b
        tile of 128 MiB).
    cache : bool
        Keep each row block of K on its worker. A ValueError when the cached blocks would exceed
        half of a worker's memory limit (with equally shared blocks).

    Attributes
    ----------
    gamma_ : float or None
        The RBF gamma used (None for TL1).
    tau_ : float or None
        The TL1 truncation used (None for RBF).
    n_blocks_ : int
        Row blocks of X, hence tasks per product.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.distributed import KernelOperator
    >>> from kernlearn.kernels import rbf_kernel
    >>> X = np.random.default_rng(0).standard_normal((400, 3))
    >>> K = KernelOperator(X, "rbf", gamma=0.5, block_size=128)  # no client: Dask's local threads
    >>> V = np.ones((400, 2))
    >>> bool(np.allclose(K @ V, rbf_kernel(X, gamma=0.5) @ V, rtol=1e-12))
    True
    """

    def __init__(self, X, kernel="rbf", *, gamma=None, tau=None, client=None, block_size=None, cache=False):
        cluster = Cluster(client)
        _check_pairwise_parameters(kernel, gamma, tau)
        if not isinstance(cache, (bool, np.bool_)):
            raise TypeError(f"cache must be a bool, got {cache!r}")
        X = check_rows(X, cluster, min_samples=1)
        block_size = check_block_size(block_size)
        n, d = X.shape
        self._cluster = cluster
        self._rows = place_rows(X, block_size, cluster, _BLOCKS)
        self.n_blocks_ = len(self._rows.blocks)
        self.gamma_, self.tau_ = _pairwise_parameters(kernel, gamma, tau, d, lambda: self._rows.variance(cluster))
        # (kind, gamma, tau) of the core's PairwiseKernel
        self._kernel = ("rbf", self.gamma_, 1.0) if kernel == "rbf" else ("tl1", 1.0, self.tau_)
        self._cached_rows = None
        if cache:
            _check_cache_fits(self._rows, cluster)
            build = cluster.dask.delayed(_kernel_row_block, pure=False)
            self._cached_rows = cluster.persist(
                [build(block, self._kernel, *self._rows.blocks) for block in self._rows.blocks]
            )
        super().__init__(dtype=np.dtype(np.float64), shape=(n, n))

    def _matmat(self, V):
        if np.iscomplexobj(V):
            raise TypeError("V must be real: K is a real operator (multiply the real and imaginary parts apart)")
        V = np.ascontiguousarray(V, dtype=np.float64)
        if not np.isfinite(V).all():
            raise ValueError("V must be finite (no NaN or infinity)")
        cluster, rows = self._cluster, self._rows
        operand = cluster.embed(V)
        if self._cached_rows is not None:
            multiply = cluster.dask.delayed(_multiply, pure=False)
            tasks = [multiply(block, operand) for block in self._cached_rows]
        else:
            product = cluster.dask.delayed(_row_block_product, pure=False)
            tasks = [product(block, operand, rows.offsets, self._kernel, *rows.blocks) for block in rows.blocks]
        return np.concatenate(cluster.compute(tasks, embedded_bytes=V.nbytes))

    def _matvec(self, v):
        return self._matmat(np.reshape(v, (-1, 1))).ravel()

    def column(self, i):
        """Column i of K (row i: K is symmetric), k(X, x_i): one task per row block, O(n d) work
        where ``K @ e_i`` would evaluate all of K. The same entries, bitwise, as that product."""
        rows = self._rows
        owner = int(np.searchsorted(rows.offsets, i, side="right")) - 1
        task = self._cluster.dask.delayed(_kernel_column, pure=False)
        tasks = [task(block, rows.blocks[owner], i - rows.offsets[owner], self._kernel) for block in rows.blocks]
        return np.concatenate(self._cluster.compute(tasks))

    def _adjoint(self):
        return self  # K is symmetric


def _check_cache_fits(rows, cluster):
    """A ValueError naming cache when a worker's share of the cached row blocks (b x n float64
    each, the blocks shared equally among the workers) exceeds _CACHE_MEMORY_FRACTION of the
    smallest worker memory limit."""
    limits = cluster.memory_limits()
    smallest = min((limit for limit in limits if limit), default=None)
    if smallest is None:
        return
    blocks_per_worker = math.ceil(len(rows.blocks) / len(limits))
    needed = blocks_per_worker * max(rows.sizes) * rows.n_samples * 8
    if needed > _CACHE_MEMORY_FRACTION * smallest:
        raise ValueError(
            f"cache=True needs {needed / 2**30:.3g} GiB per worker ({blocks_per_worker} row blocks of up to "
            f"{max(rows.sizes)} x {rows.n_samples} float64), more than {_CACHE_MEMORY_FRACTION:.0%} of the "
            f"smallest worker memory limit ({smallest / 2**30:.3g} GiB): use cache=False, more workers or more "
            "memory"
        )


def _pairwise_kernel(spec):
    kind, gamma, tau = spec
    kernels = _core.kernels
    return kernels.PairwiseKernel(kind=kernels.PairwiseKind.__members__[kind], gamma=gamma, tau=tau)


def _row_block_product(block, V, offsets, spec, *blocks):
    """Task: rows of K V for one row block of X, one b x b tile k(X_I, X_J) at a time."""
    kernel = _pairwise_kernel(spec)
    block = np.ascontiguousarray(block, dtype=np.float64)
    out = np.zeros((block.shape[0], V.shape[1]))
    for J, other in enumerate(blocks):
        tile = _core.kernels.pairwise_kernel(block, np.ascontiguousarray(other, dtype=np.float64), kernel=kernel)
        out += tile @ V[offsets[J] : offsets[J + 1]]
    return out


def _kernel_row_block(block, spec, *blocks):
    """Task: the row block k(X_I, X) of K, b x n, for the cache."""
    X = np.concatenate([np.ascontiguousarray(other, dtype=np.float64) for other in blocks])
    return _core.kernels.pairwise_kernel(
        np.ascontiguousarray(block, dtype=np.float64), X, kernel=_pairwise_kernel(spec)
    )


def _kernel_column(block, owner, local_index, spec):
    """Task: k(X_I, x_i) for one row block X_I, x_i being row local_index of the block owner."""
    x = np.ascontiguousarray(owner[local_index : local_index + 1], dtype=np.float64)
    block = np.ascontiguousarray(block, dtype=np.float64)
    return _core.kernels.pairwise_kernel(block, x, kernel=_pairwise_kernel(spec))[:, 0]


def _multiply(rows_of_K, V):
    """Task: a cached row block of K times V."""
    return rows_of_K @ V
