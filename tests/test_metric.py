"""S3ML (kernlearn.metric): affinity propagation against the dense formula of eq. (9)-(10), the
Laplacian quadratic form, the estimator's distances, the beta admissibility bound, and bad input.
(The SICE solver has its own tests.)"""

import numpy as np
import pytest
import scipy.sparse as sp

from kernlearn.constraints import from_labels
from kernlearn.metric import S3ML, admissible_beta, laplacian_quadratic_form, propagate_affinities
from kernlearn.metric._affinity import initial_affinities, transition_matrix


def _semi_supervised(n=60, d=3, n_labelled=10, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = rng.normal(size=(n, d)) + 2.0 * y[:, None]
    ys = np.full(n, -1)
    labelled = rng.choice(n, n_labelled, replace=False)
    ys[labelled] = y[labelled]
    return X, y, ys


def dense_affinities(X, pairs, labels, k, a, theta):
    """Eq. (6), (9), (10) with numpy only."""
    n = X.shape[0]
    dist = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    P = np.zeros((n, n))
    for i in range(n):
        order = np.lexsort((np.arange(n), dist[i]))
        P[i, order[order != i][:k]] = 1.0 / k
    W0 = np.eye(n)
    W0[pairs[:, 0], pairs[:, 1]] = labels
    W0[pairs[:, 1], pairs[:, 0]] = labels
    Wstar = (1 - a) * np.linalg.solve(np.eye(n) - a * P, W0)
    S = (Wstar + Wstar.T) / 2
    S[np.abs(S) < theta] = 0.0
    return S


@pytest.mark.parametrize("k, a, theta", [(6, 0.5, 0.01), (3, 0.9, 0.002), (10, 0.2, 0.05)])
@pytest.mark.parametrize("method", ["series", "splu", "dense"])
def test_propagation_equals_the_dense_formula(method, k, a, theta):
    X, _, ys = _semi_supervised(n=80, n_labelled=12)
    pairs, labels = from_labels(ys)
    W = propagate_affinities(X, pairs, labels, n_neighbors=k, alpha=a, theta=theta, method=method)
    reference = dense_affinities(X, pairs, labels, k, a, theta)
    assert sp.issparse(W) and W.format == "csr"
    assert (W != W.T).nnz == 0  # exactly symmetric
    np.testing.assert_array_equal(W.toarray() != 0, reference != 0)
    assert np.abs(W.toarray() - reference).max() <= 1e-12 * theta


@pytest.mark.parametrize("tol", [1e-2, 1e-6])
def test_series_entries_are_within_tol_theta_of_the_exact_ones(tol):
    """The pushes' contract: every kept entry within tol * theta of the dense solve's, and only
    entries within tol * theta of theta may differ in whether they are kept."""
    X, _, ys = _semi_supervised(n=120, n_labelled=20)
    pairs, labels = from_labels(ys)
    theta = 0.01
    exact = propagate_affinities(X, pairs, labels, method="dense", theta=theta).toarray()
    W = propagate_affinities(X, pairs, labels, tol=tol, theta=theta).toarray()
    both = (W != 0) & (exact != 0)
    assert np.abs(W[both] - exact[both]).max() <= tol * theta
    differ = (W != 0) != (exact != 0)
    assert np.all(np.abs(np.where(W != 0, W, exact)[differ]) <= theta * (1 + tol))


def test_building_blocks():
    X, _, ys = _semi_supervised(n=20)
    P = transition_matrix(X, 4)
    np.testing.assert_allclose(np.asarray(P.sum(axis=1)).ravel(), 1.0)
    assert P.diagonal().sum() == 0
    pairs, labels = from_labels(ys)
    W0 = initial_affinities(20, pairs, labels)
    assert W0.nnz == 20 + 2 * len(pairs) and (W0 != W0.T).nnz == 0


def test_laplacian_quadratic_form_equals_dense(rng):
    n, m = 30, 4
    X = rng.normal(size=(n, m))
    A = sp.random(n, n, density=0.2, random_state=1, data_rvs=lambda s: np.random.default_rng(2).normal(size=s))
    W = (A + A.T).tocsr()
    Wd = W.toarray()
    expected = X.T @ (np.diag(Wd.sum(axis=1)) - Wd) @ X
    np.testing.assert_allclose(laplacian_quadratic_form(X, W), expected, rtol=1e-12, atol=1e-12)
    # Eq. (5): T = (1/2) sum_ij W_ij (x_i - x_j)(x_i - x_j)'.
    diff = X[:, None, :] - X[None, :, :]
    np.testing.assert_allclose(0.5 * np.einsum("ij,ijk,ijl->kl", Wd, diff, diff), expected, rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="W must be symmetric"):
        laplacian_quadratic_form(X, A)
    with pytest.raises(ValueError, match="W must have shape"):
        laplacian_quadratic_form(X[:5], W)


@pytest.mark.parametrize("supervised", [False, True])
@pytest.mark.parametrize("prior", ["covariance", "identity"])
def test_transform_distances_are_the_learned_metric(supervised, prior):
    X, _, ys = _semi_supervised()
    model = S3ML(supervised=supervised, prior=prior, rho=0.05).fit(X, ys)
    M = model.metric_
    assert np.allclose(M, M.T) and np.linalg.eigvalsh(M).min() > 0
    np.testing.assert_allclose(model.components_.T @ model.components_, M, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(model.support_, M != 0)
    Z = model.transform(X)
    i, j = np.arange(0, 20), np.arange(20, 40)
    direct = np.linalg.norm(Z[i] - Z[j], axis=1)
    np.testing.assert_allclose(model.pair_distance(X[i], X[j]), direct, rtol=1e-10)
    D = X[i] - X[j]
    Minput = model.get_mahalanobis_matrix()
    np.testing.assert_allclose(np.sqrt(np.einsum("ij,jk,ik->i", D, Minput, D)), direct, rtol=1e-10)
    assert 0 <= model.beta_ < model.beta_max_
    assert model.duality_gap_ >= -1e-12 and model.n_features_in_ == X.shape[1]
    if supervised:  # S2ML: W = W0
        expected = initial_affinities(X.shape[0], model.pairs_, model.pair_labels_)
        assert (model.affinity_ != expected).nnz == 0


def test_pairs_and_labels_give_the_same_fit():
    X, _, ys = _semi_supervised()
    pairs, labels = from_labels(ys)
    # The same candidates (prior="auto", beta="auto"); only their scores differ (labels: the
    # leave-one-out 1-NN error; pairs: the pair distances' AUC), so one candidate is compared.
    a = S3ML(rho=0.05).fit(X, ys)
    b = S3ML(rho=0.05).fit(X, pairs=pairs, pair_labels=labels)
    for key in ("prior", "beta", "beta_max"):
        np.testing.assert_array_equal(a.candidates_[key], b.candidates_[key])
    beta = float(a.candidates_["beta"][0])
    a = S3ML(rho=0.05, prior="identity", beta=beta).fit(X, ys)
    b = S3ML(rho=0.05, prior="identity", beta=beta).fit(X, pairs=pairs, pair_labels=labels)
    np.testing.assert_allclose(a.metric_, b.metric_, rtol=1e-12, atol=1e-14)


def test_beta_outside_the_admissible_range_is_rejected_with_the_bound():
    X, _, ys = _semi_supervised()
    ref = S3ML(rho=0.05, prior="covariance").fit(X, ys)
    beta_max = ref.beta_max_
    assert np.isfinite(beta_max)
    # beta_max is where prior + rho I + beta T loses positive definiteness.
    centred = (X - X.mean(0)) / X.std(0)
    centred -= centred.mean(0)
    prior = centred.T @ centred / X.shape[0]
    T = laplacian_quadratic_form(centred, ref.affinity_)
    assert admissible_beta(prior, T, 0.05) == pytest.approx(beta_max, rel=1e-10)
    B = prior + 0.05 * np.eye(X.shape[1])
    assert np.linalg.eigvalsh(B + 0.999 * beta_max * T).min() > 0
    assert np.linalg.eigvalsh(B + 1.001 * beta_max * T).min() < 0
    with pytest.raises(ValueError, match=r"beta = .* admissible range .* 0 <= beta < "):
        S3ML(beta=1.01 * beta_max, rho=0.05, prior="covariance").fit(X, ys)
    S3ML(beta=0.5 * beta_max, rho=0.05, prior="covariance").fit(X, ys)  # inside: fine


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_neighbors": 60}, "n_neighbors"),
        ({"n_neighbors": 0}, "n_neighbors"),
        ({"alpha": 1.0}, "alpha"),
        ({"theta": -0.1}, "theta"),
        ({"rho": -1.0}, "rho"),
        ({"beta": -1.0}, "beta"),
        ({"beta_fraction": 1.5}, "beta_fraction"),
        ({"prior": "inverse"}, "prior"),
        ({"solver": "cd"}, "solver"),
    ],
)
def test_bad_parameters(params, match):
    X, _, ys = _semi_supervised()
    with pytest.raises((ValueError, TypeError), match=match):
        S3ML(**params).fit(X, ys)


