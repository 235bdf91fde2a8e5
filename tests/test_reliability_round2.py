"""Regression tests for the defects of issue 48's second fuzz run (item 1) and the one input rule
for strings, complex and object arrays (item 4). Each test reproduces a defect as it was found:
it failed before its fix."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernlearn.cluster import KernelKMeans
from kernlearn.constraints import check_pairs, pair_folds
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.evaluation import pair_distance_auc
from kernlearn.graph import knn, laplacian
from kernlearn.kernels import covariance_descriptor
from kernlearn.metric import S3ML, laplacian_quadratic_form, sparse_inverse_covariance
from kernlearn.npkl import SimpleNPKL

RNG = np.random.default_rng(0)
X = RNG.standard_normal((30, 3))
Y = np.repeat([0, 1, 2], 10)


# ---- item 4: one input rule (scikit-learn's check_array(dtype="numeric")) ------------------------


def _entry_points():
    """(name, call on a 2-D array A) for functions and estimators of every module; the names in
    SQUARE take the 3 x 3 SPD matrix, the others 6 x 3 data."""
    from kernlearn.indefinite import IndefiniteKernelLogisticRegression
    from kernlearn.kernels import make_psd, rbf_kernel
    from kernlearn.linalg import eigsh

    return {
        "knn": lambda A: knn(A, 2),
        "laplacian": lambda A: laplacian(A),
        "eigsh": lambda A: eigsh(A, 1),
        "make_psd": lambda A: make_psd(A),
        "rbf_kernel": lambda A: rbf_kernel(A),
        "IKLR": lambda A: IndefiniteKernelLogisticRegression().fit(A, [0, 1, 0, 1, 0, 1]),
        "sparse_inverse_covariance": lambda A: sparse_inverse_covariance(A, 0.1),
        "KernelKMeans": lambda A: KernelKMeans(2, n_init=1, random_state=0).fit(A),
        "S3ML": lambda A: S3ML(random_state=0).fit(A, [0, 1, -1, 0, 1, -1]),
        "SimpleNPKL": lambda A: SimpleNPKL(n_neighbors=2).fit(A, pairs=[[0, 1], [2, 3]], pair_labels=[1, -1]),
    }


SPD = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.5]])
SIX = np.vstack([SPD, SPD + 0.3])
SQUARE = {"laplacian", "eigsh", "make_psd", "sparse_inverse_covariance"}
NAMES = ["knn", "laplacian", "eigsh", "make_psd", "rbf_kernel", "IKLR", "KernelKMeans", "S3ML", "SimpleNPKL"]
NAMES.append("sparse_inverse_covariance")


@pytest.mark.parametrize("name", NAMES)
def test_numeric_strings_refused_everywhere(name):
    A = (SPD if name in SQUARE else SIX).astype(str)  # "2.0", "0.5", ...
    with pytest.raises(TypeError, match=r"(X|S|A|K|Sigma) must hold real numbers, not strings"):
        _entry_points()[name](A)


@pytest.mark.parametrize("name", NAMES)
def test_complex_refused_everywhere(name):
    A = (SPD if name in SQUARE else SIX).astype(complex)
    with pytest.raises(ValueError, match="Complex data not supported"):
        _entry_points()[name](A)


def test_object_arrays_of_numbers_accepted():
    """laplacian, covariance_descriptor and sparse_inverse_covariance refused them; the answer is
    the float array's."""
    W = np.array([[0, 1, 2], [1, 0, 0], [2, 0, 0]])
    assert np.array_equal(laplacian(W.astype(object)), laplacian(W.astype(float)))
    image = RNG.random((5, 6, 6))
    assert np.array_equal(covariance_descriptor(image.astype(object)), covariance_descriptor(image))
    got = sparse_inverse_covariance(SPD.astype(object), 0.1).precision
    assert np.array_equal(got, sparse_inverse_covariance(SPD, 0.1).precision)


def test_estimators_refuse_what_functions_refuse():
    """The estimators coerced numeric strings (validate_data with dtype=float64) while the
    functions refused them: one rule now."""
    strings = SIX.astype(str)
    for call in (lambda: knn(strings, 2), lambda: KernelKMeans(2).fit(strings)):
        with pytest.raises(TypeError, match="X must hold real numbers, not strings"):
            call()
    with pytest.raises(TypeError, match="X must hold real numbers, not strings"):
        KernelKMeans(2, n_init=1, random_state=0).fit(SIX).predict(strings)


