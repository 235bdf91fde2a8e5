"""KDAC's low-rank paths (a Nystrom kernel for Phi(W), the degrees and the U-step, or random
Fourier features for Phi(W): cpp/include/kernlearn/kernels/hsic_lowrank.hpp) against the exact
sums and the exact fit, the size rule that picks them, their bad input, and the one-fit default q
rule."""

import numpy as np
import pytest

from kernlearn import _core
from kernlearn._utils import _solver_choice
from kernlearn.cluster import KDAC
from kernlearn.datasets._mixture import make_alternative_mixture
from kernlearn.evaluation import nmi


def _problem(n=300, d=6, q=2, m=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    W = np.ascontiguousarray(np.linalg.qr(rng.standard_normal((d, q)))[0])
    A = np.ascontiguousarray(rng.standard_normal((n, m)) / np.sqrt(n))
    c = np.array([1.0, 1.0, -0.5, -0.5])[:m]
    return X, W, A, c


def _relative_error(F, X, W, A, c, sigma, exact, seeds=range(6)):
    errors = []
    for seed in seeds:
        phi = _core.kernels.hsic_phi_rff(X, W, A, c, sigma=sigma, n_random_features=F, seed=seed)[0]
        errors.append(np.linalg.norm(phi - exact) / np.linalg.norm(exact))
    return float(np.mean(errors))


def test_rff_phi_converges_to_the_exact_phi_like_one_over_sqrt_f():
    """Each kernel entry's error is O(1 / sqrt F): 64 times the features, about 8 times less error
    (at least 3 times here, over 6 draws), and small in absolute terms at F = 1024."""
    X, W, A, c = _problem()
    sigma = 1.5
    exact, trace, _ = _core.kernels.hsic_phi(X, W, A, c, sigma=sigma)
    coarse = _relative_error(16, X, W, A, c, sigma, exact)
    fine = _relative_error(1024, X, W, A, c, sigma, exact)
    assert fine < coarse / 3
    assert fine < 0.1
    traces = [_core.kernels.hsic_phi_rff(X, W, A, c, sigma=sigma, n_random_features=1024, seed=s)[1] for s in range(6)]
    assert np.mean(traces) == pytest.approx(trace, rel=0.05)


def test_rff_phi_depends_on_the_subspace_only():
    """The frequencies are drawn in the space of X and projected by W, so another orthonormal basis
    of the same subspace gives the same Phi (ISM returns a basis whose rotation is arbitrary)."""
    X, W, A, c = _problem()
    theta = 0.7
    R = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    rotated = np.ascontiguousarray(W @ R)
    one = _core.kernels.hsic_phi_rff(X, W, A, c, sigma=1.5, n_random_features=64, seed=3)
    two = _core.kernels.hsic_phi_rff(X, rotated, A, c, sigma=1.5, n_random_features=64, seed=3)
    np.testing.assert_allclose(one[0], two[0], rtol=1e-9, atol=1e-12)
    assert one[1] == pytest.approx(two[1], rel=1e-10)


def test_rff_bound_is_exact_on_small_n():
    """At most 2^20 ordered pairs: the right side of (10) is summed over all of them."""
    X, W, A, c = _problem(n=200)
    exact = _core.kernels.hsic_phi(X, W, A, c, sigma=1.5, with_bound=True)[2]
    estimate = _core.kernels.hsic_phi_rff(X, W, A, c, sigma=1.5, n_random_features=8, with_bound=True)[2]
    assert estimate == pytest.approx(exact, rel=1e-10)


def test_nystrom_phi_converges_to_the_exact_phi():
    """More landmarks, less error; every row a landmark: Phi itself (to rounding)."""
    X, W, A, c = _problem(n=400)
    exact, trace, bound = _core.kernels.hsic_phi(X, W, A, c, sigma=1.0, with_bound=True)
    rng = np.random.default_rng(0)
    errors = []
    for M in (10, 40, 400):
        landmarks = np.sort(rng.choice(400, M, replace=False)).tolist()
        phi, tr, bd = _core.kernels.hsic_phi_nystrom(X, W, A, c, sigma=1.0, landmarks=landmarks, with_bound=True)
        errors.append(np.linalg.norm(phi - exact) / np.linalg.norm(exact))
        assert bd == pytest.approx(bound, rel=1e-10)  # 400^2 pairs: the bound is summed exactly
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-6
    assert tr == pytest.approx(trace, rel=1e-6)


def test_nystrom_phi_is_far_more_accurate_than_random_features_at_equal_rank():
    """The reason "nystrom" is the default (bench/results/kdac_scale.md): at q = 2, 100 landmarks
    against 2 x 256 random features."""
    X, W, A, c = _problem(n=400)
    exact = _core.kernels.hsic_phi(X, W, A, c, sigma=1.0)[0]
    landmarks = np.sort(np.random.default_rng(0).choice(400, 100, replace=False)).tolist()
    nystrom = _core.kernels.hsic_phi_nystrom(X, W, A, c, sigma=1.0, landmarks=landmarks)[0]
    rff = _relative_error(256, X, W, A, c, 1.0, exact)
    assert np.linalg.norm(nystrom - exact) / np.linalg.norm(exact) < rff / 100


def _exact_kernel(X, W, sigma):
    Z = (X - X.mean(axis=0)) @ W
    d2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1)
    return np.exp(-d2 / (2 * sigma**2))


