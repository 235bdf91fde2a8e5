"""ESKL and EMKL restricted to a rank (kernlearn.similarity._oracles): rank = n reproduces the
dense fit, similarities as LinearOperators (on the Lanczos route) give the fit on the dense
matrices with the same rank, the objective is recomputed from the returned kernel by an
independent SVM / MKL solve, the lower bound stays below f at random feasible kernels, the
out-of-sample rule reproduces the transductive decision, and bad input fails naming the argument.
The same on a Dask cluster: tests/test_distributed_similarity.py."""

import warnings

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator, aslinearoperator
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

import similarity_problems
from kernlearn import kernels
from kernlearn._utils import _solver_choice
from kernlearn.similarity import EMKL, ESKL, REKL
from kernlearn.similarity._mkl import mkl

# The fits are cut at max_iter = 30 to stay fast: what is compared is the path of the iterates,
# the same on both sides, not its convergence.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def problem(n, seed=0):
    """similarity_problems.problem with the first 40 points labelled."""
    return similarity_problems.problem(n, seed, labelled=40)


def fitted(Est, S, y, **params):
    # libsvm to 1e-10: its default tolerance (1e-5) would turn rounding differences of the
    # kernels into decision differences of 1e-5
    return Est(**{"max_iter": 30, "svm_tol": 1e-10, "random_state": 0, **params}).fit(S, y)


def kernels_of(model):
    """The learned kernels V diag(lam) V' of problem 0: (1, n, n) for ESKL, (m, n, n) for EMKL."""
    V, lam = model.eigenvectors_[0], model.eigenvalues_[0]
    if V.ndim == 2:
        V, lam = V[None], lam[None]
    return np.stack([(Vi * li) @ Vi.T for Vi, li in zip(V, lam)])


def assert_same_fit(a, b, rtol):
    Ka, Kb = kernels_of(a), kernels_of(b)
    np.testing.assert_allclose(Kb, Ka, rtol=0, atol=rtol * np.abs(Ka).max())
    scale = np.abs(a.decision_transductive_).max()
    np.testing.assert_allclose(b.decision_transductive_, a.decision_transductive_, rtol=0, atol=rtol * scale)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=rtol * np.abs(a.coef_).max())
    np.testing.assert_allclose(b.objective_, a.objective_, rtol=rtol)
    assert a.n_iter_ == b.n_iter_
    return max(
        np.abs(Kb - Ka).max() / np.abs(Ka).max(),
        np.abs(b.decision_transductive_ - a.decision_transductive_).max() / scale,
        float(np.abs(b.objective_ - a.objective_).max() / np.abs(a.objective_).max()),
    )


def mean_subspace(S, rank):
    """LAPACK's rank eigenvectors of largest magnitude of the mean similarity (the reference B)."""
    lam, V = np.linalg.eigh(sum(S) / len(S))
    return V[:, np.argsort(-np.abs(lam))[:rank]]


def own_subspaces(S, rank):
    out = []
    for s in S:
        lam, V = np.linalg.eigh(s)
        out.append(V[:, np.argsort(-np.abs(lam))[:rank]])
    return out


# ----------------------------------------------------------------------------- rank = n


# The paper's update pairs K's eigenvalues with the subgradient's eigenvectors in ascending order,
# which is discontinuous where the subgradient has near-equal eigenvalues: from the identity start
# the dense EMKL ("sq_fro") itself moves by 2e-4 when S moves by 1e-15 (relative), so "paper" is
# compared from the Denoise start only.
@pytest.mark.parametrize("Est", [ESKL, EMKL])
@pytest.mark.parametrize("loss", ["fro", "sq_fro"])
@pytest.mark.parametrize(("init", "update"), [("denoise", "meg"), ("identity", "meg"), ("denoise", "paper")])
def test_full_rank_equals_the_dense_fit(Est, loss, init, update):
    # at rank = n the basis is orthogonal: the restricted problem is the dense one in another
    # basis, and the iterates agree up to rounding (measured: 3e-9 relative at most), with S
    # dense or as operators
    n = 70
    _, y, S = problem(n)
    params = {"loss": loss, "init": init, "update": update, "rho": 0.005 if loss == "sq_fro" else 0.05}
    dense = fitted(Est, S, y, **params)
    restricted = fitted(Est, S, y, rank=n, **params)
    on_operators = fitted(Est, [aslinearoperator(s) for s in S], y, rank=n, **params)
    assert dense.start_change_[0] > 1e-3  # the fit moved: the comparison covers the iterations
    assert assert_same_fit(dense, restricted, 1e-8) < 1e-8
    assert assert_same_fit(dense, on_operators, 1e-8) < 1e-8
    assert on_operators.eigenvectors_.shape[-2:] == (n, n)


