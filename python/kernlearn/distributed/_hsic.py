"""KDAC's kernel sums on a Dask cluster: Phi(W) of eq. (8) and the Gaussian kernel's products (its
degree vector among them), one task per pair of row blocks (I, J), J >= I. The d x d parts of Phi
are reduced by a tree of sums on the workers; the n x m parts of a product come back and are added
here. Only d x d matrices and n x m products travel to this process.

:class:`HsicTiles` is what the core's KDAC loop calls for its sums (``_core.methods.kdac(...,
sums=tiles)``: set_weights, phi, kernel_times, the C++ HsicSums interface of
cpp/include/kernlearn/kernels/hsic.hpp): the alternation, ISM and its acceleration run in C++,
once, for both backends."""

import numpy as np

from .. import _core
from ._row_blocks import BlockRule

__all__ = ["HsicTiles"]

# Default blocks: about four per worker thread gives n_b (n_b + 1) / 2 block pairs, several per
# thread, so a thread that finishes early takes another; a pair of distinct blocks does twice the
# work of a diagonal one. A pair task costs about 1.3e-8 s per point pair on one thread (d = 16,
# q = 2, m = 4; bench/results/distributed.md), which sets the rows that keep the scheduler's
# share small. A task holds two row blocks and O(b d) scratch (the core streams 256 x 256
# tiles); the cap keeps a task within seconds at d ~ 20. Default blocks are whole multiples of
# the core's tile (kHsicTile in hsic.hpp): a ragged block adds a ragged, slower tile to every tile
# row and column of its pairs.
_BLOCKS = BlockRule(blocks_per_thread=4, max_rows=16384, seconds_per_pair=1.3e-8, multiple=256)

# Partial sums added per task of the reduction tree: depth log_4 of the number of parts.
_SUM_FAN_IN = 4

# Rows of the kernel tiles that a product task builds at a time (8 MiB of float64).
_PRODUCT_TILE = 1024


class HsicTiles:
    """A column-centred X held on the workers in row blocks, and the sums of KDAC over its pairs.

    Parameters
    ----------
    Xc : ndarray of shape (n_samples, n_features)
        Finite, float64, C order, column-centred (the core's hsic_phi centres its X the same way:
        Phi and the kernel see only differences, and centring keeps the sums' rounding small).
    cluster : Cluster
    block_size : int or None
        Rows per block; None: about four blocks per worker thread, at least enough rows that a task
        outlasts the scheduler's work on it, at most 16384 (``_BLOCKS``).
    """

    def __init__(self, Xc, cluster, block_size=None):
        n = Xc.shape[0]
        if block_size is None:
            block_size = _BLOCKS.rows(n, cluster.n_threads())
        self.offsets = list(range(0, n, block_size)) + [n]
        self.cluster = cluster
        self.blocks = cluster.place(self._cut(Xc))
        # The block pairs J >= I: each off-diagonal pair stands for (I, J) and (J, I).
        self.pairs = [(i, j) for i in range(len(self.blocks)) for j in range(i, len(self.blocks))]

    def _cut(self, M):
        return [np.ascontiguousarray(M[start:end]) for start, end in zip(self.offsets[:-1], self.offsets[1:])]

    def place(self, M):
        """Row blocks of an n x m matrix sent to the workers, cut like X."""
        return self.cluster.place(self._cut(M))

    def set_weights(self, A, c):
        """gamma = A diag(c) A' for the :meth:`phi` calls that follow: A's row blocks are sent to
        the workers once (a W-step's ISM evaluates Phi a dozen times with the same gamma)."""
        self._weights = (
            self.place(np.ascontiguousarray(A, dtype=np.float64)),
            np.ascontiguousarray(c, dtype=np.float64),
        )

    def phi(self, W, sigma, with_bound=False):
        """(Phi(W), Tr(gamma K), the right side of (10)) as the core's hsic_phi returns them, for
        the gamma of the last :meth:`set_weights`."""
        A_blocks, c = self._weights
        dask = self.cluster.dask
        task = dask.delayed(_phi_of_block_pair, pure=False)
        W = np.ascontiguousarray(W, dtype=np.float64)
        parts = [
            task(self.blocks[i], self.blocks[j], A_blocks[i], A_blocks[j], W, c, float(sigma), i == j, with_bound)
            for i, j in self.pairs
        ]
        phi, trace, bound = self.cluster.compute([_tree_sum(parts, dask)])[0]
        return phi, float(trace), float(bound)

    def kernel_times(self, W, sigma, V):
        """K V for the Gaussian kernel exp(-|W'(x_i - x_j)|^2 / (2 sigma^2)) and V of shape (n, m)."""
        dask = self.cluster.dask
        V = np.ascontiguousarray(V, dtype=np.float64)
        operand = self.cluster.embed(V)
        W = np.ascontiguousarray(W, dtype=np.float64)
        gamma = 0.5 / float(sigma) ** 2
        task = dask.delayed(_kernel_times_of_block_pair, pure=False)
        tasks = [task(self.blocks[i], self.blocks[j], operand, self.offsets, i, j, W, gamma) for i, j in self.pairs]
        # The n x m parts come straight back and are added here, in pair order: one round trip per
        # product (a Lanczos U-step makes dozens), where a tree of sums on the workers adds two.
        out = np.zeros_like(V)
        for (i, j), (YI, YJ) in zip(self.pairs, self.cluster.compute(tasks, embedded_bytes=V.nbytes)):
            out[self.offsets[i] : self.offsets[i + 1]] += YI
            if YJ is not None:
                out[self.offsets[j] : self.offsets[j + 1]] += YJ
        return out


