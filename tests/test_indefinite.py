"""IKLR (kernlearn.indefinite): the C++ CCICP steps against finite differences of an independent
NumPy objective, plain KLR by scipy L-BFGS, CCCP's monotone descent, the positive decompositions
against a dense eigendecomposition, and bad input."""

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize

import kernlearn.indefinite as indefinite
from kernlearn import _core
from kernlearn._utils import _solver_choice
from kernlearn.indefinite import IndefiniteKernelLogisticRegression, IndefiniteKernelWarning, krein_decomposition
from kernlearn.kernels import rbf_kernel, tl1_kernel


def _problem(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0.5, 1.0, -1.0)
    return X, y


def objective(a, K, y, lam, K_minus=None):
    """F of eq. (6); with K_minus, the convex model (lambda/2) a'(K + K-) a."""
    z = K @ a
    quad = a @ z if K_minus is None else a @ (K + K_minus) @ a
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.5 * lam * quad


def subproblem(a, a_k, K, K_minus, y, lam):
    """F_k of eq. (9): g(a) - h(a_k) - lambda (K- a_k)'(a - a_k)."""
    g = np.mean(np.logaddexp(0.0, -y * (K @ a))) + 0.5 * lam * a @ (K + K_minus) @ a
    return g - 0.5 * lam * a_k @ K_minus @ a_k - lam * (K_minus @ a_k) @ (a - a_k)


def fd_gradient(f, a, h=1e-6):
    e = np.eye(a.size)
    return np.array([(f(a + h * e[i]) - f(a - h * e[i])) / (2 * h) for i in range(a.size)])


def _run(K, y, dec, a0, **kw):
    """One ccicp call from keyword options (inner as a string); the result as a dict of arrays."""
    args = dict(
        inner="gd",
        lam=0.05,
        eps=0.0,
        max_outer=1,
        max_inner=1,
        learning_rate=1e-3,
        decay=0.5,
        restart_rate=True,
        concave=True,
    )
    args.update(kw)
    indices = np.ascontiguousarray(args.pop("sgd_indices", np.empty(0, np.int64)), dtype=np.int64)
    args["inner"] = _core.methods.IklrInner.__members__[args["inner"]]
    args["lambda_"] = args.pop("lam")
    out = _core.methods.ccicp(
        K,
        y,
        dec.negative_vectors,
        dec.negative_weights,
        a0,
        shift=dec.shift,
        options=_core.methods.IklrOptions(**args),
        sgd_indices=indices,
    )
    return {
        "alpha": out.alpha,
        "initial_objective": out.initial_objective,
        "objective": np.array([h.objective for h in out.history]),
    }


@pytest.fixture
def indefinite_problem():
    X, y = _problem()
    K = tl1_kernel(X, tau=1.0)
    dec = krein_decomposition(K, "spectral")
    assert dec.mu_min < 0 and dec.negative_weights.size > 0
    K_minus = (dec.negative_vectors * dec.negative_weights) @ dec.negative_vectors.T + dec.shift * np.eye(len(y))
    return K, y, dec, K_minus


