"""
Thick-restart Lanczos and dense eigensolvers.
"""

from __future__ import annotations

import collections.abc
import enum
import typing

import numpy
import numpy.typing

import kernlearn._core.core

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
    def degree(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def level(self) -> float:
        """
        level on the unwanted side of the wanted pairs (in threshold mode at or beyond the threshold)
        """
    @level.setter
    def level(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class LanczosOptions:
    """
    Options of thick-restart Lanczos (lanczos.hpp).
    """

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
    def filter(self, arg0: LanczosFilter | None) -> None: ...
    @property
    def k(self) -> int:
        """
        eigenpairs wanted; in threshold mode the first guess of the count
        """
    @k.setter
    def k(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def max_matvec(self) -> int | None:
        """
        products with A at most (None: 100 n)
        """
    @max_matvec.setter
    def max_matvec(self, arg0: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def max_rank(self) -> int | None:
        """
        threshold mode: at most this many pairs (None: n)
        """
    @max_rank.setter
    def max_rank(self, arg0: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def ncv(self) -> int | None:
        """
        basis size, k < ncv <= n (None: k + max(20, 0.6 k))
        """
    @ncv.setter
    def ncv(self, arg0: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def seed(self) -> int:
        """
        seeds the vectors that replace an invariant Krylov basis
        """
    @seed.setter
    def seed(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def threshold(self) -> float | None:
        """
        None, or every eigenvalue beyond it (above for largest, below for smallest)
        """
    @threshold.setter
    def threshold(self, arg0: typing.SupportsFloat | typing.SupportsIndex | None) -> None: ...
    @property
    def tol(self) -> float:
        """
        converged when the residual <= tol * |A|_est
        """
    @tol.setter
    def tol(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def which(self) -> LanczosWhich:
        """
        LanczosWhich: the end of the spectrum
        """
    @which.setter
    def which(self, arg0: LanczosWhich) -> None: ...

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
    )
    def __repr__(self) -> str: ...
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
    Eigenpairs of the symmetric M (lower triangle read) beyond the threshold (above for largest, below for smallest; None: all), at most max_count (None: all), the extreme first: LAPACK's Householder route with only the wanted pairs (kernlearn/dense_eigen.hpp).
    """

def lanczos_callback(
    n: typing.SupportsInt | typing.SupportsIndex,
    matmat: collections.abc.Callable,
    options: LanczosOptions,
    v0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> LanczosResult:
    """
    Thick-restart Lanczos on a Python callback X -> A @ X.
    """

def lanczos_csr(
    indptr: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, 1]"],
    indices: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, 1]"],
    data: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    options: LanczosOptions,
    v0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> LanczosResult:
    """
    Thick-restart Lanczos on a CSR matrix (sorted, canonical, symmetric).
    """

def lanczos_dense(
    A: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    options: LanczosOptions,
    v0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> LanczosResult:
    """
    Thick-restart Lanczos on a dense matrix.
    """

FILTER_DEGREE: int = 5