# ---- item 1: the listed defects -----------------------------------------------------------------


def test_laplacian_quadratic_form_leaves_unsorted_W_alone():
    W = sp.csr_matrix(np.ones((5, 5)))
    W.indices[:5] = W.indices[:5][::-1].copy()  # row 0's columns unsorted
    W.has_sorted_indices = False
    before = (W.indices.copy(), W.data.copy(), W.indptr.copy())
    T = laplacian_quadratic_form(X[:5], W)
    assert all(np.array_equal(a, b) for a, b in zip(before, (W.indices, W.data, W.indptr)))
    assert np.allclose(T, laplacian_quadratic_form(X[:5], np.ones((5, 5))))


PAIRS = np.array([[0, 1], [2, 3], [4, 5], [1, 2], [3, 4], [0, 5]])


def test_float_pairs_with_integral_values_accepted():
    folds = pair_folds(PAIRS.astype(float), 2, random_state=0)
    reference = pair_folds(PAIRS, 2, random_state=0)
    assert all(np.array_equal(a, b) for fold, ref in zip(folds, reference) for a, b in zip(fold, ref))
    F, labels = RNG.standard_normal((6, 2)), [1, -1, 1, -1, 1, -1]
    assert pair_distance_auc(F, PAIRS.astype(float), labels) == pair_distance_auc(F, PAIRS, labels)
    for call in (lambda p: pair_folds(p, 2), lambda p: pair_distance_auc(F, p, labels), lambda p: check_pairs(p, 6)):
        with pytest.raises(TypeError, match="pairs must be integers"):
            call(PAIRS + 0.5)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", [ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding])
