"""ESKL, EMKL, REKL (kernlearn.similarity) and their pieces: the mixed-norm MKL against direct
solves, the log-domain matrix exponentiated-gradient step against scipy's expm/logm, the losses
against finite differences, REKL against EMKL in the eigenbasis, and bad input."""

import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.linalg
from scipy.optimize import minimize
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernlearn import similarity
from kernlearn.similarity import EMKL, ESKL, REKL
from kernlearn.similarity import _mirror_descent as md
from kernlearn.similarity._mkl import GAMMA_MIN, closed_form_gamma, mkl, svm_dual


def _problem(n=40, m=3, seed=0, noise=0.3, d=2):
    """Two Gaussian blobs; m indefinite similarities (Gaussian + symmetric noise, TL1, -dist),
    stacked in the estimators' layout (n, n, m)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, d)) + 1.5 * y[:, None]
    D = cdist(X, X)
    mats = [np.exp(-(D**2) / np.median(D**2)), np.maximum(np.median(D) - D, 0.0) / np.median(D), 1.0 - D / D.max()]
    E = rng.normal(size=(n, n)) * noise
    mats[0] = mats[0] + (E + E.T) / 2
    S = np.stack(mats[:m], axis=-1)
    return S, y


def _psd(n, rank, rng):
    A = rng.normal(size=(n, rank))
    return A @ A.T


# ----------------------------------------------------------------------------- the MKL of eq. (10)


@pytest.mark.parametrize("gamma_min", [GAMMA_MIN, 0.05])
def test_closed_form_gamma_matches_slsqp(gamma_min):
    rng = np.random.default_rng(1)
    cases = [rng.uniform(0.1, 5.0, size=m) for m in (2, 3, 5)] + [np.array([5.0, 1e-6, 0.01, 0.5])]
    for q in cases:
        m = q.size
        with warnings.catch_warnings():  # scipy < 1.16's SLSQP: "Values in x were outside bounds ..."
            warnings.filterwarnings("ignore", "Values in x were outside bounds", RuntimeWarning)
            res = minimize(
                lambda g: 0.5 * np.sum(q / g),  # maximise -(1/2) sum q_i / gamma_i over the simplex
                np.full(m, 1.0 / m),
                jac=lambda g: -0.5 * q / g**2,
                method="SLSQP",
                bounds=[(gamma_min, 1.0)] * m,
                constraints=[{"type": "ineq", "fun": lambda g: 1.0 - g.sum(), "jac": lambda g: -np.ones(m)}],
                options={"ftol": 1e-12, "maxiter": 1000},
            )
        assert res.x.sum() <= 1 + 1e-8
        gamma = closed_form_gamma(q, gamma_min)
        assert gamma.sum() == pytest.approx(1.0) and gamma.min() >= gamma_min * (1 - 1e-12)
        np.testing.assert_allclose(gamma, res.x, rtol=1e-3, atol=1e-5)
        assert 0.5 * np.sum(q / gamma) <= res.fun * (1 + 1e-9)
        if gamma.min() > gamma_min:  # floor inactive: the printed closed form
            np.testing.assert_allclose(0.5 * np.sum(q / gamma), 0.5 * np.sqrt(q).sum() ** 2, rtol=1e-12)


@pytest.mark.parametrize("low_rank", [False, True])
def test_mkl_matches_cvxpy_and_is_monotone(low_rank):
    rng = np.random.default_rng(2)
    n, m, C = 24, 3, 1.0
    y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) + y[:, None]
    feats = [X, X**2, rng.normal(size=(n, 3)) + 0.3 * y[:, None]]
    if not low_rank:
        feats = [np.hstack([F, 0.3 * rng.normal(size=(n, n))]) for F in feats]
    Ks = np.stack([F @ F.T for F in feats])
    res = mkl(Ks, y, C, tol=1e-9, max_iter=300, svm_tol=1e-9)
    # Omega = max over alpha and gamma (>= GAMMA_MIN, sum 1) of 1'alpha - (1/2) sum ||F_i' Y alpha||^2 / gamma_i,
    # jointly concave: one direct conic solve
    a, g = cp.Variable(n), cp.Variable(m)
    obj = cp.sum(a) - 0.5 * sum(cp.quad_over_lin(F.T @ cp.multiply(y, a), g[i]) for i, F in enumerate(feats))
    prob = cp.Problem(cp.Maximize(obj), [a >= 0, a <= C, y @ a == 0, g >= GAMMA_MIN, cp.sum(g) == 1])
    prob.solve(solver=cp.CLARABEL)
    assert res["omega"] == pytest.approx(prob.value, rel=2e-3)
    h = res["history"]
    assert len(h) >= 4
    assert np.all(np.diff(h) >= -1e-6 * np.abs(h).max()), h  # the alternation never decreases h
    q = np.einsum("i,kij,j->k", res["beta"], Ks, res["beta"])
    np.testing.assert_allclose(res["gamma"], closed_form_gamma(q), rtol=1e-10)
    if not low_rank:  # interior: the printed formula
        np.testing.assert_allclose(res["gamma"], np.sqrt(q) / np.sqrt(q).sum(), rtol=1e-10)


def test_svm_dual_value_and_sign_convention():
    rng = np.random.default_rng(3)
    n = 30
    y = np.where(np.arange(n) < 15, 1.0, -1.0)
    F = rng.normal(size=(n, 3)) + 0.7 * y[:, None]
    K = F @ F.T
    omega, beta, b = svm_dual(K, y, 1.0, 1e-8)
    a = cp.Variable(n)
    prob = cp.Problem(
        cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(F.T @ cp.multiply(y, a))), [a >= 0, a <= 1.0, y @ a == 0]
    )
    prob.solve(solver=cp.CLARABEL)
    assert omega == pytest.approx(prob.value, rel=1e-5)
    assert np.all(beta * y >= -1e-12)  # beta = Y alpha with alpha >= 0
    np.testing.assert_allclose(np.abs(beta), np.clip(a.value, 0, None), atol=1e-3)


# ----------------------------------------------------------------------------- mirror-descent pieces


def test_meg_step_matches_expm_logm():
    rng = np.random.default_rng(4)
    n, tau, eta = 12, 3.0, 0.7
    K = _psd(n, n, rng) + 0.1 * np.eye(n)
    K *= tau / np.trace(K)
    G = rng.normal(size=(n, n))
    G = (G + G.T) / 2
    lam, V = np.linalg.eigh(K)
    U, log_lam = md.meg_step(V, np.log(lam), G, eta, tau)
    Kp = md.dense_from_log(U, log_lam)
    E = scipy.linalg.expm(scipy.linalg.logm(K).real - eta * G)
    np.testing.assert_allclose(Kp, tau * E / np.trace(E), rtol=1e-9, atol=1e-12)
    assert np.trace(Kp) == pytest.approx(tau, rel=1e-12)
    assert np.linalg.eigvalsh(Kp).min() > 0
    # The paper's Algorithm 1 (eigenvalues of K, eigenvectors of G) is the same step only when
    # K and G commute:
    d, W = np.linalg.eigh(G)
    Kc = W @ np.diag(lam[::-1]) @ W.T  # commutes with G
    lc, Vc = np.linalg.eigh(Kc)
    Up, lp = md.meg_step(Vc, np.log(lc), G, eta, tau)
    paper = lam[::-1] * np.exp(-eta * d)
    np.testing.assert_allclose(md.dense_from_log(Up, lp), W @ np.diag(tau * paper / paper.sum()) @ W.T, atol=1e-12)
    paper_K = W @ np.diag(tau * lam * np.exp(-eta * d) / (lam * np.exp(-eta * d)).sum()) @ W.T
    assert np.abs(paper_K - Kp).max() > 1e-3  # ... and differs from it otherwise


def test_meg_step_log_domain_does_not_underflow():
    n, tau = 6, 1.0
    V = np.eye(n)
    log_lam = np.array([0.0, -800.0, -900.0, -1.0, -2.0, -3.0])  # exp underflows to 0
    G = np.zeros((n, n))
    G[1, 1] = -2000.0  # pushes the second direction back to the top
    U, l2 = md.meg_step(V, log_lam, G, 1.0, tau)
    assert np.all(np.isfinite(l2))
    lam = np.exp(l2)
    assert lam.sum() == pytest.approx(tau)
    assert abs(U[1, np.argmax(lam)]) == pytest.approx(1.0)


def test_simplex_step_is_normalised_exponentiated_gradient():
    rng = np.random.default_rng(5)
    mu = rng.dirichlet(np.ones(7)) * 2.0
    g = rng.normal(size=7)
    out = np.exp(md.simplex_step(np.log(mu), g, 0.3, 2.0))
    ref = mu * np.exp(-0.3 * g)
    np.testing.assert_allclose(out, 2.0 * ref / ref.sum(), rtol=1e-12)


@pytest.mark.parametrize("name", ["l1", "fro", "sq_fro"])
@pytest.mark.parametrize("shape", [(9, 9), (9,)])
def test_loss_subgradients_finite_differences(name, shape):
    rng = np.random.default_rng(6)
    loss = md.LOSSES[name]
    K = rng.normal(size=shape)
    S = rng.normal(size=shape)
    D = rng.normal(size=shape)
    if len(shape) == 2:
        K, S, D = (K + K.T) / 2, (S + S.T) / 2, (D + D.T) / 2
    h = 1e-6  # no entry of K - S is within h of 0, so L1 is differentiable along D
    assert np.abs(K - S).min() > 10 * h * np.abs(D).max()
    value, grad = loss(K, S)
    fd = (loss(K + h * D, S)[0] - loss(K - h * D, S)[0]) / (2 * h)
    assert np.vdot(grad, D) == pytest.approx(fd, rel=1e-6, abs=1e-8)
    # the values themselves, written out independently
    R = K - S
    expected = {"l1": np.abs(R).sum(), "fro": np.sqrt((R**2).sum()), "sq_fro": (R**2).sum()}[name]
    assert value == pytest.approx(expected, rel=1e-12)


def test_fro_subgradient_at_zero_is_valid():
    K = np.eye(3)
    value, grad = md.LOSSES["fro"](K, K)
    assert value == 0.0 and np.all(grad == 0.0)


def test_omega_subgradient_finite_differences():
    """d omega(K)[D] = -1/2 beta' D beta where the SVM solution is unique (eq. (8))."""
    rng = np.random.default_rng(7)
    n = 20
    y = np.where(np.arange(n) < 10, 1.0, -1.0)
    F = rng.normal(size=(n, 4)) + 0.5 * y[:, None]
    K = F @ F.T + 0.5 * np.eye(n)
    D = rng.normal(size=(n, n))
    D = (D + D.T) / 2
    _, beta, _ = svm_dual(K, y, 0.5, 1e-12)
    h = 1e-5
    fd = (svm_dual(K + h * D, y, 0.5, 1e-12)[0] - svm_dual(K - h * D, y, 0.5, 1e-12)[0]) / (2 * h)
    assert -0.5 * beta @ D @ beta == pytest.approx(fd, rel=1e-4, abs=1e-6)


