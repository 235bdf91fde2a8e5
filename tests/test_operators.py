"""The operator layer (cpp/include/kernlearn/linalg/operator.hpp, kernels/kernel_operator.hpp and
cpp/bindings/operators.hpp): every representation's products, columns and diagonals against numpy
on small n; the on-the-fly kernel against the dense kernel (float64 entries bitwise, float32 tiles
to 1e-6, the same result on any number of threads); the callback operator's errors; and the
estimators' dense and on-the-fly paths against each other."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator
from sklearn.metrics import adjusted_rand_score

import similarity_problems
from kernlearn import _core
from kernlearn._utils import _solver_choice
from kernlearn._utils._operators import as_core_operator
from kernlearn.cluster import KernelKMeans
from kernlearn.indefinite import IndefiniteKernelLogisticRegression as IKLR
from kernlearn.kernels import KernelOperator, rbf_kernel, tl1_kernel
from kernlearn.linalg import eigsh
from kernlearn.similarity import ESKL

RNG = np.random.default_rng(0)


def block(n, b, seed=1):
    return np.random.default_rng(seed).standard_normal((n, b))


def assert_operator_equals(op, A, atol=1e-12):
    """Products with 1 and 5 columns, every column and the diagonal of op against the array A."""
    n = A.shape[0]
    scale = np.abs(A).max()
    for b in (1, 5):
        V = block(A.shape[1], b)
        np.testing.assert_allclose(op.matmat(V), A @ V, rtol=0, atol=atol * scale * np.abs(V).sum(axis=0).max())
    for j in (0, A.shape[1] // 2, A.shape[1] - 1):
        np.testing.assert_allclose(op.column(j), A[:, j], rtol=0, atol=atol * scale)
    if A.shape[0] == A.shape[1]:
        np.testing.assert_allclose(op.diagonal(), np.diag(A), rtol=0, atol=atol * scale)
    assert op.shape == A.shape
    assert n == op.shape[0]


# ----------------------------------------------------------------------------- representations


def test_dense_and_csr_operators_equal_their_arrays():
    A = block(40, 40)
    A = A + A.T
    assert_operator_equals(_core.linalg.dense_operator(A), A)
    rectangular = block(30, 7)
    op = _core.linalg.dense_operator(rectangular, symmetric=False)
    assert not op.symmetric
    assert_operator_equals(op, rectangular)
    S = sp.random(50, 50, density=0.1, random_state=0, format="csr")
    S = (S + S.T).tocsr()
    assert_operator_equals(as_core_operator(S), S.toarray())


def test_csr_rows_of_every_length_and_any_thread_count():
    """The CSR product sums each row in four partial sums: rows of 0 to 13 entries (every
    remainder), against scipy, and the same bits on one thread and on two."""
    rng = np.random.default_rng(3)
    n = 4000
    lengths = np.arange(n) % 14
    indptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    indices = np.concatenate([np.sort(rng.choice(n, m, replace=False)) for m in lengths]).astype(np.int64)
    data = rng.standard_normal(indices.size)
    S = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    op = _core.linalg.csr_operator(indptr, indices, data, symmetric=False)
    V = block(n, 3)
    Y = op.matmat(V)
    np.testing.assert_allclose(Y, S @ V, rtol=0, atol=1e-14 * np.abs(V).max() * 14)
    assert np.array_equal(Y, op.matmat(V, n_threads=2))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_stored_kernel_blocks_of_every_width(dtype):
    """The stored kernel's products: one column, 2-8 columns by one pass over each row (with tails
    below the SIMD width), wider blocks by GEMM; float32 entries widened to double."""
    n = 203
    K = rbf_kernel(block(n, 3, 14), gamma=0.4).astype(dtype)
    op = _core.linalg.dense_operator(K)
    reference = K.astype(np.float64)
    for b in (1, 2, 3, 4, 5, 8, 9, 17):
        V = block(n, b, 15 + b)
        for threads in (1, 2):
            np.testing.assert_allclose(op.matmat(V, n_threads=threads), reference @ V, rtol=0, atol=1e-12 * n)


def test_an_unsorted_csr_matrix_is_not_modified():
    """Converting a caller's CSR with unsorted indices and duplicates sorts a copy, not it."""
    A = sp.csr_matrix(
        (np.array([1.0, 2.0, 2.0, 0.5, 0.5]), np.array([1, 0, 1, 0, 0]), np.array([0, 2, 5])), shape=(2, 2)
    )
    indices, data = A.indices.copy(), A.data.copy()
    op = as_core_operator(A)
    np.testing.assert_array_equal(A.indices, indices)
    np.testing.assert_array_equal(A.data, data)
    np.testing.assert_array_equal(op.matmat(np.eye(2)), A.toarray())


