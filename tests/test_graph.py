"""kNN graphs against scikit-learn's kneighbors_graph, Laplacians against scipy."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import laplacian as scipy_laplacian
from sklearn.neighbors import kneighbors_graph

from kernlearn.graph import knn_graph, laplacian


def _combine(A, mode):
    return A.maximum(A.T) if mode == "symmetric" else A.minimum(A.T)


@pytest.mark.parametrize("mode", ["symmetric", "mutual"])
@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_binary_graph_equals_sklearn(rng, mode, metric):
    X = rng.standard_normal((400, 6))
    G = knn_graph(X, 8, mode=mode, metric=metric)
    A = kneighbors_graph(X, 8, mode="connectivity", metric=metric, include_self=False)
    assert isinstance(G, sp.csr_matrix) and G.has_sorted_indices
    np.testing.assert_array_equal(G.toarray(), _combine(A, mode).toarray())


@pytest.mark.parametrize("mode", ["symmetric", "mutual"])
@pytest.mark.parametrize("weight", ["distance", "heat"])
def test_weighted_graph_equals_sklearn(rng, mode, weight):
    X = rng.standard_normal((400, 4))
    A = kneighbors_graph(X, 6, mode="distance", include_self=False)
    pattern = _combine((A != 0).astype(float), mode).toarray() > 0
    D = A.maximum(A.T).toarray()  # d_ij where either direction is an edge
    sigma = 0.7
    expected = np.where(pattern, D if weight == "distance" else np.exp(-(D**2) / (2 * sigma**2)), 0.0)
    G = knn_graph(X, 6, mode=mode, weight=weight, sigma=sigma if weight == "heat" else None)
    np.testing.assert_allclose(G.toarray(), expected, rtol=1e-12, atol=0)
    assert (G != G.T).nnz == 0  # exactly symmetric


def test_graph_with_duplicates_keeps_zero_distance_edges(rng):
    X = rng.integers(0, 3, size=(200, 2)).astype(float)
    G = knn_graph(X, 5, weight="distance")
    B = knn_graph(X, 5)
    np.testing.assert_array_equal(G.indptr, B.indptr)  # same pattern: explicit zero weights kept
    np.testing.assert_array_equal(G.indices, B.indices)
    assert np.all(G.diagonal() == 0) and (G != G.T).nnz == 0


def test_heat_default_sigma_is_median_knn_distance(rng):
    from kernlearn.graph import knn

    X = rng.standard_normal((300, 3))
    sigma = np.median(knn(X, 5)[1])
    np.testing.assert_array_equal(
        knn_graph(X, 5, weight="heat").toarray(), knn_graph(X, 5, weight="heat", sigma=sigma).toarray()
    )


def test_graph_threads_identical(rng):
    X = rng.standard_normal((2000, 10))
    G1 = knn_graph(X, 10, mode="mutual", weight="heat", n_jobs=1)
    G2 = knn_graph(X, 10, mode="mutual", weight="heat", n_jobs=2)
    assert (G1 != G2).nnz == 0


def _random_similarity(rng, n=60, density=0.08, isolated=(3, 17, 40)):
    S = sp.random(n, n, density=density, random_state=np.random.RandomState(7), format="csr")
    S = (S + S.T).tolil()
    for i in isolated:
        S[i, :] = 0
        S[:, i] = 0
    S[5, 5] = 2.5  # a self-loop: ignored by every Laplacian
    return S.tocsr()


@pytest.mark.parametrize("normed", [True, False])
def test_laplacian_equals_scipy_with_isolated_nodes(rng, normed):
    S = _random_similarity(rng)
    L = laplacian(S, "normalized" if normed else "unnormalized")
    ref = scipy_laplacian(S, normed=normed)
    np.testing.assert_allclose(L.toarray(), ref.toarray(), rtol=1e-14, atol=1e-15)
    assert np.all(np.isfinite(L.data))
    for i in (3, 17, 40):
        assert L[i, i] == 0.0


def test_laplacian_of_mutual_knn_graph_equals_scipy(rng):
    X = np.vstack([rng.standard_normal((200, 2)), [[50.0, 50.0]]])  # an outlier: isolated when mutual
    S = knn_graph(X, 4, mode="mutual")
    assert S[200].nnz == 0
    np.testing.assert_allclose(laplacian(S).toarray(), scipy_laplacian(S, normed=True).toarray(), atol=1e-15)


def test_random_walk_laplacian(rng):
    S = _random_similarity(rng).toarray()
    np.fill_diagonal(S, 0.0)
    d = S.sum(axis=1)
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d > 0)
    expected = np.diag((d > 0).astype(float)) - inv[:, None] * S
    np.testing.assert_allclose(laplacian(sp.csr_matrix(S), "random_walk").toarray(), expected, atol=1e-15)


def test_dense_input_gives_dense_output(rng):
    S = _random_similarity(rng).toarray()
    L = laplacian(S)
    assert isinstance(L, np.ndarray)
    np.testing.assert_allclose(L, scipy_laplacian(S, normed=True), atol=1e-15)


def test_laplacian_accepts_duplicate_and_unsorted_entries():
    # COO with a duplicated entry: summed, as scipy does.
    S = sp.coo_matrix(([1.0, 1.0, 1.5, 0.5], ([0, 0, 1, 1], [1, 1, 0, 0])), shape=(3, 3))
    L = laplacian(S, "unnormalized").toarray()
    np.testing.assert_array_equal(L, [[2, -2, 0], [-2, 2, 0], [0, 0, 0]])


# --- weights of any finite magnitude (issue 27, defect 5) ---------------------------------------

_PATH = np.array([[0, 4, 0, 0, 0], [4, 0, 2, 0, 0], [0, 2, 0, 1, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]], dtype=float)


def _random_walk(S):
    d = S.sum(axis=1)
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d > 0)
    return np.diag((d > 0).astype(float)) - inv[:, None] * S


def test_subnormal_weights_give_a_finite_laplacian():
    S = sp.csr_matrix([[0, 5e-324], [5e-324, 0]])  # was [[1, -inf], [-inf, 1]]
    np.testing.assert_array_equal(laplacian(S).toarray(), [[1, -1], [-1, 1]])
    np.testing.assert_array_equal(laplacian(S, "random_walk").toarray(), [[1, -1], [-1, 1]])
    np.testing.assert_array_equal(laplacian(S, "unnormalized").toarray(), [[5e-324, -5e-324], [-5e-324, 5e-324]])
    np.testing.assert_allclose(laplacian(S).toarray(), scipy_laplacian(S, normed=True).toarray(), rtol=1e-15)


@pytest.mark.parametrize("e", [-1074, -1060, -1000, -600, 600, 1000, 1021])
@pytest.mark.parametrize("kind", ["normalized", "unnormalized", "random_walk"])
def test_laplacian_of_scaled_weights_is_the_scaled_laplacian(e, kind):
    # A path with weights (4, 2, 1) 2^e and an isolated node: normalized and random-walk
    # Laplacians do not change with the scale, the unnormalized one scales with it (exactly).
    L = laplacian(sp.csr_matrix(np.ldexp(_PATH, e)), kind).toarray()
    assert np.isfinite(L).all()
    if kind == "unnormalized":
        np.testing.assert_array_equal(L, np.ldexp(scipy_laplacian(_PATH), e))
        np.testing.assert_array_equal(L.sum(axis=1), 0.0)
    elif kind == "normalized":
        np.testing.assert_allclose(L, scipy_laplacian(_PATH, normed=True), rtol=1e-15, atol=0)
    else:
        np.testing.assert_allclose(L, _random_walk(_PATH), rtol=1e-15, atol=0)


def test_mixed_magnitudes_stay_exact():
    # Two components, 1e300 and 1e-300: neither may vanish into the other's scale.
    S = sp.block_diag([sp.csr_matrix(_PATH[:4, :4] * 1e300), sp.csr_matrix(_PATH[:4, :4] * 1e-300)]).tocsr()
    L = laplacian(S).toarray()
    ref = scipy_laplacian(_PATH[:4, :4], normed=True)
    np.testing.assert_allclose(L[:4, :4], ref, rtol=1e-14)
    np.testing.assert_allclose(L[4:, 4:], ref, rtol=1e-14)


def test_unnormalized_degree_beyond_float64_warns():
    S = sp.csr_matrix([[0, 1.5e308, 1.5e308], [1.5e308, 0, 0], [1.5e308, 0, 0]])
    with pytest.warns(RuntimeWarning, match="degrees"):
        L = laplacian(S, "unnormalized").toarray()
    assert L[0, 0] == np.inf and L[1, 1] == 1.5e308
    np.testing.assert_allclose(laplacian(S).toarray(), laplacian(S / 1e300).toarray(), rtol=1e-15)


@pytest.mark.parametrize(
    "tol, error",
    [(np.nan, ValueError), (np.inf, ValueError), (-1.0, ValueError), ("1e-3", TypeError), (None, TypeError)],
)
def test_bad_symmetry_tol_is_rejected(tol, error):
    with pytest.raises(error, match="symmetry_tol"):
        laplacian(sp.csr_matrix(_PATH), symmetry_tol=tol)


def test_heat_weight_with_tiny_sigma_is_finite(rng):
    X = np.vstack([rng.standard_normal((50, 3)), np.zeros((2, 3))])  # a duplicate pair: d = 0
    G = knn_graph(X, 3, weight="heat", sigma=1e-300)  # sigma^2 underflowed: 0 / 0 = NaN before
    assert np.isfinite(G.data).all() and G[50, 51] == 1.0


# --- the raw bindings (issue 27, defect 8) -----------------------------------------------------


def _raw_laplacian(data, indices, indptr):
    from kernlearn import _core

    nb = _core.neighbors
    return nb.laplacian(
        np.asarray(data, dtype=np.float64),
        np.asarray(indices, dtype=np.int64),
        np.asarray(indptr, dtype=np.int64),
        kind=nb.LaplacianKind.normalized,
    )


@pytest.mark.parametrize(
    "data, indices, indptr, match",
    [
        ([1.0, 1.0], [1, 0], [0, 2, 1], "non-decreasing|inconsistent"),  # decreasing indptr
        ([1.0, 1.0], [1, 0], [0, 1, 5], "inconsistent"),  # indptr beyond nnz
        ([1.0, 1.0], [1, 0], [0, 2**62, 2], "non-decreasing|inconsistent"),
        ([1.0, 1.0], [-1, 0], [0, 1, 2], "out of range"),
        ([1.0, 1.0], [1, 2**62], [0, 1, 2], "out of range"),
        ([1.0, 1.0], [1, 0, 0], [0, 1, 2], "equal length"),
        ([np.nan, 1.0], [1, 0], [0, 1, 2], "finite"),
        ([np.inf, 1.0], [1, 0], [0, 1, 2], "finite"),
        ([-1.0, 1.0], [1, 0], [0, 1, 2], "non-negative"),
        ([1.0, 1.0], [1, 1], [0, 2, 2], "sorted"),  # duplicate
        ([1.0], [0], [1, 1], "inconsistent"),  # indptr[0] != 0
        ([], [], [], "indptr"),
    ],
)
def test_raw_laplacian_rejects_malformed_csr(data, indices, indptr, match):
    with pytest.raises(ValueError, match=match):
        _raw_laplacian(data, indices, indptr)


def test_raw_knn_graph_rejects_bad_sigma(rng):
    from kernlearn import _core

    nb = _core.neighbors
    result = nb.knn(rng.random((30, 2)), 3, metric=nb.Metric.euclidean, algorithm=nb.KnnAlgorithm.brute)
    for sigma in (None, np.nan, np.inf, 0.0, -1.0):
        with pytest.raises(ValueError, match="sigma"):
            nb.knn_graph(result, nb.GraphMode.symmetric, nb.EdgeWeight.heat, sigma)
    data, _, _ = nb.knn_graph(result, nb.GraphMode.symmetric, nb.EdgeWeight.heat, 0.5)
    assert np.isfinite(data).all()
