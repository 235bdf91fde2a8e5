"""The SICE solvers (kernlearn.metric.sparse_inverse_covariance) against scikit-learn's graphical
lasso, cvxpy and the optimality conditions, plus their certificates and bad input."""

import warnings

import numpy as np
import pytest
from sklearn.covariance import graphical_lasso
from sklearn.datasets import load_iris, load_wine, make_sparse_spd_matrix
from sklearn.exceptions import ConvergenceWarning

from kernlearn.metric import sparse_inverse_covariance


def correlation_problem(m, seed, n_samples=None):
    """The sample correlation matrix of Gaussian data with a sparse true precision."""
    rng = np.random.default_rng(seed)
    precision = make_sparse_spd_matrix(m, alpha=0.95, smallest_coef=0.3, largest_coef=0.7, random_state=seed)
    X = rng.multivariate_normal(np.zeros(m), np.linalg.inv(precision), size=n_samples or 5 * m)
    return np.corrcoef(X.T)


def data_correlation(loader):
    return np.corrcoef(loader().data.T)


def weights(m, rho, penalize_diagonal):
    R = np.full((m, m), rho)
    if not penalize_diagonal:
        np.fill_diagonal(R, 0.0)
    return R


def primal(M, S, R):
    sign, logdet = np.linalg.slogdet(M)
    assert sign > 0
    return -logdet + np.sum(S * M) + np.sum(R * np.abs(M))


def assert_certified(result, S, R, tol):
    """The returned gap is real: M positive definite, Z positive definite and in the box, and
    both objectives recomputed here from the matrices."""
    M, Z = result.precision, result.dual
    np.linalg.cholesky(M)
    np.linalg.cholesky(Z)
    assert np.all(np.abs(Z - S) <= R + 1e-12 * (1 + np.abs(S)))
    p = primal(M, S, R)
    d = np.linalg.slogdet(Z)[1] + S.shape[0]
    assert p == pytest.approx(result.primal_objective, rel=1e-10, abs=1e-10)
    assert d == pytest.approx(result.dual_objective, rel=1e-10, abs=1e-10)
    assert -1e-10 <= p - d <= tol * max(1.0, abs(p)) * (1 + 1e-6)
    assert np.array_equal(result.support, M != 0)
    assert np.array_equal(M, M.T)
    assert np.array_equal(Z, Z.T)
    assert M.flags.c_contiguous and Z.flags.c_contiguous


PROBLEMS = [
    pytest.param(lambda: correlation_problem(20, 0), 0.1, id="random-m20"),
    pytest.param(lambda: correlation_problem(50, 1), 0.1, id="random-m50"),
    pytest.param(lambda: correlation_problem(100, 2), 0.2, id="random-m100"),
    pytest.param(lambda: data_correlation(load_iris), 0.05, id="iris"),
    pytest.param(lambda: data_correlation(load_wine), 0.1, id="wine"),
]