# ----------------------------------------------------------------------------- rank < n


@pytest.fixture
def lanczos_route(monkeypatch):
    """n = 120 on the Lanczos route of leading_eigenpairs (eigsh's dense cut-off moved below it)."""
    monkeypatch.setattr(_solver_choice, "DENSE_MAX_N", 50)


@pytest.mark.parametrize("Est", [ESKL, EMKL])
@pytest.mark.parametrize("loss", ["fro", "sq_fro"])
def test_operators_equal_dense_with_the_same_rank(Est, loss, lanczos_route):
    n, rank = 120, 10
    _, y, S = problem(n)
    params = {"loss": loss, "rank": rank, "init": "identity", "rho": 0.05 if loss == "sq_fro" else 0.5}
    dense = fitted(Est, S, y, **params)
    on_operators = fitted(Est, [aslinearoperator(s) for s in S], y, **params)
    # Lanczos eigenvectors (1e-12 from LAPACK's here) on one side, LAPACK's on the other. EMKL's
    # MKL alternation stops at mkl_tol = 1e-5 and amplifies: a perturbation of S by 1e-13 moves
    # the dense rank-10 EMKL fit itself by 3e-7 (decision values, relative)
    tolerance = 1e-8 if Est is ESKL else 1e-5
    assert assert_same_fit(dense, on_operators, tolerance) < tolerance
    r = dense.eigenvalues_.shape[-1]
    assert r == rank and dense.eigenvectors_.shape[-2:] == (n, rank)
    assert on_operators.start_change_[0] > 1e-2
    assert np.all(dense.eigenvalues_ > 0)
    np.testing.assert_allclose(dense.eigenvalues_.sum(axis=-1), dense.tau_, rtol=1e-12)
    bases = [mean_subspace(S, rank)] if Est is ESKL else own_subspaces(S, rank)
    for model in (dense, on_operators):
        V = model.eigenvectors_[0] if Est is EMKL else model.eigenvectors_[0][None]
        for Vi, B in zip(V, bases):
            np.testing.assert_allclose(Vi.T @ Vi, np.eye(rank), atol=1e-10)  # orthonormal columns
            assert np.linalg.norm(Vi - B @ (B.T @ Vi)) < 1e-7  # in the span of B
        h = model.history_
        assert np.all(h["lower_bound"] <= h["best"] + 1e-12 * np.abs(h["best"]))


@pytest.mark.parametrize("Est", [ESKL, EMKL])
def test_the_certificate_stops_a_restricted_fit(Est):
    _, y, S = problem(100)
    ops = [aslinearoperator(s) for s in S]
    # the gap shrinks as 1/sqrt(t) (module docstring of _base): 3 % within about 30 iterations here
    model = fitted(Est, ops, y, rank=3, rho=0.5, tol=0.03, max_iter=300, n_iter_no_change=300)
    assert model.stop_reason_ == "certificate" and model.converged_
    h = model.history_
    assert h["best"][-1] - h["lower_bound"][-1] <= 0.03 * h["best"][-1]
    assert model.objective_[0] == h["best"][-1] and model.start_change_[0] > 1e-2


def svm_dual_value(K_lab, y_pm, C):
    """omega(K) of eq. (1) by scikit-learn's SVC alone: sum alpha - beta' K beta / 2."""
    svc = SVC(kernel="precomputed", C=C, tol=1e-12).fit(K_lab, y_pm)
    beta = np.zeros(len(y_pm))
    beta[svc.support_] = svc.dual_coef_[0]
    return np.abs(beta).sum() - 0.5 * beta @ K_lab @ beta