def test_nystrom_kernel_error_decreases_with_landmarks():
    X, W, _, _ = _problem(n=400)
    sigma = 1.0
    V = np.random.default_rng(1).standard_normal((400, 3))
    exact = _exact_kernel(X, W, sigma) @ V
    rng = np.random.default_rng(2)
    errors = []
    for M in (10, 40, 400):
        landmarks = np.sort(rng.choice(400, M, replace=False)).tolist()
        KV = _core.kernels.nystrom_kernel_times(X, W, V, sigma=sigma, landmarks=landmarks)
        errors.append(np.linalg.norm(KV - exact) / np.linalg.norm(exact))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-6  # every row a landmark: the kernel itself


@pytest.mark.parametrize("approximation, min_agreement", [("nystrom", 0.95), ("rff", 0.9)])
def test_low_rank_fit_agrees_with_the_exact_fit(approximation, min_agreement):
    X, a, b = make_alternative_mixture(800, random_state=1)
    X0 = X.copy()
    exact = KDAC(2, approximation="exact", random_state=0).fit(X, a)
    low = KDAC(2, approximation=approximation, random_state=0).fit(X, a)
    np.testing.assert_array_equal(X, X0)  # the input is not modified
    assert exact.approximation_ == "exact" and low.approximation_ == approximation
    assert not low.used_dense_
    assert nmi(exact.labels_, b) > 0.9
    assert nmi(low.labels_, exact.labels_) > min_agreement
    assert nmi(low.labels_, a) < 0.05
    assert low.n_components_ == exact.n_components_
    W1, W2 = exact.projection_, low.projection_
    assert np.linalg.norm(W2 - W1 @ (W1.T @ W2)) < 0.1  # nearly the same subspace
    # The extension uses the same Nystrom kernel: the training labels come back, and new points
    # are labelled like the exact fit labels them.
    assert np.mean(low.predict(X) == low.labels_) > 0.99
    X_new, _, b_new = make_alternative_mixture(200, random_state=7)
    assert nmi(low.predict(X_new), exact.predict(X_new)) > 0.9
    assert low.extend_embedding(X_new).shape == (200, 2)


def test_nystrom_fit_converges_like_the_exact_one():
    """Four Gaussians in 3-D plus a noise dimension (the paper's LG data, here synthetic): Phi's
    q-th eigengap is small against its largest eigenvalue, and the Nystrom fit converges like the
    exact one."""
    rng = np.random.default_rng(0)
    n = 400
    a, b = rng.integers(0, 2, (2, n))
    X = np.c_[6.0 * a, 6.0 * b, rng.normal(size=n) * 0.3, rng.uniform(-20, 20, n)] + rng.normal(size=(n, 4))
    exact = KDAC(2, approximation="exact", random_state=0).fit(X, a)
    low = KDAC(2, approximation="nystrom", n_landmarks=100, random_state=0).fit(X, a)
    assert exact.converged_ and low.converged_
    assert nmi(low.labels_, exact.labels_) > 0.95