@pytest.mark.parametrize("make, rho", PROBLEMS)
def test_newton_matches_graphical_lasso(make, rho):
    S = make()
    m = S.shape[0]
    result = sparse_inverse_covariance(S, rho, penalize_diagonal=False, solver="newton", tol=1e-13)
    assert result.converged and result.solver == "newton"
    assert_certified(result, S, weights(m, rho, False), 1e-13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # its own gap test is looser than ours
        _, reference = graphical_lasso(S, alpha=rho, tol=1e-12, enet_tol=1e-12, max_iter=2000)
    np.testing.assert_allclose(result.precision, reference, rtol=0, atol=1e-6)
    assert np.array_equal(result.support, reference != 0)


@pytest.mark.parametrize("make, rho", PROBLEMS[:2] + PROBLEMS[3:])
def test_alm_matches_newton(make, rho):
    S = make()
    m = S.shape[0]
    newton = sparse_inverse_covariance(S, rho, solver="newton", tol=1e-13)
    alm = sparse_inverse_covariance(S, rho, solver="alm", tol=1e-12, max_iter=5000)
    assert alm.converged and alm.solver == "alm"
    assert_certified(alm, S, weights(m, rho, True), 1e-12)
    # Both are certified to a relative gap of about 1e-12, which is second order in the distance to
    # the optimum: the precisions may differ by sqrt(gap) times the conditioning (1.02e-5 at m = 50
    # with numpy 2.4 / scipy 1.17, where 1e-5 had been enough).
    np.testing.assert_allclose(alm.precision, newton.precision, rtol=0, atol=2e-5)
    assert np.array_equal(alm.support, newton.support)


def test_diagonal_penalty_is_a_shift_of_sigma():
    """The paper's problem (diagonal penalised) equals the unpenalised one with Sigma + rho I."""
    S = correlation_problem(30, 3)
    rho = 0.15
    paper = sparse_inverse_covariance(S, rho, penalize_diagonal=True, tol=1e-12)
    shifted = sparse_inverse_covariance(S + rho * np.eye(30), rho, penalize_diagonal=False, tol=1e-12)
    np.testing.assert_allclose(paper.precision, shifted.precision, rtol=0, atol=1e-12)
    assert paper.primal_objective == pytest.approx(shifted.primal_objective, rel=1e-12)
    assert_certified(paper, S, weights(30, rho, True), 1e-12)


def test_matches_cvxpy_with_weight_matrix():
    cp = pytest.importorskip("cvxpy")
    S = correlation_problem(8, 4, n_samples=30)
    rng = np.random.default_rng(5)
    R = rng.uniform(0.05, 0.3, size=(8, 8))
    R = (R + R.T) / 2
    M = cp.Variable((8, 8), PSD=True)
    problem = cp.Problem(cp.Minimize(-cp.log_det(M) + cp.trace(S @ M) + cp.sum(cp.multiply(R, cp.abs(M)))))
    problem.solve(solver=cp.CLARABEL)
    result = sparse_inverse_covariance(S, R, penalize_diagonal=True, tol=1e-12)
    assert result.primal_objective == pytest.approx(problem.value, rel=1e-6)
    np.testing.assert_allclose(result.precision, M.value, atol=1e-4)
    assert_certified(result, S, R, 1e-12)


def blocks_problem(rho):
    """Two correlation blocks (m = 15 and 10) and a lone variable, with cross-block entries below
    rho, their indices interleaved by a permutation."""
    rng = np.random.default_rng(9)
    S = np.zeros((26, 26))
    S[:15, :15] = correlation_problem(15, 10)
    S[15:25, 15:25] = correlation_problem(10, 11)
    S[25, 25] = 2.0
    cross = rng.uniform(-0.5 * rho, 0.5 * rho, size=(26, 26))
    inside = np.zeros((26, 26), dtype=bool)
    inside[:15, :15] = inside[15:25, 15:25] = inside[25, 25] = True
    S = np.where(inside, S, (cross + cross.T) / 2)
    order = rng.permutation(26)
    blocks = [np.sort(np.flatnonzero(np.isin(order, b))) for b in (range(15), range(15, 25), [25])]
    return S[np.ix_(order, order)], blocks


@pytest.mark.parametrize("solver", ["newton", "alm"])
def test_independent_blocks_are_solved_alone(solver):
    """The solution is block diagonal over the components of |S_ij| > rho (exact covariance
    thresholding): the blocks' solutions, exact zeros across them, a certificate for the whole,
    and scikit-learn's answer."""
    rho = 0.2
    S, blocks = blocks_problem(rho)
    result = sparse_inverse_covariance(S, rho, penalize_diagonal=False, solver=solver, tol=1e-12, max_iter=5000)
    assert result.converged
    assert_certified(result, S, weights(26, rho, False), 1e-12)
    across = np.ones((26, 26), dtype=bool)
    for b in blocks:
        across[np.ix_(b, b)] = False
        alone = sparse_inverse_covariance(S[np.ix_(b, b)], rho, penalize_diagonal=False, solver="newton", tol=1e-13)
        np.testing.assert_allclose(result.precision[np.ix_(b, b)], alone.precision, rtol=0, atol=1e-5)
    assert np.all(result.precision[across] == 0.0) and np.all(result.dual[across] == 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        _, reference = graphical_lasso(S, alpha=rho, tol=1e-12, enet_tol=1e-12, max_iter=2000)
    np.testing.assert_allclose(result.precision, reference, rtol=0, atol=1e-5)


def test_blocks_meet_the_whole_problems_tolerance():
    """Blocks whose objectives have opposite signs: each block's relative gap within tol does not
    make the sum's relative gap within tol (|F| is far below sum |F_k|), so the blocks are solved
    again to a tighter tolerance."""
    rho, tol = 0.2, 1e-6
    S, blocks = blocks_problem(rho)
    R = weights(26, rho, False)
    # Scaling the first block's S and weights by c scales its solution by 1 / c and shifts its F
    # by 15 log c: c = exp(-F / 15) brings the whole F near 0.
    c = np.exp(-sparse_inverse_covariance(S, R, penalize_diagonal=False, tol=1e-12).primal_objective / 15)
    small = np.ix_(blocks[0], blocks[0])
    S[small] *= c
    R[small] *= c
    result = sparse_inverse_covariance(S, R, penalize_diagonal=False, solver="alm", tol=tol, max_iter=5000)
    parts = [
        sparse_inverse_covariance(
            S[np.ix_(b, b)], R[np.ix_(b, b)], penalize_diagonal=False, solver="alm", tol=tol, max_iter=5000
        )
        for b in blocks
    ]
    alone_gap = sum(p.duality_gap for p in parts)
    alone_primal = sum(p.primal_objective for p in parts)
    assert alone_gap > tol * max(1.0, abs(alone_primal))  # what the first pass alone would give
    assert result.converged
    assert_certified(result, S, R, tol)


@pytest.mark.parametrize("penalize_diagonal", [False, True])
def test_newton_certifies_with_the_complementary_dual_point(penalize_diagonal):
    """At a loose tolerance the dual point meets complementary slackness with M exactly
    (Z - S = R o sign(M) on M's support), which certifies a gap second order in the distance to
    the optimum; the point nearest M^-1 in the box would not."""
    S = correlation_problem(100, 2)
    R = weights(100, 0.1, penalize_diagonal)
    result = sparse_inverse_covariance(S, 0.1, penalize_diagonal=penalize_diagonal, solver="newton", tol=1e-5)
    assert result.converged
    assert_certified(result, S, R, 1e-5)
    M, Z = result.precision, result.dual
    on = M != 0
    np.testing.assert_allclose(Z[on], (S + R * np.sign(M))[on], rtol=0, atol=1e-12)
    W = np.linalg.inv(M)
    assert np.max(np.abs((W - Z)[on])) > 1e-8  # M^-1 itself is not on the box's face there


def test_newton_starts_near_the_solution():
    """The block coordinate descent start leaves Newton a few steps on well-conditioned problems
    (from the diagonal start it took 5 to 13 on such problems)."""
    for m, rho in [(50, 0.1), (100, 0.1), (100, 0.3)]:
        S = correlation_problem(m, 3)
        result = sparse_inverse_covariance(S, rho, penalize_diagonal=False, solver="newton", tol=1e-8)
        assert_certified(result, S, weights(m, rho, False), 1e-8)
        assert result.n_iter <= 3


def test_diagonal_sigma_has_closed_form():
    S = np.diag([1.0, 2.0, 4.0])
    result = sparse_inverse_covariance(S, 0.5, penalize_diagonal=True)
    np.testing.assert_allclose(result.precision, np.diag(1 / (np.diag(S) + 0.5)), rtol=1e-12)
    assert result.support.sum() == 3
    one = sparse_inverse_covariance([[2.0]], 1.0)
    np.testing.assert_allclose(one.precision, [[1 / 3]], rtol=1e-12)


def test_near_singular_sigma_converges_with_newton():
    """S3ML builds Sigma near the edge of positive definiteness on purpose."""
    rng = np.random.default_rng(6)
    A = rng.standard_normal((40, 5))
    S = A @ A.T / 5 + 1e-9 * np.eye(40)  # rank 5 plus a hair
    result = sparse_inverse_covariance(S, 0.01, penalize_diagonal=True, tol=1e-10)
    assert result.converged
    assert_certified(result, S, weights(40, 0.01, True), 1e-10)


def test_rho_zero_inverts_sigma():
    S = correlation_problem(10, 7)
    result = sparse_inverse_covariance(S, 0.0, tol=1e-14)
    # The objective is quadratic near the optimum: a gap g leaves an error of order sqrt(g).
    np.testing.assert_allclose(result.precision, np.linalg.inv(S), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(result.dual, S, rtol=0, atol=1e-15)  # rho = 0: the only dual point is Sigma


def test_stopping_early_warns_and_reports():
    S = correlation_problem(50, 8)
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        result = sparse_inverse_covariance(S, 0.1, tol=1e-14, max_iter=1)
    assert not result.converged and result.n_iter == 1
    assert result.duality_gap > 0
    assert result.primal_objective == pytest.approx(primal(result.precision, S, weights(50, 0.1, True)), rel=1e-13)


@pytest.mark.parametrize("solver", ["newton", "alm"])
def test_no_iterations_return_the_start(solver):
    """max_iter = 0: the diagonal start, certified, never uninitialised memory."""
    S = correlation_problem(20, 9)
    with pytest.warns(ConvergenceWarning):
        result = sparse_inverse_covariance(S, 0.1, solver=solver, max_iter=0)
    np.testing.assert_array_equal(result.precision, np.diag(1.0 / (np.diag(S) + 0.1)))
    assert result.n_iter == 0 and not result.converged
    assert_certified(result, S, weights(20, 0.1, True), np.inf)


def test_input_not_modified():
    S = correlation_problem(12, 9)
    R = np.full((12, 12), 0.1)
    S0, R0 = S.copy(), R.copy()
    sparse_inverse_covariance(S, R)
    assert np.array_equal(S, S0) and np.array_equal(R, R0)


@pytest.mark.parametrize(
    "Sigma, rho, match",
    [
        (np.ones((2, 3)), 0.1, "square"),
        (np.array([[1.0, 0.5], [0.4, 1.0]]), 0.1, "symmetric"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), 0.1, "NaN"),
        (np.eye(2), -0.1, "rho"),
        (np.eye(2), np.ones((3, 3)), "rho"),
        (np.eye(2), np.array([[0.1, 0.2], [0.3, 0.1]]), "rho must be symmetric"),
        (np.eye(2), np.array([[0.1, -0.2], [-0.2, 0.1]]), "non-negative"),
        (np.array([[1.0, 3.0], [3.0, 1.0]]), 0.1, "unbounded"),  # Sigma + rho I indefinite
        (-np.eye(2), 0.5, "unbounded"),
    ],
)
def test_bad_input(Sigma, rho, match):
    with pytest.raises(ValueError, match=match):
        sparse_inverse_covariance(Sigma, rho)


def test_bad_options():
    with pytest.raises(ValueError, match="solver"):
        sparse_inverse_covariance(np.eye(2), 0.1, solver="quic")
    with pytest.raises(ValueError, match="tol"):
        sparse_inverse_covariance(np.eye(2), 0.1, tol=0)
    with pytest.raises(TypeError, match="penalize_diagonal"):
        sparse_inverse_covariance(np.eye(2), 0.1, penalize_diagonal="yes")
    with pytest.raises(TypeError, match="Sigma"):
        sparse_inverse_covariance(np.array([["a", "b"], ["c", "d"]]), 0.1)


def test_every_simd_kernel_family_gives_the_same_solution(tmp_path):
    """KERNLEARN_SIMD caps the kernel family of the coordinate-descent and Hessian products
    (AVX-512, AVX2, portable); their sums round in different orders, so the answers agree to the
    tolerance with the same support, each with a certified gap. On a CPU without AVX-512 or AVX2
    the capped runs fall back and the comparison is trivially true for them."""
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np, sys\n"
        "from sklearn.datasets import load_wine\n"
        "from kernlearn.metric import sparse_inverse_covariance\n"
        "S = np.corrcoef(load_wine().data, rowvar=False)\n"
        "r = sparse_inverse_covariance(S, 0.1, penalize_diagonal=False, solver='newton', tol=1e-10)\n"
        "np.savez(sys.argv[1], M=r.precision, gap=r.duality_gap / max(1.0, abs(r.primal_objective)))\n"
    )
    results = {}
    for simd in ("avx512", "avx2", "none"):
        out = tmp_path / f"{simd}.npz"
        subprocess.run(
            [sys.executable, "-c", script, str(out)], env=dict(os.environ, KERNLEARN_SIMD=simd), check=True, timeout=120
        )
        results[simd] = np.load(out)
    reference = results["avx512"]["M"]
    for simd in ("avx2", "none"):
        M = results[simd]["M"]
        assert results[simd]["gap"] <= 1e-10
        np.testing.assert_array_equal(M == 0, reference == 0)
        np.testing.assert_allclose(M, reference, atol=1e-7 * np.abs(reference).max())
