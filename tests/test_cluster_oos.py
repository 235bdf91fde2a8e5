"""Out-of-sample predict/transform of the clustering estimators (KernelKMeans, KDAC): each rule
against an independent computation, the training points reproduced, scikit-learn's input and
output conventions, and the held-out quality on a small split (the figures on iris, wine and
digits are in the pull request / report)."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags

from conftest import three_blobs
from kernlearn.cluster import KDAC, KernelKMeans, median_sigma
from kernlearn.kernels import rbf_kernel


@pytest.fixture(scope="module")
def blobs():
    return three_blobs(40)


def squared_distances(A, B):
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)


# --------------------------------------------------------------------------------------------
# KernelKMeans


def test_kernel_kmeans_factor_predict_and_transform(blobs):
    X, _ = blobs
    m = KernelKMeans(3, random_state=0).fit(X)
    C = m.cluster_centers_
    # The fit ends at a Lloyd fixed point: centres are the member means, labels the nearest centre.
    for c in range(3):
        np.testing.assert_allclose(C[c], X[m.labels_ == c].mean(0), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(m.predict(X), m.labels_)
    D = squared_distances(X, C)
    np.testing.assert_allclose(m.transform(X), D, rtol=1e-10, atol=1e-10 * D.max())
    np.testing.assert_allclose(KernelKMeans(3, random_state=0).fit_transform(X), m.transform(X), rtol=1e-12)
    np.testing.assert_array_equal(KernelKMeans(3, random_state=0).fit_predict(X), m.labels_)
    assert m.score(X) == pytest.approx(-m.inertia_, rel=1e-10)
    new = np.random.default_rng(1).normal(size=(7, 3)) * 3
    np.testing.assert_array_equal(m.predict(new), squared_distances(new, C).argmin(1))
    with pytest.raises(ValueError, match="kernel_diagonal is only for kernel='precomputed'"):
        m.transform(new, kernel_diagonal=np.ones(7))
    with pytest.raises(ValueError, match="features"):
        m.predict(new[:, :2])


def test_kernel_kmeans_precomputed_reproduces_the_fit(blobs):
    """On a PSD K (an RBF kernel) predict(K) is labels_, and transform(K, diag K) the distances of
    the factor the fit clustered, computed here independently from K's eigendecomposition."""
    X, _ = blobs
    K = rbf_kernel(X, gamma=0.1)
    m = KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    assert get_tags(m).input_tags.pairwise and not hasattr(m, "cluster_centers_")
    np.testing.assert_array_equal(m.predict(K), m.labels_)
    w, V = np.linalg.eigh(K)
    F = V * np.sqrt(np.clip(w, 0, None))
    C = np.array([F[m.labels_ == c].mean(0) for c in range(3)])
    D = squared_distances(F, C)
    got = m.transform(K, kernel_diagonal=np.diag(K))
    assert np.abs(got - D).max() <= 1e-10 * D.max()
    assert np.abs(KernelKMeans(3, kernel="precomputed", random_state=0).fit_transform(K) - D).max() <= 1e-10 * D.max()
    np.testing.assert_array_equal(D.argmin(1), m.labels_)
    assert m.score(K, kernel_diagonal=np.diag(K)) == pytest.approx(-m.inertia_, rel=1e-9)


def test_kernel_kmeans_precomputed_rule_is_the_feature_space_distance(blobs):
    """With the linear kernel K = X X' the feature map is x itself: the kernel k-means distance of
    a new point is |x - mean of the cluster|^2, and the labels match the factor estimator's."""
    X, _ = blobs
    new = np.random.default_rng(2).normal(size=(25, 3)) * 3
    m = KernelKMeans(3, kernel="precomputed", random_state=0).fit(X @ X.T)
    C = np.array([X[m.labels_ == c].mean(0) for c in range(3)])
    expected = squared_distances(new, C)
    cross = new @ X.T
    got = m.transform(cross, kernel_diagonal=(new**2).sum(1))
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * expected.max())
    np.testing.assert_array_equal(m.predict(cross), expected.argmin(1))
    by_factor = KernelKMeans(3, random_state=0).fit(X)
    assert adjusted_rand_score(by_factor.labels_, m.labels_) == 1.0
    assert adjusted_rand_score(by_factor.predict(new), m.predict(cross)) == 1.0


def test_kernel_kmeans_precomputed_needs_the_diagonal(blobs):
    X, _ = blobs
    K = rbf_kernel(X, gamma=0.1)
    m = KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    with pytest.raises(ValueError, match="kernel_diagonal, k\\(x, x\\) of the new points"):
        m.transform(K[:5])
    with pytest.raises(ValueError, match="kernel_diagonal"):
        m.score(K[:5])
    with pytest.raises(ValueError, match="kernel_diagonal must have shape \\(5,\\)"):
        m.transform(K[:5], kernel_diagonal=np.ones(4))
    with pytest.raises(ValueError, match="kernel_diagonal contains NaN"):
        m.transform(K[:5], kernel_diagonal=np.full(5, np.nan))
    with pytest.raises(ValueError, match="120 features"):  # a cross-kernel has one column per training point
        m.predict(K[:5, :100])
    assert m.predict(K[:5]).shape == (5,)  # predict needs no diagonal


