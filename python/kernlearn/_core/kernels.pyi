"""
Kernel matrices, kernel operators and HSIC blocks.
"""

from __future__ import annotations

import collections.abc
import enum
import typing

import numpy
import numpy.typing

import kernlearn._core.linalg

class PairwiseKind(enum.Enum):
    """
    The pairwise kernels.
    """

    rbf = 1
    tl1 = 0

class PairwiseKernel:
    """
    A pairwise kernel: its kind and parameter.
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = ("kind", "tau", "gamma")
    def __init__(self, *, kind: PairwiseKind = ..., tau: float = ..., gamma: float = ...) -> None:
        """
        Options; every field defaults to the C++ member initialiser: PairwiseKernel._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def gamma(self) -> float:
        """
        RBF width
        """
    @gamma.setter
    def gamma(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def kind(self) -> PairwiseKind:
        """
        PairwiseKind.tl1 or PairwiseKind.rbf
        """
    @kind.setter
    def kind(self, arg1: PairwiseKind) -> None: ...
    @property
    def tau(self) -> float:
        """
        TL1 truncation
        """
    @tau.setter
    def tau(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

def affine_invariant_kernel(
    W: numpy.typing.NDArray[numpy.float64],
    T: numpy.typing.NDArray[numpy.float64],
    *,
    gamma: typing.SupportsFloat | typing.SupportsIndex,
    same: bool,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> numpy.typing.NDArray[numpy.float64]: ...
def gaussian_degree(
    Z: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    sigma: typing.SupportsFloat | typing.SupportsIndex,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]: ...
def hsic_phi(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    W: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    A: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    c: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    sigma: typing.SupportsFloat | typing.SupportsIndex,
    with_bound: bool = False,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple[typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"], float, float]:
    """
    (Phi(W) of eq. (8), Tr(gamma K), the right side of (10)).
    """

def hsic_phi_nystrom(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    W: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    A: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    c: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    sigma: typing.SupportsFloat | typing.SupportsIndex,
    landmarks: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    seed: typing.SupportsInt | typing.SupportsIndex = 0,
    with_bound: bool = False,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple[typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"], float, float]:
    """
    hsic_phi's (Phi, Tr(gamma K), bound) from the Nystrom kernel on the landmark rows (KDAC's low-rank path); the bound is estimated from sampled pairs (seed).
    """

def hsic_phi_pair(
    X_I: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    X_J: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    W: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    A_I: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    A_J: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    c: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    sigma: typing.SupportsFloat | typing.SupportsIndex,
    same: bool,
    with_bound: bool = False,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple[typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"], float, float]:
    """
    hsic_phi's (Phi, Tr(gamma K), bound) over the pairs of two row blocks of a column-centred X, both orders counted; same: one block with itself. Summed over the block pairs J >= I: hsic_phi.
    """

def hsic_phi_rff(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    W: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    A: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    c: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    sigma: typing.SupportsFloat | typing.SupportsIndex,
    n_random_features: typing.SupportsInt | typing.SupportsIndex,
    seed: typing.SupportsInt | typing.SupportsIndex = 0,
    with_bound: bool = False,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple[typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"], float, float]:
    """
    hsic_phi's (Phi, Tr(gamma K), bound) from n_random_features random Fourier frequencies (KDAC's low-rank path); the bound is estimated from sampled pairs.
    """

def kernel_matvec(
    K: numpy.ndarray,
    x: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]: ...
def kernel_operator(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    kernel: PairwiseKernel,
    constant: typing.SupportsFloat | typing.SupportsIndex = 0.0,
    single: bool = False,
) -> kernlearn._core.linalg.Operator:
    """
    k(X, X) + constant 11' as an Operator computed tile by tile on the fly (X copied; single: float32 tiles).
    """

def nystrom_kernel_times(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    W: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    V: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.f_contiguous"],
    *,
    sigma: typing.SupportsFloat | typing.SupportsIndex,
    landmarks: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
    """
    K V for the Nystrom kernel of X W on the landmark rows, its diagonal set to 1 (KDAC's low-rank U-step).
    """

def pairwise_kernel(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    Y: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    kernel: PairwiseKernel,
    single: bool = False,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> numpy.ndarray:
    """
    k(X, Y), float32 when single (values computed in double), else float64.
    """

MAX_COORDINATE: float = 1e150
NYSTROM_RCOND: float = 1e-10
SIGMA_RANGE: tuple = (1e-150, 1e150)
