"""Operators for the core's solvers: one conversion from what a user or an estimator holds (a
dense array, a scipy sparse matrix, kernlearn's KernelOperator, any scipy LinearOperator) to the
core's ``Operator`` (cpp/bindings/operators.hpp), which every solver of the core takes.

A dense array is viewed without a copy; a KernelOperator brings its own C++ operator (products
computed on the fly, no Python in the loop); any other LinearOperator becomes a callback whose
products the core requests with the GIL re-taken, so a Dask cluster's operators run the same
C++ solvers as an array does.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .. import _core
from ._validation import as_real_array

__all__ = ["as_core_operator", "OPERATOR_SYMMETRY_RTOL", "operator_asymmetry", "check_symmetric_operator"]

# Relative asymmetry |u'Av - v'Au| / (||Au|| + ||Av||) above which an operator is refused as not
# symmetric. Rounding of a tiled product stays near n * eps; a genuinely non-symmetric operator
# gives O(1).
OPERATOR_SYMMETRY_RTOL = 1e-8


def as_core_operator(A, name="A", *, symmetric=True):
    """The core's Operator for A.

    Parameters
    ----------
    A : ndarray, scipy sparse matrix, LinearOperator or _core.linalg.Operator
        A dense float32 / float64 array is viewed as it is when C-contiguous (else copied once to
        float64); a sparse matrix is converted to canonical CSR; an object with a ``core_operator``
        attribute (kernlearn.kernels.KernelOperator) gives its own; any other LinearOperator
        becomes a callback to its ``matmat`` (and ``column``, when it has one).
    name : str
        The argument's name, for the core's messages.
    symmetric : bool
        Declared symmetric (the solvers that need it check the flag, not the entries).
    """
    if isinstance(A, _core.linalg.Operator):
        return A
    core = getattr(A, "core_operator", None)
    if isinstance(core, _core.linalg.Operator):
        return core
    if isinstance(A, LinearOperator):
        return _callback_named(A, name, symmetric)
    if sp.issparse(A):
        S = sp.csr_matrix(A, dtype=np.float64)  # may share the caller's arrays: never sorted in place
        if not S.has_canonical_format:
            S = S.copy()
            S.sum_duplicates()  # sorts too
        # The binding copies the arrays it checks: no second copy here.
        return _core.linalg.csr_operator(
            S.indptr.astype(np.int64, copy=False),
            S.indices.astype(np.int64, copy=False),
            np.ascontiguousarray(S.data),
            symmetric=symmetric,
        )
    arr = np.asarray(A)
    if arr.dtype not in (np.float32, np.float64) or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    return _core.linalg.dense_operator(arr, symmetric=symmetric, name=name)


def _callback_named(A, name, symmetric):
    column = getattr(A, "column", None)
    return _core.linalg.callback_operator(
        A.matmat,
        int(A.shape[0]),
        int(A.shape[1]),
        column=column if callable(column) else None,
        symmetric=symmetric,
        name=name,
    )


def operator_asymmetry(A, rng):
    """Relative |u'Av - v'Au| / (||Au|| + ||Av||) for two random unit vectors: one product with an
    (n, 2) block. A ValueError when the product is not finite."""
    n = A.shape[0]
    probe = rng.standard_normal((n, 2))
    probe /= np.linalg.norm(probe, axis=0)
    product = np.asarray(A.matmat(probe), dtype=np.float64)
    if not np.isfinite(product).all():
        raise ValueError("the product of the operator with a vector is not finite")
    u, v = probe.T
    Au, Av = product.T
    scale = np.linalg.norm(Au) + np.linalg.norm(Av)
    return abs(u @ Av - v @ Au) / scale if scale > 0 else 0.0


def check_symmetric_operator(A, name, rng):
    """A square real LinearOperator that passes the symmetry probe, else a ValueError / TypeError
    naming the argument."""
    if len(A.shape) != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) operator, got shape {A.shape}")
    if np.dtype(A.dtype).kind not in "biuf":
        raise TypeError(f"{name} must be a real operator, got dtype {A.dtype}")
    core = getattr(A, "core_operator", None)
    if isinstance(core, _core.linalg.Operator) and core.symmetric:  # symmetric by construction
        return
    asymmetry = operator_asymmetry(A, rng)
    if not asymmetry <= OPERATOR_SYMMETRY_RTOL:
        raise ValueError(
            f"{name} is not symmetric: |u'Av - v'Au| / (||Au|| + ||Av||) = {asymmetry:.3g} for random unit vectors "
            f"u, v (the limit is {OPERATOR_SYMMETRY_RTOL:g})"
        )


class CoreLinearOperator(LinearOperator):
    """A core Operator as a scipy LinearOperator: products in C++ on ``n_threads`` threads, the GIL
    released; the solvers of the core use ``core_operator`` directly (no Python in their loops).
    Float64 results whatever the storage."""

    # What V's rows stand for, in the messages of a product (KernelOperator: the rows of X).
    _operand_rows = "one per column of the operator"

    def __init__(self, core_operator, n_threads):
        self.core_operator = core_operator
        self.n_threads = int(n_threads)
        super().__init__(dtype=np.dtype(np.float64), shape=tuple(core_operator.shape))

    # The products' operand passes the input rule first (as_real_array), so that a bad V gets a
    # message naming V, where scipy's LinearOperator says "dimension mismatch" or "Scalar
    # operands are not allowed"; a checked V then takes scipy's own route (output conventions).
    def _operand(self, V, ndims=(1, 2)):
        V = as_real_array(V, "V", ensure_2d=False, allow_nd=True)
        if V.ndim not in ndims:
            wanted = "a 2-D block of vectors" if ndims == (2,) else "a vector or a 2-D block of vectors"
            raise ValueError(f"V must be {wanted}, got shape {V.shape}")
        if V.shape[0] != self.shape[1]:
            raise ValueError(f"V must have {self.shape[1]} rows ({self._operand_rows}), got shape {V.shape}")
        return V

    def __matmul__(self, other):
        if isinstance(other, LinearOperator):
            return super().__matmul__(other)
        return super().__matmul__(self._operand(other))

    def dot(self, x):
        if isinstance(x, LinearOperator) or (isinstance(x, numbers.Number) and np.isscalar(x)):
            return super().dot(x)  # a product or a scaled operator
        return super().dot(self._operand(x))

    def matmat(self, X):
        return super().matmat(self._operand(X, ndims=(2,)))

    def matvec(self, x):
        x = self._operand(x)
        if x.ndim == 2 and x.shape[1] != 1:
            raise ValueError(f"V must be a vector, shape ({self.shape[1]},) or ({self.shape[1]}, 1), got {x.shape}")
        return super().matvec(x)

    def _matmat(self, V):
        if np.iscomplexobj(V):
            raise TypeError("V must be real: the operator is real (multiply the real and imaginary parts apart)")
        V = np.ascontiguousarray(V, dtype=np.float64)
        if V.ndim == 1:
            V = V[:, None]
        return self.core_operator.matmat(V, n_threads=self.n_threads)

    def _matvec(self, v):
        return self._matmat(np.reshape(v, (-1, 1)))[:, 0]

    def _adjoint(self):
        if self.core_operator.symmetric:
            return self
        return super()._adjoint()

    def column(self, j):
        """Column j (for a kernel, k(X, x_j): O(n d), where ``A @ e_j`` would compute all of A)."""
        return self.core_operator.column(int(j), n_threads=self.n_threads)

    def diagonal(self):
        """The diagonal of the (square) operator."""
        return self.core_operator.diagonal(n_threads=self.n_threads)