def test_sums_shifts_and_constants():
    """A = 2 C - 0.5 L + 3 I + 0.25 11' from a dense and a CSR term."""
    n = 60
    C = block(n, n, 2)
    C = C + C.T
    L = sp.random(n, n, density=0.05, random_state=1, format="csr")
    L = (L + L.T).tocsr()
    op = _core.linalg.sum_operator(
        [(_core.linalg.dense_operator(C), 2.0), (as_core_operator(L), -0.5)], shift=3.0, constant=0.25
    )
    expected = 2.0 * C - 0.5 * L.toarray() + 3.0 * np.eye(n) + 0.25
    assert op.symmetric
    assert_operator_equals(op, expected)
    only = _core.linalg.sum_operator([], shift=1.5, constant=-1.0, n=7)
    assert_operator_equals(only, 1.5 * np.eye(7) - 1.0)


def test_low_rank_and_nystrom_factors():
    n, r = 80, 6
    U, c = block(n, r, 3), np.linspace(-1.0, 2.0, r)
    assert_operator_equals(_core.linalg.low_rank_operator(U, c), (U * c) @ U.T)
    # Nystrom at M centres of a PSD kernel: C W^+ C' (pinv with the same cut)
    X = block(n, 3, 4)
    K = rbf_kernel(X, gamma=0.5)
    centres = np.arange(0, n, 4)
    Cn, W = K[:, centres], K[np.ix_(centres, centres)]
    expected = Cn @ np.linalg.pinv(W, rcond=1e-10, hermitian=True) @ Cn.T
    assert_operator_equals(_core.linalg.nystrom_operator(np.ascontiguousarray(Cn), W, rcond=1e-10), expected, 1e-8)
    # with every point a centre it is K itself
    full = _core.linalg.nystrom_operator(K, K, rcond=1e-12)
    assert_operator_equals(full, K, 1e-6)


def test_normalized_operator():
    """H diag(s) A diag(s) H (KDAC's Q) and diag(s) A diag(s)."""
    n = 50
    K = rbf_kernel(block(n, 3, 5), gamma=0.3)
    s = 1.0 / np.sqrt(K.sum(axis=1))
    H = np.eye(n) - 1.0 / n
    inner = _core.linalg.dense_operator(K)
    centred = _core.linalg.normalized_operator(inner, s, center=True)
    V = block(n, 4)
    np.testing.assert_allclose(centred.matmat(V), H @ (s[:, None] * K * s) @ H @ V, atol=1e-13)
    plain = _core.linalg.normalized_operator(inner, s)
    np.testing.assert_allclose(plain.matmat(V), (s[:, None] * K * s) @ V, atol=1e-13)
    with pytest.raises(ValueError, match="s must have one entry per row of A"):
        _core.linalg.normalized_operator(inner, s[:-1])


# ----------------------------------------------------------------------------- on-the-fly kernel


@pytest.mark.parametrize("n", [1, 255, 600])  # below, at and across the 256-row tiles
@pytest.mark.parametrize("kernel", ["rbf", "tl1"])
def test_kernel_operator_equals_the_dense_kernel(n, kernel):
    X = block(n, 5, 6)
    parameters = {"gamma": 0.2} if kernel == "rbf" else {"tau": 3.0}
    dense = (rbf_kernel if kernel == "rbf" else tl1_kernel)(X, **parameters) + 0.5
    op = KernelOperator(X, kernel, constant=0.5, **parameters)
    assert op.shape == (n, n) and op.dtype == np.float64
    for b in (1, 16):
        V = block(n, b, 7)
        np.testing.assert_allclose(op @ V, dense @ V, rtol=0, atol=1e-13 * np.abs(dense @ V).max())
    j = n // 2
    np.testing.assert_array_equal(op.column(j), dense[:, j])  # the same entries, bitwise
    np.testing.assert_array_equal(op.diagonal(), np.diag(dense))
    np.testing.assert_allclose(op.matvec(np.ones(n)), dense.sum(axis=1), rtol=1e-13)