def test_step_rule_is_proposition_3_1():
    rule = md.StepRule(np.log(50.0))
    assert rule(1, 2.0) == pytest.approx(np.sqrt(2 * np.log(50.0)) / 2.0)
    assert rule(4, 1.0) == pytest.approx(np.sqrt(2 * np.log(50.0) / 4) / 2.0)  # Lip is a running max
    assert rule(9, 3.0) == pytest.approx(np.sqrt(2 * np.log(50.0) / 9) / 3.0)


# ----------------------------------------------------------------------------- the estimators


@pytest.mark.parametrize("Est", [ESKL, EMKL])
def test_iterates_psd_with_trace_and_best_non_increasing(Est, monkeypatch):
    S, y = _problem(n=30, m=2)
    seen = []
    real = md.meg_step

    def recording(V, log_lam, G, eta, tau, **kw):
        U, l = real(V, log_lam, G, eta, tau, **kw)
        seen.append((U, l, tau))
        return U, l

    monkeypatch.setattr(md, "meg_step", recording)
    est = Est("l1", rho=0.01, max_iter=15, tol=0.0, n_iter_no_change=100)
    with pytest.warns(ConvergenceWarning):
        est.fit(S, y)
    assert len(seen) == 14 * (1 if Est is ESKL else 2)
    for U, l, tau in seen:
        lam = np.exp(l)
        assert np.all(lam > 0) and lam.sum() == pytest.approx(tau, rel=1e-12)
        np.testing.assert_allclose(U.T @ U, np.eye(U.shape[0]), atol=1e-10)
    h = est.history_
    assert np.all(np.diff(h["best"]) <= 0)
    np.testing.assert_allclose(h["best"], np.minimum.accumulate(h["objective"]))
    assert est.objective_[0] == h["best"][-1]
    assert np.all(h["lower_bound"] <= h["best"] + 1e-9)
    assert h["best"][-1] < h["objective"][0]  # mirror descent made progress
    lam = est.eigenvalues_
    assert np.all(lam > 0)
    np.testing.assert_allclose(lam.sum(axis=-1), est.tau_, rtol=1e-12)


