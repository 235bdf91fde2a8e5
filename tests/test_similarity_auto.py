"""ESKL / EMKL / REKL with rank="auto" (the default): the dense fit below
_solver_choice.SIMILARITY_DENSE_MAX_N points, the fit restricted to SIMILARITY_RANK above it
(thresholds moved small here); the restricted fit against the dense one; the block eigensolver
of large operators against LAPACK; the certificate attribute; bad input naming the argument."""

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator, aslinearoperator

import similarity_problems
from kernlearn import kernels
from kernlearn._utils import _solver_choice
from kernlearn.similarity import EMKL, ESKL, REKL, _operators

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

ESTIMATORS = [ESKL, EMKL, REKL]


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(_solver_choice, "SIMILARITY_DENSE_MAX_N", 50)
    monkeypatch.setattr(_solver_choice, "SIMILARITY_RANK", 8)


def test_auto_is_the_default():
    for Est in ESTIMATORS:
        assert Est().get_params()["rank"] == "auto"
    assert _solver_choice.similarity_rank(_solver_choice.SIMILARITY_DENSE_MAX_N, False) is None
    assert _solver_choice.similarity_rank(_solver_choice.SIMILARITY_DENSE_MAX_N + 1, False) == (
        _solver_choice.SIMILARITY_RANK
    )
    assert _solver_choice.similarity_rank(10, True) == 10  # operators: the rank path, at most n


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_auto_dense_below_rank_above(Est, small_thresholds):
    _, y, S = similarity_problems.problem(60, labelled=30)
    below = Est(max_iter=5, random_state=0).fit([s[:50, :50] for s in S], y[:50])
    assert below.rank_ is None
    above = Est(max_iter=5, random_state=0).fit(S, y)
    assert above.rank_ == 8
    on_operators = Est(max_iter=5, random_state=0).fit([aslinearoperator(s[:50, :50]) for s in S], y[:50])
    assert on_operators.rank_ == 8
    if Est is REKL:
        assert below.spectra_.shape[-1] == 50 and above.spectra_.shape[-1] == 8
    else:
        assert below.eigenvalues_.shape[-1] == 50 and above.eigenvalues_.shape[-1] == 8
    # explicit ranks keep their meaning
    assert Est(rank=None, max_iter=5).fit(S, y).rank_ is None
    assert Est(rank=5, max_iter=5).fit(S, y).rank_ == 5


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_rank_path_agrees_with_the_dense_fit(Est):
    # two classes in 4-D, RBF and TL1; the restricted fit at rank 40 of 200 points labels 90 % of
    # the unlabelled points as the dense fit does and is as accurate to 3 points (measured: 93-96 %
    # agreement, accuracy within 0.7 points; rank 10 is 3.6-7 points short and fails the test)
    _, y, S = similarity_problems.problem(200, seed=1, labelled=60)
    truth = np.random.default_rng(1).integers(0, 2, 200)  # similarity_problems.problem's classes
    dense = Est(rank=None, random_state=0).fit(S, y)
    low = Est(rank=40, random_state=0).fit(S, y)
    unl = y == -1
    agreement = np.mean(low.transduction_[unl] == dense.transduction_[unl])
    assert agreement >= 0.9, agreement
    assert abs(np.mean(low.transduction_[unl] == truth[unl]) - np.mean(dense.transduction_[unl] == truth[unl])) <= 0.03


