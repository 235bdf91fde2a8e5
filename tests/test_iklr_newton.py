"""IKLR's Newton solver (the default) against scipy on the same objective, its gradient
certificate, the start a_0 (paper's Table 6), the literal eq. (12) SGD, and bad input for the new
parameters."""

import time
import warnings

import numpy as np
import pytest
import scipy.optimize
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning

from kernlearn import _core
from kernlearn.indefinite import IndefiniteKernelLogisticRegression, IndefiniteKernelWarning, krein_decomposition
from kernlearn.kernels import rbf_kernel, tl1_kernel

IK = IndefiniteKernelLogisticRegression


def _moons(n=150, seed=0):
    X, y = make_moons(n, noise=0.25, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def _objective(a, K, y, lam, K_minus):
    """The convex model: mean logistic loss of K a + (lambda/2) a'(K + K-) a."""
    return np.mean(np.logaddexp(0.0, -y * (K @ a))) + 0.5 * lam * a @ ((K + K_minus) @ a)


def _gradient(a, K, y, lam, K_minus):
    beta = 1.0 / (1.0 + np.exp(y * (K @ a)))
    return K @ (-y * beta / len(y)) + lam * (K + K_minus) @ a


def _reference(K, y, lam, K_minus):
    """scipy's trust-region Newton-CG with the exact Hessian, polished to a tiny gradient."""
    n = len(y)

    def hessian(a):
        p = 1.0 / (1.0 + np.exp(-y * (K @ a)))
        return K @ (K * (p * (1 - p) / n)[:, None]) + lam * (K + K_minus)

    out = scipy.optimize.minimize(
        _objective,
        np.zeros(n),
        args=(K, y, lam, K_minus),
        jac=_gradient,
        hess=lambda a, *args: hessian(a),
        method="trust-exact",
        options={"gtol": 1e-13, "maxiter": 1000},
    )
    return out.fun, out.x


@pytest.mark.parametrize("lam", [1e-2, 1e-3])
def test_newton_reaches_the_klr_optimum_of_scipy(lam):
    X, y = _moons()
    gamma = 2.0
    K = rbf_kernel(X, gamma=gamma)
    reference, a_ref = _reference(K, y, lam, np.zeros_like(K))
    start = time.perf_counter()
    model = IK(fit_intercept=False, kernel="rbf", gamma=gamma, alpha=lam).fit(X, y)
    seconds = time.perf_counter() - start
    ours = _objective(model.dual_coef_[0], K, y, lam, np.zeros_like(K))
    assert abs(ours - reference) <= 1e-6 * abs(reference)
    assert model.converged_[0] and model.n_iter_[0] < 30
    assert seconds < 2.0  # about 0.02 s unloaded; gradient descent needs 10,000 steps (iklr_solver.md)
    np.testing.assert_allclose(K @ model.dual_coef_[0], K @ a_ref, atol=1e-4 * np.abs(K @ a_ref).max())
    # The recorded objective is the same function.
    assert model.history_[0]["objective"][-1] == pytest.approx(ours, rel=1e-10)


def test_newton_on_an_indefinite_kernel_solves_the_positive_model():
    X, y = _moons(n=100, seed=1)
    K = tl1_kernel(X, tau=1.0)
    dec = krein_decomposition(K, "shift")
    assert dec.mu_min < 0
    K_minus = dec.shift * np.eye(len(y))
    lam = 1e-2
    reference, _ = _reference(K, y, lam, K_minus)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the positive model is well posed: no warning
        model = IK(fit_intercept=False, kernel="precomputed", alpha=lam).fit(K, y)
    ours = _objective(model.dual_coef_[0], K, y, lam, K_minus)
    assert abs(ours - reference) <= 1e-6 * abs(reference)
    assert model.converged_[0]


def test_gradient_certificate_is_the_true_gradient():
    X, y = _moons(n=120, seed=2)
    lam, gamma = 1e-3, 1.0
    K = rbf_kernel(X, gamma=gamma)
    model = IK(fit_intercept=False, kernel="rbf", gamma=gamma, alpha=lam, tol=1e-9).fit(X, y)
    zero = np.zeros_like(K)
    ratio = np.linalg.norm(_gradient(model.dual_coef_[0], K, y, lam, zero)) / np.linalg.norm(
        _gradient(np.zeros(len(y)), K, y, lam, zero)
    )
    assert model.gradient_norm_[0] == pytest.approx(ratio, rel=1e-3, abs=1e-13)
    assert model.gradient_norm_[0] <= 1e-9
    last = model.history_[0]["gradient_norm"][-1] / np.linalg.norm(K @ y / (2 * len(y)))
    assert last == pytest.approx(ratio, rel=1e-3, abs=1e-13)
    # A step cap that binds: reported, not hidden.
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        capped = IK(fit_intercept=False, kernel="rbf", gamma=gamma, alpha=lam, max_iter=1).fit(X, y)
    assert not capped.converged_[0] and capped.gradient_norm_[0] > 1e-9


def test_newton_direction_on_a_singular_kernel():
    # A rank-2 PSD kernel (linear on 2 features): the a-space Hessian is singular, the model still
    # has a unique K a; Newton must reach scipy's optimum of the objective.
    X, y = _moons(n=60, seed=3)
    K = np.ascontiguousarray(X @ X.T)
    lam = 1e-2
    reference, _ = _reference(K, y, lam, np.zeros_like(K))
    model = IK(fit_intercept=False, kernel="precomputed", alpha=lam).fit(K, y)
    assert abs(_objective(model.dual_coef_[0], K, y, lam, np.zeros_like(K)) - reference) <= 1e-6 * abs(reference)


def test_default_fit_on_a_psd_problem_is_warning_free():
    X, y = _moons(n=200, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = IK().fit(X, y)
    assert model.converged_.all() and model.score(X, y) > 0.9
    assert model.gamma_ == pytest.approx(1.0 / (X.shape[1] * X.var()))


@pytest.mark.parametrize("init", [0, 1, -1, "uniform"])
def test_init_sets_the_start(init):
    X, y = _moons(n=50, seed=5)
    lam, gamma = 1e-2, 1.0
    K = rbf_kernel(X, gamma=gamma)
    a0 = {0: np.zeros(50), 1: np.ones(50), -1: -np.ones(50)}.get(init)
    if init == "uniform":
        rng = np.random.default_rng(7)  # the estimator's generator: the decomposition's seed, then a_0
        rng.integers(np.iinfo(np.int32).max)
        a0 = rng.random(50)
    fits = {}
    for solver in ("newton", "ccicp-gd"):
        fits[solver] = IK(
            fit_intercept=False, kernel="rbf", gamma=gamma, alpha=lam, init=init, solver=solver, random_state=7
        ).fit(X, y)
        start = fits[solver].history_[0]["objective"][0]
        assert start == pytest.approx(_objective(a0, K, y, lam, np.zeros_like(K)), rel=1e-12)
    # The convex model has one optimum whatever the start.
    ref = IK(fit_intercept=False, kernel="rbf", gamma=gamma, alpha=lam).fit(X, y)
    np.testing.assert_allclose(K @ fits["newton"].dual_coef_[0], K @ ref.dual_coef_[0], atol=1e-6)


def test_uniform_init_depends_on_random_state():
    X, y = _moons(n=40, seed=6)
    starts = [
        IK(init="uniform", solver="ccicp-gd", max_outer=1, random_state=s).fit(X, y).history_[0]["objective"][0]
        for s in (0, 0, 1)
    ]
    assert starts[0] == starts[1] != starts[2]


def test_literal_sgd_drops_the_concave_term():
    X, y = _moons(n=40, seed=7)
    K = tl1_kernel(X, tau=1.0)
    dec = krein_decomposition(K, "shift")
    n, lam, eta = len(y), 0.05, 1e-3
    K_minus = dec.shift * np.eye(n)
    a0 = np.random.default_rng(3).standard_normal(n) * 0.1
    i = 5
    for literal in (False, True):
        options = _core.methods.IklrOptions(
            inner=_core.methods.IklrInner.sgd,
            lambda_=lam,
            eps=0.0,
            max_outer=1,
            max_inner=1,
            learning_rate=eta,
            decay=0.5,
            concave=True,
            literal_sgd=literal,
        )
        out = _core.methods.ccicp(
            K, y, dec.negative_vectors, dec.negative_weights, a0, shift=dec.shift, options=options,
            sgd_indices=np.array([i], dtype=np.int64),
        )  # fmt: skip
        beta = 1.0 / (1.0 + np.exp(y[i] * (K[i] @ a0)))
        step = -y[i] * beta * K[:, i] + lam * (K + K_minus) @ a0  # eq. (12) as printed
        if not literal:
            step -= lam * K_minus @ a0  # the linearised concave term at a_k = a0
        np.testing.assert_allclose(out.alpha, a0 - eta * step, rtol=1e-10, atol=1e-13)
    # Through the estimator: it runs, and differs from the corrected SGD on an indefinite kernel.
    kw = dict(kernel="precomputed", penalty="krein", alpha=lam, random_state=0, max_outer=5)
    with pytest.warns(IndefiniteKernelWarning):
        literal = IK(solver="ccicp-sgd-literal", **kw).fit(K, y)
    with pytest.warns(IndefiniteKernelWarning):
        corrected = IK(solver="ccicp-sgd", **kw).fit(K, y)
    assert np.isfinite(literal.dual_coef_).all() and literal.n_iter_[0] == 5
    assert not np.allclose(literal.dual_coef_, corrected.dual_coef_)


def test_newton_with_the_krein_penalty():
    X, y = _moons(n=50, seed=8)
    # A PSD kernel: both penalties are the same model, Newton solves it without a warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        krein = IK(penalty="krein", alpha=1e-2).fit(X, y)
    positive = IK(alpha=1e-2).fit(X, y)
    np.testing.assert_allclose(krein.dual_coef_, positive.dual_coef_)
    # An indefinite one: the model has no minimum, Newton refuses it by name.
    with pytest.raises(ValueError, match="penalty='krein'"):
        IK(kernel="tl1", tau=1.0, penalty="krein").fit(X, y)


def test_bad_new_parameters():
    X, y = _moons(n=30, seed=9)
    for init in (2, 0.5, "ones", None):
        with pytest.raises((ValueError, TypeError), match="init"):
            IK(init=init).fit(X, y)
    for tol in (0.0, -1.0):
        with pytest.raises(ValueError, match="tol"):
            IK(tol=tol).fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        IK(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="gamma"):
        IK(gamma="auto").fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        IK(solver="sgd-literal").fit(X, y)
    Xc, yc = X.copy(), y.copy()
    IK(init="uniform", random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, Xc)
    np.testing.assert_array_equal(y, yc)


def test_core_newton_rejects_bad_options():
    K = rbf_kernel(np.random.default_rng(0).random((5, 2)))
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    empty, w = np.empty((5, 0)), np.empty(0)
    for kw, match in (({"lambda_": 0.0}, "lambda_"), ({"tol": -1.0}, "tol"), ({"max_cg": 0}, "max_cg")):
        options = _core.methods.IklrNewtonOptions(**kw)
        with pytest.raises(ValueError, match=match):
            _core.methods.iklr_newton(K, y, empty, w, np.zeros(5), shift=0.0, options=options)
    with pytest.raises(ValueError, match="alpha0"):
        _core.methods.iklr_newton(
            K, y, empty, w, np.zeros(4), shift=0.0, options=_core.methods.IklrNewtonOptions()
        )  # fmt: skip


def test_ctrl_c_stops_the_newton_solver():
    from test_interrupt import seconds_to_interrupt

    script = (
        "import numpy as np\n"
        "from kernlearn.indefinite import IndefiniteKernelLogisticRegression\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.random((4000, 2)); y = np.where(rng.random(4000) < 0.5, 1, -1)\n"
        "model = IndefiniteKernelLogisticRegression(gamma=50.0, alpha=1e-9, tol=1e-300, max_iter=10**6)\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    model.fit(X, y)  # RBF: no eigenvalue computation, the time is Newton's\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    assert seconds_to_interrupt(script, after=1.5) < 1.0


def test_intercept_is_a_constant_added_to_the_kernel():
    # fit_intercept=True (the default) is the same fit as a precomputed K + s^2 without one, and
    # b = s^2 sum(a) makes the decision values K a + b.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.3 > 0).astype(int)
    s = 1.7
    model = IK(intercept_scaling=s, gamma=0.5, random_state=0).fit(X, y)  # alpha="auto": the same folds
    K = rbf_kernel(X, X, 0.5)
    ref = IK(kernel="precomputed", fit_intercept=False, random_state=0).fit(K + s**2, y)
    assert model.alpha_ == ref.alpha_
    np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, rtol=1e-6, atol=1e-9)
    assert model.intercept_[0] == pytest.approx(s**2 * model.dual_coef_.sum())
    np.testing.assert_allclose(model.decision_function(X), K @ model.dual_coef_[0] + model.intercept_[0], rtol=1e-10)
    none = IK(fit_intercept=False, gamma=0.5).fit(X, y)
    assert none.intercept_[0] == 0.0


def test_intercept_leaves_a_precomputed_kernel_untouched():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 2))
    y = (X[:, 1] > 0).astype(int)
    K = rbf_kernel(X, X, 1.0)
    before = K.copy()
    IK(kernel="precomputed").fit(K, y)
    np.testing.assert_array_equal(K, before)


def test_intercept_scaling_is_validated():
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="intercept_scaling"):
        IK(intercept_scaling=0.0).fit(X, y)
    with pytest.raises((ValueError, TypeError), match="fit_intercept"):
        IK(fit_intercept="yes").fit(X, y)
