"""S3ML at scale: the pairs that grow linearly in the labelled points above a size, the loosened
propagation accuracy above another, the core's push binding against bad input."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernlearn import _core
from kernlearn._utils import _solver_choice
from kernlearn.datasets._mixture import make_labelled_mixture
from kernlearn.metric import S3ML, propagate_affinities
from kernlearn.metric._affinity import _csr_arrays, initial_affinities, transition_matrix


def test_auto_pairs_are_linear_above_the_labelled_limit(monkeypatch):
    X, _, y = make_labelled_mixture(600, labelled=0.2)
    labelled = int((y >= 0).sum())
    every = S3ML(random_state=0).fit(X, y)
    assert len(every.pairs_) == labelled * (labelled - 1) // 2
    monkeypatch.setattr(_solver_choice, "S3ML_ALL_PAIRS_MAX_LABELLED", labelled - 1)
    linear = S3ML(random_state=0).fit(X, y)
    assert len(linear.pairs_) <= 2 * _solver_choice.S3ML_PARTNERS * labelled
    assert (linear.pair_labels_ == 1).any() and (linear.pair_labels_ == -1).any()
    explicit = S3ML(random_state=0, partners=_solver_choice.S3ML_PARTNERS).fit(X, y)
    np.testing.assert_array_equal(explicit.pairs_, linear.pairs_)
    np.testing.assert_array_equal(explicit.metric_, linear.metric_)


def test_auto_propagation_tol_follows_the_size(monkeypatch):
    X, _, y = make_labelled_mixture(400, labelled=0.1)
    exact = S3ML(random_state=0).fit(X, y)
    monkeypatch.setattr(_solver_choice, "S3ML_EXACT_PROPAGATION_MAX_N", 100)
    loose = S3ML(random_state=0).fit(X, y)
    same = S3ML(random_state=0, propagation_tol=_solver_choice.S3ML_SCALE_PROPAGATION_TOL).fit(X, y)
    np.testing.assert_array_equal(loose.metric_, same.metric_)
    # Entries within tol * theta of the exact ones (or dropped near the threshold).
    A, B = exact.affinity_.toarray(), loose.affinity_.toarray()
    both = (A != 0) & (B != 0)
    assert np.abs(A[both] - B[both]).max() <= 1e-2 * 0.01
    np.testing.assert_allclose(loose.metric_, exact.metric_, rtol=0.05, atol=1e-3)


@pytest.mark.parametrize(
    ("params", "match"), [({"partners": 0}, "partners"), ({"propagation_tol": 0.0}, "propagation_tol")]
)
def test_bad_parameters(params, match):
    X, _, y = make_labelled_mixture(100)
    with pytest.raises(ValueError, match=match):
        S3ML(**params).fit(X, y)


def _push_args(n=30):
    X, _, y = make_labelled_mixture(n)
    P = transition_matrix(X, 4)
    W0 = initial_affinities(n, np.array([[0, 1], [2, 3]]), np.array([1, -1]))
    return _csr_arrays(P.T), _csr_arrays(W0)


def test_push_values_match_the_dense_solve():
    n = 30
    X, _, y = make_labelled_mixture(n)
    P = transition_matrix(X, 4)
    W0 = initial_affinities(n, np.array([[0, 1], [2, 3]]), np.array([1, -1]))
    exact = 0.5 * np.linalg.solve(np.eye(n) - 0.5 * P.toarray(), W0.toarray())
    rows, cols, values = _core.methods.affinity_push(*_csr_arrays(P.T), *_csr_arrays(W0), alpha=0.5, eps=1e-9, cut=0.0)
    got = sp.csr_matrix((values, (rows, cols)), shape=(n, n)).toarray()
    assert np.abs(got - exact).max() <= 1e-9
    assert propagate_affinities(X, [[0, 1], [2, 3]], [1, -1], n_neighbors=4).nnz > 0


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"alpha": 1.0}, "alpha"),
        ({"eps": 1e-20}, "eps"),
        ({"eps": np.nan}, "eps"),
        ({"cut": -1.0}, "cut"),
        ({"pattern_indices": np.zeros(0, np.int64)}, "pattern_indptr"),
    ],
)
def test_push_binding_refuses_bad_options(change, match):
    transposed, initial = _push_args()
    kwargs = {"alpha": 0.5, "eps": 1e-6, "cut": 0.0, **change}
    with pytest.raises(ValueError, match=match):
        _core.methods.affinity_push(*transposed, *initial, **kwargs)


def test_push_binding_refuses_bad_matrices():
    transposed, initial = _push_args()
    small = _csr_arrays(sp.identity(10, format="csr"))
    with pytest.raises(ValueError, match=r"W0 \(30 x 30 CSR\)"):
        _core.methods.affinity_push(*transposed, *small, alpha=0.5, eps=1e-6, cut=0.0)
    bad = (transposed[0] * 3.0, transposed[1], transposed[2])
    with pytest.raises(ValueError, match="P.s rows must sum to at most 1"):
        _core.methods.affinity_push(*bad, *initial, alpha=0.5, eps=1e-6, cut=0.0)
    out_of_range = (transposed[0], transposed[1] + 100, transposed[2])
    with pytest.raises(ValueError, match="out of range"):
        _core.methods.affinity_push(*out_of_range, *initial, alpha=0.5, eps=1e-6, cut=0.0)


def test_propagate_affinities_auto_tol_follows_the_s3ml_rule():
    # tol="auto" is S3ML's propagation_tol rule: exact (1e-12) up to the size, 1e-2 above.
    rng = np.random.default_rng(0)
    for n in (300, _solver_choice.S3ML_EXACT_PROPAGATION_MAX_N + 1):
        X = rng.normal(size=(n, 3))
        pairs = np.array([[0, 1], [2, 3], [4, 5]])
        labels = np.array([1, -1, 1])
        expected = propagate_affinities(X, pairs, labels, tol=_solver_choice.s3ml_propagation_tol(n))
        got = propagate_affinities(X, pairs, labels)
        assert (got != expected).nnz == 0
    with pytest.raises((TypeError, ValueError), match="tol"):
        propagate_affinities(X[:50], pairs, labels, tol="exact")