def test_bad_data_and_constraints():
    X, y, ys = _semi_supervised()
    pairs, labels = from_labels(ys)
    Xnan = X.copy()
    Xnan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        S3ML().fit(Xnan, ys)
    one_class = np.full_like(ys, -1)
    one_class[y == 0] = 0
    with pytest.raises(ValueError, match="a single other class"):
        S3ML().fit(X, one_class)
    with pytest.raises(ValueError, match="pair_labels"):
        S3ML().fit(X, pairs=pairs)
    with pytest.raises(ValueError, match="either y or pairs"):
        S3ML().fit(X, ys, pairs=pairs, pair_labels=labels)
    with pytest.raises(ValueError, match="out of range"):
        S3ML().fit(X, pairs=pairs + X.shape[0], pair_labels=labels)
    with pytest.raises(ValueError, match="needs labels y"):
        S3ML().fit(X)
    with pytest.raises(ValueError, match="alpha"):
        propagate_affinities(X, pairs, labels, alpha=0.0)
    with pytest.raises(ValueError, match="method"):
        propagate_affinities(X, pairs, labels, method="inverse")
    with pytest.raises(ValueError, match="n_neighbors"):
        propagate_affinities(X, pairs, labels, n_neighbors=X.shape[0])
    with pytest.raises(ValueError, match="NaN"):
        propagate_affinities(Xnan, pairs, labels)
    model = S3ML(rho=0.05).fit(X, ys)
    with pytest.raises(ValueError, match="features"):
        model.transform(X[:, :2])
    with pytest.raises(ValueError, match="same number of rows"):
        model.pair_distance(X[:3], X[:4])


def test_inputs_are_not_modified():
    X, _, ys = _semi_supervised()
    X0, ys0 = X.copy(), ys.copy()
    S3ML(rho=0.05).fit(X, ys)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(ys, ys0)


def test_series_threads_do_not_change_the_result():
    X, _, ys = _semi_supervised(n=90, n_labelled=15)
    pairs, labels = from_labels(ys)
    one = propagate_affinities(X, pairs, labels, n_jobs=1)
    two = propagate_affinities(X, pairs, labels, n_jobs=2)
    assert (one != two).nnz == 0


def test_plot_metric(tmp_path):
    pytest.importorskip("matplotlib")
    from kernlearn.plot import plot_metric

    M = np.array([[2.0, 0.0, -0.5], [0.0, 1.0, 0.0], [-0.5, 0.0, 1.5]])
    ax = plot_metric(M, ["a", "b", "c"], title="toy")
    assert "5 of 9" in ax.get_title()
    ax.figure.savefig(tmp_path / "m.png")
    with pytest.raises(ValueError, match="square"):
        plot_metric(np.ones((2, 3)))
    with pytest.raises(ValueError, match="feature_names"):
        plot_metric(M, ["a"])