def test_gd_steps_follow_the_true_gradient_of_the_subproblem(indefinite_problem):
    K, y, dec, K_minus = indefinite_problem
    lam, eta = 0.05, 1e-3
    a0 = np.random.default_rng(1).standard_normal(len(y)) * 0.1
    a1 = _run(K, y, dec, a0, max_inner=1)["alpha"]
    a2 = _run(K, y, dec, a0, max_inner=2)["alpha"]
    F_k = lambda a: subproblem(a, a0, K, K_minus, y, lam)  # noqa: E731
    # First step at a = a_k, second at a1 != a_k, where the linearised -K- a_k term matters.
    np.testing.assert_allclose((a0 - a1) / eta, fd_gradient(F_k, a0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose((a1 - a2) / (eta * 0.5), fd_gradient(F_k, a1), rtol=1e-6, atol=1e-8)
    # The recorded objective is F of eq. (6) at the iterate.
    out = _run(K, y, dec, a0, max_inner=2)
    np.testing.assert_allclose(out["objective"][0], objective(a2, K, y, lam), rtol=1e-12)
    np.testing.assert_allclose(out["initial_objective"], objective(a0, K, y, lam), rtol=1e-12)


def test_sgd_step_is_an_unbiased_sample_of_the_gradient(indefinite_problem):
    K, y, dec, K_minus = indefinite_problem
    n, lam, eta = len(y), 0.05, 1e-3
    a0 = np.random.default_rng(2).standard_normal(n) * 0.1
    a_k = a0  # the first inner step is taken at a_k
    steps = []
    for i in range(n):
        a1 = _run(K, y, dec, a0, inner="sgd", sgd_indices=np.array([i]))["alpha"]
        beta = 1.0 / (1.0 + np.exp(y[i] * (K[i] @ a0)))
        expected = -y[i] * beta * K[:, i] + lam * (K + K_minus) @ a0 - lam * K_minus @ a_k  # eq. (12), corrected
        np.testing.assert_allclose((a0 - a1) / eta, expected, rtol=1e-9, atol=1e-12)
        steps.append((a0 - a1) / eta)
    full = fd_gradient(lambda a: subproblem(a, a_k, K, K_minus, y, lam), a0)
    np.testing.assert_allclose(np.mean(steps, axis=0), full, rtol=1e-6, atol=1e-8)


def test_psd_kernel_gives_plain_klr():
    X, y = _problem(n=50, d=4, seed=3)
    lam, gamma = 0.1, 8.0  # a well-conditioned K: plain GD at step 1/L gets there in ~10^4 steps
    K = rbf_kernel(X, gamma=gamma)
    model = IndefiniteKernelLogisticRegression(
        fit_intercept=False,
        kernel="rbf",
        gamma=gamma,
        alpha=lam,
        solver="cccp-gd",
        learning_rate="auto",
        decay=1.0,
        eps=1e-15,
        max_outer=1,
        max_inner=20000,
    )
    model.fit(X, y)
    f = lambda a: objective(a, K, y, lam)  # noqa: E731
    grad = lambda a: K @ (lam * a - y / (1.0 + np.exp(y * (K @ a))) / len(y))  # noqa: E731
    reference = scipy.optimize.minimize(
        f, np.zeros(len(y)), jac=grad, method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000}
    )
    ours = f(model.dual_coef_[0])
    assert abs(ours - reference.fun) <= 1e-6 * abs(reference.fun)
    assert model.history_[0]["objective"][-1] == pytest.approx(ours, rel=1e-12)
    np.testing.assert_array_equal(model.predict(X), np.where(K @ reference.x > 0, 1.0, -1.0))


def test_cccp_gd_decreases_the_objective_monotonically(indefinite_problem):
    K, y, dec, _ = indefinite_problem
    model = IndefiniteKernelLogisticRegression(
        fit_intercept=False,
        kernel="precomputed",
        alpha=0.05,
        solver="cccp-gd",
        penalty="krein",
        learning_rate="auto",
        decay=1.0,
        eps=1e-9,
        max_outer=15,
        decomposition="spectral",
    )
    with pytest.warns(IndefiniteKernelWarning, match="unbounded below"):
        model.fit(K, y)
    F = model.history_[0]["objective"]
    assert np.all(np.diff(F) <= 1e-12 * np.abs(F[:-1]))
    assert F[-1] < F[0]


def test_both_decompositions_reach_the_same_stationary_point():
    # Objective (6) is unbounded below, but it can have a strict local minimum: here the negative
    # eigenvalues are large and the positive ones small, so at the stationary point the logistic
    # curvature (1/n) K D K outweighs lambda K along the negative directions. CCCP must reach it
    # from either decomposition (different paths, one fixed point: grad g = grad h).
    rng = np.random.default_rng(0)
    n, lam = 20, 1e-3
    U, _ = np.linalg.qr(rng.standard_normal((n, n)))
    mu = np.concatenate([[-1.0, -0.8], np.linspace(0.05, 0.2, n - 2)])
    K = (U * mu) @ U.T
    K = (K + K.T) / 2
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    results = {}
    for method in ("shift", "spectral"):
        model = IndefiniteKernelLogisticRegression(
            fit_intercept=False,
            kernel="precomputed",
            alpha=lam,
            solver="cccp-gd",
            penalty="krein",
            learning_rate="auto",
            decay=1.0,
            eps=1e-13,
            max_outer=300,
            max_inner=20000,
            decomposition=method,
        )
        with pytest.warns(IndefiniteKernelWarning):
            model.fit(K, y)
        a = model.dual_coef_[0]
        p = 1.0 / (1.0 + np.exp(-y * (K @ a)))
        gradient = K @ (lam * a - y * (1.0 - p) / n)
        hessian = K @ np.diag(p * (1.0 - p) / n) @ K + lam * K
        assert np.linalg.norm(gradient) < 1e-7
        assert np.linalg.eigvalsh(hessian)[0] > 0  # a strict local minimum
        results[method] = (objective(a, K, y, lam), a)
    assert results["shift"][0] == pytest.approx(results["spectral"][0], rel=1e-10)
    np.testing.assert_allclose(results["shift"][1], results["spectral"][1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", ["shift", "spectral"])
@pytest.mark.parametrize("lanczos", [False, True])
def test_decomposition_is_exact_and_psd(method, lanczos, monkeypatch):
    X = np.random.default_rng(5).random((400 if lanczos else 120, 2))
    K = tl1_kernel(X, tau=0.6)
    if lanczos:
        monkeypatch.setattr(_solver_choice, "SPECTRAL_DENSE_MAX_N", 100)
    mu, U = scipy.linalg.eigh(K)
    scale = np.abs(mu).max()
    n = len(K)

    def check(dec):
        K_minus = np.column_stack([dec.negative_times(e) for e in np.eye(n)])
        K_plus = K + K_minus
        assert dec.mu_min == pytest.approx(mu[0], abs=1e-7 * scale)
        assert dec.mu_max == pytest.approx(mu[-1], rel=1e-7)
        np.testing.assert_allclose(K_plus - K_minus, K, atol=1e-10 * scale)
        assert scipy.linalg.eigvalsh(K_minus)[0] >= -1e-10 * scale
        assert scipy.linalg.eigvalsh(K_plus)[0] >= -1e-10 * scale
        return K_minus, K_plus

    if lanczos and method == "spectral":
        # A capped threshold run leaves negative pairs out: still exact and PSD (tau covers them).
        capped = krein_decomposition(K, method, spectral_matvecs=60, random_state=0)
        assert not capped.negative_converged
        check(capped)
    dec = krein_decomposition(K, method, spectral_matvecs=20000, random_state=0)
    assert dec.negative_converged
    K_minus, K_plus = check(dec)
    if method == "spectral":
        # Proposition 1 as written (tau = -mu_min): K+ = U diag(mu + tau | tau) U'.
        tau = -mu[0]
        paper = (U * np.where(mu >= 0, mu + tau, tau)) @ U.T
        np.testing.assert_allclose(K_plus, paper, atol=1e-7 * scale)
    else:
        np.testing.assert_allclose(K_minus, -mu[0] * np.eye(n), atol=1e-7 * scale)


@pytest.mark.filterwarnings("ignore::kernlearn.indefinite.IndefiniteKernelWarning")
def test_paper_schedule_defaults_and_sgd_reproducibility():
    X, y = _problem(n=80, d=5, seed=6)
    paper = dict(kernel="tl1", penalty="krein", alpha=0.01)
    fits = [
        IndefiniteKernelLogisticRegression(fit_intercept=False, solver="ccicp-sgd", random_state=s, **paper).fit(X, y)
        for s in (0, 0, 1)
    ]
    np.testing.assert_array_equal(fits[0].dual_coef_, fits[1].dual_coef_)
    assert not np.array_equal(fits[0].dual_coef_, fits[2].dual_coef_)
    gd = IndefiniteKernelLogisticRegression(fit_intercept=False, solver="ccicp-gd", **paper).fit(X, y)
    assert gd.n_iter_[0] == 20 and gd.decomposition_["learning_rate"] == 0.02
    assert not gd.converged_[0] and np.isnan(gd.gradient_norm_[0])
    assert gd.score(X, y) > 0.6


def test_float32_kernel_and_threads_agree_with_float64():
    X, y = _problem(n=300, d=4, seed=7)
    ref = IndefiniteKernelLogisticRegression(kernel="rbf", alpha=0.01).fit(X, y)
    single = IndefiniteKernelLogisticRegression(kernel="rbf", alpha=0.01, kernel_dtype="float32", n_jobs=2).fit(X, y)
    np.testing.assert_allclose(single.dual_coef_, ref.dual_coef_, rtol=1e-4, atol=1e-6 * np.abs(ref.dual_coef_).max())


def test_multiclass_one_vs_rest_and_callback():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    seen = []
    model = IndefiniteKernelLogisticRegression(
        kernel="rbf",
        alpha=1e-3,
        learning_rate="auto",
        decay=1.0,
        max_outer=50,
        callback=lambda info: seen.append(info) or False,
    )
    model.fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.dual_coef_.shape == (3, 150) and model.score(X, y) > 0.9
    np.testing.assert_array_equal(model.classes_[np.argmax(proba, axis=1)], model.predict(X))
    assert {info["classifier"] for info in seen} == {0, 1, 2}
    stop = IndefiniteKernelLogisticRegression(solver="ccicp-gd", callback=lambda info: info["iteration"] == 2).fit(
        X[:100], y[:100]
    )
    assert stop.n_iter_[0] == 3


def test_overflow_is_reported_not_returned_as_nan():
    X, y = _problem(n=60, d=3, seed=8)
    model = IndefiniteKernelLogisticRegression(
        kernel="tl1", solver="ccicp-gd", penalty="krein", alpha=10.0, learning_rate=50.0, decay=1.0, max_outer=200
    )
    with pytest.warns(indefinite.ConvergenceWarning, match="overflowed"):
        with pytest.warns(IndefiniteKernelWarning):
            model.fit(X, y)
    assert np.isfinite(model.dual_coef_).all()


def test_bad_input():
    X, y = _problem(n=20)
    IK = IndefiniteKernelLogisticRegression
    with pytest.raises(ValueError, match="single class"):
        IK().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="square"):
        IK(kernel="precomputed").fit(X, y)
    K = rbf_kernel(X) + np.eye(20)
    bent = K.copy()
    bent[0, 1] += 1e-3
    with pytest.warns(UserWarning, match="not symmetric"):
        model = IK(kernel="precomputed").fit(bent, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(K[:, :5])
    with pytest.raises(ValueError, match="features"):
        IK().fit(X, y).predict(X[:, :2])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        IK().fit(Xn, y)
    for alpha in (0.0, -1.0):
        with pytest.raises(ValueError, match="alpha"):
            IK(alpha=alpha).fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        IK(solver="lbfgs").fit(X, y)
    with pytest.raises(ValueError, match="decay"):
        IK(decay=1.5).fit(X, y)
    with pytest.raises(ValueError, match="kernel"):
        IK(kernel="poly").fit(X, y)
    with pytest.raises(ValueError, match="tau"):
        krein_decomposition(rbf_kernel(X), tau=-1.0)
    with pytest.raises(ValueError, match="shape"):
        IK(kernel=lambda A, B: np.ones((3, 3))).fit(X, y)


@pytest.mark.parametrize("restart", [True, False])
def test_step_schedule_restarts_or_runs_on(restart):
    X, y = _problem(n=30, seed=9)
    K = rbf_kernel(X, gamma=2.0)
    dec = krein_decomposition(K, "shift")
    lam, eta, decay = 0.05, 1e-2, 0.5
    grad = lambda a: K @ (lam * a - y / (1.0 + np.exp(y * (K @ a))) / len(y))  # noqa: E731
    a0 = np.zeros(len(y))
    a1 = a0 - eta * grad(a0)
    a2 = a1 - (eta if restart else eta * decay) * grad(a1)  # outer step 2: a_k = a1, one inner step
    out = _run(K, y, dec, a0, max_outer=2, max_inner=1, lam=lam, learning_rate=eta, decay=decay, restart_rate=restart)
    np.testing.assert_allclose(out["alpha"], a2, rtol=1e-10, atol=1e-14)
