"""The data of kernlearn.distributed: X checked, cut into blocks of consecutive rows, and held where
the tasks run."""

import dataclasses
import math

import numpy as np

from .._utils._validation import check_data, check_int


class RowBlocks:
    """X as blocks of consecutive rows on the cluster.

    Attributes
    ----------
    blocks : list
        One task input per block (a future, a Delayed chunk of a dask array, or the array itself
        under the local scheduler), in row order; no block is empty.
    offsets : list of int
        Block ``I`` holds rows ``offsets[I]:offsets[I + 1]``.
    n_samples, n_features : int
    largest : float
        max |x| over X, finite (0 for an all-zero X).
    source : ndarray or dask array
        X itself (float64), a dask array persisted in memory.
    """

    def __init__(self, blocks, offsets, n_features, largest, source):
        self.blocks = blocks
        self.offsets = offsets
        self.n_samples = offsets[-1]
        self.n_features = n_features
        self.largest = largest
        self.source = source

    @property
    def sizes(self):
        return [end - start for start, end in zip(self.offsets[:-1], self.offsets[1:])]

    def variance(self, cluster):
        """The variance of all entries of X (numpy's ``X.var()`` for a NumPy X; two passes over
        the blocks of a dask X: the mean, then the squared deviations)."""
        if isinstance(self.source, np.ndarray):
            return float(self.source.var())
        task = cluster.dask.delayed(_sum_of_powers, pure=False)
        mean = sum(cluster.compute([task(block, 0.0, 1) for block in self.blocks])) / self.source.size
        return sum(cluster.compute([task(block, mean, 2) for block in self.blocks])) / self.source.size


def _sum_of_powers(block, centre, power):
    """Task: sum of (x - centre)^power over a block."""
    return float(((np.asarray(block, dtype=np.float64) - centre) ** power).sum())


def _largest_magnitude(block):
    """Task: max |x| over a (non-empty) block; NaN when it holds a NaN, inf when an infinity."""
    return float(np.abs(block).max())


def check_rows(X, cluster, *, min_samples):
    """X checked without computing anything: a finite float64 C-order ndarray (any array-like but a
    dask array is converted, as by kernlearn's single-machine functions), or a float64 dask array
    partitioned by rows (finiteness is checked when it is placed)."""
    if isinstance(X, cluster.da.Array):
        return _check_dask_array(X, min_samples)
    return check_data(X, "X", min_samples=min_samples)


def _check_dask_array(X, min_samples):
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got a dask array of shape {X.shape}")
    if any(math.isnan(size) for size in X.shape):
        raise ValueError("X has unknown chunk sizes; call X.compute_chunk_sizes() first")
    if len(X.chunks[1]) != 1:
        raise ValueError(
            f"X must be partitioned by rows only, got {len(X.chunks[1])} chunks along the columns; "
            "use X.rechunk({1: -1})"
        )
    if X.dtype.kind not in "biuf":
        raise TypeError(f"X must hold real numbers; got dtype {X.dtype}")
    n, d = X.shape
    if n < min_samples:
        raise ValueError(f"X has {n} sample(s) while a minimum of {min_samples} is required")
    if d < 1:
        raise ValueError("X has 0 features; at least 1 is required")
    return X if X.dtype == np.float64 else X.astype(np.float64)


def check_block_size(block_size):
    """None or an int >= 1."""
    return None if block_size is None else check_int(block_size, "block_size", low=1)


# Dask's scheduler spends about 2 ms on each task, one task after another, whatever the number of
# workers (bench/results/distributed.md, "Scheduler overhead per task"). With T tasks on t worker
# threads, that is T x 2 ms of wall time against the T tasks' compute / t: a default block keeps
# the scheduler's share under a tenth.
_SCHEDULER_SECONDS_PER_TASK = 2e-3
_SCHEDULER_SHARE = 0.1


@dataclasses.dataclass(frozen=True)
class BlockRule:
    """How a distributed path picks its rows per block when the caller gives none.

    About ``blocks_per_thread`` blocks per worker thread, so that every thread has work; for a
    method with one task per pair of blocks, whose task computes b^2 point pairs at
    ``seconds_per_pair`` each, at least enough rows that the task outlasts the scheduler's share
    (_SCHEDULER_SHARE) of its work on ``n_threads`` threads; at most ``max_rows`` rows (the
    memory and duration bound of one task), rounded up to a multiple of ``multiple``.
    """

    blocks_per_thread: int
    max_rows: int
    seconds_per_pair: float = 0.0
    multiple: int = 1

    def rows(self, n_samples, n_threads):
        rows = math.ceil(n_samples / (self.blocks_per_thread * n_threads))
        if self.seconds_per_pair:
            pairs = n_threads * _SCHEDULER_SECONDS_PER_TASK / (_SCHEDULER_SHARE * self.seconds_per_pair)
            rows = max(rows, math.ceil(math.sqrt(pairs)))
        rows = min(rows, self.max_rows)
        return max(1, -(-rows // self.multiple) * self.multiple)


def place_rows(X, block_size, cluster, rule):
    """RowBlocks of a checked X (check_rows). A NumPy X is cut into blocks of ``block_size`` rows
    (when None, the BlockRule ``rule``'s rows for the cluster's threads; the last block holds the
    rest) and sent to the workers. A dask X
    keeps its row chunks unless ``block_size`` is given, is computed once and kept in the workers'
    memory, and is checked for non-finite entries there."""
    if isinstance(X, np.ndarray):
        rows = block_size or rule.rows(X.shape[0], cluster.n_threads())
        offsets = list(range(0, X.shape[0], rows)) + [X.shape[0]]
        blocks = cluster.place([X[start:end] for start, end in zip(offsets[:-1], offsets[1:])])
        return RowBlocks(blocks, offsets, X.shape[1], float(np.abs(X).max()), X)
    if block_size is not None:
        X = X.rechunk({0: block_size})
    X = cluster.persist_array(X)
    chunks = [(chunk, size) for chunk, size in zip(X.to_delayed()[:, 0], X.chunks[0]) if size > 0]
    blocks = [chunk for chunk, _ in chunks]
    largest = cluster.compute([cluster.dask.delayed(_largest_magnitude, pure=False)(block) for block in blocks])
    if not np.isfinite(largest).all():
        raise ValueError("X must be finite: it contains NaN or infinity")
    offsets = [0, *np.cumsum([size for _, size in chunks]).tolist()]
    return RowBlocks(blocks, offsets, X.shape[1], float(max(largest)), X)
