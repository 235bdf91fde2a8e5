"""The Nystrom feature map of a kernel at M centres, for models that replace an n x n kernel by
features (IKLR's Nystrom model) or extend a Nystrom kernel to new points (KDAC's low-rank fit).

With the centres' block W = U S U' (its eigenpairs with |s| > rcond max |s|), the map is
phi(x) = k(x, Z) U |S|^-1/2, so that phi(x)' J phi(x') = k(x, Z) W^+ k(Z, x') with J = sign(S):
the Nystrom approximation C W^+ C' of the kernel, in the form of r <= M features. For a PSD
kernel J = I and phi(x)'phi(x') is that approximation itself; for an indefinite one phi(x)'phi(x')
is its spectrum-flipped (PSD) version C |W|^+ C'.
"""

import numpy as np

from .. import _core
from ._interruptible import call_interruptibly

# Entries of one block of k(X, Z) while it is built: 32 MiB of float64 (a callable kernel sees
# blocks of this size, never the whole n x M array at once besides the result).
_BLOCK_ENTRIES = 2**22


class NystromMap:
    """phi(x) = k(x, Z) U |S|^-1/2 for a kernel callable ``kernel(A, B) -> (len(A), len(B))``.

    Attributes
    ----------
    centers : ndarray of shape (M, d)
    projection : ndarray of shape (M, r)
        U |S|^-1/2 over the kept eigenpairs of W.
    signs : ndarray of shape (r,)
        sign(S): all +1 for a PSD W.
    center_features : ndarray of shape (M, r)
        phi at the centres, W U |S|^-1/2.
    """

    def __init__(self, kernel, centers, rcond=None):
        self.kernel = kernel
        self.centers = centers
        # Eigenvalues of W at most rcond times its largest magnitude are dropped (their features
        # would amplify the rounding of k(x, Z) by 1 / sqrt(rcond)); by default the core's cut,
        # which its Nystrom kernels (KDAC's) use too.
        rcond = _core.kernels.NYSTROM_RCOND if rcond is None else rcond
        W = np.asarray(kernel(centers, centers), dtype=np.float64)
        W = 0.5 * (W + W.T)
        # Every pair, by the core's LAPACK route: it releases the GIL, so Ctrl-C stops the fit
        # during the M x M solve (scipy.linalg.eigh holds the GIL: 20 s and more under load).
        s, U = call_interruptibly(
            _core.linalg.dense_eigenpairs, np.ascontiguousarray(W), _core.linalg.LanczosWhich.largest, 0.0
        )
        scale = np.abs(s).max() if s.size else 0.0
        keep = np.abs(s) > rcond * scale
        if not keep.any():
            raise ValueError("the kernel vanishes on the Nystrom centres: no feature can be built from them")
        self.projection = np.ascontiguousarray(U[:, keep] / np.sqrt(np.abs(s[keep])))
        self.signs = np.sign(s[keep])
        self.center_features = np.ascontiguousarray(W @ self.projection)

    @property
    def n_features(self):
        return self.projection.shape[1]

    def kernel_columns(self, X):
        """C = k(X, Z), shape (len(X), M), C-ordered float64, built a block of rows at a time (the
        features are C @ projection; a solver applies the two factors in turn rather than form it)."""
        out = np.empty((X.shape[0], self.centers.shape[0]))
        rows = max(1, _BLOCK_ENTRIES // self.centers.shape[0])
        for start in range(0, X.shape[0], rows):
            out[start : start + rows] = self.kernel(X[start : start + rows], self.centers)
        return out
