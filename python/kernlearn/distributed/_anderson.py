"""Anderson acceleration of ISM on the projectors W W', as the core's ``AndersonProjector``
(``cpp/src/methods/kdac.cpp``), for KDAC's W-step on a Dask cluster.

All of it is small: d x d projectors, a few per W-step, and a least-squares fit with a handful of
columns. Only Phi(W), the map being accelerated, runs on the cluster
(:meth:`~kernlearn.distributed._hsic.HsicTiles.phi`).
"""

import collections

import numpy as np
import scipy.linalg

from ._subspace import leading_subspace

__all__ = ["AndersonProjector", "pivoted_least_squares"]


def pivoted_least_squares(A, b):
    """min |A x - b| by Householder QR with column pivoting, with the core's rank rule.

    The pivot is the remaining column of largest norm; columns whose pivot |R_kk| is at most
    epsilon x min(m, h) x the largest pivot are dropped (x = 0 there), and so is every column after
    the first one dropped: the rule of Eigen's ColPivHouseholderQR that the core's
    ``pivoted_least_squares`` writes out. LAPACK's geqp3 pivots on the same norms (updated rather
    than recomputed, the same choice up to rounding on near ties).

    Parameters
    ----------
    A : ndarray of shape (m, h)
    b : ndarray of shape (m,)

    Returns
    -------
    x : ndarray of shape (h,)
        The basic solution: nonzero only on the columns kept.
    """
    m, h = A.shape
    x = np.zeros(h)
    steps = min(m, h)
    if steps == 0:
        return x
    # check_finite=False: a non-finite A gives a non-finite x, which the caller tests (as the core).
    Q, R, order = scipy.linalg.qr(A, mode="economic", pivoting=True, check_finite=False)
    diagonal = np.abs(np.diag(R))[:steps]
    cut = diagonal.max() * np.finfo(np.float64).eps * steps
    kept = diagonal > cut
    rank = steps if kept.all() else int(np.argmin(kept))
    if rank:
        rhs = (Q.T @ b)[:rank]
        x[order[:rank]] = scipy.linalg.solve_triangular(R[:rank, :rank], rhs, check_finite=False)
    return x


class AndersonProjector:
    """Anderson acceleration (type II, Walker & Ni, SIAM J. Numer. Anal. 2011) of the ISM map on
    the projectors P = W W' (the subspace, free of the sign and basis of W).

    From the last ``depth + 1`` iterates x_i = vec(P_i) and map values g_i = vec(P(W_map,i)), it
    extrapolates g - dG gamma, gamma the least-squares fit of the residual f = g - x by the
    residual differences dF (:func:`pivoted_least_squares`), and returns the q leading
    eigenvectors of that matrix, symmetrised.

    Parameters
    ----------
    q : int
        Columns of W.
    depth : int
        Residual differences used (0: never extrapolates).
    """

    def __init__(self, q, depth):
        self.q = q
        self.x = collections.deque(maxlen=depth + 1)
        self.g = collections.deque(maxlen=depth + 1)

    def clear(self):
        """Forget the history: the next call of :meth:`next` returns its W_map."""
        self.x.clear()
        self.g.clear()

    def next(self, W, W_map):
        """Record (W, W_map) and return (the next iterate, whether it is extrapolated): W_map
        itself while fewer than two pairs are known, or when the fit is not finite or the
        eigensolver fails (the core's fallbacks)."""
        self.x.append((W @ W.T).ravel())
        self.g.append((W_map @ W_map.T).ravel())
        if len(self.x) < 2:
            return W_map, False
        x, g = np.array(self.x).T, np.array(self.g).T  # d^2 x (h + 1), oldest first
        residuals = g - x
        dF, dG = np.diff(residuals, axis=1), np.diff(g, axis=1)
        gamma = pivoted_least_squares(dF, residuals[:, -1])
        if not np.isfinite(gamma).all():
            return W_map, False
        d = W.shape[0]
        P = (g[:, -1] - dG @ gamma).reshape(d, d)
        W_next = leading_subspace(0.5 * (P + P.T), self.q)
        return (W_map, False) if W_next is None else (W_next, True)
