"""REKL on similarities given as LinearOperators (kernlearn.distributed.KernelOperator on a local
Dask cluster of two worker processes, and scipy's operators): rank = n reproduces the dense fit,
a rank-r fit on operators equals the rank-r fit on the dense matrices, and bad operators fail
naming the argument. ESKL and EMKL restricted to a rank on KernelOperators equal their dense
rank-r fits (the rest of their checks: tests/test_similarity_rank.py)."""

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from kernlearn import kernels
from kernlearn._utils import _solver_choice
from kernlearn.similarity import EMKL, ESKL, REKL
from kernlearn.similarity._operators import leading_eigenpairs

distributed = pytest.importorskip("distributed")

import dask_cluster  # noqa: E402
from kernlearn.distributed import KernelOperator  # noqa: E402
from similarity_problems import problem  # noqa: E402

client = dask_cluster.client  # the module-scoped LocalCluster fixture (2 worker processes)

# The fits are cut at max_iter = 30 to stay fast: what is compared is the path of the iterates,
# the same on both sides, not its convergence.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def fitted(S, y, **params):
    # libsvm to 1e-10: its default tolerance (1e-5) would turn eigenvector differences at the
    # eigensolver's tolerance into decision differences of 1e-5
    return REKL(init="identity", max_iter=30, svm_tol=1e-10, random_state=0, **params).fit(S, y)


def assert_same_fit(a, b, rtol):
    scale = np.abs(a.decision_transductive_).max()
    np.testing.assert_allclose(b.decision_transductive_, a.decision_transductive_, rtol=0, atol=rtol * scale)
    np.testing.assert_allclose(b.spectra_, a.spectra_, rtol=0, atol=rtol * np.abs(a.spectra_).max())
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=rtol * np.abs(a.coef_).max())
    assert a.n_iter_ == b.n_iter_


def test_full_rank_on_operators_equals_the_dense_fit():
    _, y, S = problem(200)
    dense = fitted(S, y)
    on_operators = fitted([aslinearoperator(s) for s in S], y, rank=200)
    assert_same_fit(dense, on_operators, 1e-10)
    assert on_operators.eigenvectors_of_S_.shape == (2, 200, 200)


def test_eigenpairs_of_largest_magnitude_by_lanczos():
    # an indefinite matrix whose largest magnitudes alternate in sign, on the Lanczos route
    # (n = 400 > 300, rank 30 <= 0.1 n)
    rng = np.random.default_rng(3)
    basis, _ = np.linalg.qr(rng.standard_normal((400, 400)))
    spectrum = 0.97 ** np.arange(400) * np.where(np.arange(400) % 3 == 1, -1.0, 1.0)
    S = (basis * spectrum) @ basis.T
    values, vectors = leading_eigenpairs(aslinearoperator(S), 30, np.random.RandomState(0), "evd")
    keep = np.argsort(spectrum[:30])
    np.testing.assert_allclose(values, spectrum[:30][keep], rtol=0, atol=1e-9)
    projector = basis[:, :30] @ basis[:, :30].T
    assert np.linalg.norm(vectors @ vectors.T - projector) < 1e-7


def test_kernel_operators_on_a_cluster_equal_the_dense_rank_r_fit(client, monkeypatch):
    # n = 200 on the Lanczos route (eigsh's dense cut-off moved below it)
    monkeypatch.setattr(_solver_choice, "DENSE_MAX_N", 100)
    X, y, S = problem(200)
    before = X.copy()
    rank = 12
    # the RBF kernel on the cluster (each Lanczos step two round trips, about 0.1 s each on a
    # loaded machine); TL1, the indefinite one, as a local operator
    operators = [
        KernelOperator(X, "rbf", gamma=0.25, client=client, block_size=100, cache=True),
        aslinearoperator(S[1]),
    ]
    dense = fitted(S, y, rank=rank)
    distributed_fit = fitted(operators, y, rank=rank)
    assert_same_fit(dense, distributed_fit, 1e-7)
    assert distributed_fit.eigenvectors_of_S_.shape == (2, 200, rank)
    np.testing.assert_array_equal(X, before)
    # new points: test similarities as dense blocks or as operators give the same decision
    X_test = np.random.default_rng(5).standard_normal((30, 4))
    blocks = [kernels.rbf_kernel(X_test, X, gamma=0.25), kernels.tl1_kernel(X_test, X, tau=2.0)]
    expected = dense.decision_function(np.stack(blocks, axis=-1))
    np.testing.assert_allclose(
        distributed_fit.decision_function([aslinearoperator(b) for b in blocks]),
        expected,
        rtol=0,
        atol=1e-7 * np.abs(expected).max(),
    )


