"""SimpleNPKL against cvxpy (Clarabel) on small problems, and its optimality certificates."""

import cvxpy as cp
import numpy as np
import pytest
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from kernlearn.constraints import from_labels
from kernlearn.graph import knn_graph, laplacian
from kernlearn.npkl import SimpleNPKL


def problem(n=30, seed=0, graph="symmetric", n_pairs=25):
    """Points in three blobs, pairs from their labels, and the Laplacian SimpleNPKL builds."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3 + 1)[:n]
    X = rng.standard_normal((n, 2)) + 3.0 * np.c_[np.cos(2 * y), np.sin(2 * y)]
    pairs, labels = from_labels(y, n_pairs=n_pairs, random_state=seed)
    L = laplacian(knn_graph(X, 3, mode=graph), "normalized").toarray()
    return X, y, pairs, labels, L


def entries(K, pairs):
    return K[pairs[:, 0], pairs[:, 1]]


def cvxpy_optimum(L, pairs, labels, loss, C, B=1.0, p=2.0):
    """The primal (each constraint counted twice) solved as an SDP by Clarabel."""
    n = L.shape[0]
    K = cp.Variable((n, n), PSD=True)
    tk = cp.multiply(labels, K[pairs[:, 0], pairs[:, 1]])
    fit = cp.trace(L @ K)
    if loss == "linear":
        fit = fit - 2 * C * cp.sum(tk)
    elif loss == "squared_hinge":
        fit = fit + C * cp.sum_squares(cp.pos(1 - tk))
    elif loss == "square":
        fit = fit + C * cp.sum_squares(1 - tk)
    else:
        fit = fit + 2 * C * cp.sum(cp.pos(1 - tk))
    bound = cp.trace(K) <= B if p == 1 else cp.norm(K, "fro") <= np.sqrt(B)
    value = cp.Problem(cp.Minimize(fit), [bound]).solve(
        solver=cp.CLARABEL, tol_gap_rel=1e-10, tol_gap_abs=1e-10, tol_feas=1e-10
    )
    return value


def primal(model, L, pairs, labels, loss, C):
    K = model.kernel(dense=True)
    tk = labels * entries(K, pairs)
    value = np.trace(L @ K)
    if loss == "linear":
        return value - 2 * C * tk.sum()
    if loss == "squared_hinge":
        return value + C * np.sum(np.maximum(0, 1 - tk) ** 2)
    if loss == "square":
        return value + C * np.sum((1 - tk) ** 2)
    return value + 2 * C * np.sum(np.maximum(0, 1 - tk))


@pytest.mark.parametrize("graph", ["mutual", "symmetric"])
@pytest.mark.parametrize("p", [1.0, 2.0])
def test_linear_loss_closed_form_matches_the_sdp(graph, p):
    X, y, pairs, labels, L = problem(graph=graph)
    model = SimpleNPKL("linear", C=0.5, B=2.0, p=p, n_neighbors=3, graph=graph).fit(X, pairs=pairs, pair_labels=labels)
    ours = primal(model, L, pairs, labels, "linear", 0.5)
    reference = cvxpy_optimum(L, pairs, labels, "linear", 0.5, B=2.0, p=p)
    assert abs(ours - reference) <= 1e-6 * abs(reference)
    # the bound is active and the reported history agrees with the dense recomputation
    K = model.kernel(dense=True)
    assert np.isclose(np.trace(K) if p == 1 else np.sum(K * K), 2.0, rtol=1e-8)
    assert np.isclose(model.history_["primal"][-1], ours, rtol=1e-8)


def test_mutual_graph_has_isolated_points_here():
    *_, L = problem(graph="mutual")
    assert np.any(np.diag(L) == 0)  # the mutual-graph case the Laplacian convention is about


def test_p3_closed_form_is_hoelder_optimal():
    X, y, pairs, labels, L = problem()
    model = SimpleNPKL("linear", C=0.5, B=1.5, p=3.0, n_neighbors=3).fit(X, pairs=pairs, pair_labels=labels)
    n = L.shape[0]
    T = np.zeros((n, n))
    T[pairs[:, 0], pairs[:, 1]] = T[pairs[:, 1], pairs[:, 0]] = labels
    A = 0.5 * T - L
    sigma = scipy.linalg.eigvalsh(A)
    best = 1.5 ** (1 / 3) * np.sum(np.clip(sigma, 0, None) ** 1.5) ** (1 / 1.5)
    K = model.kernel(dense=True)
    assert np.isclose(np.sum(K * A), best, rtol=1e-8)
    assert np.isclose(np.sum(scipy.linalg.eigvalsh(K) ** 3), 1.5, rtol=1e-8)
    rng = np.random.default_rng(1)
    for _ in range(20):  # no random feasible kernel does better
        F = rng.standard_normal((n, 4))
        R = F @ F.T
        R *= (1.5 / np.sum(scipy.linalg.eigvalsh(R) ** 3)) ** (1 / 3)
        assert np.sum(R * A) <= best + 1e-12


def test_bound_and_penalty_forms_agree():
    X, y, pairs, labels, L = problem()
    bound = SimpleNPKL("linear", C=0.5, B=2.0, n_neighbors=3).fit(X, pairs=pairs, pair_labels=labels)
    # Proposition 2 with G = (tr A_+^q / B)^((p - 1) / p), p = q = 2: G = |A_+|_F / sqrt(B)
    n = L.shape[0]
    T = np.zeros((n, n))
    T[pairs[:, 0], pairs[:, 1]] = T[pairs[:, 1], pairs[:, 0]] = labels
    sigma = scipy.linalg.eigvalsh(0.5 * T - L)
    G = np.sqrt(np.sum(np.clip(sigma, 0, None) ** 2) / 2.0)
    penalty = SimpleNPKL("linear", C=0.5, G=G, n_neighbors=3).fit(X, pairs=pairs, pair_labels=labels)
    np.testing.assert_allclose(penalty.kernel(dense=True), bound.kernel(dense=True), atol=1e-10)


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge", "square"])
def test_saddle_point_matches_the_sdp_and_certifies_its_gap(loss):
    X, y, pairs, labels, L = problem()
    model = SimpleNPKL(loss, C=0.3, B=1.0, n_neighbors=3, tol=1e-7, max_iter=5000).fit(
        X, pairs=pairs, pair_labels=labels
    )
    assert model.converged_
    h = model.history_
    assert h["gap"][-1] <= 1e-7 * h["primal"][-1]
    ours = primal(model, L, pairs, labels, loss, 0.3)
    reference = cvxpy_optimum(L, pairs, labels, loss, 0.3)
    assert abs(ours - reference) <= 1e-4 * abs(reference)
    assert ours >= reference - 1e-6 * abs(reference)  # K is feasible: never below the optimum
    assert np.all(np.diff(h["dual"]) >= -1e-10 * np.abs(h["dual"][:-1]))  # J never decreases
    if loss == "hinge":
        assert np.all((model.dual_coef_ >= 0) & (model.dual_coef_ <= 0.3))
    elif loss == "squared_hinge":
        assert np.all(model.dual_coef_ >= 0)


def test_lanczos_equals_dense():
    X, y, pairs, labels, L = problem(n=60, n_pairs=60)
    kw = dict(C=0.3, B=6.0, n_neighbors=3, tol=1e-9, max_iter=5000)
    dense = SimpleNPKL(eigen_solver="dense", **kw).fit(X, pairs=pairs, pair_labels=labels)
    lanczos = SimpleNPKL(eigen_solver="lanczos", random_state=0, **kw).fit(X, pairs=pairs, pair_labels=labels)
    assert dense.n_iter_ > 5  # a real saddle-point run, not the first iterate
    np.testing.assert_allclose(lanczos.kernel(dense=True), dense.kernel(dense=True), atol=1e-6)
    np.testing.assert_allclose(lanczos.dual_coef_, dense.dual_coef_, atol=1e-5)


@pytest.mark.parametrize("graph, n_pairs, C, mrrr", [("symmetric", 20, 0.01, True), ("mutual", 200, 1.0, False)])
def test_dense_route_equals_numpy_closed_form(graph, n_pairs, C, mrrr):
    """The dense route takes T's wanted pairs by MRRR when they are at most a tenth of n, by
    divide and conquer otherwise, and transforms only those back: both against numpy's eigh."""
    X, y, pairs, labels, L = problem(n=300, n_pairs=n_pairs, graph=graph)
    model = SimpleNPKL("linear", C=C, B=2.0, n_neighbors=3, graph=graph, eigen_solver="dense")
    model.fit(X, pairs=pairs, pair_labels=labels)
    T = np.zeros_like(L)
    T[pairs[:, 0], pairs[:, 1]] = T[pairs[:, 1], pairs[:, 0]] = labels
    w, V = scipy.linalg.eigh(C * T - L)
    positive = w > 1e-10 * np.abs(w).max()
    assert (positive.sum() <= 30) == mrrr  # the branch this case is for
    plus = (V[:, positive] * w[positive]) @ V[:, positive].T
    np.testing.assert_allclose(model.kernel(dense=True), np.sqrt(2.0) * plus / np.linalg.norm(plus), atol=1e-12)
    np.testing.assert_allclose(model.eigenvectors_.T @ model.eigenvectors_, np.eye(positive.sum()), atol=1e-13)