def test_kernel_operator_float32_tiles_and_threads():
    """float32 tiles accumulate in double: within 1e-6 of the float64 product; the tournament
    schedule makes the product identical on 1 and 2 threads."""
    n = 1100
    X = block(n, 10, 8) * 3.0 + 100.0  # far from the origin: the tiles work on X centred
    V = block(n, 16, 9)
    exact = KernelOperator(X, "rbf", gamma=0.05) @ V
    single = KernelOperator(X, "rbf", gamma=0.05, dtype=np.float32)
    assert single.kernel_dtype_ == np.float32
    error = np.linalg.norm(single @ V - exact) / np.linalg.norm(exact)
    assert 0 < error <= 1e-6
    one = KernelOperator(X, "rbf", gamma=0.05, n_jobs=1) @ V
    two = KernelOperator(X, "rbf", gamma=0.05, n_jobs=2) @ V
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, exact)


def test_kernel_operator_eigenpairs_by_lanczos():
    X = block(400, 3, 10)
    K = rbf_kernel(X, gamma=1.0)
    values, vectors, info = eigsh(KernelOperator(X, gamma=1.0), 4, "LA", method="lanczos", random_state=0)
    expected = np.linalg.eigvalsh(K)[::-1][:4]
    np.testing.assert_allclose(values, expected, rtol=1e-9)
    assert np.abs(K @ vectors - vectors * values).max() <= 1e-8 * expected[0]  # residuals against K


def test_kernel_operator_does_not_keep_or_modify_the_caller_array():
    X = block(30, 2, 11)
    before = X.copy()
    op = KernelOperator(X, gamma=1.0)
    expected = op @ np.ones(30)
    X[:] = 0.0  # the operator copied X
    np.testing.assert_array_equal(op @ np.ones(30), expected)
    X[:] = before
    KernelOperator(X, "tl1", dtype=np.float32)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ({"kernel": "laplacian"}, ValueError, "kernel"),
        ({"gamma": -1.0}, ValueError, "gamma"),
        ({"kernel": "tl1", "gamma": 1.0}, ValueError, "gamma"),
        ({"tau": 1.0}, ValueError, "tau"),
        ({"constant": np.nan}, ValueError, "constant"),
        ({"dtype": np.int32}, (TypeError, ValueError), "dtype"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
    ],
)
def test_kernel_operator_bad_input(arguments, error, match):
    with pytest.raises(error, match=match):
        KernelOperator(block(10, 2), **arguments)


def test_kernel_operator_bad_data():
    with pytest.raises(ValueError, match="X"):
        KernelOperator(np.array([[0.0, np.inf]]))
    op = KernelOperator(block(10, 2))
    with pytest.raises(ValueError, match=r"\(10, b\)"):
        op.core_operator.matmat(np.ones((9, 1)))
    with pytest.raises(ValueError, match="j must lie in"):
        op.core_operator.column(10)


# ----------------------------------------------------------------------------- callback operator


class Flawed(LinearOperator):
    """A symmetric 20 x 20 operator whose products go wrong in the way it is told."""

    def __init__(self, flaw):
        self.flaw = flaw
        A = block(20, 20, 12)
        self.A = A + A.T
        super().__init__(np.float64, (20, 20))

    def _matmat(self, V):
        if self.flaw == "shape":
            return (self.A @ V)[:-1]
        if self.flaw == "nan":
            out = self.A @ V
            out[3] = np.nan
            return out
        if self.flaw == "raise":
            raise KeyError("raised inside the callback")
        if self.flaw == "complex":
            return (self.A @ V) * 1j
        return self.A @ V

    def _matvec(self, v):
        return self._matmat(v.reshape(-1, 1)).ravel()


def lanczos_on(op):
    options = _core.linalg.LanczosOptions(k=2, which=_core.linalg.LanczosWhich.largest, tol=1e-10)
    return _core.linalg.lanczos(op, options, np.ones(op.shape[0]))


@pytest.mark.parametrize(
    ("flaw", "error", "match"),
    [
        ("shape", ValueError, r"S\.matmat returned shape \(19, \d\), expected \(20, \d\)"),
        ("nan", ValueError, r"S\.matmat returned NaN or infinity"),
        ("complex", (TypeError, ValueError), r"S\.matmat"),
        ("raise", KeyError, "raised inside the callback"),  # propagates as itself
    ],
)
def test_callback_errors_name_the_argument(flaw, error, match):
    op = as_core_operator(Flawed(flaw), "S")
    with pytest.raises(error, match=match):
        lanczos_on(op)
    with pytest.raises(error, match=match):
        op.matmat(np.ones((20, 2)))