def test_sq_fro_on_the_rank_differs_from_the_full_loss_by_the_residual():
    # ||K - S||_F^2 = ||mu - lambda||^2 + ||S||_F^2 - ||lambda||^2 for K in the span of the rank
    # eigenvectors (the docstring's statement), checked on the fitted kernels
    _, y, S = problem(120)
    model = fitted([aslinearoperator(s) for s in S], y, rank=10, loss="sq_fro")
    for i, s in enumerate(S):
        V, lam, mu = model.eigenvectors_of_S_[i], model.eigenvalues_of_S_[i], model.spectra_[0, i]
        K = (V * mu) @ V.T
        full = np.linalg.norm(K - s) ** 2
        restricted = np.sum((mu - lam) ** 2) + np.linalg.norm(s) ** 2 - np.sum(lam**2)
        assert full == pytest.approx(restricted, rel=1e-9)


class Asymmetric(LinearOperator):
    def __init__(self, A):
        self.A = A
        super().__init__(np.float64, A.shape)

    def _matmat(self, V):
        return self.A @ V


def test_bad_operators_are_refused():
    _, y, S = problem(100)
    ops = [aslinearoperator(s) for s in S]
    with pytest.raises(ValueError, match="rank is required"):
        REKL(rank=None).fit(ops, y)  # the dense fit, explicitly (the default "auto" takes a rank)
    with pytest.raises(ValueError, match="rank must be <= n = 100"):
        REKL(rank=101).fit(ops, y)
    with pytest.raises(ValueError, match="rank"):
        REKL(rank=0).fit(ops, y)
    skewed = S[1] + np.triu(np.ones((100, 100)))
    with pytest.raises(ValueError, match=r"S\[1\] is not symmetric"):
        REKL(rank=5).fit([ops[0], Asymmetric(skewed)], y)
    with pytest.raises(ValueError, match=r"S\[0\] must be a square"):
        REKL(rank=5).fit([aslinearoperator(S[0][:, :50]), ops[1]], y)
    with pytest.raises(ValueError, match="same shape"):
        REKL(rank=5).fit([ops[0], aslinearoperator(S[1][:50, :50])], y)
    with pytest.raises(TypeError, match="S must be a real operator"):
        REKL(rank=5).fit(aslinearoperator(S[0].astype(complex)), y)
    model = REKL(rank=5, max_iter=3).fit(ops, y)
    with pytest.raises(ValueError, match=r"S_test\[1\] must have shape \(n_test, 100\)"):
        model.decision_function([aslinearoperator(S[0][:7]), aslinearoperator(S[1][:7, :99])])
    with pytest.raises(ValueError, match="m = 2"):
        model.predict(aslinearoperator(S[0][:7]))


@pytest.mark.parametrize("estimator", [ESKL, EMKL])
def test_eskl_and_emkl_on_kernel_operators_equal_the_dense_rank_r_fit(estimator, client):
    # the RBF kernel on the cluster, TL1 as a local operator; ESKL diagonalises their sum. n = 150
    # stays on the multiplied-out route of leading_eigenpairs (one product with the identity, one
    # round trip; the Lanczos route is checked locally in tests/test_similarity_rank.py)
    X, y, S = problem(150)
    operators = [
        KernelOperator(X, "rbf", gamma=0.25, client=client, block_size=75, cache=True),
        aslinearoperator(S[1]),
    ]
    params = {"rank": 10, "init": "identity", "max_iter": 20, "svm_tol": 1e-10, "random_state": 0}
    dense = estimator(**params).fit(S, y)
    distributed_fit = estimator(**params).fit(operators, y)
    scale = np.abs(dense.decision_transductive_).max()
    np.testing.assert_allclose(
        distributed_fit.decision_transductive_, dense.decision_transductive_, rtol=0, atol=1e-8 * scale
    )
    V, lam = distributed_fit.eigenvectors_, distributed_fit.eigenvalues_
    V0, lam0 = dense.eigenvectors_, dense.eigenvalues_
    K = np.einsum("...ij,...j,...kj->...ik", V, lam, V)
    K0 = np.einsum("...ij,...j,...kj->...ik", V0, lam0, V0)
    np.testing.assert_allclose(K, K0, rtol=0, atol=1e-8 * np.abs(K0).max())
    np.testing.assert_allclose(distributed_fit.objective_, dense.objective_, rtol=1e-8)
    np.testing.assert_allclose(distributed_fit.coef_, dense.coef_, rtol=0, atol=1e-8 * np.abs(dense.coef_).max())
    assert distributed_fit.n_iter_ == dense.n_iter_ and distributed_fit.start_change_[0] > 1e-2


def test_dense_matrices_mixed_with_operators_are_not_modified():
    _, y, S = problem(100)
    copies = [s.copy() for s in S]
    mixed = fitted([S[0], aslinearoperator(S[1])], y, rank=100)
    np.testing.assert_array_equal(S[0], copies[0])
    assert_same_fit(fitted(S, y), mixed, 1e-10)
