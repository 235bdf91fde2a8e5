"""
The learning methods' solvers.
"""

from __future__ import annotations

import collections.abc
import enum
import typing

import numpy
import numpy.typing

import kernlearn._core.core

class Csr:
    """
    A square CSR matrix (sorted column indices), copied from numpy arrays.
    """
    def __init__(
        self,
        n: typing.SupportsInt | typing.SupportsIndex,
        indptr: numpy.typing.NDArray[numpy.int64],
        indices: numpy.typing.NDArray[numpy.int64],
        data: numpy.typing.NDArray[numpy.float64],
    ) -> None: ...
    @property
    def n(self) -> int:
        """
        rows and columns
        """
    @property
    def nnz(self) -> int:
        """
        stored entries
        """

class PairPattern(enum.Enum):
    """
    What a pair's constraint matrix T_ij is.
    """

    distance = 1
    entry = 0

class ConstraintAccumulator:
    """
    base + sum_p a_p T_p on a CSR pattern fixed once (constraints.hpp).
    """
    def __init__(
        self,
        pairs: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]", "flags.c_contiguous"],
        pattern: PairPattern,
        base: Csr,
    ) -> None: ...
    def assemble_into(
        self, alpha: numpy.typing.NDArray[numpy.float64], out: numpy.typing.NDArray[numpy.float64]
    ) -> None: ...
    def inner(
        self,
        V: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
        lam: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
        *,
        n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
    ) -> numpy.typing.NDArray[numpy.float64]: ...
    @property
    def indices(self) -> numpy.typing.NDArray[numpy.int64]: ...
    @property
    def indptr(self) -> numpy.typing.NDArray[numpy.int64]: ...

class SpectralSolver(enum.Enum):
    """
    The eigensolver of the saddle-point iterations.
    """

    auto = 3
    dense = 1
    lanczos = 0
    mixed = 2

