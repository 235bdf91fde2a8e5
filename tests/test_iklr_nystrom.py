"""IKLR's Nystrom model: the core's Newton-CG against scipy on the same feature-space objective
and against its own gradient recomputed in numpy; the estimator's Nystrom model equal to the exact
model when every training point is a centre; the size rule of approximation="auto"; the centres
as parameters; bad input naming the argument."""

import warnings

import numpy as np
import pytest
import scipy.optimize
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning

from kernlearn import _core
from kernlearn._utils import _solver_choice
from kernlearn.indefinite import IndefiniteKernelLogisticRegression
from kernlearn.kernels import rbf_kernel

IK = IndefiniteKernelLogisticRegression


def _features(n=400, r=25, M=60, seed=0):
    rng = np.random.default_rng(seed)
    Phi = rng.standard_normal((n, r))
    y = np.where(Phi[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    centers = np.ascontiguousarray(Phi[rng.choice(n, M, replace=False)])
    return Phi, centers, y


def _objective(w, Phi, y, lam, s):
    z = Phi @ w[:-1] + s * w[-1]
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.5 * lam * w @ w


def _gradient(w, Phi, y, lam, s):
    z = Phi @ w[:-1] + s * w[-1]
    u = -y / (1.0 + np.exp(y * z)) / len(y)
    return np.concatenate([Phi.T @ u, [s * u.sum()]]) + lam * w


def _solve(Phi, centers, y, lam=1e-3, s=1.5, tol=1e-12, n_threads=1, beta0=None, T=None, **kw):
    """The core's solver with C = Phi and T = I by default (the features themselves)."""
    options = _core.methods.IklrNystromOptions(lambda_=lam, intercept=s, tol=tol, **kw)
    beta0 = np.zeros(Phi.shape[1]) if beta0 is None else beta0
    T = np.eye(Phi.shape[1]) if T is None else T
    return _core.methods.iklr_nystrom_newton(Phi, T, centers, y, beta0, options=options, n_threads=n_threads)


@pytest.mark.parametrize("s", [0.0, 1.5])
def test_newton_matches_scipy_and_its_certificate_is_the_true_gradient(s):
    Phi, centers, y = _features()
    lam = 1e-3
    out = _solve(Phi, centers, y, lam=lam, s=s)
    assert out.status == _core.core.SolverStatus.converged
    w = np.concatenate([out.beta, [out.intercept_weight]])
    # The certificate, recomputed independently: the gradient of the feature-space objective.
    g = _gradient(w, Phi, y, lam, s)
    assert np.isclose(np.linalg.norm(g), out.gradient_norm, rtol=1e-3, atol=1e-15)
    g0 = _gradient(np.zeros_like(w), Phi, y, lam, s)
    assert np.isclose(np.linalg.norm(g0), out.reference_gradient_norm, rtol=1e-12)
    assert np.linalg.norm(g) <= 1e-10 * np.linalg.norm(g0)
    ref = scipy.optimize.minimize(
        _objective,
        np.zeros_like(w),
        args=(Phi, y, lam, s),
        jac=_gradient,
        method="L-BFGS-B",
        options={"gtol": 1e-13, "ftol": 0, "maxiter": 10_000},
    )
    assert _objective(w, Phi, y, lam, s) <= ref.fun + 1e-12
    assert np.abs(w - ref.x).max() < 1e-5
    if s == 0.0:
        assert out.intercept_weight == 0.0
    # C T with a non-trivial T (the features C T, never formed) is the same problem.
    T = np.linalg.qr(np.random.default_rng(5).standard_normal((Phi.shape[1], Phi.shape[1])))[0]
    rotated = _solve(np.ascontiguousarray(Phi @ T.T), centers, y, lam=lam, s=s, T=np.ascontiguousarray(T))
    np.testing.assert_allclose(rotated.beta, out.beta, atol=1e-7)
    # The history: one record per Newton step, objectives decreasing from F(0) = log 2 + 0.
    objectives = [out.initial_objective] + [h.objective for h in out.history]
    assert np.isclose(objectives[0], np.log(2.0))
    assert np.all(np.diff(objectives) <= 1e-15)


def test_threads_and_start_do_not_change_the_answer():
    Phi, centers, y = _features(n=9000, r=20)  # several row blocks
    one = _solve(Phi, centers, y, n_threads=1)
    two = _solve(Phi, centers, y, n_threads=2)
    np.testing.assert_array_equal(one.beta, two.beta)  # blocks depend on n only
    warm = _solve(Phi, centers, y, beta0=one.beta + 0.01)
    np.testing.assert_allclose(warm.beta, one.beta, atol=1e-7)
    assert len(warm.history) < len(one.history)


def test_preconditioner_cuts_cg_steps():
    """Falkon's preconditioner against none (centres with zero features leave P = lambda I on the
    weights): features over three decades of scale, as a smooth kernel's are."""
    rng = np.random.default_rng(1)
    r = 200
    Phi = rng.standard_normal((5000, r)) * np.logspace(0, -3, r)
    y = np.where(Phi[:, 0] + 10 * Phi[:, 5] + 100 * Phi[:, 100] + 0.5 * rng.standard_normal(5000) > 0, 1.0, -1.0)
    good = _solve(Phi, np.ascontiguousarray(Phi[::5]), y, lam=1e-4, s=1.0, tol=1e-8)
    none = _solve(Phi, np.zeros((1, r)), y, lam=1e-4, s=1.0, tol=1e-8)
    assert good.status == none.status == _core.core.SolverStatus.converged
    np.testing.assert_allclose(good.beta, none.beta, atol=1e-6)
    assert sum(h.inner_steps for h in good.history) * 4 < sum(h.inner_steps for h in none.history)


def test_nystrom_with_every_point_a_centre_is_the_exact_model():
    X, y = make_moons(200, noise=0.25, random_state=0)
    params = {"alpha": 1e-3, "tol": 1e-12, "random_state": 0}
    exact = IK(approximation="exact", **params).fit(X, y)
    full = IK(approximation="nystrom", n_centers=200, **params).fit(X, y)
    assert full.approximation_ == "nystrom" and full.n_centers_ == 200
    assert full.dual_coef_.shape == (1, 200) and full.X_fit_.shape == (200, 2)
    grid = np.random.default_rng(0).uniform(-1.5, 2.5, size=(50, 2))
    # K = C W^+ C' exactly (W = K); rcond drops eigenvalues below 1e-10 max, hence the tolerance.
    np.testing.assert_allclose(full.decision_function(grid), exact.decision_function(grid), atol=1e-4)
    np.testing.assert_allclose(full.intercept_, exact.intercept_, atol=1e-4)


def test_auto_switches_by_size_and_the_model_predicts(monkeypatch):
    X, y = make_moons(600, noise=0.25, random_state=1)
    assert IK(random_state=0).fit(X, y).approximation_ == "exact"
    monkeypatch.setattr(_solver_choice, "IKLR_EXACT_MAX_N", 500)
    monkeypatch.setattr(_solver_choice, "IKLR_NYSTROM_CENTERS", 100)
    model = IK(random_state=0).fit(X[:550], y[:550])
    assert model.approximation_ == "nystrom" and model.n_centers_ == 100 and model.converged_.all()
    assert model.decomposition_["method"] == "none (Nystrom)" and model.decomposition_["rank"] <= 100
    assert model.score(X[550:], y[550:]) > 0.85
    # Centres are training rows, reproducible from random_state.
    again = IK(random_state=0).fit(X[:550], y[:550])
    np.testing.assert_array_equal(model.X_fit_, again.X_fit_)
    assert (model.X_fit_[:, None, :] == X[None, :550, :]).all(axis=2).any(axis=1).all()
    # The paper's solvers and a precomputed kernel keep to the exact model under "auto" (the
    # rule itself: a CCICP fit would spend its time on the decomposition).
    assert IK(solver="ccicp-gd")._approximation(X[:550], None) == "exact"
    assert IK(penalty="krein")._approximation(X[:550], None) == "exact"
    assert IK(kernel="precomputed")._approximation(rbf_kernel(X[:550], gamma=1.0), None) == "exact"


def test_given_centres_multiclass_and_tl1():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 3))
    y = np.argmax(X, axis=1)
    centres = rng.standard_normal((40, 3))
    model = IK(centers=centres, random_state=0).fit(X, y)
    assert model.approximation_ == "nystrom" and model.n_centers_ == 40
    np.testing.assert_array_equal(model.X_fit_, centres)
    assert model.dual_coef_.shape == (3, 40) and model.score(X, y) > 0.9
    tl1 = IK(kernel="tl1", approximation="nystrom", n_centers=80, random_state=0).fit(X, y)
    assert tl1.converged_.all() and tl1.score(X, y) > 0.8