@pytest.mark.parametrize("loss", ["linear", "squared_hinge"])
def test_mixed_precision_equals_dense(loss):
    """Single-precision reduction, one Rayleigh-Ritz step in double: the same positive count,
    eigenvalues to rounding, an orthonormal factor, and a certified gap that holds for the K
    returned (its primal recomputed here in double)."""
    X, y, pairs, labels, L = problem(n=300, n_pairs=300, graph="mutual")
    kw = dict(C=1.0, B=30.0, n_neighbors=3, graph="mutual", tol=1e-8, max_iter=5000)
    dense = SimpleNPKL(loss, eigen_solver="dense", **kw).fit(X, pairs=pairs, pair_labels=labels)
    mixed = SimpleNPKL(loss, eigen_solver="mixed", **kw).fit(X, pairs=pairs, pair_labels=labels)
    assert (dense.eigen_solver_, mixed.eigen_solver_) == ("dense", "mixed")
    assert mixed.eigenvalues_.size == dense.eigenvalues_.size > 30  # a large positive rank
    V = mixed.eigenvectors_
    np.testing.assert_allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-12)
    np.testing.assert_allclose(mixed.eigenvalues_, dense.eigenvalues_, atol=1e-7 * dense.eigenvalues_[0])
    np.testing.assert_allclose(mixed.kernel(dense=True), dense.kernel(dense=True), atol=1e-4 * dense.eigenvalues_[0])
    h = mixed.history_
    assert h["gap"][-1] <= 1e-8 * abs(h["primal"][-1])
    ours, reference = primal(mixed, L, pairs, labels, loss, 1.0), primal(dense, L, pairs, labels, loss, 1.0)
    assert abs(ours - reference) <= 1e-8 * abs(reference)