def _tree_sum(parts, dask):
    """A Delayed sum of the parts, added _SUM_FAN_IN at a time (a fixed order: the result does not
    depend on which task finishes first)."""
    add = dask.delayed(_sum_parts, pure=False)
    while len(parts) > 1:
        parts = [
            add(*parts[i : i + _SUM_FAN_IN]) if i + 1 < len(parts) else parts[i]
            for i in range(0, len(parts), _SUM_FAN_IN)
        ]
    return parts[0]


def _sum_parts(*parts):
    """Task: the sum of arrays, or of equal-length tuples of arrays and floats, in order."""
    if isinstance(parts[0], tuple):
        return tuple(_sum_parts(*field) for field in zip(*parts))
    total = parts[0] + parts[1] if len(parts) > 1 else parts[0]
    for part in parts[2:]:
        total = total + part
    return total


def _phi_of_block_pair(XI, XJ, AI, AJ, W, c, sigma, same, with_bound):
    """Task: the core's Phi sums over the pairs of blocks I and J, one thread (Dask runs as many
    tasks at once as the workers have threads)."""
    phi, trace, bound = _core.kernels.hsic_phi_pair(
        XI, XJ, W, AI, AJ, c, sigma=sigma, same=same, with_bound=with_bound, n_threads=1
    )
    return phi, trace, bound


def _kernel_times_of_block_pair(XI, XJ, V, offsets, i, j, W, gamma):
    """Task: (K_IJ V_J, K_IJ' V_I) for the kernel of the projections X_I W, X_J W, built in tiles
    of _PRODUCT_TILE rows by the core's pairwise_kernel; for I = J, (K_II V_I, None) from the
    tiles on and above the diagonal."""
    kernels = _core.kernels
    kernel = kernels.PairwiseKernel(kind=kernels.PairwiseKind.rbf, gamma=gamma)
    ZI = np.ascontiguousarray(XI @ W)
    ZJ = ZI if i == j else np.ascontiguousarray(XJ @ W)
    VI = V[offsets[i] : offsets[i + 1]]
    VJ = V[offsets[j] : offsets[j + 1]]
    YI = np.zeros((ZI.shape[0], V.shape[1]))
    YJ = YI if i == j else np.zeros((ZJ.shape[0], V.shape[1]))
    for r in range(0, ZI.shape[0], _PRODUCT_TILE):
        for s in range(r if i == j else 0, ZJ.shape[0], _PRODUCT_TILE):
            K = kernels.pairwise_kernel(ZI[r : r + _PRODUCT_TILE], ZJ[s : s + _PRODUCT_TILE], kernel=kernel)
            YI[r : r + _PRODUCT_TILE] += K @ VJ[s : s + _PRODUCT_TILE]
            if i != j or r != s:  # the mirrored tile
                YJ[s : s + _PRODUCT_TILE] += K.T @ VI[r : r + _PRODUCT_TILE]
    return YI, (None if i == j else YJ)