def test_callback_operator_equals_its_array():
    good = Flawed(None)
    op = as_core_operator(good, "S")
    assert op.kind.startswith("callback") or "callback" in repr(op).lower()
    assert_operator_equals(op, good.A)
    result = lanczos_on(op)
    np.testing.assert_allclose(np.sort(result.values)[::-1], np.linalg.eigvalsh(good.A)[::-1][:2], rtol=1e-9)


def test_wrong_shapes_and_asymmetry_are_refused():
    with pytest.raises(ValueError, match="A must be square|square"):
        eigsh(aslinearoperator(block(10, 9)), 2, method="lanczos")
    nonsymmetric = aslinearoperator(block(30, 30, 13))  # eigsh takes a LinearOperator's symmetry on trust, as scipy's
    with pytest.raises(ValueError, match="X.*symmetric|symmetric.*X"):
        IKLR("precomputed").fit(nonsymmetric, np.arange(30) % 2)
    with pytest.raises(ValueError, match="terms: every term must have the shape"):
        _core.linalg.sum_operator(
            [(_core.linalg.dense_operator(np.eye(3)), 1.0), (_core.linalg.dense_operator(np.eye(4)), 1.0)]
        )
    with pytest.raises(ValueError, match="c must have one entry per column of U"):
        _core.linalg.low_rank_operator(np.ones((5, 2)), np.ones(3))
    with pytest.raises(ValueError, match="W must have shape"):
        _core.linalg.nystrom_operator(np.ones((5, 2)), np.eye(3))
    with pytest.raises(TypeError, match="A must be a numpy array or a kernlearn._core.linalg.Operator"):
        _core.linalg.lanczos("not an operator", _core.linalg.LanczosOptions(k=1), np.ones(3))


# ----------------------------------------------------------------------------- estimators