def test_auto_reduces_in_single_precision_from_2000_points():
    X, y, pairs, labels, L = problem(n=2000, n_pairs=2000, graph="mutual")
    kw = dict(C=1.0, n_neighbors=3, graph="mutual")
    model = SimpleNPKL("linear", **kw).fit(X, pairs=pairs, pair_labels=labels)
    assert model.eigen_solver_ == "mixed"
    exact = SimpleNPKL("linear", eigen_solver="dense", **kw).fit(X, pairs=pairs, pair_labels=labels)
    assert exact.eigen_solver_ == "dense"  # an explicit "dense" stays in double precision
    np.testing.assert_allclose(model.eigenvalues_, exact.eigenvalues_, atol=1e-9 * exact.eigenvalues_[0])


@pytest.mark.parametrize("solver", ["dense", "mixed"])
@pytest.mark.parametrize("rank, p", [(2, 2.0), (5, 2.0), ("auto", 1.0)])
def test_dense_routes_with_a_rank_cap_and_p1(solver, rank, p):
    """The top-r truncation and p = 1 (the top eigenvalue's eigenspace) on both dense routes,
    against numpy's eigh of A = C T - L."""
    X, y, pairs, labels, L = problem(n=120, n_pairs=150, graph="mutual")
    model = SimpleNPKL("linear", C=1.0, B=3.0, p=p, rank=rank, n_neighbors=3, graph="mutual", eigen_solver=solver)
    model.fit(X, pairs=pairs, pair_labels=labels)
    T = np.zeros_like(L)
    T[pairs[:, 0], pairs[:, 1]] = T[pairs[:, 1], pairs[:, 0]] = labels
    w, V = scipy.linalg.eigh(T - L)
    top = np.arange(len(w) - 1, len(w) - 1 - (1 if p == 1 else rank), -1)
    assert w[top[-1]] > w[top[-1] - 1] + 1e-6  # the cut falls in a gap: the answer is unique
    lam = w[top] if p == 2 else np.ones(1)
    scale = np.sqrt(3.0) / np.linalg.norm(lam) if p == 2 else 3.0
    expected = (V[:, top] * (scale * lam)) @ V[:, top].T
    atol = 1e-12 if solver == "dense" else 1e-6
    np.testing.assert_allclose(model.kernel(dense=True), expected, atol=atol * np.abs(expected).max())
    assert model.eigen_solver_ == solver