def test_eskl_objective_is_the_objective_at_the_returned_kernel():
    """Recompute f(K) = omega(K) + rho ||K - S||_F at the returned kernel with cvxpy."""
    S, y = _problem(n=24, m=1)
    with pytest.warns(ConvergenceWarning):
        est = ESKL("fro", rho=0.5, C=1.0, max_iter=10, svm_tol=1e-8).fit(S[:, :, 0], y)
    K = (est.eigenvectors_[0] * est.eigenvalues_[0]) @ est.eigenvectors_[0].T
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    L = np.linalg.cholesky(K + 1e-12 * np.eye(len(y)))
    a = cp.Variable(len(y))
    prob = cp.Problem(
        cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(ypm, a))), [a >= 0, a <= 1.0, ypm @ a == 0]
    )
    prob.solve(solver=cp.CLARABEL)
    f = prob.value + 0.5 * np.linalg.norm(K - S[:, :, 0])
    assert est.objective_[0] == pytest.approx(f, rel=1e-4)


def test_identity_init_uses_the_paper_step():
    S, y = _problem(n=30, m=2)
    for Est in (ESKL, EMKL, REKL):
        est = Est(init="identity", max_iter=5, tol=0.0)
        with pytest.warns(ConvergenceWarning):
            est.fit(S, y)
        h = est.history_
        t = np.arange(1, 6)
        # eta_t Lip_t sqrt(t) = sqrt(2 log n): Proposition 3.1, and Theorem 3.2 / Proposition 3.2
        # without their extra 1 / sqrt(m) (module docstring)
        np.testing.assert_allclose(h["step"] * h["lip"] * np.sqrt(t), np.sqrt(2 * np.log(30)), rtol=1e-12)


