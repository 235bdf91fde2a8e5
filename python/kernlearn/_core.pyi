# Type stubs of the C++ extension (cpp/bindings); argument names match the py::arg names.
import enum
from typing import Callable

import numpy as np
import numpy.typing as npt

def knn(
    X: npt.NDArray[np.float64], n_neighbors: int, metric: str, algorithm: str, n_threads: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
def choose_knn_algorithm(n: int, d: int, metric: str) -> str: ...
def knn_graph(
    indices: npt.NDArray[np.int64],
    distances: npt.NDArray[np.float64],
    mode: str,
    weight: str,
    sigma: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def laplacian(
    n: int,
    data: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int64],
    indptr: npt.NDArray[np.int64],
    kind: str,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def lanczos_csr(
    n: int,
    indptr: npt.NDArray[np.int64],
    indices: npt.NDArray[np.int64],
    data: npt.NDArray[np.float64],
    n_threads: int,
    v0: npt.NDArray[np.float64],
    k: int,
    largest: bool,
    threshold_mode: bool,
    threshold: float,
    max_rank: int,
    ncv: int,
    tol: float,
    max_matvec: int,
    seed: int,
    filter_level: float,
    filter_degree: int,
) -> dict: ...
def lanczos_dense(
    A: npt.NDArray[np.float64],
    n_threads: int,
    v0: npt.NDArray[np.float64],
    k: int,
    largest: bool,
    threshold_mode: bool,
    threshold: float,
    max_rank: int,
    ncv: int,
    tol: float,
    max_matvec: int,
    seed: int,
    filter_level: float,
    filter_degree: int,
) -> dict: ...
def lanczos_callback(
    n: int,
    matmat: Callable[[npt.NDArray[np.float64]], npt.ArrayLike],
    n_threads: int,
    v0: npt.NDArray[np.float64],
    k: int,
    largest: bool,
    threshold_mode: bool,
    threshold: float,
    max_rank: int,
    ncv: int,
    tol: float,
    max_matvec: int,
    seed: int,
    filter_level: float,
    filter_degree: int,
) -> dict: ...
def dense_eigenpairs(
    M: npt.NDArray[np.float64], largest: bool, threshold: float, tol: float, max_count: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

# _core.methods, the saddle-point family (register_constraints/npkl/embedding.cpp). Stated flat
# like the rest of this file; at run time these live in kernlearn._core.methods.

Float64Array = npt.NDArray[np.float64]
Int64Array = npt.NDArray[np.int64]

class Csr:
    def __init__(self, n: int, indptr: Int64Array, indices: Int64Array, data: Float64Array) -> None: ...
    @property
    def n(self) -> int: ...
    @property
    def nnz(self) -> int: ...

class PairPattern(enum.Enum):
    entry = 0
    distance = 1

class ConstraintAccumulator:
    def __init__(self, pairs: Int64Array, pattern: PairPattern, base: Csr) -> None: ...
    @property
    def indptr(self) -> Int64Array: ...
    @property
    def indices(self) -> Int64Array: ...
    def assemble_into(self, alpha: Float64Array, out: Float64Array) -> None: ...
    def inner(self, V: Float64Array, lam: Float64Array, n_threads: int = 1) -> Float64Array: ...

MIXED_PRECISION_MIN_N: int
FILTER_DEGREE: int

class SpectralSolver(enum.Enum):
    lanczos = 0
    dense = 1
    mixed = 2
    auto = 3

class SpectralOptions:
    p: float
    G: float | None
    B: float
    rank: int | None
    eigen_solver: SpectralSolver
    dense_fraction: float
    max_iter: int
    tol: float
    step: float | None
    accelerate: bool
    newton: bool
    eig_tol: float
    warm_start: bool
    seed: int
    _fields: tuple[str, ...]
    def __init__(self, **fields: object) -> None: ...

class SaddleIteration:
    dual: float
    primal: float
    gap: float
    step: float
    matvecs: int
    rank: int

class SaddleResult:
    eigenvalues: Float64Array
    eigenvectors: Float64Array
    alpha: Float64Array
    constraint_values: Float64Array
    history: list[SaddleIteration]
    n_iter: int
    status: object  # a kernlearn._core.core.SolverStatus
    used_dense: bool
    used_mixed_precision: bool
    unconverged_eigensolves: int

class NpklLoss(enum.Enum):
    linear = 0
    squared_hinge = 1
    hinge = 2
    square = 3

class NpklOptions:
    loss: NpklLoss
    C: float
    spectral: SpectralOptions
    _fields: tuple[str, ...]
    def __init__(self, **fields: object) -> None: ...

def simple_npkl(
    laplacian: Csr,
    pairs: Int64Array,
    labels: Float64Array,
    options: NpklOptions,
    basis: Float64Array | None = None,
    callback: Callable[[int, SaddleIteration], bool] | None = None,
    n_threads: int = 1,
) -> SaddleResult: ...

class DualSet(enum.Enum):
    fixed = 0
    free = 1
    nonnegative = 2
    box = 3
    capped_simplex = 4

class ConstraintRows:
    def __init__(self, indptr: Int64Array, indices: Int64Array, data: Float64Array) -> None: ...
    @property
    def n_rows(self) -> int: ...

class SaddleProblem:
    sparse: Csr
    lowrank: Float64Array
    lowrank_coef: Float64Array
    shift: float
    center: bool
    pairs: Int64Array
    pattern: PairPattern
    rows: ConstraintRows
    target: Float64Array
    rho: float
    dual_set: DualSet
    upper: float
    alpha0: Float64Array
    _fields: tuple[str, ...]
    def __init__(self, **fields: object) -> None: ...

def saddle_point(
    problem: SaddleProblem,
    options: SpectralOptions,
    basis: Float64Array | None = None,
    callback: Callable[[int, SaddleIteration], bool] | None = None,
    n_threads: int = 1,
) -> SaddleResult: ...
def saddle_hessian_product(
    problem: SaddleProblem, options: SpectralOptions, v: Float64Array, n_threads: int = 1
) -> Float64Array: ...
def most_violated_triplets(
    Z: Float64Array, graph: Csr, margin: float, per_point: int, n_threads: int = 1
) -> tuple[Int64Array, Float64Array, float]: ...
def pairwise_kernel(
    X: npt.NDArray[np.float64],
    Y: npt.NDArray[np.float64],
    kind: str,
    tau: float,
    gamma: float,
    single: bool,
    n_threads: int,
) -> npt.NDArray[np.floating]: ...
def kernel_matvec(
    K: npt.NDArray[np.floating], x: npt.NDArray[np.float64], n_threads: int
) -> npt.NDArray[np.float64]: ...
def ccicp(
    K: npt.NDArray[np.floating],
    y: npt.NDArray[np.float64],
    V: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    shift: float,
    alpha0: npt.NDArray[np.float64],
    inner: str,
    lam: float,
    eps: float,
    max_outer: int,
    max_inner: int,
    learning_rate: float,
    decay: float,
    restart_rate: bool,
    concave: bool,
    sgd_indices: npt.NDArray[np.int64],
    callback: Callable[[dict], bool] | None,
    n_threads: int,
) -> dict: ...
def affine_invariant_kernel(
    W: npt.NDArray[np.float64], T: npt.NDArray[np.float64], gamma: float, same: bool, n_threads: int
) -> npt.NDArray[np.float64]: ...
def hsic_phi(
    X: npt.NDArray[np.float64],
    W: npt.NDArray[np.float64],
    A: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    sigma: float,
    with_bound: bool,
    n_threads: int,
) -> tuple[npt.NDArray[np.float64], float, float]: ...
def gaussian_degree(Z: npt.NDArray[np.float64], sigma: float, n_threads: int) -> npt.NDArray[np.float64]: ...
def ism(
    X: npt.NDArray[np.float64],
    W0: npt.NDArray[np.float64],
    A: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    sigma: float,
    max_iter: int,
    tol: float,
    n_threads: int,
    anderson_depth: int = 0,
) -> dict: ...
def kdac(
    X: npt.NDArray[np.float64],
    Y: npt.NDArray[np.float64],
    W0: npt.NDArray[np.float64],
    q: int,
    n_clusters: int,
    sigma: float,
    lam: float,
    max_iter: int,
    ism_max_iter: int,
    tol: float,
    dense_max_n: int,
    eig_tol: float,
    seed: int,
    n_threads: int,
    callback: Callable[[dict], bool] | None,
    anderson_depth: int = 0,
) -> dict: ...
def sice(
    S: npt.NDArray[np.float64],
    R: npt.NDArray[np.float64],
    M0: npt.NDArray[np.float64],
    solver: str,
    tol: float,
    max_iter: int,
    mu: float,
    mu_period: int,
) -> dict: ...
