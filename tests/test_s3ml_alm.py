"""The paper's smoothed alternating linearization (sigma > 0, its step rule, Theorem 5's bounds)
against the Newton solver, cvxpy and Theorem 4's bound, and its options through S3ML."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning

from kernlearn.metric import S3ML, sparse_inverse_covariance
from test_sice import assert_certified, correlation_problem, data_correlation, primal, weights

PROBLEMS = [
    pytest.param(lambda: correlation_problem(20, 0), 0.1, id="random-m20"),
    pytest.param(lambda: data_correlation(load_iris), 0.05, id="iris"),
    pytest.param(lambda: data_correlation(load_wine), 0.1, id="wine"),
]


@pytest.mark.parametrize("bounds", [False, True])
@pytest.mark.parametrize("make, rho", PROBLEMS)
def test_smoothed_alm_reaches_newtons_optimum(make, rho, bounds):
    S = make()
    m = S.shape[0]
    newton = sparse_inverse_covariance(S, rho, solver="newton", tol=1e-13)
    alm = sparse_inverse_covariance(S, rho, solver="alm", sigma=1e-6, bounds=bounds, tol=1e-12, max_iter=5000)
    assert alm.converged and alm.solver == "alm"
    assert_certified(alm, S, weights(m, rho, True), 1e-12)
    # Same objective of eq. (13) to the tolerance, same matrix to about sqrt(gap), and the rounding
    # of h_sigma's quadratic zone gives Newton's exact zeros.
    assert alm.primal_objective - newton.primal_objective <= 1e-12 * abs(newton.primal_objective)
    np.testing.assert_allclose(alm.precision, newton.precision, rtol=0, atol=1e-5 * np.abs(newton.precision).max())
    assert np.array_equal(alm.support, newton.support)


def test_smoothed_alm_matches_cvxpy():
    cp = pytest.importorskip("cvxpy")
    S = correlation_problem(6, 7, n_samples=25)
    rho = 0.12
    M = cp.Variable((6, 6), PSD=True)
    problem = cp.Problem(cp.Minimize(-cp.log_det(M) + cp.trace(S @ M) + rho * cp.sum(cp.abs(M))))
    problem.solve(solver=cp.CLARABEL)
    alm = sparse_inverse_covariance(S, rho, solver="alm", sigma=1e-6, tol=1e-12, max_iter=5000)
    assert alm.converged
    assert alm.primal_objective == pytest.approx(problem.value, rel=1e-6)
    np.testing.assert_allclose(alm.precision, M.value, atol=1e-4)


def test_large_sigma_stays_within_theorem_4():
    """With sigma large the iterates solve the smoothed problem (19): F is above the optimum of (13),
    by no more than sigma D_h = sigma m^2 rho^2 / 2 (eq. 21), and the gap cannot certify tol."""
    S = data_correlation(load_wine)
    m, rho, sigma = S.shape[0], 0.1, 0.5
    newton = sparse_inverse_covariance(S, rho, tol=1e-13)
    with pytest.warns(ConvergenceWarning):
        alm = sparse_inverse_covariance(S, rho, solver="alm", sigma=sigma, tol=1e-12, max_iter=300)
    excess = alm.primal_objective - newton.primal_objective
    assert 1e-8 < excess <= sigma * m * m * rho * rho / 2
    assert alm.primal_objective == pytest.approx(primal(alm.precision, S, weights(m, rho, True)), rel=1e-12)


def test_paper_step_rule_stalls():
    """mu = min(lambda^2, sigma) (the paper's) moves M by about sigma per iteration: errata 1."""
    S = data_correlation(load_wine)
    adaptive = sparse_inverse_covariance(S, 0.1, solver="alm", sigma=1e-6, tol=1e-8, max_iter=300)
    assert adaptive.converged and adaptive.n_iter < 100
    with pytest.warns(ConvergenceWarning):
        paper = sparse_inverse_covariance(S, 0.1, solver="alm", sigma=1e-6, step="paper", tol=1e-8, max_iter=300)
    assert not paper.converged
    assert paper.history[-1] > 1e3 * 1e-8


def test_bounds_keep_the_spectrum_above_lambda():
    S = correlation_problem(20, 0)
    rho = 0.1
    S_eff = S + rho * np.eye(20)
    R = np.full((20, 20), rho)
    np.fill_diagonal(R, 0.0)
    lam = 1.0 / (np.abs(np.linalg.eigvalsh(S_eff)).max() + np.abs(np.linalg.eigvalsh(R)).max())
    alm = sparse_inverse_covariance(S, rho, solver="alm", sigma=1e-6, bounds=True, tol=1e-10)
    assert np.linalg.eigvalsh(alm.precision)[0] >= lam * (1 - 1e-9)
    # Lu's bound holds at the optimum too (the bound is then inactive).
    newton = sparse_inverse_covariance(S, rho, tol=1e-12)
    assert np.linalg.eigvalsh(newton.precision)[0] >= lam


def test_bad_alm_options():
    S = np.eye(3)
    with pytest.raises(ValueError, match="sigma"):
        sparse_inverse_covariance(S, 0.1, solver="alm", sigma=-1.0)
    with pytest.raises(ValueError, match="sigma"):
        sparse_inverse_covariance(S, 0.1, solver="alm", step="paper")
    with pytest.raises(ValueError, match="sigma"):
        sparse_inverse_covariance(S, 0.1, solver="alm", bounds=True)
    with pytest.raises(ValueError, match="solver"):
        sparse_inverse_covariance(S, 0.1, solver="newton", sigma=1e-6)
    with pytest.raises(ValueError, match="step"):
        sparse_inverse_covariance(S, 0.1, solver="alm", sigma=1e-6, step="fast")
    with pytest.raises(TypeError, match="bounds"):
        sparse_inverse_covariance(S, 0.1, solver="alm", sigma=1e-6, bounds="yes")


def partially_labelled(loader, fraction, seed):
    X, y = loader(return_X_y=True)
    rng = np.random.default_rng(seed)
    ys = np.full_like(y, -1)
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        chosen = rng.choice(members, int(np.ceil(fraction * members.size)), replace=False)
        ys[chosen] = c
    return X, ys


@pytest.mark.parametrize("supervised", [False, True])
def test_s3ml_alm_and_newton_give_the_same_metric(supervised):
    X, ys = partially_labelled(load_wine, 0.2, 0)
    newton = S3ML(supervised=supervised, tol=1e-13).fit(X, ys)
    alm = S3ML(supervised=supervised, solver="alm", sigma=1e-6, tol=1e-11, max_iter=5000).fit(X, ys)
    assert alm.converged_
    np.testing.assert_allclose(alm.metric_, newton.metric_, rtol=0, atol=1e-4)
    assert np.array_equal(alm.support_, newton.support_)


def test_s3ml_sigma_needs_alm():
    X, ys = partially_labelled(load_iris, 0.2, 0)
    with pytest.raises(ValueError, match="sigma"):
        S3ML(sigma=1e-6).fit(X, ys)
    with pytest.raises(ValueError, match="sigma"):
        S3ML(solver="alm", sigma=-1.0).fit(X, ys)


@pytest.mark.parametrize("loader", [load_iris, load_wine])
def test_default_fit_is_warning_free(loader):
    X, ys = partially_labelled(loader, 0.2, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = S3ML().fit(X, ys)
    assert model.converged_ and model.prior == "auto" and model.prior_ in ("identity", "covariance")