def test_first_solve_costs_no_more_than_later_ones_and_warm_start_agrees():
    X, y, pairs, labels, L = problem(n=600, n_pairs=400, graph="mutual")
    kw = dict(
        C=0.3, B=60.0, n_neighbors=5, graph="mutual", eigen_solver="lanczos", random_state=0, tol=1e-6, step="lipschitz"
    )
    cold = SimpleNPKL(**kw).fit(X, pairs=pairs, pair_labels=labels)
    matvecs = cold.history_["matvecs"]
    assert cold.n_iter_ >= 5
    # Each later solve is sized by the previous rank (59 here), and the first one, from a guess
    # of 10, grows its window as soon as every Ritz value in it is above zero: it costs no more
    # than the later ones (940 products against 953-984; before the window grew early it took
    # 1,985, and this test asked for later solves below half of the first).
    assert matvecs[0] <= 1.1 * matvecs[1:].min()
    warm = SimpleNPKL(warm_start=True, **kw).fit(X, pairs=pairs, pair_labels=labels)
    np.testing.assert_allclose(warm.kernel(dense=True), cold.kernel(dense=True), atol=1e-6)
    assert warm.history_["matvecs"][0] <= 1.1 * warm.history_["matvecs"][1:].min()


def test_truncated_rank_is_the_top_r():
    X, y, pairs, labels, L = problem(n=60, n_pairs=60)
    full = SimpleNPKL("linear", C=0.3, n_neighbors=3).fit(X, pairs=pairs, pair_labels=labels)
    top = SimpleNPKL("linear", C=0.3, n_neighbors=3, rank=2).fit(X, pairs=pairs, pair_labels=labels)
    assert top.eigenvalues_.size == 2 < full.eigenvalues_.size
    ratio = top.eigenvalues_ / full.eigenvalues_[:2]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-8)  # same directions, rescaled to the bound
    np.testing.assert_allclose(np.abs(top.eigenvectors_.T @ full.eigenvectors_[:, :2]), np.eye(2), atol=1e-6)


@pytest.mark.parametrize("loss, rank", [("linear", 12), ("squared_hinge", 12), ("linear", 60)])
def test_top_r_by_the_filtered_lanczos_equals_dense(loss, rank):
    """From n = 64 the top-r solves run Lanczos on a Chebyshev filter of A: the same pairs as
    LAPACK's, and eigenvectors of A itself (residuals against the A of the last iterate, within
    the eigensolver's 1e-10 |A|). Rank 60 exceeds the positive count (the filter's order fails
    below zero, and plain Lanczos finishes)."""
    X, y, pairs, labels, L = problem(n=150, n_pairs=150, graph="mutual")
    kw = dict(C=0.3, B=1.0, n_neighbors=3, graph="mutual", rank=rank, tol=1e-8, max_iter=500)
    lanczos = SimpleNPKL(loss, eigen_solver="lanczos", **kw).fit(X, pairs=pairs, pair_labels=labels)
    dense = SimpleNPKL(loss, eigen_solver="dense", **kw).fit(X, pairs=pairs, pair_labels=labels)
    assert lanczos.eigen_solver_ == "lanczos"
    assert lanczos.eigenvalues_.size == dense.eigenvalues_.size == (rank if rank == 12 else 32)  # 32 positive
    np.testing.assert_allclose(lanczos.eigenvalues_, dense.eigenvalues_, rtol=1e-6)
    np.testing.assert_allclose(lanczos.kernel(dense=True), dense.kernel(dense=True), atol=1e-6)
    if loss == "linear":
        T = np.zeros_like(L)
        T[pairs[:, 0], pairs[:, 1]] = T[pairs[:, 1], pairs[:, 0]] = labels
        A = 0.3 * T - L
        V = lanczos.eigenvectors_
        theta = np.einsum("ij,ij->j", V, A @ V)
        residual = np.linalg.norm(A @ V - V * theta, axis=0)
        assert residual.max() <= 2e-10 * np.abs(scipy.linalg.eigvalsh(A)).max()
        top = scipy.linalg.eigvalsh(A)[::-1][: V.shape[1]]
        np.testing.assert_allclose(theta, top, rtol=1e-9)