@pytest.mark.parametrize("kind", ["rbf", "tl1"])
def test_block_eigensolver_matches_lapack(kind, monkeypatch):
    monkeypatch.setattr(_solver_choice, "SIMILARITY_BLOCK_MIN_N", 50)
    monkeypatch.setattr(_solver_choice, "SIMILARITY_BLOCK_TOL", 1e-9)
    monkeypatch.setattr(_solver_choice, "SIMILARITY_BLOCK_MAX_STEPS", 200)
    monkeypatch.setattr(_solver_choice, "SIMILARITY_BLOCK_ENERGY_TOL", -np.inf)  # residuals only
    X = np.random.default_rng(0).standard_normal((400, 3))
    K = kernels.rbf_kernel(X, gamma=0.5) if kind == "rbf" else kernels.tl1_kernel(X, tau=2.0)
    lam, V = _operators.leading_eigenpairs(aslinearoperator(K), 12, np.random.default_rng(0), "evd")
    ref, U = np.linalg.eigh(K)
    top = np.sort(np.argsort(-np.abs(ref))[:12])
    top = top[np.argsort(ref[top])]
    np.testing.assert_allclose(lam, ref[top], rtol=1e-8, atol=1e-8 * np.abs(ref).max())
    assert np.linalg.norm(U[:, top] @ U[:, top].T - V @ V.T) < 1e-6  # the same subspace
    residual = np.linalg.norm(K @ V - V * lam, axis=0)
    assert residual.max() <= 1e-9 * np.abs(ref).max() * 1.01


def test_block_eigensolver_stops_at_its_step_budget(monkeypatch):
    # a step budget of 1: one product, the Ritz pairs of a random block, still orthonormal
    monkeypatch.setattr(_solver_choice, "SIMILARITY_BLOCK_MIN_N", 50)
    monkeypatch.setattr(_solver_choice, "SIMILARITY_BLOCK_MAX_STEPS", 1)
    X = np.random.default_rng(1).standard_normal((300, 3))
    K = kernels.tl1_kernel(X, tau=2.0)
    lam, V = _operators.leading_eigenpairs(aslinearoperator(K), 10, np.random.default_rng(0), "evd")
    np.testing.assert_allclose(V.T @ V, np.eye(10), atol=1e-12)
    np.testing.assert_allclose(V.T @ K @ V, np.diag(lam), atol=1e-10 * np.abs(lam).max())


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_certificate_attribute(Est):
    _, y, S = similarity_problems.problem(80, labelled=40)
    for params in ({"rank": None}, {"rank": 10}):
        model = Est(random_state=0, **params).fit(S, y)
        h = model.history_
        assert model.gap_.shape == (1,)
        assert model.gap_[0] == h["gap"][-1] == h["best"][-1] - h["lower_bound"][-1]
        assert model.gap_[0] >= 0
        if model.stop_reason_ == "certificate":
            assert model.gap_[0] <= model.tol * model.objective_[0]


class Shaped(LinearOperator):
    def __init__(self, shape):
        super().__init__(np.float64, shape)

    def _matmat(self, V):
        return np.zeros((self.shape[0], V.shape[1]))


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_bad_input_names_the_argument(Est, small_thresholds):
    _, y, S = similarity_problems.problem(60, labelled=30)
    ops = [aslinearoperator(s) for s in S]
    with pytest.raises(ValueError, match="rank must be <= n = 60"):
        Est(rank=61).fit(ops, y)
    with pytest.raises(ValueError, match="rank must be <= n = 60"):
        Est(rank=61).fit(S, y)
    with pytest.raises(ValueError, match=r"S\[1\] must be a square \(n, n\) operator, got shape \(60, 59\)"):
        Est().fit([ops[0], Shaped((60, 59))], y)
    with pytest.raises(ValueError, match=r"S must be a square \(n, n\) operator"):
        Est().fit(Shaped((60, 59)), y)
    with pytest.raises(ValueError, match=r"all similarities in S must have the same shape"):
        Est().fit([ops[0], aslinearoperator(S[1][:50, :50])], y)
    with pytest.raises(ValueError, match="rank"):
        Est(rank="full").fit(S, y)
    if Est is not REKL:  # above the dense size, "auto" restricts, and l1 is not defined there
        with pytest.raises(ValueError, match=r"rank='auto' restricts the fit to rank = 8 at n = 60.*loss='l1'"):
            Est("l1").fit(S, y)