def test_embedding_new_points_never_nan(cls):
    model = cls().fit(X, Y) if cls is ColoredMVU else cls().fit(X)
    spike = X.copy()
    spike[0, 0] = 1e200
    for bad in (X * 1e300, spike):
        for call in (model.transform, lambda A: model.kernel(A), lambda A: model.kernel(X[:4], A)):
            with pytest.raises(ValueError, match="overflow float64"):
                call(bad)
    # Far but representable points: finite, and the rows of the training points are exact.
    assert np.isfinite(model.transform(X * 1e100)).all()
    assert np.allclose(model.transform(X), model.embedding_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_kernel_X_other_named():
    model = SimpleNPKL(n_neighbors=3).fit(X, Y)
    with pytest.raises(ValueError, match="X_other"):
        model.kernel(X, X_other=np.ones((2, 5)))
    embedding = ColoredMVU().fit(X, Y)
    with pytest.raises(ValueError, match="X_other"):
        embedding.kernel(X, X_other=np.ones((2, 5)))


@pytest.mark.filterwarnings("ignore:Number of distinct clusters")  # the spike leaves 2 distinct points
def test_kernel_kmeans_never_nan():
    spike = X.copy()
    spike[0, 0] = 1e200
    for bad in (X * 1e300, spike):
        with pytest.raises(ValueError, match="overflow"):
            KernelKMeans(3, random_state=0).fit(bad)
        with pytest.raises(ValueError, match="overflow float64"):
            KernelKMeans(3, random_state=0).fit(X).transform(bad)
    # Scaled by a power of two, everything scales exactly (the fit runs on X / 2^e).
    small, large = KernelKMeans(3, random_state=0).fit(X), KernelKMeans(3, random_state=0).fit(X * 2.0**400)
    assert np.array_equal(small.labels_, large.labels_)
    assert large.inertia_ == small.inertia_ * 2.0**800
    assert np.array_equal(large.predict(X * 2.0**400), small.predict(X))


def test_s3ml_scale_and_distances_finite():
    y = np.where(RNG.random(30) < 0.5, Y, -1)
    reference = S3ML(random_state=0).fit(X, y)
    huge = S3ML(random_state=0).fit(X * 2.0**1000, y)  # 1e301: the variance overflowed to inf
    assert np.isfinite(huge.scale_).all()
    assert np.allclose(huge.scale_, reference.scale_ * 2.0**1000, rtol=1e-12)
    assert np.allclose(huge.metric_, reference.metric_, rtol=1e-8, atol=1e-12)
    d = reference.pair_distance(X[:5] * 1e300, X[5:10])
    direct = np.sqrt(np.einsum("ij,jk,ik->i", X[:5], reference.get_mahalanobis_matrix(), X[:5]))
    assert np.isfinite(d).all() and np.allclose(d, direct * 1e300, rtol=1e-8)
    with pytest.raises(ValueError, match="X1, X2: a learned distance overflows"):
        reference.pair_distance(np.full((2, 3), 1.5e308), np.full((2, 3), -1.5e308))


def test_svm_tol_has_a_floor():
    from kernlearn.similarity import EMKL, ESKL, REKL

    S = np.stack([X @ X.T, np.eye(30)], axis=2)
    for cls in (ESKL, EMKL, REKL):
        with pytest.raises(ValueError, match=r"svm_tol must be >= 1e-10"):
            cls(svm_tol=5e-324).fit(S, Y % 2)  # libsvm spun forever, deaf to Ctrl-C


def test_intercept_scaling_bounded():
    from kernlearn.indefinite import IndefiniteKernelLogisticRegression

    with pytest.raises(ValueError, match=r"intercept_scaling must be > 0 and <= 1e\+150"):
        IndefiniteKernelLogisticRegression(intercept_scaling=1e308).fit(X, Y % 2)  # was OverflowError


def test_generator_random_state_accepted():
    """A numpy Generator reached scikit-learn's check_random_state, whose error does not name
    random_state; every path now draws from the Generator's bit generator."""
    a = SimpleNPKL(n_neighbors=3, random_state=np.random.default_rng(5)).fit(X, Y)
    b = SimpleNPKL(n_neighbors=3, random_state=np.random.default_rng(5)).fit(X, Y)
    assert np.array_equal(a.embedding_, b.embedding_)
    km = KernelKMeans(3, n_init=2, random_state=np.random.default_rng(0)).fit(X)
    assert km.labels_.shape == (30,)


# ---- the _core bindings -------------------------------------------------------------------------


def test_knn_block_scale_exponent_bounded():
    from kernlearn import _core

    nb = _core.neighbors
    queries, data = X[:6], X[6:14]
    for e in (10**9, -(10**9), 825, -1274):  # every entry scaled to 0 or inf: arbitrary neighbours
        with pytest.raises(ValueError, match="scale_exponent must be in"):
            nb.knn_block(queries, data, 3, query_offset=0, data_offset=6, metric=nb.Metric.euclidean, scale_exponent=e)
    with pytest.raises(ValueError, match="scale_exponent must be in"):
        nb.neighbors_from_keys(np.array([[1], [0]]), np.ones((2, 1)), metric=nb.Metric.euclidean, scale_exponent=10**9)


def test_knn_graph_refuses_duplicate_neighbours_and_is_symmetric():
    from kernlearn import _core

    nb = _core.neighbors
    euclidean = nb.Metric.euclidean
    twice = nb.neighbors_from_keys(np.array([[1, 1], [0, 2], [1, 0]]), np.ones((3, 2)), metric=euclidean)
    with pytest.raises(ValueError, match="row 0 lists point 1 twice"):
        nb.knn_graph(twice, nb.GraphMode.symmetric, nb.EdgeWeight.binary, None)
    # i -> j and j -> i with different distances: both rows take the smaller.
    keys = np.array([[25.0, 1.0], [1.0, 4.0], [1.0, 4.0]])
    r = nb.neighbors_from_keys(np.array([[1, 2], [0, 2], [1, 0]]), keys, metric=euclidean)
    for mode in (nb.GraphMode.symmetric, nb.GraphMode.mutual):
        data, indices, indptr = nb.knn_graph(r, mode, nb.EdgeWeight.distance, None)
        G = sp.csr_matrix((data, indices, indptr), shape=(3, 3)).toarray()
        assert np.array_equal(G, G.T)
    assert G[0, 1] == 1.0


def test_dense_eigenpairs_reads_the_upper_triangle():
    from kernlearn import _core

    la = _core.linalg
    M = np.array([[1.0, 100.0, 3.0], [0.0, 2.0, -5.0], [7.0, 11.0, 4.0]])  # lower triangle: garbage
    values, vectors = la.dense_eigenpairs(M, la.LanczosWhich.largest, 1e-12)
    assert np.allclose(values, np.linalg.eigvalsh(M, UPLO="U")[::-1], rtol=1e-12)
    assert "upper triangle read" in la.dense_eigenpairs.__doc__


def test_simple_npkl_refuses_non_orthonormal_basis():
    from kernlearn import _core

    m = _core.methods
    n = 8
    W = np.abs(RNG.standard_normal((n, n)))
    W = W + W.T
    np.fill_diagonal(W, 0)
    L = sp.csr_matrix(np.diag(W.sum(1)) - W)
    csr = m.Csr(n=n, indptr=L.indptr.astype(np.int64), indices=L.indices.astype(np.int64), data=L.data.copy())
    pairs = np.array([[0, 1], [2, 3], [4, 5]], dtype=np.int64)
    options = m.NpklOptions(loss=m.NpklLoss.squared_hinge, C=1.0)
    Q = np.linalg.qr(RNG.standard_normal((n, 3)))[0]
    good = m.simple_npkl(csr, pairs, np.array([1.0, -1.0, 1.0]), options, basis=np.ascontiguousarray(Q))
    V = np.asarray(good.eigenvectors)
    assert np.allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-10)
    with pytest.raises(ValueError, match="basis must have orthonormal columns"):
        m.simple_npkl(csr, pairs, np.array([1.0, -1.0, 1.0]), options, basis=np.ascontiguousarray(3 * Q))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"B": 1e308}, r"B must be > 0 and <= 1e\+280"),  # was RuntimeError from the eigensolver
        ({"step": 1e308, "loss": "squared_hinge"}, r"step must be .* <= 1e\+250"),  # the same
        ({"G": 5e-324}, "overflows float64 with B = None, G = 5e-324"),  # inf / NaN in history_
        ({"G": 5e-324, "loss": "squared_hinge"}, "overflows float64"),
    ],
)
def test_simple_npkl_extreme_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        SimpleNPKL(n_neighbors=3, random_state=0, **params).fit(X, Y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sice_alm_history_finite_on_singular_sigma():
    result = sparse_inverse_covariance(np.ones((4, 4)), 0.1, solver="alm", max_iter=20)
    assert np.isfinite(result.history).all()  # its first entry was inf / inf = NaN
    assert np.isfinite(result.precision).all()


def test_core_sice_refuses_non_symmetric_S():
    from kernlearn import _core

    m = _core.methods
    S = RNG.random((4, 4)) + 4 * np.eye(4)  # not symmetric: the gaps were all NaN
    options = m.SiceOptions(solver=m.SiceSolver.alm)
    with pytest.raises(ValueError, match="S must be symmetric"):
        m.sice(S, np.full((4, 4), 0.1), options)
    result = m.sice((S + S.T) / 2, np.full((4, 4), 0.1), options)
    assert np.isfinite(np.asarray(result.relative_gaps)).all()


def test_hsic_phi_checks_finiteness():
    from kernlearn import _core

    ke = _core.kernels
    W = np.ascontiguousarray(np.linalg.qr(RNG.standard_normal((3, 2)))[0])
    A, c = np.ascontiguousarray(np.eye(30)[:, :3]), np.ones(3)
    phi, _, _ = ke.hsic_phi(X, W, A, c, sigma=1.0)
    assert np.isfinite(phi).all()
    for bad in (
        np.where(np.arange(90).reshape(30, 3) == 4, np.nan, X),
        np.where(np.arange(90).reshape(30, 3) == 4, np.inf, X),
    ):
        with pytest.raises(ValueError, match="hsic_phi: X, W, A and c must be finite"):
            ke.hsic_phi(np.ascontiguousarray(bad), W, A, c, sigma=1.0)
    with pytest.raises(ValueError, match="must be finite"):
        ke.hsic_phi(X, W, A, np.array([1.0, np.nan, 1.0]), sigma=1.0)


def test_rule_covers_accumulator_and_plot_inputs():
    from kernlearn.constraints import ConstraintAccumulator

    acc = ConstraintAccumulator(PAIRS, 6, pair_labels=[1, -1, 1, -1, 1, -1])
    V = np.linalg.qr(RNG.standard_normal((6, 2)))[0]
    assert np.array_equal(acc.inner(V.astype(object), np.ones(2)), acc.inner(V, np.ones(2)))
    for call in (lambda: acc.inner(V.astype(str), np.ones(2)), lambda: acc.assemble(np.ones(6).astype(str))):
        with pytest.raises(TypeError, match="must hold real numbers, not strings"):
            call()


def test_core_saddle_point_bounds_B_and_step():
    from kernlearn import _core

    m = _core.methods
    L = sp.csr_matrix(np.diag([1.0, 2.0, 1.0]) - np.array([[0, 1.0, 0], [1.0, 0, 1.0], [0, 1.0, 0]]))
    csr = m.Csr(n=3, indptr=L.indptr.astype(np.int64), indices=L.indices.astype(np.int64), data=L.data.copy())
    pairs, labels = np.array([[0, 1], [1, 2]], dtype=np.int64), np.array([1.0, -1.0])
    for field, value, match in (
        ("B", 1e308, r"B must be a positive number <= 1e280"),
        ("step", 1e308, "step must be a positive number <= 1e250"),
    ):
        options = m.NpklOptions(loss=m.NpklLoss.squared_hinge, C=1.0)
        setattr(options.spectral, field, value)
        with pytest.raises(ValueError, match=match):  # was RuntimeError from the projected eigensolver
            m.simple_npkl(csr, pairs, labels, options)


# ---- the residuals of the fuzz table (bench/results/fuzz.md, issue 48 round 2) -------------------


def _core_module():
    from kernlearn import _core

    return _core


def _low_rank(U, c):
    return _core_module().linalg.low_rank_operator(np.ascontiguousarray(U), np.ascontiguousarray(c))


@pytest.mark.parametrize(
    "make, names",
    [
        (lambda U, c, A: _low_rank(U * 1e200, c), "U, c"),
        (
            lambda U, c, A: _core_module().linalg.normalized_operator(
                _core_module().linalg.dense_operator(A), np.full(len(A), 1e200)
            ),
            "s, A",
        ),
        (
            lambda U, c, A: _core_module().linalg.sum_operator([(_low_rank(U * 1e200, c), 1.0)]),
            "terms (U, c)",
        ),
        (
            lambda U, c, A: _core_module().linalg.nystrom_operator(
                np.ascontiguousarray(U * 1e300), np.ascontiguousarray(np.eye(2))
            ),
            "C, W",
        ),
    ],
)
def test_operator_products_that_overflow_are_refused_by_name(make, names):
    """U diag(c) U' with U near 1e200 has entries near 1e400: the product and the diagonal used to
    come back as inf without a word; now a ValueError naming the operator's arguments."""
    U, c = RNG.standard_normal((6, 2)), np.array([1.0, -0.5])
    A = np.ascontiguousarray(np.eye(6) + 0.1)
    op = make(U, c, A)
    with pytest.raises(ValueError, match=rf"overflows the float64 range: rescale {re_escape(names)}"):
        op.matmat(np.ascontiguousarray(np.eye(6)[:, :2]))
    with pytest.raises(ValueError, match="overflows the float64 range"):
        op.diagonal()
    # The same operators at a representable scale agree with numpy (the check does not refuse them).
    small = _low_rank(U, c)
    dense = (U * c) @ U.T
    np.testing.assert_allclose(small.matmat(np.ascontiguousarray(np.eye(6))), dense, rtol=1e-12, atol=1e-14)


def re_escape(text):
    import re

    return re.escape(text)


def test_nystrom_operator_of_a_subnormal_W_names_W():
    """W near 1e-310 makes C W^+ C' overflow: it used to end in "U and c must be finite"."""
    C = np.ascontiguousarray(RNG.random((6, 2)))
    with pytest.raises(ValueError, match="rescale C or W"):
        _core_module().linalg.nystrom_operator(C, np.ascontiguousarray(np.eye(2) * 1e-310))


def test_matmat_of_the_wrong_shape_names_the_operator_inputs():
    op = _core_module().kernels.kernel_operator(
        np.ascontiguousarray(X),
        kernel=_core_module().kernels.PairwiseKernel(kind=_core_module().kernels.PairwiseKind.rbf, gamma=0.5),
    )
    with pytest.raises(ValueError, match="made from X"):
        op.matmat(np.ascontiguousarray(np.ones((4, 2))))


def test_nystrom_kernel_times_refuses_huge_X_by_name():
    """X near 1e300: the squared distances overflowed and the eigensolver of K_LL failed (RuntimeError)."""
    Xh = np.ascontiguousarray(X[:8] * 1e300)
    W = np.ascontiguousarray(np.eye(3)[:, :2])
    V = np.ascontiguousarray(np.ones((8, 2)))
    with pytest.raises(ValueError, match="rescale X or W"):
        _core_module().kernels.nystrom_kernel_times(Xh, W, V, sigma=1.0, landmarks=[0, 2, 4, 6], n_threads=1)


def test_dense_eigenpairs_of_a_subnormal_matrix():
    """A matrix near 1e-310 used to end in "xstedc failed, info = 7": the power of two meant to bring
    it into range was 2^1030, infinite. Reference: numpy's eigenvalues of the matrix scaled by
    2^1000 (exact), scaled back."""
    B = RNG.standard_normal((8, 8))
    M = np.ascontiguousarray((B + B.T) * 1e-310)
    values, vectors = _core_module().linalg.dense_eigenpairs(
        M, which=_core_module().linalg.LanczosWhich.largest, tol=1e-10, max_count=8
    )
    reference = np.sort(np.linalg.eigvalsh(np.ldexp(M, 1000)))[::-1]
    np.testing.assert_allclose(
        np.ldexp(np.asarray(values), 1000), reference, rtol=1e-6, atol=1e-12 * np.abs(reference).max()
    )
    np.testing.assert_allclose(np.asarray(vectors).T @ np.asarray(vectors), np.eye(8), atol=1e-8)


def test_eigsh_and_psd_kernels_of_subnormal_input():
    """eigsh, make_psd (the dense path) and the log-Euclidean kernel on data near 1e-310: they raised
    RuntimeError / LinAlgError, or OverflowError from 2.0 ** 1030 (binary_exponent's factor)."""
    from kernlearn._utils._scaling import binary_exponent
    from kernlearn.kernels import log_euclidean_kernel, make_psd
    from kernlearn.linalg import eigsh

    assert np.isfinite(2.0 ** -binary_exponent(np.array([1e-310])))
    B = RNG.standard_normal((8, 8))
    M = (B + B.T) * 1e-310
    values = eigsh(M, 3, method="dense")[0]
    reference = np.sort(np.linalg.eigvalsh(np.ldexp(M, 1000)))[::-1][:3]
    np.testing.assert_allclose(np.ldexp(values, 1000), reference, rtol=1e-6)
    assert np.isfinite(make_psd(M)).all()
    S = np.stack([np.eye(3) * 2.0, np.diag([1.0, 2.0, 3.0])]) * 1e-310
    np.testing.assert_allclose(log_euclidean_kernel(S), log_euclidean_kernel(S * 1e300), rtol=1e-10)


def test_s3ml_fits_subnormal_X():
    """standardize on X near 1e-310 ended in OverflowError (34, 'Numerical result out of range')."""
    model = S3ML(n_neighbors=3, max_iter=3).fit(X * 1e-310, Y)
    assert np.isfinite(model.scale_).all() and (model.scale_ > 0).all()


def test_simple_npkl_closed_form_at_huge_C():
    """C = 1e300: sum sigma^q overflowed in Proposition 1's closed form and every eigenvalue came
    out 0 (the core), then G = 1 / 0 (ZeroDivisionError) in the estimator."""
    core = _core_module().methods
    n = 8
    L = sp.csr_matrix(laplacian(np.ones((n, n)) - np.eye(n)))  # the complete graph's
    pairs = np.array([[0, 1], [2, 3], [0, 4], [5, 6]], dtype=np.int64)
    labels = np.array([1.0, 1.0, -1.0, -1.0])
    csr = core.Csr(
        n=n, indptr=L.indptr.astype(np.int64), indices=L.indices.astype(np.int64), data=L.data.astype(np.float64)
    )
    for C in (1e3, 1e300):
        options = core.NpklOptions(loss=core.NpklLoss.squared_hinge, C=C, spectral=core.SpectralOptions(max_iter=20))
        w = np.asarray(core.simple_npkl(csr, pairs, labels, options=options).eigenvalues)
        assert w.size and np.isfinite(w).all() and (w > 0).all(), (C, w)
    with pytest.raises(ValueError, match="C = 1e\\+300"):
        SimpleNPKL(n_neighbors=3, max_iter=30, C=1e300).fit(X[:12], np.tile([0, 1], 6))


def test_kernel_operator_products_name_V():
    """op @ V passed scipy's messages ("dimension mismatch", "Scalar operands are not allowed"),
    which name neither V nor X; valid operands keep scipy's results."""
    from kernlearn.kernels import KernelOperator, rbf_kernel

    op = KernelOperator(X[:8], gamma=0.5)
    V = RNG.standard_normal((8, 2))
    K = rbf_kernel(X[:8], gamma=0.5)
    for bad, kind in [
        (np.ones((9, 2)), ValueError),
        (3.0, ValueError),
        ("abc", TypeError),
        (np.ones((8, 2, 1)), ValueError),
    ]:
        with pytest.raises(kind, match=r"\bV\b"):
            op @ bad
    with pytest.raises(ValueError, match="one per row of X"):
        KernelOperator(X[:1]) @ V
    with pytest.raises(ValueError, match=r"\bV\b"):
        op.matvec(np.ones(9))
    with pytest.raises(ValueError, match=r"\bV\b"):
        op.matmat(np.ones(8))
    np.testing.assert_allclose(op @ V, K @ V, rtol=1e-12)
    np.testing.assert_allclose(op @ V.tolist(), K @ V, rtol=1e-12)
    np.testing.assert_allclose(op.dot(V[:, 0]), K @ V[:, 0], rtol=1e-12)
    np.testing.assert_allclose((op * 2.0) @ V, 2.0 * K @ V, rtol=1e-12)
    np.testing.assert_allclose(op.matvec(V[:, :1]), K @ V[:, :1], rtol=1e-12)


RAGGED = [[1, 2], [3]]


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: __import__("kernlearn.evaluation", fromlist=["nmi"]).nmi(RAGGED, [0, 1]), "labels_a"),
        (
            lambda: __import__("kernlearn.evaluation", fromlist=["x"]).pairwise_cluster_accuracy([0, 1], RAGGED),
            "y_pred",
        ),
        (lambda: laplacian(RAGGED), "S"),
        (lambda: laplacian_quadratic_form(X[:2], RAGGED), "W"),
        (lambda: S3ML().fit(X[:2], RAGGED), "y"),
        (lambda: ColoredMVU().fit(X[:2], RAGGED), "y"),
        (lambda: check_pairs(None, 5), "pairs"),
        (lambda: check_pairs([[0, 1]], 5, [1, -1, 1]), "pairs"),
    ],
)
def test_ragged_and_mismatched_inputs_name_the_argument(call, name):
    """numpy's "setting an array element with a sequence" and the like, with the argument's name."""
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        call()