def test_not_converged_warns():
    X, y = make_moons(300, noise=0.25, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 Newton steps"):
        IK(approximation="nystrom", n_centers=50, max_iter=1).fit(X, y)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"approximation": "nystrom", "n_centers": 301}, "n_centers must be at most"),
        ({"n_centers": 0}, "n_centers"),
        ({"approximation": "nystrom", "solver": "ccicp-gd"}, "solver='ccicp-gd'"),
        ({"approximation": "nystrom", "penalty": "krein"}, "penalty='krein'"),
        ({"approximation": "nystrom", "backend": "dask"}, "backend='dask'"),
        ({"centers": np.zeros((5, 3))}, "centers must have the 2 features"),
        ({"centers": np.zeros((5, 2)), "n_centers": 4}, "n_centers=4 contradicts"),
        ({"centers": np.full((5, 2), np.nan)}, "centers"),
        ({"approximation": "nearest"}, "approximation"),
    ],
)
def test_bad_input_names_the_argument(params, match):
    X, y = make_moons(300, noise=0.25, random_state=0)
    with pytest.raises(ValueError, match=match):
        IK(**params).fit(X, y)


def test_precomputed_kernel_refuses_nystrom():
    X, y = make_moons(100, noise=0.25, random_state=0)
    with pytest.raises(ValueError, match="kernel='precomputed'"):
        IK(kernel="precomputed", approximation="nystrom").fit(rbf_kernel(X, gamma=1.0), y)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda a: {**a, "T": np.zeros((4, 5))}, "T must have C's 6 columns"),
        (lambda a: {**a, "T": np.zeros((6, 0))}, "T must have"),
        (lambda a: {**a, "Phi_centers": np.zeros((3, 4))}, "Phi_centers must have"),
        (lambda a: {**a, "Phi_centers": np.zeros((0, 5))}, "Phi_centers must have"),
        (lambda a: {**a, "y": np.ones(7)}, "y needs one entry"),
        (lambda a: {**a, "beta0": np.zeros(4)}, "beta0 needs"),
        (lambda a: {**a, "C": np.full((10, 6), np.inf)}, "must be finite"),
        (lambda a: {**a, "C": np.zeros((0, 6))}, "at least one row"),
        (lambda a: {**a, "C": np.full((10, 6), 1e300)}, "rescale C"),
    ],
)
def test_core_binding_refuses_bad_shapes(change, match):
    args = {"C": np.ones((10, 6)), "T": np.ones((6, 5)), "Phi_centers": np.ones((3, 5)), "y": np.ones(10)}
    args = change({**args, "beta0": np.zeros(5)})
    options = _core.methods.IklrNystromOptions()
    with pytest.raises(ValueError, match=match):
        _core.methods.iklr_nystrom_newton(
            args["C"], args["T"], args["Phi_centers"], args["y"], args["beta0"], options=options
        )


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [("lambda_", 0.0, "lambda_"), ("intercept", -1.0, "intercept"), ("tol", np.nan, "tol"), ("max_cg", 0, "max_cg")],
)
def test_core_binding_refuses_bad_options(field, value, match):
    options = _core.methods.IklrNystromOptions()
    with pytest.raises(ValueError, match=match):
        setattr(options, field, value)  # NaN: refused here, by the field's check (option_fields.hpp)
        _core.methods.iklr_nystrom_newton(
            np.ones((10, 5)), np.eye(5), np.ones((3, 5)), np.ones(10), np.zeros(5), options=options
        )


def test_inputs_are_not_modified():
    Phi, centers, y = _features()
    copies = [a.copy() for a in (Phi, centers, y)]
    _solve(Phi, centers, y)
    for a, b in zip((Phi, centers, y), copies):
        np.testing.assert_array_equal(a, b)
    X, labels = make_moons(200, noise=0.25, random_state=0)
    Xc = X.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        IK(approximation="nystrom", n_centers=50).fit(X, labels)
    np.testing.assert_array_equal(X, Xc)