@pytest.mark.parametrize("loss", ["fro", "sq_fro"])
def test_eskl_objective_recomputed_from_the_kernel(loss):
    # f(Kr) = omega(K_lab) + rho sum_i L(Kr, B'S_iB), recomputed in n-space with numpy: the "fro"
    # loss is the distance of K to the compressed similarity B B' S_i B B', the "sq_fro" loss the
    # full ||K - S_i||_F^2 less the part of S_i outside the subspace
    n, rank, rho, C = 100, 8, 0.5, 1.0
    _, y, S = problem(n)
    model = fitted(ESKL, [aslinearoperator(s) for s in S], y, loss=loss, rank=rank, rho=rho, C=C)
    K = kernels_of(model)[0]
    lab = y != -1
    y_pm = np.where(y[lab] == model.classes_[1], 1.0, -1.0)
    B = mean_subspace(S, rank)
    P = B @ B.T
    f = svm_dual_value(K[np.ix_(lab, lab)], y_pm, C)
    for s in S:
        compressed = P @ s @ P
        if loss == "fro":
            f += rho * np.linalg.norm(K - compressed)
        else:
            f += rho * (np.linalg.norm(K - s) ** 2 - np.linalg.norm(s - compressed) ** 2)
    assert model.objective_[0] == pytest.approx(f, rel=1e-7)
    # the certificate's lower bound is below f at random kernels of the restricted spectraplex
    rng = np.random.default_rng(1)
    for _ in range(5):
        A = rng.standard_normal((rank, rank))
        Kr = A @ A.T
        Kr *= model.tau_ / np.trace(Kr)
        K = B @ Kr @ B.T
        f_random = svm_dual_value(K[np.ix_(lab, lab)], y_pm, C)
        for s in S:
            distance = np.linalg.norm(Kr - B.T @ s @ B)  # = ||K - P S_i P||_F
            f_random += rho * (distance if loss == "fro" else distance**2)
        assert model.history_["lower_bound"][-1] <= f_random


def test_emkl_objective_recomputed_from_the_kernels():
    n, rank, rho, C = 100, 8, 0.5, 1.0
    _, y, S = problem(n)
    ops = [aslinearoperator(s) for s in S]
    model = fitted(EMKL, ops, y, loss="fro", rank=rank, rho=rho, C=C, mkl_tol=1e-12, mkl_max_iter=200)
    Ks = kernels_of(model)
    lab = y != -1
    y_pm = np.where(y[lab] == model.classes_[1], 1.0, -1.0)
    f = mkl(Ks[:, lab][:, :, lab], y_pm, C, tol=1e-14, max_iter=500, svm_tol=1e-12)["omega"]
    bases = own_subspaces(S, rank)
    for K, s, B in zip(Ks, S, bases):
        f += rho * np.linalg.norm(K - B @ (B.T @ s @ B) @ B.T)
    assert model.objective_[0] == pytest.approx(f, rel=1e-6)
    # the certificate's lower bound is below f at random kernels of the restricted spectraplices
    rng = np.random.default_rng(1)
    for _ in range(3):
        Ks = []
        for B in bases:
            A = rng.standard_normal((rank, rank))
            Ks.append(B @ (A @ A.T) @ B.T * model.tau_ / np.trace(A @ A.T))
        Ks = np.stack(Ks)
        f_random = mkl(Ks[:, lab][:, :, lab], y_pm, C, tol=1e-14, max_iter=500, svm_tol=1e-12)["omega"]
        for K, s, B in zip(Ks, S, bases):
            f_random += rho * np.linalg.norm(K - B @ (B.T @ s @ B) @ B.T)
        assert model.history_["lower_bound"][-1] <= f_random
    assert model.gamma_.shape == (1, 2) and model.gamma_.sum() == pytest.approx(1.0)


# ----------------------------------------------------------------------------- prediction


