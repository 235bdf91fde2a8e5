# Type stubs of the C++ extension (cpp/bindings); argument names match the py::arg names.
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

class ConstraintAccumulator:
    def __init__(
        self,
        pairs: npt.NDArray[np.int64],
        pattern: str,
        n: int,
        data: npt.NDArray[np.float64],
        indices: npt.NDArray[np.int64],
        indptr: npt.NDArray[np.int64],
    ) -> None: ...
    @property
    def indptr(self) -> npt.NDArray[np.int64]: ...
    @property
    def indices(self) -> npt.NDArray[np.int64]: ...
    def assemble_into(self, alpha: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None: ...
    def inner(
        self, V: npt.NDArray[np.float64], lam: npt.NDArray[np.float64], n_threads: int
    ) -> npt.NDArray[np.float64]: ...

MIXED_PRECISION_MIN_N: int
FILTER_DEGREE: int

def simple_npkl(
    n: int,
    indptr: npt.NDArray[np.int64],
    indices: npt.NDArray[np.int64],
    data: npt.NDArray[np.float64],
    pairs: npt.NDArray[np.int64],
    labels: npt.NDArray[np.float64],
    loss: str,
    p: float,
    penalty: bool,
    B: float,
    G: float,
    C: float,
    rank: int,
    eigen_solver: str,
    dense_fraction: float,
    max_iter: int,
    tol: float,
    step: float,
    accelerate: bool,
    eig_tol: float,
    warm_start: bool,
    seed: int,
    n_threads: int,
    callback: Callable[[dict], bool] | None,
    basis: npt.NDArray[np.float64],
) -> dict: ...
def saddle_point(
    n: int,
    indptr: npt.NDArray[np.int64],
    indices: npt.NDArray[np.int64],
    data: npt.NDArray[np.float64],
    lowrank: npt.NDArray[np.float64],
    lowrank_coef: npt.NDArray[np.float64],
    shift: float,
    center: bool,
    pairs: npt.NDArray[np.int64],
    pattern: str,
    rows_indptr: npt.NDArray[np.int64],
    rows_indices: npt.NDArray[np.int64],
    rows_data: npt.NDArray[np.float64],
    target: npt.NDArray[np.float64],
    rho: float,
    dual_set: str,
    upper: float,
    alpha0: npt.NDArray[np.float64],
    p: float,
    penalty: bool,
    B: float,
    G: float,
    rank: int,
    eigen_solver: str,
    dense_fraction: float,
    max_iter: int,
    tol: float,
    step: float,
    accelerate: bool,
    eig_tol: float,
    warm_start: bool,
    seed: int,
    n_threads: int,
    callback: Callable[[dict], bool] | None,
    basis: npt.NDArray[np.float64],
    newton: bool = False,
    hessian_probe: npt.NDArray[np.float64] | None = None,
) -> dict: ...
def most_violated_triplets(
    Z: npt.NDArray[np.float64],
    n: int,
    indptr: npt.NDArray[np.int64],
    indices: npt.NDArray[np.int64],
    margin: float,
    per_point: int,
    n_threads: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], float]: ...
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
