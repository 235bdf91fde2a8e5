"""
Operators, thick-restart Lanczos and dense eigensolvers.
"""

from __future__ import annotations

import collections.abc
import enum
import typing

import numpy
import numpy.typing

import kernlearn._core.core

class Operator:
    """
    A linear operator for the core's solvers: a dense array (viewed, not copied), CSR, a kernel computed on the fly, a sum, a low-rank factor, or a Python object's products. Made by the factories of this module and kernels.kernel_operator; built on each call's thread team.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    def __repr__(self) -> str: ...
    def column(
        self, j: typing.SupportsInt | typing.SupportsIndex, *, n_threads: typing.SupportsInt | typing.SupportsIndex = 1
    ) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        Column j of A.
        """
    def diagonal(
        self, *, n_threads: typing.SupportsInt | typing.SupportsIndex = 1
    ) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        The diagonal of a square A.
        """
    def matmat(
        self,
        V: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
        *,
        n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
    ) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        A @ V for a float64 C-contiguous (n, b) V.
        """
    @property
    def kind(self) -> str: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def symmetric(self) -> bool: ...

class LanczosWhich(enum.Enum):
    """
    Which end of the spectrum Lanczos seeks.
    """

    largest = 0
    smallest = 1

class LanczosFilter:
    """
    Chebyshev filter of filtered Lanczos (chebyshev_filter.hpp).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = ("level", "degree")
    def __init__(self, *, level: float = ..., degree: int = ...) -> None:
        """
        Options; every field defaults to the C++ member initialiser: LanczosFilter._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def degree(self) -> int:
        """
        the polynomial's degree (odd)
        """
    @degree.setter
    def degree(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def level(self) -> float:
        """
        level on the unwanted side of the wanted pairs (in threshold mode at or beyond the threshold)
        """
    @level.setter
    def level(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class LanczosOptions:
    """
    Options of thick-restart Lanczos (lanczos.hpp).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = (
        "k",
        "which",
        "threshold",
        "max_rank",
        "ncv",
        "tol",
        "max_matvec",
        "seed",
        "filter",
    )
    def __init__(
        self,
        *,
        k: int = ...,
        which: LanczosWhich = ...,
        threshold: float | None = ...,
        max_rank: int | None = ...,
        ncv: int | None = ...,
        tol: float = ...,
        max_matvec: int | None = ...,
        seed: int = ...,
        filter: LanczosFilter | None = ...,
    ) -> None:
        """
        Options; every field defaults to the C++ member initialiser: LanczosOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def filter(self) -> LanczosFilter | None:
        """
        None, or LanczosFilter: Lanczos on a Chebyshev polynomial of A
        """
    @filter.setter
    def filter(self, arg1: LanczosFilter | None) -> None: ...
    @property
    def k(self) -> int:
        """
        eigenpairs wanted; in threshold mode the first guess of the count
        """
    @k.setter
    def k(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def max_matvec(self) -> int | None:
        """
        products with A at most (None: 100 n)
        """
    @max_matvec.setter
    def max_matvec(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def max_rank(self) -> int | None:
        """
        threshold mode: at most this many pairs (None: n)
        """
    @max_rank.setter
    def max_rank(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def ncv(self) -> int | None:
        """
        basis size, k < ncv <= n (None: k + max(20, 0.6 k))
        """
    @ncv.setter
    def ncv(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def seed(self) -> int:
        """
        seeds the vectors that replace an invariant Krylov basis
        """
    @seed.setter
    def seed(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def threshold(self) -> float | None:
        """
        None, or every eigenvalue beyond it (above for largest, below for smallest)
        """
    @threshold.setter
    def threshold(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None: ...
    @property
    def tol(self) -> float:
        """
        converged when the residual <= tol * |A|_est
        """
    @tol.setter
    def tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def which(self) -> LanczosWhich:
        """
        LanczosWhich: the end of the spectrum
        """
    @which.setter
    def which(self, arg1: LanczosWhich) -> None: ...

class LanczosResult:
    """
    What Lanczos found (lanczos.hpp).
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "values",
        "vectors",
        "residuals",
        "n_matvec",
        "n_restart",
        "norm_estimate",
        "status",
        "max_rank_reached",
        "filtered",
        "beyond_value",
        "beyond_residual",
    )
    def __repr__(self) -> str: ...
    @property
    def beyond_residual(self) -> float:
        """
        its residual norm
        """
    @property
    def beyond_value(self) -> float:
        """
        threshold mode: the converged Ritz value at or below the threshold that certified the rest (NaN: none)
        """
    @property
    def filtered(self) -> bool:
        """
        the pairs came from the Chebyshev filter
        """
    @property
    def max_rank_reached(self) -> bool:
        """
        threshold mode: more than max_rank pairs lie beyond the threshold (status converged; the max_rank most extreme returned)
        """
    @property
    def n_matvec(self) -> int:
        """
        products with A
        """
    @property
    def n_restart(self) -> int:
        """
        thick restarts
        """
    @property
    def norm_estimate(self) -> float:
        """
        |A| estimate (the largest |Ritz value|)
        """
    @property
    def residuals(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        |A v - lambda v| per pair
        """
    @property
    def status(self) -> kernlearn._core.core.SolverStatus:
        """
        SolverStatus: converged, or max_iter when max_matvec ran out before every pair met tol
        """
    @property
    def values(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        eigenvalues, the most extreme first
        """
    @property
    def vectors(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        n x m orthonormal eigenvectors
        """

def callback_operator(
    matmat: typing.Any,
    rows: typing.SupportsInt | typing.SupportsIndex,
    cols: typing.SupportsInt | typing.SupportsIndex,
    *,
    column: typing.Any = None,
    symmetric: bool = True,
    name: str = "A",
) -> Operator:
    """
    A Python callable X -> A @ X (float64 (cols, b) in, (rows, b) out) as an Operator; column(j) -> A[:, j] when given. The solvers call it with the GIL re-taken; its exceptions propagate.
    """

def csr_operator(
    indptr: numpy.typing.NDArray[numpy.int64],
    indices: numpy.typing.NDArray[numpy.int64],
    data: numpy.typing.NDArray[numpy.float64],
    *,
    symmetric: bool = True,
) -> Operator:
    """
    A square CSR matrix (int64 indptr and indices, float64 data; copied) as an Operator.
    """

def dense_eigenpairs(
    M: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    which: LanczosWhich,
    tol: typing.SupportsFloat | typing.SupportsIndex,
    threshold: typing.SupportsFloat | typing.SupportsIndex | None = None,
    max_count: typing.SupportsInt | typing.SupportsIndex | None = None,
) -> tuple[
    typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"],
]:
    """
    Eigenpairs of the symmetric M (upper triangle read) beyond the threshold (above for largest, below for smallest; None: all), at most max_count (None: all), the extreme first: LAPACK's Householder route with only the wanted pairs (kernlearn/dense_eigen.hpp).
    """

def dense_operator(A: numpy.ndarray, *, symmetric: bool = True, name: str = "A") -> Operator:
    """
    A C-contiguous float32 / float64 array as an Operator, viewed without a copy (kept alive); checked finite.
    """

def lanczos(
    A: typing.Any,
    options: LanczosOptions,
    v0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> LanczosResult:
    """
    Thick-restart Lanczos on a symmetric Operator (or a dense numpy array).
    """

def low_rank_operator(
    U: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    c: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
) -> Operator:
    """
    U diag(c) U' (U: n x r, copied).
    """

def normalized_operator(
    A: Operator, s: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"], *, center: bool = False
) -> Operator:
    """
    H diag(s) A diag(s) H with H = I - 11'/n when center, else diag(s) A diag(s).
    """

def nystrom_operator(
    C: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    W: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    rcond: typing.SupportsFloat | typing.SupportsIndex = 1e-12,
) -> Operator:
    """
    The Nystrom approximation C W^+ C' (C: n x M kernel columns at M centres, W: their M x M block) as a low-rank Operator; W's eigenvalues below rcond times the largest are dropped.
    """

def sum_operator(
    terms: collections.abc.Sequence[tuple[Operator, typing.SupportsFloat | typing.SupportsIndex]],
    *,
    shift: typing.SupportsFloat | typing.SupportsIndex = 0.0,
    constant: typing.SupportsFloat | typing.SupportsIndex = 0.0,
    n: typing.SupportsInt | typing.SupportsIndex | None = None,
) -> Operator:
    """
    sum_t c_t A_t + shift I + constant 11' for terms [(A_t, c_t)] (n: the size when there are none).
    """

FILTER_DEGREE: int = 5
