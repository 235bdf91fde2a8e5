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