def test_approximation_auto_follows_the_size_rule(monkeypatch):
    X, a, _ = make_alternative_mixture(300, random_state=0)
    assert KDAC(2, random_state=0).fit(X, a).approximation_ == "exact"
    monkeypatch.setattr(_solver_choice, "KDAC_EXACT_MAX_N", 299)
    assert KDAC(2, random_state=0).fit(X, a).approximation_ == "nystrom"
    assert KDAC(2, approximation="exact", random_state=0).fit(X, a).approximation_ == "exact"


def test_default_q_rule_costs_one_fit():
    X, a, b = make_alternative_mixture(300, random_state=0)
    model = KDAC(2, random_state=0).fit(X, a)
    assert KDAC().get_params()["n_components"] == "residual"
    assert model.n_components_search_ is None  # no second fit
    assert model.n_components_ == X.shape[1] - 1  # the given 2 groups' mean difference removed
    assert nmi(model.labels_, b) > 0.9


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_random_features": 0}, "n_random_features"),
        ({"n_random_features": -3}, "n_random_features"),
        ({"n_landmarks": 0}, "n_landmarks"),
        ({"approximation": "low-rank"}, "approximation"),
        ({"approximation": "nystrom", "n_landmarks": 61}, "n_landmarks"),
        ({"approximation": "rff", "n_landmarks": 61}, "n_landmarks"),
    ],
)
def test_bad_low_rank_parameters_name_the_argument(params, match):
    X, a, _ = make_alternative_mixture(60, random_state=0)
    with pytest.raises(ValueError, match=match):
        KDAC(2, **params).fit(X, a)


def test_n_landmarks_above_n_is_fine_on_the_exact_path():
    X, a, _ = make_alternative_mixture(60, random_state=0)
    assert KDAC(2, n_landmarks=1000, random_state=0).fit(X, a).approximation_ == "exact"


def test_core_rejects_bad_low_rank_input():
    X, W, A, c = _problem(n=50)
    with pytest.raises(ValueError, match="n_random_features"):
        _core.kernels.hsic_phi_rff(X, W, A, c, sigma=1.0, n_random_features=0)
    V = np.ones((50, 1))
    with pytest.raises(ValueError, match="n_landmarks"):
        _core.kernels.nystrom_kernel_times(X, W, V, sigma=1.0, landmarks=list(range(51)))
    with pytest.raises(ValueError, match="landmarks"):
        _core.kernels.nystrom_kernel_times(X, W, V, sigma=1.0, landmarks=[0, 50])
    with pytest.raises(ValueError, match="distinct"):
        _core.kernels.nystrom_kernel_times(X, W, V, sigma=1.0, landmarks=[3, 3])
    Y = np.ascontiguousarray(np.eye(2)[np.arange(50) % 2])
    options = _core.methods.KdacOptions(n_random_features=-1)
    with pytest.raises(ValueError, match="n_random_features"):
        _core.methods.kdac(X, Y, options=options)
    options = _core.methods.KdacOptions(n_random_features=8)  # random features without landmarks
    with pytest.raises(ValueError, match="landmarks"):
        _core.methods.kdac(X, Y, options=options)
    options = _core.methods.KdacOptions(landmarks=[0, 60])
    with pytest.raises(ValueError, match="landmarks"):
        _core.methods.kdac(X, Y, options=options)
    with pytest.raises(ValueError, match="landmarks"):
        _core.kernels.hsic_phi_nystrom(X, W, A, c, sigma=1.0, landmarks=[])


def test_low_rank_refuses_the_dask_backend():
    X, a, _ = make_alternative_mixture(60, random_state=0)
    with pytest.raises(ValueError, match="approximation"):
        KDAC(2, approximation="nystrom", backend="dask").fit(X, a)
