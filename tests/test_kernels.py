"""kernlearn.kernels: the C++ pairwise kernels against scipy, the SPD-matrix kernels against
per-pair LAPACK, and the spectrum transforms against a dense eigendecomposition."""

import numpy as np
import pytest
import scipy.linalg
from scipy.spatial.distance import cdist

from kernlearn.kernels import (
    affine_invariant_kernel,
    covariance_descriptor,
    log_euclidean_kernel,
    make_psd,
    negative_part,
    rbf_kernel,
    spectrum_bounds,
    tl1_kernel,
)


@pytest.fixture
def points():
    rng = np.random.default_rng(0)
    return rng.random((120, 6)), rng.random((37, 6))


def test_tl1_matches_scipy(points):
    X, Y = points
    np.testing.assert_allclose(tl1_kernel(X, Y, tau=2.5), np.maximum(2.5 - cdist(X, Y, "cityblock"), 0), atol=1e-13)
    K = tl1_kernel(X)  # default tau = 0.7 d
    np.testing.assert_allclose(K, np.maximum(0.7 * 6 - cdist(X, X, "cityblock"), 0), atol=1e-13)
    assert np.array_equal(K, K.T)  # exactly symmetric, so no symmetrisation is needed downstream


def test_rbf_matches_scipy_and_float32(points):
    X, Y = points
    expected = np.exp(-0.7 * cdist(X, Y, "sqeuclidean"))
    np.testing.assert_allclose(rbf_kernel(X, Y, gamma=0.7), expected, rtol=1e-12)
    single = rbf_kernel(X, Y, gamma=0.7, dtype=np.float32, n_jobs=2)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, rtol=1e-6)


def test_tl1_is_indefinite_on_breast_like_data():
    # Table II: TL1 with tau = 0.7 d has negative eigenvalues on low-dimensional data.
    X = np.random.default_rng(1).random((200, 3))
    mu_min, mu_max = spectrum_bounds(tl1_kernel(X))
    w = scipy.linalg.eigvalsh(tl1_kernel(X))
    assert mu_min < 0 < mu_max
    np.testing.assert_allclose([mu_min, mu_max], [w[0], w[-1]], rtol=1e-6)


@pytest.mark.parametrize("kind", ["rbf", "tl1"])
def test_spectrum_bounds_by_deflated_lanczos(kind):
    # n > DENSE_MAX_N: Lanczos with the top eigenpairs deflated, for a PD and an indefinite kernel.
    X = np.random.default_rng(8).random((500, 3))
    K = rbf_kernel(X, gamma=30.0) if kind == "rbf" else tl1_kernel(X)
    w = scipy.linalg.eigvalsh(K)
    mu_min, mu_max = spectrum_bounds(K, random_state=0)
    assert mu_min == pytest.approx(w[0], abs=1e-7 * w[-1])
    assert mu_max == pytest.approx(w[-1], rel=1e-9)
    assert (w[0] > 0) == (kind == "rbf")


def _spd_stack(n, d, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d, d))
    return A @ A.transpose(0, 2, 1) + 0.5 * np.eye(d)


def test_spd_kernels_match_per_pair_definitions():
    S, T = _spd_stack(15, 4, 0), _spd_stack(7, 4, 1)

    def logm(A):
        w, V = np.linalg.eigh(A)
        return V @ np.diag(np.log(w)) @ V.T

    le = np.array([[np.exp(-0.3 * np.linalg.norm(logm(a) - logm(b)) ** 2) for b in T] for a in S])
    np.testing.assert_allclose(log_euclidean_kernel(S, T, gamma=0.3), le, rtol=1e-10)
    # Affine-invariant distance: the generalised eigenvalues of (S2, S1).
    ai = np.array(
        [[np.exp(-0.3 * np.sum(np.log(scipy.linalg.eigh(b, a, eigvals_only=True)) ** 2)) for b in T] for a in S]
    )
    np.testing.assert_allclose(affine_invariant_kernel(S, T, gamma=0.3), ai, rtol=1e-9)
    S9 = _spd_stack(6, 9, 7)  # 9 x 9 (covariance descriptors) runs a fixed-size code path
    ai9 = np.array(
        [[np.exp(-0.1 * np.sum(np.log(scipy.linalg.eigh(b, a, eigvals_only=True)) ** 2)) for b in S9] for a in S9]
    )
    np.testing.assert_allclose(affine_invariant_kernel(S9, gamma=0.1), ai9, rtol=1e-9)
    K = affine_invariant_kernel(S, gamma=0.3, n_jobs=2)
    np.testing.assert_allclose(K, K.T, atol=0)
    np.testing.assert_allclose(np.diag(K), 1.0)
    # The log-Euclidean kernel is positive definite.
    assert scipy.linalg.eigvalsh(log_euclidean_kernel(_spd_stack(40, 4, 2), gamma=0.3))[0] > -1e-10


def test_covariance_descriptor_features():
    rng = np.random.default_rng(3)
    images = rng.random((4, 8, 10))
    C = covariance_descriptor(images, regularization=0.0)
    assert C.shape == (4, 9, 9)
    # Feature 3 is the intensity itself: its variance is the image's.
    np.testing.assert_allclose(C[:, 2, 2], images.reshape(4, -1).var(axis=1, ddof=1))
    # Feature 1 is the column index x.
    np.testing.assert_allclose(C[0, 0, 0], np.var(np.tile(np.arange(10.0), 8), ddof=1))
    np.testing.assert_allclose(covariance_descriptor(images[1], regularization=0.0), C[1])
    flat = covariance_descriptor(np.zeros((8, 8)) + 1.0)  # collinear features: still SPD
    assert np.linalg.eigvalsh(flat)[0] > 0


