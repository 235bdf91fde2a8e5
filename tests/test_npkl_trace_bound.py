"""SimpleNPKL with p = 1 (tr K <= B) and the squared hinge, hinge and square losses: fully
corrective Frank-Wolfe on the primal, against cvxpy (Clarabel), and its certificate."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from kernlearn.npkl import SimpleNPKL
from test_npkl import cvxpy_optimum, primal, problem

LOSSES = ["squared_hinge", "hinge", "square"]
# B large enough that some pairs pass their margin (t K_ij > 1): the three losses then differ.
B, C = 10.0, 0.3


def fit(loss, **kw):
    X, y, pairs, labels, L = problem()
    params = dict(p=1.0, B=B, C=C, n_neighbors=3, tol=1e-7, max_iter=2000) | kw
    return SimpleNPKL(loss, **params).fit(X, pairs=pairs, pair_labels=labels), (pairs, labels, L)


@pytest.fixture(scope="module")
def references():
    X, y, pairs, labels, L = problem()
    return {loss: cvxpy_optimum(L, pairs, labels, loss, C, B=B, p=1) for loss in LOSSES}


@pytest.mark.parametrize("loss", LOSSES)
def test_matches_the_sdp_with_a_feasible_kernel_and_a_true_certificate(loss, references):
    model, (pairs, labels, L) = fit(loss)
    assert model.converged_ and model.n_iter_ > 0
    h = model.history_
    assert h["gap"][-1] <= 1e-7 * abs(h["primal"][-1])
    ours, reference = primal(model, L, pairs, labels, loss, C), references[loss]
    assert abs(ours - reference) <= 1e-6 * abs(reference)
    assert np.isclose(h["primal"][-1], ours, rtol=1e-12)  # the reported P is that of the K returned
    assert h["gap"][-1] >= (ours - reference) - 1e-8 * abs(reference)  # never below the true gap
    assert h["dual"][-1] <= reference + 1e-8 * abs(reference)  # J is a lower bound
    K = model.kernel(dense=True)
    assert scipy.linalg.eigvalsh(K).min() >= -1e-12 * B
    assert np.trace(K) <= B * (1 + 1e-9)
    assert np.all(model.eigenvalues_ > 0)
    np.testing.assert_allclose(model.eigenvectors_.T @ model.eigenvectors_, np.eye(model.eigenvalues_.size), atol=1e-12)
    np.testing.assert_allclose(model.embedding_ @ model.embedding_.T, K, atol=1e-12)
    assert model.dual_coef_.shape == (len(pairs),)
    if loss == "hinge":
        assert np.all((model.dual_coef_ >= 0) & (model.dual_coef_ <= C))
    elif loss == "squared_hinge":
        assert np.all(model.dual_coef_ >= 0)


@pytest.mark.parametrize("loss", LOSSES)
def test_dual_coef_is_the_certified_lower_bound(loss):
    """dual_coef_ is the alpha whose J is history_'s best dual: recomputed here densely."""
    model, (pairs, labels, L) = fit(loss)
    n = L.shape[0]
    alpha = model.dual_coef_
    A = -L.copy()
    A[pairs[:, 0], pairs[:, 1]] += alpha * labels
    A[pairs[:, 1], pairs[:, 0]] += alpha * labels
    quadratic = 0.0 if loss == "hinge" else np.sum(alpha**2) / C
    J = 2 * alpha.sum() - quadratic - B * max(scipy.linalg.eigvalsh(A)[-1], 0.0)
    assert np.isclose(J, model.history_["dual"][-1], rtol=1e-9, atol=1e-12)
    assert A.shape == (n, n)


@pytest.mark.parametrize("loss", LOSSES)
def test_no_false_certificate_when_stopped_early(loss, references):
    with pytest.warns(ConvergenceWarning):
        model, (pairs, labels, L) = fit(loss, max_iter=2)
    assert not model.converged_ and model.n_iter_ == 2
    h = model.history_
    ours = primal(model, L, pairs, labels, loss, C)
    assert h["gap"][-1] > 1e-7 * abs(h["primal"][-1])
    assert h["gap"][-1] >= ours - references[loss] - 1e-8 * abs(references[loss])
    assert np.all(np.diff(h["gap"]) <= 0)  # best P minus best J never grows


def test_the_three_losses_give_different_kernels():
    # More pairs pass their margin at B = 30 than at B = 10, where squared hinge and square nearly agree.
    kernels = [fit(loss, B=30.0, C=0.1, tol=1e-5)[0].kernel(dense=True) for loss in LOSSES]
    for a in range(3):
        for b in range(a + 1, 3):
            assert np.abs(kernels[a] - kernels[b]).max() > 1e-3 * np.abs(kernels[a]).max()


@pytest.mark.parametrize("solver", ["dense", "lanczos"])
def test_lanczos_and_dense_oracles_agree(solver):
    X, y, pairs, labels, L = problem(n=90, n_pairs=80)
    kw = dict(p=1.0, B=20.0, C=0.3, n_neighbors=3, tol=1e-8, max_iter=2000, random_state=0)
    model = SimpleNPKL("squared_hinge", eigen_solver=solver, **kw).fit(X, pairs=pairs, pair_labels=labels)
    reference = SimpleNPKL("squared_hinge", eigen_solver="dense", **kw).fit(X, pairs=pairs, pair_labels=labels)
    assert model.converged_ and model.eigen_solver_ == solver
    assert model.history_["matvecs"][1:].sum() > 0 if solver == "lanczos" else True
    np.testing.assert_allclose(model.kernel(dense=True), reference.kernel(dense=True), atol=1e-5)


@pytest.mark.parametrize("loss", LOSSES)
def test_callback_stop(loss):
    X, y, *_ = problem()
    seen = []
    model = SimpleNPKL(
        loss,
        p=1.0,
        B=B,
        C=C,
        tol=1e-12,
        n_neighbors=3,
        random_state=0,
        callback=lambda info: seen.append(info) or len(seen) == 3,
    )
    with pytest.warns(ConvergenceWarning):
        model.fit(X, y)
    assert len(seen) == 3 and model.n_iter_ == 2
    assert set(seen[0]) == {"iteration", "dual", "primal", "gap", "matvecs", "rank"}


def test_ctrl_c_interrupts_the_core():
    """The core polls for Ctrl-C inside an iteration (eigensolve, restricted solve): a signal
    raised from a callback's timer reaches it as KeyboardInterrupt."""
    import signal
    import threading

    X, y, pairs, labels, L = problem(n=300, n_pairs=300)
    model = SimpleNPKL("hinge", p=1.0, B=300.0, C=1.0, n_neighbors=3, tol=1e-14, max_iter=10**6)
    # Python's own handler, even when the suite runs as a background job (SIGINT ignored there)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            model.fit(X, pairs=pairs, pair_labels=labels)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(G=1.0), "p = 1 needs the trace bound B"),
        (dict(basis=5), "basis is not supported with p = 1"),
    ],
)
def test_bad_parameters_at_p1(params, message):
    X, y, pairs, labels, L = problem()
    with pytest.raises(ValueError, match=message):
        SimpleNPKL("squared_hinge", p=1.0, n_neighbors=3, **params).fit(X, pairs=pairs, pair_labels=labels)