def test_active_constraints_keep_exactly_the_selected_points_pairs():
    X, y, pairs, labels, L = problem(n=60, n_pairs=60)
    model = SimpleNPKL("linear", C=0.3, n_neighbors=3, active_constraints=5).fit(X, pairs=pairs, pair_labels=labels)
    kept = {tuple(p) for p in model.pairs_.tolist()}
    ends = np.unique(model.pairs_)
    counts = {i: sum(i in p for p in kept) for i in ends}
    all_pairs = {tuple(p) for p in pairs.tolist()}
    assert kept <= all_pairs
    # every kept pair touches a selected point, and every pair of a selected point is kept
    selected = {i for i in ends if counts[i] == sum(i in p for p in all_pairs)}
    assert all(a in selected or b in selected for a, b in kept)
    assert len(selected) >= 5


def test_kernel_outputs_and_determinism():
    X, y, pairs, labels, L = problem()
    a = SimpleNPKL(C=0.3, n_neighbors=3, random_state=0, eigen_solver="lanczos").fit(X, pairs=pairs, pair_labels=labels)
    b = SimpleNPKL(C=0.3, n_neighbors=3, random_state=0, eigen_solver="lanczos").fit(X, pairs=pairs, pair_labels=labels)
    np.testing.assert_array_equal(a.eigenvectors_, b.eigenvectors_)
    F = a.kernel()
    np.testing.assert_allclose(F @ F.T, a.kernel(dense=True), atol=1e-12)
    assert a.embedding_.shape == (30, a.eigenvalues_.size)


def test_fit_from_labels_and_callback_stop():
    X, y, *_ = problem()
    seen = []
    model = SimpleNPKL(
        C=0.3,
        B=6.0,
        tol=1e-10,
        n_neighbors=3,
        random_state=0,
        callback=lambda info: seen.append(info) or len(seen) == 3,
    )
    with pytest.warns(ConvergenceWarning):
        model.fit(X, y)
    assert len(seen) == 3 and model.n_iter_ == 2
    assert set(seen[0]) == {"iteration", "dual", "primal", "gap", "matvecs", "rank"}


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(B=0.0), "B must be > 0"),
        (dict(G=-1.0), "G must be > 0"),
        (dict(B=1.0, G=1.0), "not both"),
        (dict(p=0.5), "p must be >= 1"),
        (dict(C=0.0), "C must be >= 1e-300"),
        (dict(n_neighbors=30), "n_neighbors must be < 30"),
        (dict(loss="log"), "loss must be one of"),
        (dict(rank=0), "rank must be >= 1"),
        (dict(eigen_solver="arpack"), "eigen_solver must be one of"),
        (dict(basis=30), "basis must be < 30"),
    ],
)
def test_bad_parameters(params, message):
    X, y, pairs, labels, L = problem()
    with pytest.raises(ValueError, match=message):
        SimpleNPKL(**params).fit(X, pairs=pairs, pair_labels=labels)


def test_bad_data_and_pairs():
    X, y, pairs, labels, L = problem()
    model = SimpleNPKL(n_neighbors=3)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        model.fit(bad, pairs=pairs, pair_labels=labels)
    with pytest.raises(ValueError, match="out of range"):
        model.fit(X, pairs=np.r_[pairs, [[0, 30]]], pair_labels=np.r_[labels, 1])
    with pytest.raises(ValueError, match="with itself"):
        model.fit(X, pairs=np.r_[pairs, [[4, 4]]], pair_labels=np.r_[labels, 1])
    dup = np.r_[pairs, pairs[:1, ::-1]]
    with pytest.raises(ValueError, match="duplicated"):
        model.fit(X, pairs=dup, pair_labels=np.r_[labels, labels[:1]])
    with pytest.raises(ValueError, match="contradictory"):
        model.fit(X, pairs=dup, pair_labels=np.r_[labels, -labels[:1]])
    with pytest.raises(ValueError, match="pairs is empty"):
        model.fit(X, pairs=np.zeros((0, 2), int), pair_labels=np.zeros(0))
    with pytest.raises(ValueError, match="pair_labels is required"):
        model.fit(X, pairs=pairs)
    with pytest.raises(ValueError, match="or labels y"):
        model.fit(X)
    with pytest.warns(UserWarning, match="only must-link"):
        keep = labels > 0
        SimpleNPKL("linear", n_neighbors=3).fit(X, pairs=pairs[keep], pair_labels=labels[keep])