def test_kernel_kmeans_unfitted_and_set_output(blobs):
    pd = pytest.importorskip("pandas")
    X, _ = blobs
    with pytest.raises(NotFittedError):
        KernelKMeans(3).predict(X)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    m = KernelKMeans(3, random_state=0).set_output(transform="pandas").fit(frame)
    out = m.transform(frame)
    assert list(out.columns) == ["kernelkmeans0", "kernelkmeans1", "kernelkmeans2"]
    np.testing.assert_array_equal(m.feature_names_in_, ["a", "b", "c"])


# --------------------------------------------------------------------------------------------
# KDAC


def alternative_problem(n, seed=0):
    """Two crossed clusterings: x0 splits one way (the existing y), x1 the other (the alternative)."""
    rng = np.random.default_rng(seed)
    existing = np.arange(n) % 2
    alternative = (np.arange(n) // 2) % 2
    X = rng.normal(scale=0.6, size=(n, 4))
    X[:, 0] += 4 * existing
    X[:, 1] += 4 * alternative
    return X, existing, alternative


def nystrom_dense(Z_train, Z_new, sigma, k):
    """The extension of the top-k eigenvectors of Q = H N H, N = D^-1/2 K D^-1/2, with dense numpy
    and the double-centred data-dependent kernel of Bengio et al. written out in full."""
    n = Z_train.shape[0]
    gauss = lambda A, B: np.exp(-squared_distances(A, B) / (2 * sigma**2))  # noqa: E731
    K, Kx = gauss(Z_train, Z_train), gauss(Z_new, Z_train)
    d, dx = K.sum(1), Kx.sum(1)
    N = K / np.sqrt(np.outer(d, d))
    Nx = Kx / np.sqrt(np.outer(dx, d))
    H = np.eye(n) - 1.0 / n
    lam, V = np.linalg.eigh(H @ N @ H)
    lam, U = lam[::-1][:k], V[:, ::-1][:, :k]
    Qx = Nx - Nx.mean(1, keepdims=True) - N.mean(0)[None, :] + N.mean()
    return U, Qx @ U / lam, lam


def test_kdac_extension_reproduces_the_fit_dense_u_step():
    """n <= 200: the U-step is a dense eigendecomposition, and the Nystrom extension of the
    matrix it diagonalises gives back U and the labels on the training points."""
    X, existing, alternative = alternative_problem(120)
    m = KDAC(2, n_components=2, sigma=1.0, random_state=0).fit(X, existing)
    U = m.extend_embedding(X)
    assert np.abs(U - m.embedding_).max() <= 1e-10 * np.abs(m.embedding_).max()
    assert m.nystrom_residual_ <= 1e-12
    np.testing.assert_array_equal(m.predict(X), m.labels_)
    assert adjusted_rand_score(alternative, m.labels_) > 0.6
    assert m.embedding_eigenvalues_.sum() == pytest.approx(m.quality_, rel=1e-9)


def test_kdac_extension_reproduces_the_fit_lanczos_u_step():
    """200 < n: the U-step is Lanczos (residual tolerance 1e-10) on the explicit Q."""
    X, existing, _ = alternative_problem(400, seed=1)
    m = KDAC(2, n_components=2, sigma=1.0, random_state=0).fit(X, existing)
    assert m.used_dense_
    assert m.nystrom_residual_ <= 1e-8
    assert np.abs(m.extend_embedding(X) - m.embedding_).max() <= 1e-8 * np.abs(m.embedding_).max()
    np.testing.assert_array_equal(m.predict(X), m.labels_)


def test_kdac_extension_matches_a_dense_computation():
    """New points: the extension against dense numpy (eigh of H N H, the full double-centred
    kernel), then predict against the row normalisation and nearest fitted centre."""
    X, existing, alternative = alternative_problem(80, seed=2)
    X_new, _, alt_new = alternative_problem(30, seed=3)
    m = KDAC(2, n_components=2, sigma=1.0, random_state=0).fit(X, existing)
    W = m.projection_
    U_ref, ext_ref, lam = nystrom_dense(X @ W, X_new @ W, m.sigma_, 2)
    assert lam[0] - lam[1] > 1e-3  # distinct eigenvalues: the columns are defined up to sign
    signs = np.sign((U_ref * m.embedding_).sum(0))
    np.testing.assert_allclose(U_ref * signs, m.embedding_, atol=1e-10)
    np.testing.assert_allclose(np.sort(lam), np.sort(m.embedding_eigenvalues_), rtol=1e-10)
    got = m.extend_embedding(X_new)
    assert np.abs(got - ext_ref * signs).max() <= 1e-10 * np.abs(ext_ref).max()
    F = got / np.linalg.norm(got, axis=1, keepdims=True)
    np.testing.assert_array_equal(m.predict(X_new), squared_distances(F, m.cluster_centers_).argmin(1))
    assert adjusted_rand_score(alt_new, m.predict(X_new)) == 1.0


def test_kdac_far_point_gets_the_limit_of_the_extension():
    X, existing, _ = alternative_problem(60)
    m = KDAC(2, n_components=2, sigma=0.5, random_state=0).fit(X, existing)
    far = np.full((2, 4), 1e6)
    far[1] *= -1
    got = m.extend_embedding(far)  # every kernel entry underflows: N(x, .) = 0
    limit = -m._nystrom_offset
    np.testing.assert_allclose(got, np.vstack([limit, limit]), rtol=1e-12)
    assert m.predict(far).shape == (2,)


def test_kdac_transform_feature_names_and_pandas_output():
    pd = pytest.importorskip("pandas")
    X, existing, _ = alternative_problem(60)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"], index=np.arange(100, 160))
    m = KDAC(2, n_components=2, sigma=1.0, random_state=0)
    with pytest.raises(NotFittedError):
        m.predict(X)
    m.fit(frame, existing)
    assert m.n_features_in_ == 4
    np.testing.assert_array_equal(m.feature_names_in_, ["a", "b", "c", "d"])
    np.testing.assert_allclose(m.transform(frame), X @ m.projection_, rtol=1e-14)
    np.testing.assert_array_equal(m.get_feature_names_out(), ["kdac0", "kdac1"])
    np.testing.assert_array_equal(m.predict(frame), m.labels_)
    out = m.set_output(transform="pandas").transform(frame)
    assert list(out.columns) == ["kdac0", "kdac1"] and (out.index == frame.index).all()
    np.testing.assert_allclose(m.fit_transform(frame, existing).to_numpy(), X @ m.projection_, rtol=1e-12)
    with pytest.warns(UserWarning, match="feature names"), pytest.raises(ValueError, match="has 3 features"):
        m.predict(X[:, :3])
    with pytest.raises(ValueError, match="feature names"):
        m.predict(frame[["b", "a", "c", "d"]])


# --------------------------------------------------------------------------------------------
# Held-out quality: fit on 70 %, extend to 30 %, against a fit on all points (same 30 %)


def iris_split(seed):
    X, t = load_iris(return_X_y=True)
    train, test = train_test_split(np.arange(t.size), test_size=0.3, stratify=t, random_state=seed)
    return X, t, train, test


def test_kernel_kmeans_held_out_quality():
    """Precomputed RBF kernel (sigma: the median distance of the standardised data) on iris."""
    transductive, inductive = [], []
    for seed in range(3):
        X, t, train, test = iris_split(seed)
        Xs = StandardScaler().fit_transform(X)
        sigma = median_sigma(Xs, factor=1.0)
        full = KernelKMeans(3, kernel="precomputed", random_state=seed).fit(rbf_kernel(Xs, gamma=0.5 / sigma**2))
        scaler = StandardScaler().fit(X[train])
        Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
        sigma = median_sigma(Xtr, factor=1.0)
        m = KernelKMeans(3, kernel="precomputed", random_state=seed).fit(rbf_kernel(Xtr, gamma=0.5 / sigma**2))
        labels = m.predict(rbf_kernel(Xte, Xtr, gamma=0.5 / sigma**2))
        transductive.append(adjusted_rand_score(t[test], full.labels_[test]))
        inductive.append(adjusted_rand_score(t[test], labels))
    assert np.mean(inductive) >= np.mean(transductive) - 0.05
    assert np.mean(transductive) > 0.45


def test_kdac_held_out_quality():
    """Iris beside a dominant nuisance clustering (two added columns, 2 groups at distance 4 x
    sqrt 2, independent of the species): y is the nuisance clustering, and the alternative KDAC
    should find is the species."""
    transductive, inductive, novelty = [], [], []
    for seed in range(3):
        X, t, train, test = iris_split(seed)
        rng = np.random.default_rng(seed)
        existing = rng.integers(0, 2, t.size)
        E = 4.0 * existing[:, None] + 0.3 * rng.standard_normal((t.size, 2))
        full = KDAC(3, random_state=seed).fit(np.c_[StandardScaler().fit_transform(X), E], existing)
        scaler = StandardScaler().fit(X[train])
        m = KDAC(3, random_state=seed).fit(np.c_[scaler.transform(X[train]), E[train]], existing[train])
        labels = m.predict(np.c_[scaler.transform(X[test]), E[test]])
        transductive.append(adjusted_rand_score(t[test], full.labels_[test]))
        inductive.append(adjusted_rand_score(t[test], labels))
        novelty.append(adjusted_rand_score(existing[test], labels))
    assert np.mean(inductive) >= np.mean(transductive) - 0.05
    assert np.mean(transductive) > 0.45
    assert np.max(np.abs(novelty)) < 0.1