def test_rekl_fro_equals_emkl_fro_in_the_eigenbasis():
    S, y = _problem(n=26, m=2)
    ypm = np.where(y == 1, 1.0, -1.0)
    prep = similarity._base._Prep([S[:, :, i].copy() for i in range(2)], np.ones(len(y), bool), "trace", "evd")
    emkl = EMKL("fro", rho=0.7, mkl_tol=1e-12, mkl_max_iter=100, svm_tol=1e-10)
    rekl = REKL("fro", rho=0.7, mkl_tol=1e-12, mkl_max_iter=100, svm_tol=1e-10)
    eo = similarity._oracles._MultipleOracle(emkl, prep, ypm, md.resolve_loss("fro"))
    ro = similarity._rekl._REKLOracle(rekl, prep, ypm, similarity._rekl._spectral_loss("fro"))
    rng = np.random.default_rng(8)
    mu = rng.dirichlet(np.ones(26), size=2) * prep.tau
    state = [(V, np.log(mu[i])) for i, (_, V) in enumerate(prep.eig)]
    e, r = eo.evaluate(state), ro.evaluate(np.log(mu))
    assert e["f"] == pytest.approx(r["f"], rel=1e-6)  # same objective: ||mu - lambda|| = ||K - S||_F
    # REKL's subgradient is the diagonal of EMKL's in each eigenbasis
    diag = np.stack([np.einsum("ji,jk,ki->i", V, e["G"][i], V) for i, (_, V) in enumerate(prep.eig)])
    np.testing.assert_allclose(r["G"], diag, rtol=1e-5, atol=1e-8 * np.abs(diag).max())
    # and REKL's step is EMKL's step with the subgradient pinched to the eigenbasis
    eta = 0.05
    pinched = np.stack([(V * diag[i]) @ V.T for i, (_, V) in enumerate(prep.eig)])
    stepped = eo.step(state, pinched, eta)
    new_mu = np.exp(ro.step(np.log(mu), r["G"], eta))
    for i, (U, l) in enumerate(stepped):
        np.testing.assert_allclose(
            md.dense_from_log(U, l), (prep.eig[i][1] * new_mu[i]) @ prep.eig[i][1].T, atol=1e-6 * prep.tau
        )