def test_inputs_are_not_modified():
    X, y, pairs, labels, L = problem()
    copies = [a.copy() for a in (X, pairs, labels)]
    with pytest.warns(ConvergenceWarning):
        SimpleNPKL(n_neighbors=3, max_iter=5, tol=1e-14).fit(X, pairs=pairs, pair_labels=labels)
    for a, b in zip((X, pairs, labels), copies):
        np.testing.assert_array_equal(a, b)


def checked_basis(model, L, r):
    """The model's U: orthonormal, spanning eigenvectors of L's r smallest eigenvalues."""
    U = model.basis_
    np.testing.assert_allclose(U.T @ U, np.eye(r), atol=1e-10)
    smallest = scipy.linalg.eigvalsh(L)[:r]
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(U.T @ L @ U)), smallest, atol=1e-8)
    return U


def test_fixed_basis_linear_loss_is_the_projected_closed_form():
    X, y, pairs, labels, L = problem(n=60, n_pairs=60)
    model = SimpleNPKL("linear", C=0.3, B=2.0, n_neighbors=3, basis=8, basis_from="laplacian").fit(
        X, pairs=pairs, pair_labels=labels
    )
    assert model.eigen_solver_ == "basis"
    U = checked_basis(model, L, 8)
    n = L.shape[0]
    T = np.zeros((n, n))
    T[pairs[:, 0], pairs[:, 1]] = T[pairs[:, 1], pairs[:, 0]] = labels
    w, S = scipy.linalg.eigh(U.T @ (0.3 * T - L) @ U)
    w = np.clip(w, 0, None)
    E = (S * (np.sqrt(2.0) * w / np.linalg.norm(w))) @ S.T
    np.testing.assert_allclose(model.kernel(dense=True), U @ E @ U.T, atol=1e-8)


def test_fixed_basis_saddle_point_matches_the_restricted_sdp():
    X, y, pairs, labels, L = problem(n=60, n_pairs=60)
    model = SimpleNPKL(C=0.3, B=4.0, n_neighbors=3, basis=10, basis_from="laplacian", tol=1e-8, max_iter=5000).fit(
        X, pairs=pairs, pair_labels=labels
    )
    assert model.converged_
    U = checked_basis(model, L, 10)
    E = cp.Variable((10, 10), PSD=True)
    K = U @ E @ U.T
    tk = cp.multiply(labels, cp.hstack([K[i, j] for i, j in pairs]))
    objective = cp.trace(U.T @ L @ U @ E) + 0.3 * cp.sum_squares(cp.pos(1 - tk))
    reference = cp.Problem(cp.Minimize(objective), [cp.norm(E, "fro") <= 2.0]).solve(solver=cp.CLARABEL)
    ours = primal(model, L, pairs, labels, "squared_hinge", 0.3)
    assert abs(ours - reference) <= 1e-4 * abs(reference)


def test_auto_rank_refuses_an_impossible_exact_solve(monkeypatch):
    from kernlearn._utils import _solver_choice

    monkeypatch.setattr(_solver_choice, "DENSE_LIMIT_N", 500)  # pretend 600 points are too many for LAPACK
    X, y, pairs, labels, L = problem(n=600, n_pairs=400)
    with pytest.raises(ValueError, match="rank=<int>"):
        SimpleNPKL("linear", C=1.0).fit(X, pairs=pairs, pair_labels=labels)
    # A rank Lanczos would find (below DENSE_FRACTION n), but whose two bases would outgrow the
    # dense matrix refused above: refused as well (at n = 10^5 and 5% of n they need 13 GB).
    monkeypatch.setattr(_solver_choice, "DENSE_LIMIT_N", 60)
    monkeypatch.setattr(_solver_choice, "DENSE_FRACTION", 1.0)
    with pytest.raises(ValueError, match="rank=<int>"):
        SimpleNPKL("linear", C=1.0).fit(X, pairs=pairs, pair_labels=labels)