@pytest.mark.parametrize("method", ["clip", "denoise", "flip", "shift"])
def test_make_psd_matches_dense_formula(method):
    X = np.random.default_rng(4).random((150, 3))
    K = tl1_kernel(X)
    mu, V = np.linalg.eigh(K)
    target = {
        "clip": np.maximum(mu, 0),
        "denoise": np.maximum(mu, 0),
        "flip": np.abs(mu),
        "shift": mu - min(mu[0], 0),
    }[method]
    K_copy = K.copy()
    out = make_psd(K, method)
    np.testing.assert_array_equal(K, K_copy)  # input untouched
    np.testing.assert_allclose(out, (V * target) @ V.T, atol=1e-9 * np.abs(mu).max())
    assert np.linalg.eigvalsh(out)[0] > -1e-9 * np.abs(mu).max()


def test_negative_part_by_lanczos(monkeypatch):
    from kernlearn._utils import _solver_choice

    monkeypatch.setattr(_solver_choice, "MAKE_PSD_DENSE_MAX_N", 300)  # the iterative route at 700
    X = np.random.default_rng(5).random((700, 2))
    K = tl1_kernel(X, tau=0.5)
    values, vectors = negative_part(K)
    w = scipy.linalg.eigvalsh(K)
    expected = w[w < -1e-10 * np.abs(w).max()]
    np.testing.assert_allclose(values, expected, rtol=1e-7, atol=1e-9 * np.abs(w).max())
    np.testing.assert_allclose(K @ vectors, vectors * values, atol=1e-7 * np.abs(w).max())


def test_make_psd_of_a_psd_kernel_is_dense_and_silent():
    """Issue 47: an already PSD RBF kernel of a few hundred points sent make_psd to Lanczos, which
    cannot settle the eigenvalues clustered at zero and warned "largest residual 0 > tol" (here
    after 32,010 products). Up to MAKE_PSD_DENSE_MAX_N points it is LAPACK's (filterwarnings=error:
    no warning), and K comes back."""
    from kernlearn._utils import _solver_choice

    K = rbf_kernel(np.random.default_rng(0).standard_normal((320, 3)))  # spectrum decays fast to 0
    assert _solver_choice.DENSE_MAX_N < K.shape[0] <= _solver_choice.MAKE_PSD_DENSE_MAX_N
    for method in ("clip", "shift"):
        np.testing.assert_allclose(make_psd(K, method), K, atol=1e-12)


def test_eigsh_unsettled_threshold_warning_does_not_contradict_itself():
    """Lanczos in threshold mode on that kernel, cut short: no pair misses tol, so the warning
    says what did not converge (the search near the threshold), not "largest residual 0 > tol"."""
    from sklearn.exceptions import ConvergenceWarning

    from kernlearn.linalg import eigsh

    K = rbf_kernel(np.random.default_rng(0).standard_normal((320, 3)))
    with pytest.warns(ConvergenceWarning, match="was not settled") as caught:
        values, _, info = eigsh(K, which="SA", threshold=0.0, method="lanczos", maxiter=2000, random_state=0)
    assert values.size == 0 and info["status"] == "not_converged"
    assert "largest residual" not in str(caught[0].message)


def test_kernel_bad_input():
    X = np.random.default_rng(6).random((5, 3))
    with pytest.raises(ValueError, match="tau"):
        tl1_kernel(X, tau=-1.0)
    with pytest.raises(ValueError, match="features"):
        rbf_kernel(X, X[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        tl1_kernel(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="dtype"):
        rbf_kernel(X, dtype=np.int32)
    with pytest.raises(ValueError, match="symmetric"):
        make_psd(np.arange(9.0).reshape(3, 3))
    with pytest.raises(ValueError, match="square"):
        make_psd(np.ones((3, 4)))
    with pytest.raises(ValueError, match="method"):
        make_psd(np.eye(3), "abs")
    with pytest.raises(ValueError, match="positive definite"):
        log_euclidean_kernel(np.array([[[1.0, 0.0], [0.0, -1.0]]]))
    with pytest.raises(ValueError, match="stack"):
        affine_invariant_kernel(np.eye(3))
    with pytest.raises(ValueError, match="image"):
        covariance_descriptor(np.ones(5))


def test_covariance_descriptor_at_extreme_scales():
    """Issue 27, defect 7: an image scaled by 1e300 gave all-NaN descriptors. Each image is now
    scaled by a power of two before its products, so every representable covariance comes out
    exactly scaled, and one beyond the float64 range is a ValueError naming the image."""
    from kernlearn.kernels import covariance_descriptor

    img = np.random.default_rng(0).random((8, 9))
    ref = covariance_descriptor(img, regularization=0.0)
    for s in (1e-300, 1e-150, 1e150, 1e153):
        out = covariance_descriptor(img * s, regularization=0.0)
        assert np.isfinite(out).all()
        scale = np.ones(9)
        scale[2:8] = s
        expected = ref * np.outer(scale, scale)
        big = np.abs(expected) > 1e-290  # products of 1e-300 intensities underflow
        assert np.allclose(out[big], expected[big], rtol=1e-12)
    with pytest.raises(ValueError, match="image exceeds the float64 range"):
        covariance_descriptor(img * 1e300)


def test_spd_kernels_are_scale_free_at_extreme_scales():
    from kernlearn.kernels import affine_invariant_kernel, covariance_descriptor, log_euclidean_kernel

    S = np.stack([covariance_descriptor(np.random.default_rng(i).random((8, 9))) for i in range(4)])
    for kernel in (log_euclidean_kernel, affine_invariant_kernel):
        ref = kernel(S, gamma=0.01)
        for s in (1e-300, 1e300):
            assert np.allclose(kernel(S * s, gamma=0.01), ref, atol=1e-12)
