"""Out-of-sample rules of the transductive learners (kernlearn._utils._out_of_sample): each
checked against an independent computation, plus their held-out quality on a small split."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import laplacian as csgraph_laplacian
from sklearn.datasets import load_iris
from sklearn.manifold._locally_linear import barycenter_weights
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from conftest import three_blobs
from kernlearn.constraints import from_labels
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.graph import knn_graph
from kernlearn.npkl import SimpleNPKL


@pytest.fixture(scope="module")
def blobs():
    return three_blobs(30)


@pytest.fixture(scope="module")
def npkl(blobs):
    X, y = blobs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SimpleNPKL(n_neighbors=4, random_state=0).fit(X[:70], y[:70])


def test_simplenpkl_harmonic_rule_minimises_the_augmented_graphs_regulariser(blobs, npkl):
    """The tiny problem built to match: the training graph plus one new point joined to its k
    nearest training points; with the training rows fixed, tr(L' K') (scipy's normalised
    Laplacian, K' = F' F'^T) is a quadratic in the new row, minimised where its gradient
    L'_xx f + L'_xT F = 0. transform must give that row. (A training point is not its own
    neighbour in the fitted graph but is its own nearest neighbour as a query, so the rule does
    not reproduce embedding_ on training points by design.)"""
    X, _ = blobs
    X_train, F, k = X[:70], npkl.embedding_, npkl.n_neighbors
    W = knn_graph(X_train, k, mode="symmetric").toarray()
    rows = npkl.transform(X[70:])
    for x, row in zip(X[70:], rows):
        nearest = np.argsort(np.linalg.norm(X_train - x, axis=1))[:k]
        A = np.zeros((71, 71))
        A[:70, :70] = W
        A[70, nearest] = A[nearest, 70] = 1.0
        L = csgraph_laplacian(A, normed=True)
        expected = -(L[70, :70] @ F) / L[70, 70]
        np.testing.assert_allclose(row, expected, rtol=1e-12, atol=1e-14)


def test_simplenpkl_new_points_are_not_each_others_neighbours(blobs, npkl):
    X, _ = blobs
    together = npkl.transform(X[70:])
    one_by_one = np.vstack([npkl.transform(X[i : i + 1]) for i in range(70, 90)])
    np.testing.assert_array_equal(together, one_by_one)


def test_simplenpkl_cross_kernel(blobs, npkl):
    X, _ = blobs
    F_new = npkl.transform(X[70:])
    np.testing.assert_allclose(npkl.kernel(X[70:]), F_new @ npkl.embedding_.T, rtol=1e-13)
    np.testing.assert_allclose(npkl.kernel(X[70:80], X[80:]), F_new[:10] @ F_new[10:].T, rtol=1e-13)
    np.testing.assert_array_equal(npkl.kernel(), npkl.embedding_)
    with pytest.raises(ValueError, match="X_other needs X"):
        npkl.kernel(X_other=X[:3])


def test_simplenpkl_fit_transform_is_the_fitted_embedding(blobs):
    X, y = blobs
    model = SimpleNPKL(n_neighbors=4, random_state=0)
    np.testing.assert_array_equal(model.fit_transform(X, y), model.embedding_)


def test_simplenpkl_transform_checks_features(npkl):
    with pytest.raises(ValueError, match="X has 2 features"):
        npkl.transform(np.ones((3, 2)))


EMBEDDINGS = [
    ColoredMVU(n_components=2, n_neighbors=4, random_state=0),
    MinimumVolumeEmbedding(n_components=2, n_neighbors=4, random_state=0),
    StructurePreservingEmbedding(n_components=2, n_neighbors=4, max_rounds=5, random_state=0),
]


@pytest.fixture(scope="module", params=EMBEDDINGS, ids=lambda e: type(e).__name__)
def fitted_embedding(request, blobs):
    X, y = blobs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return request.param.fit(X[:70], y[:70])


def test_embedding_transform_reproduces_the_training_points(blobs, fitted_embedding):
    """The locally linear rule is exact on a training point (it is its own zero-distance neighbour)."""
    X, _ = blobs
    np.testing.assert_allclose(fitted_embedding.transform(X[:70]), fitted_embedding.embedding_, rtol=0, atol=1e-10)
    F = fitted_embedding.kernel()
    np.testing.assert_allclose(fitted_embedding.kernel(X[:70]), F @ F.T, atol=1e-10 * np.abs(F).max() ** 2)


def test_embedding_transform_is_the_lle_barycentre(blobs, fitted_embedding):
    """Against scikit-learn's LLE weights (same regulariser) as the reference."""
    X, _ = blobs
    X_train, X_new, k = X[:70], X[70:], fitted_embedding.n_neighbors
    nearest = np.argsort(((X_new[:, None, :] - X_train[None]) ** 2).sum(-1), axis=1)[:, :k]
    weights = barycenter_weights(X_new, X_train, nearest, reg=1e-3)
    expected = np.einsum("mk,mkr->mr", weights, fitted_embedding.embedding_[nearest])
    np.testing.assert_allclose(fitted_embedding.transform(X_new), expected, rtol=1e-9, atol=1e-12)


def test_precomputed_spe_has_no_transform(blobs):
    X, _ = blobs
    W = knn_graph(X[:40], 4, mode="symmetric")
    W.data[:] = 1.0
    model = StructurePreservingEmbedding(1, affinity="precomputed", max_rounds=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(W)
    with pytest.raises(ValueError, match="precomputed graph"):
        model.transform(W[:3])


def test_sparse_X_gives_the_dense_fit(blobs):
    """Without distance ties, the sparse kNN step finds the dense one's graph, so the fits agree."""
    X, y = blobs
    dense = SimpleNPKL(n_neighbors=4, random_state=0).fit(X, y)
    sparse = SimpleNPKL(n_neighbors=4, random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.eigenvalues_, dense.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(sparse.transform(sp.csr_matrix(X[:5])), dense.transform(X[:5]), atol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spe_dense = StructurePreservingEmbedding(2, n_neighbors=4, max_rounds=3, random_state=0).fit(X)
        spe_sparse = StructurePreservingEmbedding(2, n_neighbors=4, max_rounds=3, random_state=0).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(spe_sparse.eigenvalues_, spe_dense.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(spe_sparse.transform(sp.csr_matrix(X[:5])), spe_dense.transform(X[:5]), atol=1e-8)


def test_simplenpkl_held_out_accuracy_is_close_to_transductive():
    """Fit on 70 % of iris, extend to 30 %: 1-NN accuracy within a few points of a transductive
    fit with the same pairs (full table over data sets and estimators: bench/results/out_of_sample.md)."""
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    train, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=0)
    pairs, labels = from_labels(y[train], random_state=0)
    inductive = SimpleNPKL(random_state=0).fit(X[train], pairs=pairs, pair_labels=labels)
    transductive = SimpleNPKL(random_state=0).fit(X, pairs=train[pairs], pair_labels=labels)
    knn = KNeighborsClassifier(1)
    held_out = knn.fit(inductive.embedding_, y[train]).score(inductive.transform(X[test]), y[test])
    reference = knn.fit(transductive.embedding_[train], y[train]).score(transductive.embedding_[test], y[test])
    assert held_out >= reference - 0.05, (held_out, reference)