def test_absurd_sizes_and_scales_name_the_argument():
    from kernlearn.cluster import KDAC
    from kernlearn.constraints import ConstraintAccumulator
    from kernlearn.indefinite import IndefiniteKernelLogisticRegression

    for n in (2**31, 2**63, 2**64):  # MemoryError / OverflowError before
        with pytest.raises(ValueError, match=r"\bn\b"):
            ConstraintAccumulator([[0, 1]], n)
    with pytest.raises(ValueError, match="n_neighbors must be < 2"):  # std::bad_alloc before
        _core_module().neighbors.knn_block_pair(
            np.ascontiguousarray(X[:4]),
            np.ascontiguousarray(X[4:8]),
            2**31,
            query_offset=0,
            data_offset=4,
            metric=_core_module().neighbors.Metric.euclidean,
        )
    with pytest.raises(ValueError, match=r"\bX\b"):  # the message named sigma only
        KDAC(n_clusters=2, max_iter=2).fit(X * 1e-300, Y % 2)
    with pytest.raises(ValueError, match=r"\bX\b"):  # gamma = 0 named gamma only
        IndefiniteKernelLogisticRegression().fit(X * 1e300, Y % 2)
    with pytest.raises(ValueError, match=r"\by\b"):
        IndefiniteKernelLogisticRegression().fit(X, np.array([{}] * 30, dtype=object))
    with pytest.raises(ValueError, match=r"\bX\b"):
        KernelKMeans(n_clusters=2).fit(X[:1])
    with pytest.raises(ValueError, match=r"\bX\b"):
        MinimumVolumeEmbedding(n_neighbors=2).fit(np.ones((6, 3)))


def test_iklr_gamma_scale_refuses_an_underflowing_variance():
    # Var X of X x 1e-200 underflows to 0 when scaled back; it was read as a constant X
    # (gamma = 1 / d, a kernel of ones and a chance-level fit) and is now refused by name.
    from kernlearn.indefinite import IndefiniteKernelLogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="rescale X or give gamma"):
        IndefiniteKernelLogisticRegression().fit(X * 1e-200, y)
    constant = IndefiniteKernelLogisticRegression().fit(np.ones((10, 3)), np.arange(10) % 2)
    assert constant.gamma_ == pytest.approx(1 / 3)