def iklr_problem(n=500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize(
    ("kernel", "solver", "options"),
    [
        ("rbf", "newton", {"tol": 1e-10}),
        ("tl1", "newton", {"tol": 1e-10}),
        ("rbf", "ccicp-gd", {"max_outer": 3, "learning_rate": "auto"}),
        ("rbf", "ccicp-sgd", {"max_outer": 2, "max_inner": 4, "init": "uniform", "learning_rate": "auto"}),
    ],
)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_iklr_on_the_fly_equals_dense(kernel, solver, options):
    """kernel_storage="operator" against "dense": the same C++ solver on two operators whose
    products differ in summation order only. Newton-CG amplifies that by the Hessian's condition
    at a loose tol (4e-9 at the default 1e-6, alpha = 1e-4); solved to 1e-10 both reach the
    optimum to 1e-14, and the CCICP schedules take identical steps."""
    X, y = iklr_problem()
    # a fixed alpha: the final fit of alpha="auto" starts from the path's solutions, which
    # the two storages give to the path's tolerance only
    settings = {"solver": solver, "random_state": 0, "alpha": 1e-4, **options}
    dense = IKLR(kernel, kernel_storage="dense", **settings).fit(X, y)
    fly = IKLR(kernel, kernel_storage="operator", **settings).fit(X, y)
    scores = dense.decision_function(X)
    assert np.abs(fly.decision_function(X) - scores).max() <= 1e-10 * np.abs(scores).max()
    np.testing.assert_allclose(fly.dual_coef_, dense.dual_coef_, rtol=0, atol=1e-10 * np.abs(dense.dual_coef_).max())
    np.testing.assert_array_equal(fly.n_iter_, dense.n_iter_)
    np.testing.assert_array_equal(fly.converged_, dense.converged_)


def test_iklr_precomputed_kernel_operator_and_the_memory_rule(monkeypatch):
    X, y = iklr_problem(300)
    gamma = 0.3
    # alpha="auto" on both: the same folds (random_state), the operator's restricted to a fold
    # by products with zero-padded blocks
    dense = IKLR("precomputed", tol=1e-10, random_state=0).fit(rbf_kernel(X, gamma=gamma), y)
    fly = IKLR("precomputed", tol=1e-10, random_state=0).fit(KernelOperator(X, gamma=gamma, n_jobs=2), y)
    assert fly.alpha_ == dense.alpha_
    # the path's fits stop at ALPHA_PATH_TOL = 1e-6, so their scores agree to about that
    np.testing.assert_allclose(fly.alpha_scores_, dense.alpha_scores_, rtol=1e-4)
    K_test = rbf_kernel(X[:20], X, gamma=gamma)
    np.testing.assert_allclose(fly.decision_function(K_test), dense.decision_function(K_test), atol=1e-10)
    # "auto" stores the kernel while it fits the dense limit, and goes on the fly above it
    assert _solver_choice.dense_kernel_fits(_solver_choice.DENSE_LIMIT_N, 8)
    assert not _solver_choice.dense_kernel_fits(_solver_choice.DENSE_LIMIT_N + 1, 8)
    monkeypatch.setattr(_solver_choice, "DENSE_LIMIT_N", 100)
    auto = IKLR("rbf", gamma=gamma, tol=1e-10, random_state=0).fit(X, y)  # the same alpha path folds
    assert auto._kernel_on_the_fly(300)
    np.testing.assert_allclose(
        auto.decision_function(X), dense.decision_function(rbf_kernel(X, gamma=gamma)), atol=1e-10
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter = 30
def test_eskl_with_a_rank_on_kernel_operators(monkeypatch):
    """The similarities as local KernelOperators (their C++ products, no callback) give the fit
    on the dense similarities with the same rank."""
    monkeypatch.setattr(_solver_choice, "DENSE_MAX_N", 50)  # the Lanczos route at n = 120
    X, y, S = similarity_problems.problem(120, 0, labelled=40)
    params = {"rank": 10, "init": "identity", "max_iter": 30, "svm_tol": 1e-10, "random_state": 0}
    dense = ESKL(**params).fit(S, y)
    fly = ESKL(**params).fit([KernelOperator(X, gamma=0.25), KernelOperator(X, "tl1", tau=2.0)], y)
    scale = np.abs(dense.decision_transductive_).max()
    np.testing.assert_allclose(fly.decision_transductive_, dense.decision_transductive_, atol=1e-8 * scale)
    np.testing.assert_allclose(fly.objective_, dense.objective_, rtol=1e-8)
    assert fly.n_iter_ == dense.n_iter_


def test_kernel_kmeans_on_an_operator():
    """KernelKMeans with kernel="precomputed" on a KernelOperator: the labels and inertia of the
    dense kernel (the same seeding and Lloyd steps on K's products)."""
    rng = np.random.default_rng(3)
    X = np.concatenate([rng.standard_normal((60, 2)) + shift for shift in ([0, 0], [5, 0], [0, 5])])
    dense = KernelKMeans(3, kernel="precomputed", random_state=0).fit(rbf_kernel(X, gamma=0.1))
    fly = KernelKMeans(3, kernel="precomputed", random_state=0).fit(KernelOperator(X, gamma=0.1))
    assert adjusted_rand_score(dense.labels_, fly.labels_) == 1.0
    np.testing.assert_allclose(fly.inertia_, dense.inertia_, rtol=1e-10)


def test_a_csr_operator_does_not_read_the_caller_arrays_again():
    """The CSR arrays are copied when checked: changing them afterwards cannot steer the product
    out of bounds (it once segfaulted)."""
    indptr, indices = np.array([0, 1, 2], np.int64), np.array([0, 1], np.int64)
    op = _core.linalg.csr_operator(indptr, indices, np.ones(2))
    indices[1] = 1 << 40
    indptr[2] = 1 << 40
    np.testing.assert_array_equal(op.matmat(np.ones((2, 1))), np.ones((2, 1)))


def test_float32_tiles_refuse_coordinates_that_overflow_in_single_precision():
    X = np.array([[0.0], [1e39]])
    with pytest.raises(ValueError, match="X: float32 tiles need"):
        KernelOperator(X, gamma=1.0, dtype=np.float32)
    np.testing.assert_array_equal(KernelOperator(X, gamma=1.0) @ np.eye(2), np.eye(2))  # float64 tiles: fine


def test_a_non_symmetric_kernel_is_refused():
    K = np.array([[1.0, 2.0], [0.0, 1.0]])
    from kernlearn.kernels import kernel_operator

    with pytest.raises(ValueError, match="K must be symmetric"):
        kernel_operator(K)
    with pytest.raises(ValueError, match="X is not symmetric"):
        IKLR("precomputed").fit(_CoreOperatorOf(block(30, 30, 16)), np.arange(30) % 2)


class _CoreOperatorOf(LinearOperator):
    """A LinearOperator carrying a core operator flagged non-symmetric."""

    def __init__(self, A):
        self.A = A
        self.core_operator = _core.linalg.dense_operator(np.ascontiguousarray(A), symmetric=False)
        super().__init__(np.float64, A.shape)

    def _matmat(self, V):
        return self.A @ V