@pytest.mark.parametrize("Est", [ESKL, EMKL])
def test_prediction_with_operators_and_out_of_sample_rule(Est):
    X, y, S = problem(100)
    model = fitted(Est, [aslinearoperator(s) for s in S], y, rank=10, init="identity", oos_rcond=1e-12)
    X_test = np.random.default_rng(5).standard_normal((30, 4))
    blocks = [kernels.rbf_kernel(X_test, X, gamma=0.25), kernels.tl1_kernel(X_test, X, tau=2.0)]
    expected = model.decision_function(np.stack(blocks, axis=-1))
    on_operators = model.decision_function([aslinearoperator(b) for b in blocks])
    np.testing.assert_allclose(on_operators, expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    labels = model.predict([aslinearoperator(b) for b in blocks])
    np.testing.assert_array_equal(labels, model.predict(np.stack(blocks, axis=-1)))
    # the rows of the fitted points reproduce the transductive decision: s(x)' S^+ K = K's row
    # for K in the span of the truncation
    unl = np.flatnonzero(y == -1)
    rows = [aslinearoperator(np.ascontiguousarray(s[unl])) for s in S]
    np.testing.assert_allclose(model.decision_function(rows), model.decision_function(), rtol=0, atol=1e-8)
    assert model.coef_.shape == (1, 2, 100)


# ----------------------------------------------------------------------------- bad input


class Asymmetric(LinearOperator):
    def __init__(self, A):
        self.A = A
        super().__init__(np.float64, A.shape)

    def _matmat(self, V):
        return self.A @ V


@pytest.mark.parametrize("Est", [ESKL, EMKL])
def test_bad_input_with_a_rank(Est):
    _, y, S = problem(60)
    ops = [aslinearoperator(s) for s in S]
    with pytest.raises(ValueError, match=f"rank is required .*{Est.__name__} then keeps"):
        Est(rank=None).fit(ops, y)  # the dense fit, explicitly (the default "auto" takes a rank)
    with pytest.raises(ValueError, match="rank must be <= n = 60"):
        Est(rank=61).fit(ops, y)
    with pytest.raises(ValueError, match="rank"):
        Est(rank=0).fit(S, y)
    for loss, shown in (("l1", "loss='l1'"), (lambda K, S: (0.0, 0 * K), "a callable loss")):
        for data in (ops, S):
            with pytest.raises(ValueError, match=f"{Est.__name__} with rank .* cannot use {shown}.*change of basis"):
                Est(loss, rank=5).fit(data, y)
    with pytest.raises(ValueError, match=r"S\[1\] is not symmetric"):
        Est(rank=5).fit([ops[0], Asymmetric(S[1] + np.triu(np.ones((60, 60))))], y)
    Est("l1", max_iter=3).fit(S, y)  # the dense fit keeps every loss
    REKL("l1", rank=5, max_iter=3).fit(ops, y)  # REKL's losses act on spectra: l1 stays


def test_inputs_not_modified_and_dense_mixed_with_operators():
    _, y, S = problem(80)
    copies = [s.copy() for s in S]
    # 2e-8: thirty mirror steps with libsvm at 1e-10 amplify the rounding of the two bases; the
    # kernels' entries moved by up to 2 ulp with the SIMD kernel rows (kernel_rows.hpp), which took
    # EMKL's agreement from 5e-10 to 1.1e-8 on this problem.
    for Est in (ESKL, EMKL):
        mixed = fitted(Est, [S[0], aslinearoperator(S[1])], y, rank=80, init="identity")
        assert_same_fit(fitted(Est, S, y, init="identity"), mixed, 2e-8)
        for s, c in zip(S, copies):
            np.testing.assert_array_equal(s, c)


def test_multiclass_with_a_rank():
    X, y, S = problem(90)
    y = np.where(y == -1, -1, y + (X[:, 0] > 1.5))  # three classes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = ESKL(rank=6, max_iter=10, random_state=0).fit([aslinearoperator(s) for s in S], y)
    assert model.eigenvalues_.shape == (3, 6) and model.eigenvectors_.shape == (3, 90, 6)
    assert model.predict().shape == ((y == -1).sum(),)