class SpectralOptions:
    """
    Options of the saddle-point iteration (saddle_point.hpp).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = (
        "p",
        "G",
        "B",
        "rank",
        "eigen_solver",
        "dense_fraction",
        "dense_max_n",
        "max_iter",
        "tol",
        "step",
        "accelerate",
        "newton",
        "eig_tol",
        "warm_start",
        "seed",
    )
    def __init__(
        self,
        *,
        p: float = ...,
        G: float | None = ...,
        B: float = ...,
        rank: int | None = ...,
        eigen_solver: SpectralSolver = ...,
        dense_fraction: float = ...,
        dense_max_n: int = ...,
        max_iter: int = ...,
        tol: float = ...,
        step: float | None = ...,
        accelerate: bool = ...,
        newton: bool = ...,
        eig_tol: float = ...,
        warm_start: bool = ...,
        seed: int = ...,
    ) -> None:
        """
        Options; every field defaults to the C++ member initialiser: SpectralOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def B(self) -> float:
        """
        the trace bound (unused with G)
        """
    @B.setter
    def B(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def G(self) -> float | None:
        """
        None: the bound tr K^p <= B; a float: the penalty (G/p) tr K^p instead
        """
    @G.setter
    def G(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None: ...
    @property
    def accelerate(self) -> bool:
        """
        Nesterov momentum with restart (L-BFGS for a free alpha) and an adaptive step
        """
    @accelerate.setter
    def accelerate(self, arg1: bool) -> None: ...
    @property
    def dense_fraction(self) -> float:
        """
        auto: the rank fraction of n from which LAPACK
        """
    @dense_fraction.setter
    def dense_fraction(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def dense_max_n(self) -> int:
        """
        auto: no dense solve above this n (a larger positive rank is then an error)
        """
    @dense_max_n.setter
    def dense_max_n(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def eig_tol(self) -> float:
        """
        Lanczos residual tolerance relative to |A|
        """
    @eig_tol.setter
    def eig_tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def eigen_solver(self) -> SpectralSolver:
        """
        a SpectralSolver
        """
    @eigen_solver.setter
    def eigen_solver(self, arg1: SpectralSolver) -> None: ...
    @property
    def max_iter(self) -> int:
        """
        iteration cap
        """
    @max_iter.setter
    def max_iter(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def newton(self) -> bool:
        """
        Newton steps where they apply (free alpha, distance pairs, p = 2)
        """
    @newton.setter
    def newton(self, arg1: bool) -> None: ...
    @property
    def p(self) -> float:
        """
        the capacity regulariser tr K^p, p >= 1
        """
    @p.setter
    def p(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def rank(self) -> int | None:
        """
        None: every positive eigenpair of A; r: the r largest only
        """
    @rank.setter
    def rank(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def seed(self) -> int:
        """
        the eigensolvers' random start
        """
    @seed.setter
    def seed(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def step(self) -> float | None:
        """
        None: 1 / L_t with backtracking; a float: a fixed step
        """
    @step.setter
    def step(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None: ...
    @property
    def tol(self) -> float:
        """
        relative duality gap at which the iteration stops
        """
    @tol.setter
    def tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def warm_start(self) -> bool:
        """
        start each Lanczos solve from the last eigenvectors
        """
    @warm_start.setter
    def warm_start(self, arg1: bool) -> None: ...

class SaddleIteration:
    """
    One iteration of the saddle-point solver.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = ("dual", "primal", "gap", "step", "matvecs", "rank")
    def __repr__(self) -> str: ...
    @property
    def dual(self) -> float:
        """
        the best J(alpha) so far
        """
    @property
    def gap(self) -> float:
        """
        primal - dual
        """
    @property
    def matvecs(self) -> int:
        """
        Lanczos mat-vecs spent reaching this point (0: dense)
        """
    @property
    def primal(self) -> float:
        """
        the best P(K) so far
        """
    @property
    def rank(self) -> int:
        """
        rank of K
        """
    @property
    def step(self) -> float:
        """
        the step that led here
        """

class SpectrumMethod(enum.Enum):
    """
    Which eigensolve certified a saddle-point result's spectrum.
    """

    dense = 1
    lanczos = 0
    projected = 2
    top = 3

class SpectrumCertificate:
    """
    Why K kept every positive eigenpair of A: the pairs above `level` are kept; `next` (NaN: not computed) is the largest eigenvalue of A known beyond them, within `residual` of a true one (saddle_point.hpp).
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = ("method", "level", "next", "residual", "kept", "certified")
    def __repr__(self) -> str: ...
    @property
    def certified(self) -> bool:
        """
        the eigensolve converged
        """
    @property
    def kept(self) -> int:
        """
        eigenpairs of A kept
        """
    @property
    def level(self) -> float:
        """
        the zero level: eigenvalues at or below it count as zero
        """
    @property
    def method(self) -> SpectrumMethod:
        """
        a SpectrumMethod
        """
    @property
    def next(self) -> float:
        """
        the largest known eigenvalue beyond the kept pairs (NaN: unknown)
        """
    @property
    def residual(self) -> float:
        """
        the residual norm of next's eigenpair
        """

class SaddleResult:
    """
    K = V diag(eigenvalues) V', the dual point and the history.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "eigenvalues",
        "eigenvectors",
        "alpha",
        "constraint_values",
        "history",
        "n_iter",
        "status",
        "used_dense",
        "used_mixed_precision",
        "unconverged_eigensolves",
        "spectrum",
    )
    def __repr__(self) -> str: ...
    @property
    def alpha(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        one per constraint
        """
    @property
    def constraint_values(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        g_c(K) = tr(C_c K)
        """
    @property
    def eigenvalues(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        K's eigenvalues, decreasing, all > 0
        """
    @property
    def eigenvectors(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        n x rank
        """
    @property
    def history(self) -> typing.Any:
        """
        a SaddleIteration per iteration
        """
    @property
    def n_iter(self) -> int:
        """
        iterations taken
        """
    @property
    def spectrum(self) -> SpectrumCertificate:
        """
        the SpectrumCertificate of the returned K's eigensolve
        """
    @property
    def status(self) -> kernlearn._core.core.SolverStatus:
        """
        a SolverStatus (callback stop: interrupted)
        """
    @property
    def unconverged_eigensolves(self) -> int:
        """
        Lanczos solves stopped by their mat-vec cap
        """
    @property
    def used_dense(self) -> bool:
        """
        the last eigensolve was LAPACK's
        """
    @property
    def used_mixed_precision(self) -> bool:
        """
        ... in mixed precision
        """

class NpklLoss(enum.Enum):
    """
    SimpleNPKL's loss on the pairs.
    """

    hinge = 2
    linear = 0
    square = 3
    squared_hinge = 1

class NpklOptions:
    """
    SimpleNPKL's options (npkl.hpp).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = ("loss", "C", "spectral")
    def __init__(self, *, loss: NpklLoss = ..., C: float = ..., spectral: SpectralOptions = ...) -> None:
        """
        Options; every field defaults to the C++ member initialiser: NpklOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def C(self) -> float:
        """
        loss weight, each constraint counted twice
        """
    @C.setter
    def C(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def loss(self) -> NpklLoss:
        """
        an NpklLoss
        """
    @loss.setter
    def loss(self, arg1: NpklLoss) -> None: ...
    @property
    def spectral(self) -> SpectralOptions:
        """
        the saddle-point iteration's SpectralOptions
        """
    @spectral.setter
    def spectral(self, arg1: SpectralOptions) -> None: ...

class DualSet(enum.Enum):
    """
    The convex set of alpha, which fixes the loss (saddle_point.hpp).
    """

    box = 3
    capped_simplex = 4
    fixed = 0
    free = 1
    nonnegative = 2

class ConstraintRows:
    """
    R in compressed rows: constraint c = sum_e data[e] T_indices[e].
    """
    def __init__(
        self,
        indptr: numpy.typing.NDArray[numpy.int64],
        indices: numpy.typing.NDArray[numpy.int64],
        data: numpy.typing.NDArray[numpy.float64],
    ) -> None: ...
    @property
    def n_rows(self) -> int:
        """
        constraints
        """

class SaddleProblem:
    """
    max_alpha -phi(A(alpha)) + w'alpha - (rho/2)|alpha|^2, A = M + sum_c alpha_c C_c, M = S + U diag(c) U' + shift I (saddle_point.hpp).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = (
        "sparse",
        "lowrank",
        "lowrank_coef",
        "shift",
        "center",
        "pairs",
        "pattern",
        "rows",
        "target",
        "rho",
        "dual_set",
        "upper",
        "alpha0",
    )
    def __init__(
        self,
        *,
        sparse: Csr = ...,
        lowrank: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"] = ...,
        lowrank_coef: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"] = ...,
        shift: float = ...,
        center: bool = ...,
        pairs: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]"] = ...,
        pattern: PairPattern = ...,
        rows: ConstraintRows = ...,
        target: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"] = ...,
        rho: float = ...,
        dual_set: DualSet = ...,
        upper: float = ...,
        alpha0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"] = ...,
    ) -> None:
        """
        Options; every field defaults to the C++ member initialiser: SaddleProblem._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def alpha0(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        the starting point (projected onto the set)
        """
    @alpha0.setter
    def alpha0(self, arg1: typing.Annotated[numpy.typing.ArrayLike, numpy.float64, "[m, 1]"]) -> None: ...
    @property
    def center(self) -> bool:
        """
        replace A by H A H (K 1 = 0)
        """
    @center.setter
    def center(self, arg1: bool) -> None: ...
    @property
    def dual_set(self) -> DualSet:
        """
        a DualSet
        """
    @dual_set.setter
    def dual_set(self, arg1: DualSet) -> None: ...
    @property
    def lowrank(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        U, n x r (r may be 0)
        """
    @lowrank.setter
    def lowrank(self, arg1: typing.Annotated[numpy.typing.ArrayLike, numpy.float64, "[m, n]"]) -> None: ...
    @property
    def lowrank_coef(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        c, r values
        """
    @lowrank_coef.setter
    def lowrank_coef(self, arg1: typing.Annotated[numpy.typing.ArrayLike, numpy.float64, "[m, 1]"]) -> None: ...
    @property
    def pairs(self) -> typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]"]:
        """
        m_pairs x 2 distinct unordered pairs
        """
    @pairs.setter
    def pairs(self, arg1: typing.Annotated[numpy.typing.ArrayLike, numpy.int64, "[m, n]"]) -> None: ...
    @property
    def pattern(self) -> PairPattern:
        """
        a PairPattern
        """
    @pattern.setter
    def pattern(self, arg1: PairPattern) -> None: ...
    @property
    def rho(self) -> float:
        """
        the quadratic term's weight
        """
    @rho.setter
    def rho(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def rows(self) -> ConstraintRows:
        """
        R, a ConstraintRows
        """
    @rows.setter
    def rows(self, arg1: ConstraintRows) -> None: ...
    @property
    def shift(self) -> float:
        """
        the multiple of I in M
        """
    @shift.setter
    def shift(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def sparse(self) -> Csr:
        """
        S, a Csr (sorted indices; may have no entries)
        """
    @sparse.setter
    def sparse(self, arg1: Csr) -> None: ...
    @property
    def target(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        w, one per constraint
        """
    @target.setter
    def target(self, arg1: typing.Annotated[numpy.typing.ArrayLike, numpy.float64, "[m, 1]"]) -> None: ...
    @property
    def upper(self) -> float:
        """
        u of the box / capped simplex
        """
    @upper.setter
    def upper(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class IklrInner(enum.Enum):
    """
    The inner loop of CCICP.
    """

    gd = 0
    sgd = 1

class IklrOptions:
    """
    Options of CCICP (Liu et al., TNNLS 2019, Algorithm 1).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = (
        "inner",
        "lambda_",
        "eps",
        "max_outer",
        "max_inner",
        "learning_rate",
        "decay",
        "restart_rate",
        "concave",
        "literal_sgd",
    )
    def __init__(
        self,
        *,
        inner: IklrInner = ...,
        lambda_: float = ...,
        eps: float = ...,
        max_outer: int = ...,
        max_inner: int = ...,
        learning_rate: float = ...,
        decay: float = ...,
        restart_rate: bool = ...,
        concave: bool = ...,
        literal_sgd: bool = ...,
    ) -> None:
        """
        Options; every field defaults to the C++ member initialiser: IklrOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def concave(self) -> bool:
        """
        the paper's Krein penalty; False: (lambda/2) a'K+ a
        """
    @concave.setter
    def concave(self, arg1: bool) -> None: ...
    @property
    def decay(self) -> float:
        """
        eta <- decay * eta after every inner step
        """
    @decay.setter
    def decay(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def eps(self) -> float:
        """
        inner loop stops when |F_k(t+1) - F_k(t)| <= eps
        """
    @eps.setter
    def eps(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def inner(self) -> IklrInner:
        """
        inner loop, IklrInner.gd or IklrInner.sgd
        """
    @inner.setter
    def inner(self, arg1: IklrInner) -> None: ...
    @property
    def lambda_(self) -> float:
        """
        the paper's lambda (the estimator's alpha)
        """
    @lambda_.setter
    def lambda_(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def learning_rate(self) -> float:
        """
        eta_0
        """
    @learning_rate.setter
    def learning_rate(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def literal_sgd(self) -> bool:
        """
        SGD step as eq. (12) prints it (no -lambda K- a_k)
        """
    @literal_sgd.setter
    def literal_sgd(self, arg1: bool) -> None: ...
    @property
    def max_inner(self) -> int:
        """
        cap on inner steps per outer iteration
        """
    @max_inner.setter
    def max_inner(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def max_outer(self) -> int:
        """
        outer (CCCP) iterations
        """
    @max_outer.setter
    def max_outer(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def restart_rate(self) -> bool:
        """
        eta back to eta_0 at each outer step
        """
    @restart_rate.setter
    def restart_rate(self, arg1: bool) -> None: ...

class IklrNewtonOptions:
    """
    Options of the Newton solver of the convex IKLR model.
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = ("lambda_", "tol", "max_iter", "max_cg")
    def __init__(self, *, lambda_: float = ..., tol: float = ..., max_iter: int = ..., max_cg: int = ...) -> None:
        """
        Options; every field defaults to the C++ member initialiser: IklrNewtonOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def lambda_(self) -> float:
        """
        the regularisation lambda (the estimator's alpha)
        """
    @lambda_.setter
    def lambda_(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def max_cg(self) -> int:
        """
        conjugate-gradient steps per Newton step
        """
    @max_cg.setter
    def max_cg(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def max_iter(self) -> int:
        """
        Newton steps
        """
    @max_iter.setter
    def max_iter(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def tol(self) -> float:
        """
        converged when ||grad F|| <= tol ||grad F(0)||
        """
    @tol.setter
    def tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class IklrIteration:
    """
    One outer CCICP iteration.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = ("objective", "inner_steps", "matvecs", "gradient_norm", "step")
    def __repr__(self) -> str: ...
    @property
    def gradient_norm(self) -> float:
        """
        Newton: ||grad F|| after the step (CCICP: NaN)
        """
    @property
    def inner_steps(self) -> int:
        """
        inner steps taken
        """
    @property
    def matvecs(self) -> int:
        """
        kernel mat-vecs
        """
    @property
    def objective(self) -> float:
        """
        F(a_k) of eq. (6) (or of the convex model)
        """
    @property
    def step(self) -> float:
        """
        Newton: line-search step; CCICP: the last eta
        """

class IklrResult:
    """
    What CCICP returns.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "alpha",
        "initial_objective",
        "status",
        "gradient_norm",
        "reference_gradient_norm",
        "history",
    )
    def __repr__(self) -> str: ...
    @property
    def alpha(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        the expansion coefficients a
        """
    @property
    def gradient_norm(self) -> float:
        """
        Newton: ||grad F(alpha)|| (CCICP: NaN)
        """
    @property
    def history(self) -> typing.Any:
        """
        one IklrIteration per outer iteration
        """
    @property
    def initial_objective(self) -> float:
        """
        F(a_0)
        """
    @property
    def reference_gradient_norm(self) -> float:
        """
        Newton: ||grad F(0)||, tol's scale
        """
    @property
    def status(self) -> kernlearn._core.core.SolverStatus:
        """
        CCICP: max_iter, interrupted, or not_converged (the schedule overflowed); Newton: converged, max_iter, interrupted, or not_converged (the line search found no decrease)
        """

class IklrNystromOptions:
    """
    Options of the Newton solver of IKLR's Nystrom model.
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = ("lambda_", "intercept", "tol", "max_iter", "max_cg")
    def __init__(
        self, *, lambda_: float = ..., intercept: float = ..., tol: float = ..., max_iter: int = ..., max_cg: int = ...
    ) -> None:
        """
        Options; every field defaults to the C++ member initialiser: IklrNystromOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def intercept(self) -> float:
        """
        s, the constant feature's value (0: no intercept)
        """
    @intercept.setter
    def intercept(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def lambda_(self) -> float:
        """
        the regularisation lambda (the estimator's alpha)
        """
    @lambda_.setter
    def lambda_(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def max_cg(self) -> int:
        """
        preconditioned conjugate-gradient steps per Newton step
        """
    @max_cg.setter
    def max_cg(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def max_iter(self) -> int:
        """
        Newton steps
        """
    @max_iter.setter
    def max_iter(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def tol(self) -> float:
        """
        converged when ||grad F|| <= tol ||grad F(0)||
        """
    @tol.setter
    def tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class IklrNystromResult:
    """
    What the Nystrom model's Newton solver returns.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "beta",
        "intercept_weight",
        "initial_objective",
        "status",
        "gradient_norm",
        "reference_gradient_norm",
        "history",
    )
    def __repr__(self) -> str: ...
    @property
    def beta(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        the feature weights
        """
    @property
    def gradient_norm(self) -> float:
        """
        ||grad F|| at the returned weights
        """
    @property
    def history(self) -> typing.Any:
        """
        one IklrIteration per Newton step (matvecs counts passes over C)
        """
    @property
    def initial_objective(self) -> float:
        """
        F at the start
        """
    @property
    def intercept_weight(self) -> float:
        """
        b: the intercept is s b
        """
    @property
    def reference_gradient_norm(self) -> float:
        """
        ||grad F(0)||, tol's scale
        """
    @property
    def status(self) -> kernlearn._core.core.SolverStatus:
        """
        converged, max_iter, interrupted, or not_converged (the line search found no decrease)
        """

class IsmOptions:
    """
    Options of ISM (Algorithm 2 of Wu et al. 2018).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = ("sigma", "max_iter", "tol", "anderson_depth")
    def __init__(self, *, sigma: float = ..., max_iter: int = ..., tol: float = ..., anderson_depth: int = ...) -> None:
        """
        Options; every field defaults to the C++ member initialiser: IsmOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def anderson_depth(self) -> int:
        """
        Anderson acceleration depth; 0 = plain ISM
        """
    @anderson_depth.setter
    def anderson_depth(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def max_iter(self) -> int:
        """
        ISM iterations (Phi evaluations)
        """
    @max_iter.setter
    def max_iter(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def sigma(self) -> float:
        """
        Gaussian kernel bandwidth
        """
    @sigma.setter
    def sigma(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def tol(self) -> float:
        """
        stop when the projection distance between iterates is <= tol
        """
    @tol.setter
    def tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class IsmResult:
    """
    What ISM returns.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "W",
        "eigenvalues",
        "trace_gamma_k",
        "distance",
        "n_iter",
        "status",
        "n_damped",
        "cycled",
    )
    def __repr__(self) -> str: ...
    @property
    def W(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        d x q, orthonormal, signs fixed
        """
    @property
    def cycled(self) -> bool:
        """
        a 2-cycle outlasted the damped steps; the better end was kept
        """
    @property
    def distance(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        projection distance between successive iterates
        """
    @property
    def eigenvalues(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        all eigenvalues of the last Phi evaluated, ascending
        """
    @property
    def n_damped(self) -> int:
        """
        steps to the middle of a 2-cycle
        """
    @property
    def n_iter(self) -> int:
        """
        iterations run
        """
    @property
    def status(self) -> kernlearn._core.core.SolverStatus:
        """
        converged, max_iter, or not_converged (a 2-cycle, see cycled)
        """
    @property
    def trace_gamma_k(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Tr(gamma K(W_s)) for every W_s whose Phi was formed
        """

class KdacOptions:
    """
    Options of the KDAC alternation (Algorithm 1 of Wu et al. 2018).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = (
        "n_clusters",
        "q",
        "sigma",
        "lambda_",
        "lambda_relative",
        "max_iter",
        "ism_max_iter",
        "anderson_depth",
        "tol",
        "ism_tol_factor",
        "dense_max_n",
        "eig_tol",
        "seed",
        "landmarks",
        "n_random_features",
    )
    def __init__(
        self,
        *,
        n_clusters: int = ...,
        q: int | None = ...,
        sigma: float = ...,
        lambda_: float = ...,
        lambda_relative: bool = ...,
        max_iter: int = ...,
        ism_max_iter: int = ...,
        anderson_depth: int = ...,
        tol: float = ...,
        ism_tol_factor: float = ...,
        dense_max_n: int = ...,
        eig_tol: float = ...,
        seed: int = ...,
        landmarks: list[int] = ...,
        n_random_features: int = ...,
    ) -> None:
        """
        Options; every field defaults to the C++ member initialiser: KdacOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def anderson_depth(self) -> int:
        """
        ISM acceleration depth; 0 = plain ISM
        """
    @anderson_depth.setter
    def anderson_depth(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def dense_max_n(self) -> int:
        """
        U-step on an explicit n x n matrix up to here
        """
    @dense_max_n.setter
    def dense_max_n(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def eig_tol(self) -> float:
        """
        Lanczos residual tolerance of the U-step
        """
    @eig_tol.setter
    def eig_tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def ism_max_iter(self) -> int:
        """
        ISM iterations per W-step
        """
    @ism_max_iter.setter
    def ism_max_iter(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def ism_tol_factor(self) -> float:
        """
        W-step t is solved to max(tol, factor x dist_w(t-1))
        """
    @ism_tol_factor.setter
    def ism_tol_factor(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def lambda_(self) -> float:
        """
        weight of the novelty term
        """
    @lambda_.setter
    def lambda_(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def lambda_relative(self) -> bool:
        """
        scale lambda by HSIC(X, U_0) / HSIC(X, Y) at the start (W = I); False: lambda as is
        """
    @lambda_relative.setter
    def lambda_relative(self, arg1: bool) -> None: ...
    @property
    def landmarks(self) -> list[int]:
        """
        the Nystrom landmark rows of the low-rank path; empty: exact
        """
    @landmarks.setter
    def landmarks(self, arg1: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None: ...
    @property
    def max_iter(self) -> int:
        """
        outer (W, D, U) iterations
        """
    @max_iter.setter
    def max_iter(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def n_clusters(self) -> int:
        """
        k, the number of alternative clusters
        """
    @n_clusters.setter
    def n_clusters(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def n_random_features(self) -> int:
        """
        low-rank path: Phi(W) from this many random Fourier frequencies; 0: from the Nystrom kernel
        """
    @n_random_features.setter
    def n_random_features(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def q(self) -> int | None:
        """
        subspace dimension; None = the largest eigengap (11) (spectral init only)
        """
    @q.setter
    def q(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None: ...
    @property
    def seed(self) -> int:
        """
        seed of the Lanczos start vectors and of the random features
        """
    @seed.setter
    def seed(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def sigma(self) -> float:
        """
        Gaussian kernel bandwidth
        """
    @sigma.setter
    def sigma(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def tol(self) -> float:
        """
        projection distance of W and U between outer iterations
        """
    @tol.setter
    def tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class KdacIteration:
    """
    One outer KDAC iteration.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "cost",
        "quality",
        "hsic_y",
        "dist_w",
        "dist_u",
        "ism_iter",
        "ism_cycled",
        "ism_damped",
        "matvecs",
    )
    def __repr__(self) -> str: ...
    @property
    def cost(self) -> float:
        """
        HSIC(XW, U) - lambda HSIC(XW, Y), eq. (2a)
        """
    @property
    def dist_u(self) -> float:
        """
        projection distance of U to the previous iteration
        """
    @property
    def dist_w(self) -> float:
        """
        projection distance of W to the previous iteration
        """
    @property
    def hsic_y(self) -> float:
        """
        HSIC(XW, Y) = Tr(Y'QY)
        """
    @property
    def ism_cycled(self) -> bool:
        """
        the W-step ended on a 2-cycle
        """
    @property
    def ism_damped(self) -> int:
        """
        the W-step's steps to the middle of a 2-cycle
        """
    @property
    def ism_iter(self) -> int:
        """
        ISM iterations of the W-step
        """
    @property
    def matvecs(self) -> int:
        """
        kernel mat-vecs of the U-step (0 when dense)
        """
    @property
    def quality(self) -> float:
        """
        HSIC(XW, U) = Tr(U'QU)
        """

class KdacResult:
    """
    What KDAC returns.
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "W",
        "U",
        "W_init",
        "degree",
        "init_eigenvalues",
        "phi_eigenvalues",
        "q",
        "cost",
        "quality",
        "hsic_y",
        "lambda_effective",
        "eigengap",
        "sigma_lhs",
        "sigma_rhs",
        "fixed_point_residual",
        "n_iter",
        "status",
        "ism_cycled",
        "outer_cycled",
        "cycle_period",
        "used_dense",
        "history",
    )
    def __repr__(self) -> str: ...
    @property
    def U(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        n x k spectral embedding
        """
    @property
    def W(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        d x q projection
        """
    @property
    def W_init(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        the starting W (eq. 12, or W0)
        """
    @property
    def cost(self) -> float:
        """
        eq. (2a) at the returned state
        """
    @property
    def cycle_period(self) -> int:
        """
        its period (2 to 4), 0 if none
        """
    @property
    def degree(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        degrees D of the final kernel
        """
    @property
    def eigengap(self) -> float:
        """
        eq. (11) at the end (NaN when q = d)
        """
    @property
    def fixed_point_residual(self) -> float:
        """
        |Phi W - W Lambda|_F / |Phi|_F
        """
    @property
    def history(self) -> typing.Any:
        """
        one KdacIteration per outer iteration
        """
    @property
    def hsic_y(self) -> float:
        """
        HSIC(XW, Y)
        """
    @property
    def init_eigenvalues(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        of Phi_0, ascending (empty when W0 was given)
        """
    @property
    def ism_cycled(self) -> bool:
        """
        some W-step ended on a 2-cycle
        """
    @property
    def lambda_effective(self) -> float:
        """
        the novelty weight used (scaled if lambda_relative)
        """
    @property
    def n_iter(self) -> int:
        """
        outer iterations run
        """
    @property
    def outer_cycled(self) -> bool:
        """
        the alternation ended on a cycle (best state kept)
        """
    @property
    def phi_eigenvalues(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
        """
        of Phi(W*) with the final gamma, ascending
        """
    @property
    def q(self) -> int:
        """
        subspace dimension
        """
    @property
    def quality(self) -> float:
        """
        HSIC(XW, U)
        """
    @property
    def sigma_lhs(self) -> float:
        """
        left side of inequality (10)
        """
    @property
    def sigma_rhs(self) -> float:
        """
        right side of inequality (10)
        """
    @property
    def status(self) -> kernlearn._core.core.SolverStatus:
        """
        converged, max_iter, not_converged (outer cycle) or interrupted
        """
    @property
    def used_dense(self) -> bool:
        """
        the U-step used an explicit n x n matrix
        """

class SiceSolver(enum.Enum):
    """
    The SICE solver (sice.hpp).
    """

    alm = 0
    newton = 1

class SiceOptions:
    """
    Options of the SICE solvers (sice.hpp).
    """

    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)
    _fields: typing.ClassVar[tuple] = (
        "solver",
        "tol",
        "max_iter",
        "max_cg",
        "mu",
        "mu_period",
        "sigma",
        "paper_mu",
        "bounds",
    )
    def __init__(
        self,
        *,
        solver: SiceSolver = ...,
        tol: float = ...,
        max_iter: int = ...,
        max_cg: int = ...,
        mu: float | None = ...,
        mu_period: int = ...,
        sigma: float = ...,
        paper_mu: bool = ...,
        bounds: bool = ...,
    ) -> None:
        """
        Options; every field defaults to the C++ member initialiser: SiceOptions._fields.
        """
    def __repr__(self) -> str: ...
    @property
    def bounds(self) -> bool:
        """
        alm: Theorem 5's M, Y >= lambda I
        """
    @bounds.setter
    def bounds(self, arg1: bool) -> None: ...
    @property
    def max_cg(self) -> int:
        """
        newton: conjugate-gradient iterations per step
        """
    @max_cg.setter
    def max_cg(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def max_iter(self) -> int:
        """
        iterations at most
        """
    @max_iter.setter
    def max_iter(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def mu(self) -> float | None:
        """
        alm: fixed step (None: the gamma_min * gamma_max rule)
        """
    @mu.setter
    def mu(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None: ...
    @property
    def mu_period(self) -> int:
        """
        alm: iterations between the rule's step re-estimates
        """
    @mu_period.setter
    def mu_period(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def paper_mu(self) -> bool:
        """
        alm: the paper's step mu = min(lambda^2, sigma)
        """
    @paper_mu.setter
    def paper_mu(self, arg1: bool) -> None: ...
    @property
    def sigma(self) -> float:
        """
        alm: smoothing of the l1 term (eq. 18); 0: none
        """
    @sigma.setter
    def sigma(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def solver(self) -> SiceSolver:
        """
        SiceSolver
        """
    @solver.setter
    def solver(self, arg1: SiceSolver) -> None: ...
    @property
    def tol(self) -> float:
        """
        stop when the duality gap <= tol * max(1, |F(M)|)
        """
    @tol.setter
    def tol(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class SiceResult:
    """
    A SICE solution with its certified duality gap (sice.hpp).
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = (
        "precision",
        "dual",
        "primal",
        "dual_value",
        "n_iter",
        "status",
        "bounded",
        "relative_gaps",
    )
    def __repr__(self) -> str: ...
    @property
    def bounded(self) -> bool:
        """
        False: no positive definite dual point, nothing solved
        """
    @property
    def dual(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        Z, |Z - S| <= R entrywise (column-major m x m; symmetric)
        """
    @property
    def dual_value(self) -> float:
        """
        log det Z + m
        """
    @property
    def n_iter(self) -> int:
        """
        iterations (the hardest block's)
        """
    @property
    def precision(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        M (column-major m x m; symmetric)
        """
    @property
    def primal(self) -> float:
        """
        F(M)
        """
    @property
    def relative_gaps(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        relative certified gap after each iteration
        """
    @property
    def status(self) -> kernlearn._core.core.SolverStatus:
        """
        SolverStatus: converged, max_iter, or not_converged (stalled)
        """

def affinity_push(
    Pt_data: numpy.typing.NDArray[numpy.float64],
    Pt_indices: numpy.typing.NDArray[numpy.int64],
    Pt_indptr: numpy.typing.NDArray[numpy.int64],
    W0_data: numpy.typing.NDArray[numpy.float64],
    W0_indices: numpy.typing.NDArray[numpy.int64],
    W0_indptr: numpy.typing.NDArray[numpy.int64],
    *,
    alpha: typing.SupportsFloat | typing.SupportsIndex,
    eps: typing.SupportsFloat | typing.SupportsIndex,
    cut: typing.SupportsFloat | typing.SupportsIndex,
    pattern_indices: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None = None,
    pattern_indptr: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.float64]]:
    """
    S3ML's propagation W* = (1 - a)(I - aP)^-1 W0 column by column by residual pushes, each value within eps (affinity_propagation.hpp): P' (P row-stochastic) and the symmetric W0 as CSR arrays (float64 data, int64 indices and indptr). Without a pattern, the entries with |value| >= cut; with a symmetric pattern (CSR indices and indptr), the values at its positions. Returns (rows, cols, values).
    """

def ccicp(
    K: typing.Any,
    y: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    V: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    w: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    alpha0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    shift: typing.SupportsFloat | typing.SupportsIndex,
    options: IklrOptions,
    sgd_indices: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, 1]"],
    callback: collections.abc.Callable | None = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> IklrResult:
    """
    CCICP on the kernel K (an Operator, or a dense float32 / float64 array) with K- = V diag(w) V' + shift I; sgd_indices (int64, max_outer * max_inner of them) are read for inner=sgd only.
    """

def iklr_newton(
    K: typing.Any,
    y: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    V: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    w: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    alpha0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    shift: typing.SupportsFloat | typing.SupportsIndex,
    options: IklrNewtonOptions,
    callback: collections.abc.Callable | None = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> IklrResult:
    """
    Inexact Newton on the convex IKLR model (lambda/2) a'K+ a with K- = V diag(w) V' + shift I, on the kernel K (an Operator, or a dense float32 / float64 array).
    """

def iklr_nystrom_newton(
    C: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    T: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    Phi_centers: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    y: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    beta0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    options: IklrNystromOptions,
    callback: collections.abc.Callable | None = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> IklrNystromResult:
    """
    Newton-CG with Falkon's preconditioner on IKLR's Nystrom model with features Phi = C T: the kernel columns C (n x M) at the centres, the projection T (M x r), the centres' features Phi_centers (any rows, r columns), signs y, start beta0 (r); all float64 C-ordered.
    """

def ism(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    W0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    A: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    c: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    options: IsmOptions,
    sums: typing.Any = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> IsmResult:
    """
    ISM from W0 with gamma = A diag(c) A' fixed; sums: the kernel sums of the centred X computed elsewhere (as kdac's), None for X's own.
    """

def kdac(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    Y: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    options: KdacOptions,
    W0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"] | None = None,
    callback: collections.abc.Callable | None = None,
    sums: typing.Any = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> KdacResult:
    """
    KDAC: W0 (d x q) for a given start, None for the spectral initialisation (12) with options.q. sums: an object computing the kernel sums of the centred X elsewhere (set_weights, phi, kernel_times; kernlearn.distributed's HsicTiles), None for X's own.
    """

def most_violated_triplets(
    Z: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    graph: Csr,
    *,
    margin: typing.SupportsFloat | typing.SupportsIndex,
    per_point: typing.SupportsInt | typing.SupportsIndex,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple[
    typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]"],
    typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    float,
]:
    """
    Per point, the most violated SPE triplets (i, j, k) above margin, and the largest violation overall.
    """

def saddle_hessian_product(
    problem: SaddleProblem,
    options: SpectralOptions,
    v: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    *,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"]:
    """
    Tests only: the Newton steps' Hessian of -J at problem.alpha0 applied to v (options.newton must be set).
    """

def saddle_point(
    problem: SaddleProblem,
    options: SpectralOptions,
    *,
    basis: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"] | None = None,
    callback: collections.abc.Callable | None = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> SaddleResult:
    """
    The saddle-point iteration for A = M + sum_c alpha_c C_c (see saddle_point.hpp).
    """

def sice(
    S: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    R: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    options: SiceOptions,
    M0: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"] | None = None,
) -> SiceResult:
    """
    Solve min -log det M + <S, M> + sum R |M| from M0 (None: diag(1 / S_ii)).
    """

def simple_npkl(
    laplacian: Csr,
    pairs: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]", "flags.c_contiguous"],
    labels: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, 1]"],
    options: NpklOptions,
    *,
    basis: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"] | None = None,
    callback: collections.abc.Callable | None = None,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> SaddleResult:
    """
    SimpleNPKL (linear loss in closed form; the other losses by Algorithm 1's saddle-point iteration).
    """

B_MAX: float = 1e280
C_RANGE: tuple = (1e-300, 1e300)
MIXED_PRECISION_MIN_N: int = 2000
STEP_MAX: float = 1e250
