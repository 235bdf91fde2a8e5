"""IKLR's alpha="auto": the path's fold scores against cold fits of the fold data at each fixed
alpha (an independent route through the estimator), the choice on constructed cases (pure noise:
the largest alpha; a clean nonlinear boundary: a small one), the final fit equal to a fixed fit at
the chosen alpha, exact and Nystrom models, multi-class, a float alpha untouched, bad values
refused by name."""

import numpy as np
import pytest
import scipy.optimize
from scipy.special import expit
from sklearn.datasets import load_iris, make_circles

from kernlearn import indefinite
from kernlearn.indefinite import IndefiniteKernelLogisticRegression
from kernlearn.kernels import tl1_kernel

IK = IndefiniteKernelLogisticRegression


def _log_loss(model, X, y):
    proba = model.predict_proba(X)
    return -np.mean(np.log(proba[np.arange(y.size), np.searchsorted(model.classes_, y)]))


def _recorded_folds(monkeypatch):
    """The splits the path used, recorded as _stratified_folds returns them."""
    seen = []
    original = indefinite._stratified_folds

    def recording(y, k, rng):
        splits = original(y, k, rng)
        seen.append(splits)
        return splits

    monkeypatch.setattr(indefinite, "_stratified_folds", recording)
    return seen


@pytest.mark.parametrize("path_tol", [1e-11, indefinite.ALPHA_PATH_TOL])
def test_path_scores_equal_cold_fits_of_each_fold(monkeypatch, path_tol):
    """RBF: each fold's score at each alpha is the validation log-loss of IKLR fitted cold, at
    that alpha, on the fold's training points alone (same gamma): to 1e-6 when the path solves
    as tightly as the reference, to 1e-3 at the path's own tolerance."""
    X, y = make_circles(90, noise=0.15, factor=0.5, random_state=0)
    monkeypatch.setattr(indefinite, "ALPHA_PATH_TOL", path_tol)
    seen = _recorded_folds(monkeypatch)
    model = IK(tol=1e-11, random_state=0).fit(X, y)
    # at the path's tolerance the scores move by about 1e-4 (a separable fold at small alpha;
    # 17 % at tol 1e-4), and the choice stays that of the tight path
    rel = 1e-6 if path_tol < 1e-10 else 1e-3
    assert model.alpha_ == 1e-4
    (splits,) = seen
    assert len(splits) == 3 and model.alpha_scores_.shape == (3, model.alpha_path_.size)
    assert np.array_equal(np.sort(np.concatenate([test for _, test in splits])), np.arange(y.size))
    for j, alpha in enumerate(model.alpha_path_):
        for f, (train, test) in enumerate(splits):
            cold = IK(alpha=alpha, gamma=model.gamma_, tol=1e-11).fit(X[train], y[train])
            assert model.alpha_scores_[f, j] == pytest.approx(_log_loss(cold, X[test], y[test]), rel=rel)
    sizes = np.array([test.size for _, test in splits])
    means = sizes @ model.alpha_scores_ / sizes.sum()
    best = int(np.argmin(means))
    assert model.alpha_ == model.alpha_path_[best]
    # the path ran ALPHA_PATIENCE points past the best, or to the grid's end
    assert model.alpha_path_.size == min(best + 1 + indefinite.ALPHA_PATIENCE, len(indefinite.ALPHA_GRID))


def test_indefinite_fold_model_is_the_training_shift_on_the_fold(monkeypatch):
    """TL1 (indefinite here): a fold's model is F(a) = mean log-loss of K_tt a + (alpha/2)
    a'(K_tt + s I) a with K_tt = the fold's rows and columns of K + 1 (intercept) and s the
    training kernel's shift; scipy's L-BFGS on it gives the same validation log-loss."""
    X, y = make_circles(60, noise=0.15, factor=0.5, random_state=0)
    monkeypatch.setattr(indefinite, "ALPHA_PATH_TOL", 1e-11)
    seen = _recorded_folds(monkeypatch)
    model = IK("tl1", tol=1e-11, random_state=0).fit(X, y)
    shift = model.decomposition_["shift"]
    assert shift > 0
    (splits,) = seen
    K = tl1_kernel(X, X, 0.7 * X.shape[1]) + 1.0
    signs = np.where(y == 1, 1.0, -1.0)
    for j in (0, model.alpha_path_.size // 2):
        alpha = model.alpha_path_[j]
        for f, (train, test) in enumerate(splits):
            Kt, st = K[np.ix_(train, train)], signs[train]

            def objective(a, Kt=Kt, st=st, alpha=alpha):
                z = Kt @ a
                u = -st * expit(-st * z) / st.size
                value = np.mean(np.logaddexp(0.0, -st * z)) + 0.5 * alpha * (a @ z + shift * a @ a)
                return value, Kt @ u + alpha * (z + shift * a)

            def hessian(a, Kt=Kt, st=st, alpha=alpha):
                p = expit(Kt @ a)
                return (Kt * (p * (1 - p))) @ Kt / st.size + alpha * (Kt + shift * np.eye(st.size))

            a = scipy.optimize.minimize(
                objective, np.zeros(train.size), jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-12}
            ).x
            p = expit(K[np.ix_(test, train)] @ a)
            reference = -np.mean(np.log(np.where(y[test] == 1, p, 1.0 - p)))
            assert model.alpha_scores_[f, j] == pytest.approx(reference, rel=1e-5)