def test_rekl_does_no_eigendecomposition_per_iteration(monkeypatch):
    S, y = _problem(n=30, m=3)
    calls = []
    real = scipy.linalg.eigh
    monkeypatch.setattr(scipy.linalg, "eigh", lambda *a, **k: calls.append(1) or real(*a, **k))
    est = REKL(max_iter=8, tol=0.0)
    with pytest.warns(ConvergenceWarning):
        est.fit(S, y)
    assert len(calls) == 3  # one per S_i, before the loop
    np.testing.assert_allclose(est.spectra_.sum(axis=-1), est.tau_, rtol=1e-12)
    assert np.all(est.spectra_ > 0)
    assert est.gamma_.shape == (1, 3) and est.gamma_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("Est", [ESKL, EMKL, REKL])
def test_transductive_and_out_of_sample_agree(Est):
    S, y = _problem(n=40, m=3, noise=0.05)
    S[:, :, 2] += 0.05 * np.eye(40)  # nonsingular: the out-of-sample rule reproduces K exactly ...
    rng = np.random.default_rng(9)
    unl = np.sort(rng.choice(40, 12, replace=False))
    y_semi = y.copy()
    y_semi[unl] = -1
    est = Est(max_iter=20, oos_rcond=1e-8)  # ... when the cut-off keeps every eigenvalue
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(S, y_semi)
    assert est.predict().shape == (12,)
    np.testing.assert_allclose(est.decision_function(S[unl]), est.decision_function(), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(est.transduction_[~est.labelled_], est.predict())
    np.testing.assert_array_equal(est.transduction_[est.labelled_], y_semi[y_semi != -1])
    assert (est.predict() == y[unl]).mean() >= 0.75


@pytest.mark.parametrize("Est", [ESKL, EMKL, REKL])
def test_multiclass_one_vs_rest(Est):
    rng = np.random.default_rng(10)
    n = 45
    y = np.repeat([3, 5, 7], 15)
    X = rng.normal(size=(n, 2)) + 3.0 * np.stack([np.cos(y), np.sin(y)], axis=1)
    D = cdist(X, X)
    S = np.stack([np.exp(-(D**2) / 4), 1 - D / D.max()], axis=-1)
    y_semi = y.copy()
    y_semi[::5] = -1
    est = Est(max_iter=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(S, y_semi)
    assert est.coef_.shape == (3, 2, n)
    assert est.decision_function().shape == (9, 3)
    assert (est.predict() == y[::5]).mean() >= 0.8
    assert (est.predict(S[::5]) == y[::5]).mean() >= 0.8
    assert len(est.history_) == 3


def test_callable_loss_matches_builtin():
    S, y = _problem(n=24, m=2)
    calls = []

    def sq(K, T):
        calls.append(1)
        return float(((K - T) ** 2).sum()), 2 * (K - T)

    kw = dict(rho=0.01, max_iter=6, tol=0.0)
    with pytest.warns(ConvergenceWarning):
        a = ESKL("sq_fro", **kw).fit(S, y)
    with pytest.warns(ConvergenceWarning):
        b = ESKL(sq, **kw).fit(S, y)
    assert len(calls) == 6 * 2
    np.testing.assert_allclose(a.history_["objective"], b.history_["objective"], rtol=1e-12)
    # REKL's callable works on spectra (mu, lambda)
    with pytest.warns(ConvergenceWarning):
        c = REKL(lambda mu, lam: (float(((mu - lam) ** 2).sum()), 2 * (mu - lam)), **kw).fit(S, y)
    with pytest.warns(ConvergenceWarning):
        d = REKL("sq_fro", **kw).fit(S, y)
    np.testing.assert_allclose(c.history_["objective"], d.history_["objective"], rtol=1e-12)


def test_bad_callable_losses():
    S, y = _problem(n=20, m=1)
    with pytest.raises(TypeError, match="value, subgradient"):
        ESKL(lambda K, S: 1.0, max_iter=2).fit(S, y)
    with pytest.raises(ValueError, match="shape"):
        ESKL(lambda K, S: (1.0, np.zeros(3)), max_iter=2).fit(S, y)
    with pytest.raises(ValueError, match="non-finite"):
        ESKL(lambda K, S: (np.nan, np.zeros_like(K)), max_iter=2).fit(S, y)


def test_inputs_not_modified_and_asymmetric_warns():
    S, y = _problem(n=24, m=2)
    S[:, :, 1] += 0.01 * np.triu(np.ones((24, 24)), 1)  # not symmetric
    S_copy, y_copy = S.copy(), y.copy()
    with pytest.warns(UserWarning, match=r"S\[:, :, 1\] is not symmetric"):
        a = ESKL(max_iter=3, n_iter_no_change=1).fit(S, y)
    np.testing.assert_array_equal(S, S_copy)
    np.testing.assert_array_equal(y, y_copy)
    sym = (S + S.transpose(1, 0, 2)) / 2
    b = ESKL(max_iter=3, n_iter_no_change=1).fit(sym, y)
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_)
    S_test = S[:7].copy()
    S_test_copy = S_test.copy()
    a.predict(S_test)
    a.score(S_test, y[:7])
    np.testing.assert_array_equal(S_test, S_test_copy)
    # a list of the matrices is not modified either (and is read as the same data)
    mats = [S[:, :, i].copy() for i in range(2)]
    with pytest.warns(UserWarning, match=r"S\[1\] is not symmetric"):
        c = ESKL(max_iter=3, n_iter_no_change=1).fit(mats, y)
    np.testing.assert_array_equal(mats[1], S_copy[:, :, 1])
    np.testing.assert_allclose(c.eigenvalues_, a.eigenvalues_)


def test_list_input_and_stopping_reason():
    S, y = _problem(n=24, m=2)
    est = REKL(max_iter=200).fit([S[:, :, 0], S[:, :, 1]], y)
    assert est.stop_reason_ in ("certificate", "stalled") and est.converged_
    stopped = REKL(max_iter=50, callback=lambda info: info["iteration"] == 3).fit(S, y)
    assert stopped.n_iter_ == 3 and stopped.stop_reason_ == "callback"


BAD = [
    (dict(S=np.ones((2, 5, 4))), ValueError, r"S must have shape \(n, n, m\)"),
    (dict(S=np.ones((20, 20, 0))), ValueError, "S is empty"),
    (dict(S=np.ones((20, 20, 2, 1))), ValueError, "got a 4-D array"),
    (dict(S=np.ones(20)), ValueError, "S must be"),
    (dict(S=None), TypeError, "S must be an array"),
    (dict(S=np.full((20, 20), "a")), TypeError, "S must hold real numbers"),
    (dict(S=np.ones((5, 4))), ValueError, "square"),
    (dict(S=[np.eye(5), np.eye(6)]), ValueError, "same shape"),
    (dict(y=np.array([0, 1, 0])), ValueError, "3 labels"),
    (dict(y=np.zeros(20)), ValueError, "at least 2 classes"),
    (dict(y=np.where(np.arange(20) < 10, -1, 1)), ValueError, "unlabelled"),
    (dict(y=None), ValueError, "requires y to be passed"),
    (dict(y=np.zeros((20, 2))), ValueError, "y must be 1-D"),
    (dict(y=np.full(20, -1)), ValueError, "no labelled"),
    (dict(y=np.linspace(0, 1, 20)), ValueError, "Unknown label type"),
    (dict(tau=0.0), ValueError, "tau"),
    (dict(tau=-1.0), ValueError, "tau"),
    (dict(tau="auto"), ValueError, "tau"),
    (dict(rho=-0.1), ValueError, "rho"),
    (dict(C=0.0), ValueError, "C"),
    (dict(loss="l2"), ValueError, "loss"),
    (dict(step="big"), ValueError, "step"),
    (dict(step=-1.0), ValueError, "step"),
    (dict(init="random"), ValueError, "init"),
    (dict(max_iter=0), ValueError, "max_iter"),
    (dict(max_iter=2.5), TypeError, "max_iter"),
    (dict(S=np.full((20, 20), np.nan)), ValueError, "NaN"),
    (dict(S=np.eye(20) * 1e300), ValueError, "S: .*rescale S"),  # overflows inside: said, not a NaN later
    (dict(y=[[0, 1], [1]]), ValueError, "y"),  # ragged
    (dict(callback=3), TypeError, "callback"),
]


@pytest.mark.parametrize("Est", [ESKL, EMKL, REKL])
@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_input(Est, case):
    S, y = _problem(n=20, m=1)
    kwargs, exc, match = BAD[case]
    data = {"S": S[:, :, 0], "y": y}
    params = {}
    for key, value in kwargs.items():
        (data if key in ("S", "y") else params)[key] = value
    with pytest.raises(exc, match=match):
        Est(max_iter=params.pop("max_iter", 3), **params).fit(data["S"], data["y"])


def test_bad_predict_input():
    S, y = _problem(n=20, m=2)
    with pytest.raises(NotFittedError):
        ESKL().predict(S)
    est = ESKL(max_iter=3, n_iter_no_change=1).fit(S, y)
    with pytest.raises(ValueError, match="m = 2"):
        est.predict(S[:, :, 0])  # one matrix for a model of two
    with pytest.raises(ValueError, match=r"m = 2.*\(n_test, n_train, m\)"):
        est.predict(S[:, :, :1])
    with pytest.raises(ValueError, match=r"S_test.*m = 2.*moveaxis"):
        est.predict(np.moveaxis(S[:5], -1, 0))  # the old layout (m, n_test, n_train)
    with pytest.raises(ValueError, match="n_train = 20"):
        est.predict(S[:, :5])
    with pytest.raises(ValueError, match="S_test contains NaN"):
        est.predict(np.full((3, 20, 2), np.nan))
    with pytest.raises(ValueError, match="S_test"):
        est.predict(S[0, :, 0])  # 1-D
    with pytest.raises(TypeError, match="S_test"):
        est.predict(np.full((3, 20, 2), "a"))
    with pytest.raises(ValueError, match=r"S_test\[1\]"):
        est.predict([S[:3, :, 0], np.full((3, 20), np.inf)])
    with pytest.raises(ValueError, match="one label per row"):
        est.score(S[:5], y[:4])
    assert est.predict().shape == (0,)  # no unlabelled point


def test_convergence_warning_names_the_problem():
    S, y = _problem(n=20, m=1)
    with pytest.warns(ConvergenceWarning, match="max_iter = 2"):
        est = ESKL(max_iter=2, tol=0.0).fit(S, y)
    assert not est.converged_ and est.stop_reason_ == "max_iter"


# ----------------------------------------------------------------------------- layout, cross-validation, labels


def _quiet_fit(est, S, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(S, y)


@pytest.mark.parametrize("Est", [ESKL, EMKL, REKL])
def test_3d_array_and_list_are_the_same_data(Est):
    S, y = _problem(n=30, m=2)
    a = _quiet_fit(Est(max_iter=4, random_state=0), S, y)
    b = _quiet_fit(Est(max_iter=4, random_state=0), [S[:, :, 0], S[:, :, 1]], y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    S_test = S[:9, :, :]
    np.testing.assert_allclose(a.decision_function(S_test), a.decision_function([S_test[:, :, 0], S_test[:, :, 1]]))
    np.testing.assert_allclose(
        a.decision_function(np.asfortranarray(S_test)), a.decision_function(S_test), rtol=1e-12, atol=1e-12
    )
    assert a.n_features_in_ == 30 and a.coef_.shape == (1, 2, 30)


def test_old_layout_is_refused_with_the_expected_layout():
    S, y = _problem(n=24, m=3)
    with pytest.raises(ValueError, match=r"S must have shape \(n, n, m\).*np.moveaxis\(S, 0, -1\)"):
        ESKL(max_iter=2).fit(np.moveaxis(S, -1, 0), y)  # (m, n, n)


def _manual_cv(est, S, y, cv):
    scores = []
    for train, test in cv.split(np.zeros(len(y)), y):
        fitted = _quiet_fit(clone(est), S[np.ix_(train, train)], y[train])
        scores.append(fitted.score(S[np.ix_(test, train)], y[test]))
    return np.array(scores)


@pytest.mark.parametrize("Est", [ESKL, EMKL, REKL])
def test_cross_val_score_matches_a_manual_loop(Est):
    S, y = _problem(n=48, m=2, noise=0.1)  # fully labelled: every held-out point is scored
    est = Est(max_iter=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        scores = cross_val_score(est, S, y, cv=3, error_score="raise")
    np.testing.assert_array_equal(scores, _manual_cv(est, S, y, StratifiedKFold(3)))
    assert scores.mean() > 0.6


@pytest.mark.parametrize("Est", [ESKL, EMKL, REKL])
def test_grid_search_matches_a_manual_loop(Est):
    S, y = _problem(n=48, m=2, noise=0.1)
    grid = {"C": [0.5, 5.0], "oos_rcond": [1e-8, 1e-2]}
    search = GridSearchCV(Est(max_iter=5, random_state=0), grid, cv=3, n_jobs=2, error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(S, y)
    res = search.cv_results_
    for k, params in enumerate(res["params"]):
        manual = _manual_cv(Est(max_iter=5, random_state=0, **params), S, y, StratifiedKFold(3))
        np.testing.assert_array_equal([res[f"split{j}_test_score"][k] for j in range(3)], manual)
    assert search.best_estimator_.n_features_in_ == 48  # refitted on all points
    assert search.predict(S[:5]).shape == (5,)


def test_score_leaves_out_unlabelled_entries():
    S, y = _problem(n=40, m=2, noise=0.1)
    train, test = np.arange(0, 40, 2), np.arange(1, 40, 2)
    est = _quiet_fit(ESKL(max_iter=5, random_state=0), S[np.ix_(train, train)], y[train])
    S_test = S[np.ix_(test, train)]
    y_test = y[test].copy()
    y_test[:6] = -1
    pred = est.predict(S_test)
    assert est.score(S_test, y_test) == pytest.approx(np.mean(pred[6:] == y[test][6:]))
    w = np.linspace(1, 2, len(test))
    assert est.score(S_test, y_test, sample_weight=w) == pytest.approx(
        np.average(pred[6:] == y[test][6:], weights=w[6:])
    )
    with pytest.raises(ValueError, match="no labelled entry"):
        est.score(S_test, np.full(len(test), -1))
    # so a cross-validation over semi-supervised y scores the held-out labelled points
    y_semi = y.copy()
    y_semi[::4] = -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        scores = cross_val_score(ESKL(max_iter=5, random_state=0), S, y_semi, cv=3, error_score="raise")
    assert np.all(np.isfinite(scores)) and scores.mean() > 0.6


@pytest.mark.parametrize("Est", [ESKL, EMKL, REKL])
def test_string_labels_give_the_integer_predictions(Est):
    S, y = _problem(n=36, m=2, noise=0.1)
    names = np.array(["benign", "malignant"])
    a = _quiet_fit(Est(max_iter=4, random_state=0), S, y)
    b = _quiet_fit(Est(max_iter=4, random_state=0), S, names[y])
    np.testing.assert_array_equal(b.classes_, names)
    np.testing.assert_array_equal(b.predict(S[::3]), names[a.predict(S[::3])])
    np.testing.assert_array_equal(b.transduction_, names[a.transduction_])
    assert b.score(S[::3], names[y[::3]]) == a.score(S[::3], y[::3])
    # three classes, strings against integers (one-vs-rest)
    y3 = np.arange(36) % 3
    c = _quiet_fit(Est(max_iter=3, random_state=0), S, y3)
    d = _quiet_fit(Est(max_iter=3, random_state=0), S, np.array(["x", "y", "z"])[y3])
    np.testing.assert_array_equal(d.predict(S[:7]), np.array(["x", "y", "z"])[c.predict(S[:7])])


def test_plus_minus_one_labels_are_refused():
    S, y = _problem(n=20, m=2)
    with pytest.raises(ValueError, match="unlabelled"):
        ESKL(max_iter=2).fit(S, np.where(y == 1, 1, -1))


def test_default_oos_rcond_is_the_measured_choice():
    """One default for the three, the one bench/bench_similarity_oos.py's verdict names."""
    from pathlib import Path

    defaults = {ESKL().oos_rcond, EMKL().oos_rcond, REKL().oos_rcond}
    assert defaults == {similarity._base.OOS_RCOND}
    results = Path(__file__).resolve().parents[1] / "bench" / "results" / "similarity_oos.md"
    if not results.exists():
        pytest.skip("bench/results/similarity_oos.md is not in this tree")
    assert f"default oos_rcond = {similarity._base.OOS_RCOND:g}" in results.read_text()


def _expected_failed_checks(estimator):
    return {
        # The check labels a binary problem {-1, 1}; here -1 marks unlabelled points, the
        # semi-supervised convention, which the check special-cases for scikit-learn's own
        # semi-supervised classifiers by name only.
        "check_classifiers_classes": "-1 marks unlabelled points (semi-supervised convention)",
    }


@parametrize_with_checks(
    [ESKL(max_iter=20), EMKL(max_iter=10), REKL(max_iter=20)], expected_failed_checks=_expected_failed_checks
)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        # the checks' tiny problems may stop on max_iter; that is not what they test
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_demo_section_rows():
    from kernlearn.demo import similarity_section

    rows, _ = similarity_section(seed=0, max_iter=5)
    assert [r["method"].split(" ")[0] for r in rows[-3:]] == ["ESKL", "EMKL", "REKL"]
    assert len(rows) == 7
    for r in rows:  # far above chance (sonar is balanced-ish: 53 %)
        assert float(r["test accuracy %"]) > 65.0