def test_unconverged_eigensolves_are_reported():
    """The core counts Lanczos runs stopped by their mat-vec cap (their pairs used as found): the
    estimators turn a non-zero count into a ConvergenceWarning and stay silent otherwise."""
    import warnings as warnings_module
    from types import SimpleNamespace

    from sklearn.exceptions import ConvergenceWarning

    from kernlearn._utils._validation import warn_unconverged_eigensolves

    with pytest.warns(ConvergenceWarning, match="2 Lanczos eigensolve"):
        warn_unconverged_eigensolves(SimpleNamespace(unconverged_eigensolves=2), "SimpleNPKL")
    with warnings_module.catch_warnings():
        warnings_module.simplefilter("error")
        warn_unconverged_eigensolves(SimpleNamespace(unconverged_eigensolves=0), "SimpleNPKL")
    X, y, pairs, labels, L = problem(n=120, n_pairs=80)
    out = SimpleNPKL("squared_hinge", C=1.0, eigen_solver="lanczos").fit(X, pairs=pairs, pair_labels=labels)
    assert out.converged_


def mixture_with_a_large_first_rank(n=600):
    """Three 5-D blobs, 30 % labelled, 1,500 pairs: at alpha = C the positive rank of A is about 90
    (over the cap of 0.1 n), at the optimum it is 2-12."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, n)
    X = rng.standard_normal((3, 5))[labels] * 3 + rng.standard_normal((n, 5))
    y = np.where(rng.random(n) < 0.3, labels, -1)
    pairs, pair_labels = from_labels(y, n_pairs=1500, random_state=0)
    return X, pairs, pair_labels


def test_auto_returns_to_lanczos_once_the_rank_falls():
    """eigen_solver="auto": LAPACK only for the iterates whose positive rank exceeds the cap, then
    Lanczos again (it once stayed dense for good: 94 s against 1.1 s at n = 3,000); the certified
    optimum of the forced dense run."""
    X, pairs, pair_labels = mixture_with_a_large_first_rank()
    kw = dict(C=3.0, random_state=0, tol=1e-6, max_iter=1000)
    auto = SimpleNPKL("squared_hinge", **kw).fit(X, pairs=pairs, pair_labels=pair_labels)
    dense = SimpleNPKL("squared_hinge", eigen_solver="dense", **kw).fit(X, pairs=pairs, pair_labels=pair_labels)
    ranks, matvecs = auto.history_["rank"], auto.history_["matvecs"]
    assert ranks[0] > 0.1 * len(X) and matvecs[1] == 0  # the large first ranks: dense solves
    assert auto.eigen_solver_ == "lanczos" and matvecs[-1] > 0 and ranks[-1] <= 0.025 * len(X)
    assert auto.converged_ and dense.converged_
    gap = auto.history_["gap"][-1] + dense.history_["gap"][-1]
    assert abs(auto.history_["primal"][-1] - dense.history_["primal"][-1]) <= gap


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # rank=1: slow, not the point
def test_no_dense_solve_above_the_dense_limit(monkeypatch):
    """Above DENSE_LIMIT_N a positive rank beyond what Lanczos may keep is an error naming rank
    and basis, never an n x n matrix (here the limit is moved below n)."""
    from kernlearn._utils import _solver_choice

    monkeypatch.setattr(_solver_choice, "DENSE_LIMIT_N", 100)
    X, pairs, pair_labels = mixture_with_a_large_first_rank()
    with pytest.raises(ValueError, match=r"rank=<int>.*basis=<int>"):
        SimpleNPKL("squared_hinge", C=3.0, random_state=0).fit(X, pairs=pairs, pair_labels=pair_labels)
    model = SimpleNPKL("squared_hinge", C=3.0, rank=1, random_state=0, max_iter=20)
    model.fit(X, pairs=pairs, pair_labels=pair_labels)
    assert model.eigen_solver_ == "lanczos" and model.eigenvalues_.size == 1