def test_noise_labels_pick_the_largest_alpha_and_clean_ones_a_small_one():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 3))
    noise = IK(random_state=0).fit(X, rng.integers(0, 2, 120))
    assert noise.alpha_ == indefinite.ALPHA_GRID[0]
    assert noise.alpha_path_.size == 1 + indefinite.ALPHA_PATIENCE
    Xc, yc = make_circles(200, noise=0.02, factor=0.5, random_state=0)
    clean = IK(random_state=0).fit(Xc, yc)
    assert clean.alpha_ <= 1e-3
    assert clean.score(Xc, yc) == 1.0


@pytest.mark.parametrize("approximation", ["exact", "nystrom"])
def test_final_fit_is_the_fixed_fit_at_the_chosen_alpha(approximation):
    """The final fit starts from the folds' solutions, and reaches the optimum a cold fit at
    alpha_ reaches (the same centres: random_state draws them before the folds)."""
    X, y = make_circles(300, noise=0.2, factor=0.5, random_state=1)
    settings = {"approximation": approximation, "n_centers": 60, "tol": 1e-10, "random_state": 3}
    if approximation == "exact":
        del settings["n_centers"]
    auto = IK(**settings).fit(X, y)
    fixed = IK(alpha=auto.alpha_, **settings).fit(X, y)
    assert auto.approximation_ == approximation
    assert auto.alpha_scores_.shape[0] == (3 if approximation == "exact" else 1)
    assert fixed.alpha_path_ is None and fixed.alpha_scores_ is None and fixed.alpha_ == auto.alpha_
    scores = fixed.decision_function(X)
    np.testing.assert_allclose(auto.decision_function(X), scores, atol=1e-6 * np.abs(scores).max())
    assert auto.converged_.all()


def test_multiclass_and_probabilities():
    X, y = load_iris(return_X_y=True)
    X_copy, y_copy = X.copy(), y.copy()
    model = IK(random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)
    assert model.dual_coef_.shape == (3, 150)
    assert model.alpha_ in model.alpha_path_ and np.isfinite(model.alpha_scores_).all()
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.score(X, y) > 0.95


def test_precomputed_kernel_is_not_modified():
    X, y = make_circles(80, noise=0.1, factor=0.5, random_state=0)
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=-1))
    K_copy = K.copy()
    model = IK("precomputed", random_state=0).fit(K, y)
    np.testing.assert_array_equal(K, K_copy)
    assert model.alpha_path_ is not None


def test_a_float_alpha_and_the_paper_solvers_run_no_path():
    X, y = make_circles(60, noise=0.1, factor=0.5, random_state=0)
    fixed = IK(alpha=0.01).fit(X, y)
    assert fixed.alpha_ == 0.01 and fixed.alpha_path_ is None and fixed.alpha_scores_ is None
    paper = IK(solver="ccicp-gd", learning_rate="auto", max_outer=2).fit(X, y)
    assert paper.alpha_ == indefinite.ALPHA_PAPER_SOLVERS and paper.alpha_path_ is None
    explicit = IK(solver="ccicp-gd", learning_rate="auto", max_outer=2, alpha=1e-4).fit(X, y)
    np.testing.assert_array_equal(paper.dual_coef_, explicit.dual_coef_)


@pytest.mark.parametrize("alpha", ["fast", 0.0, -1.0, None])
def test_bad_alpha_is_refused_by_name(alpha):
    X, y = make_circles(30, random_state=0)
    with pytest.raises((ValueError, TypeError), match="alpha"):
        IK(alpha=alpha).fit(X, y)
