"""Issue 27, defects 6 and 7: arguments the parameter tables and fit checks must reject, and the
defaults that must not grow quadratically. Each case failed (accepted, or an unclear error) on
3cf205b."""

import warnings

import numpy as np
import pytest

from kernlearn.cluster import KDAC, median_sigma
from kernlearn.constraints import ALL_PAIRS_LIMIT, from_labels
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.indefinite import krein_decomposition
from kernlearn.kernels import negative_part, spectrum_bounds
from kernlearn.npkl import SimpleNPKL

RNG = np.random.default_rng(0)
X = RNG.standard_normal((30, 3))
Y = np.arange(30) % 2


@pytest.mark.parametrize("length", [29, 31])
def test_simplenpkl_y_length_must_match_X(length):
    y = np.arange(length) % 2
    with pytest.raises(ValueError, match=r"y must have shape \(30,\) to match X"):
        SimpleNPKL().fit(X, y)


def test_colored_mvu_rejects_nan_labels():
    y = Y.astype(float)
    y[3] = np.nan
    with pytest.raises(ValueError, match="y contains NaN"):
        ColoredMVU(2).fit(X, y)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"max_negative_rank": -1}, ValueError),
        ({"max_negative_rank": 2**64}, ValueError),
        ({"max_negative_rank": float("nan")}, TypeError),
        ({"max_negative_rank": 1.5}, TypeError),
        ({"method": "bogus"}, ValueError),
        ({"tol": float("nan")}, ValueError),
        ({"tau": -1.0}, ValueError),
        ({"spectral_matvecs": 0}, ValueError),
    ],
)
def test_krein_decomposition_checks_its_arguments(kwargs, error):
    (name,) = kwargs
    with pytest.raises(error, match=f"krein_decomposition: {name} must be"):
        krein_decomposition(X @ X.T - np.eye(30), **kwargs)


@pytest.mark.parametrize(
    "K, match",
    [
        (np.ones((3, 4)), "K must be square"),
        (np.full((3, 3), np.nan), "K contains NaN"),
        (np.ones(3), "Expected 2D array"),
    ],
)
def test_krein_decomposition_checks_K(K, match):
    with pytest.raises(ValueError, match=match):
        krein_decomposition(K)


@pytest.mark.parametrize("value", [2**31, 2**63, 2**64])
def test_integers_beyond_the_core_int_are_value_errors(value):
    # They used to reach pybind11 and come back as "incompatible function arguments".
    with pytest.raises(ValueError, match=r"SimpleNPKL: max_iter must be >= 0 and <= 2147483647 \(an int\)"):
        SimpleNPKL(max_iter=value).fit(X, Y)


def test_from_labels_caps_the_all_pairs_default():
    # One unlabelled point among 40,000 used to ask for all 8e8 pairs of the others (7.7 GB).
    y = np.arange(40_000) % 2
    y[0] = -1
    with pytest.warns(UserWarning, match=f"799940001 pairs .* drawing {ALL_PAIRS_LIMIT} of them"):
        pairs, labels = from_labels(y, random_state=0)
    assert pairs.shape == (ALL_PAIRS_LIMIT, 2) and labels.shape == (ALL_PAIRS_LIMIT,)
    assert np.all(pairs[:, 0] < pairs[:, 1]) and np.all(y[pairs] != -1)
    assert np.unique(pairs[:, 0] * y.size + pairs[:, 1]).size == ALL_PAIRS_LIMIT
    np.testing.assert_array_equal(labels, np.where(y[pairs[:, 0]] == y[pairs[:, 1]], 1, -1))


def test_from_labels_keeps_every_pair_below_the_cap():
    y = np.full(2000, -1)
    y[:100] = np.arange(100) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pairs, _ = from_labels(y)
    assert len(pairs) == 100 * 99 // 2


@pytest.mark.parametrize("function", [spectrum_bounds, negative_part])
@pytest.mark.parametrize("tol", [-1.0, 0.0, 1.5, float("nan")])
def test_spectral_helpers_check_tol(function, tol):
    with pytest.raises(ValueError, match=f"{function.__name__}: tol must be"):
        function(X @ X.T, tol=tol)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"factor": -1.0}, ValueError, "median_sigma: factor must be > 0"),
        ({"max_points": 1}, ValueError, "median_sigma: max_points must be >= 2"),
        ({"X": np.full((5, 2), np.nan)}, ValueError, "X contains NaN"),
    ],
)
def test_median_sigma_checks_its_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        median_sigma(**{"X": X, **kwargs})


def test_median_sigma_is_exact_at_any_magnitude():
    # pdist overflowed to inf on data near 1e300; the distances are now taken on X / 2^e.
    for scale in (1e-300, 1.0, 1e300):
        np.testing.assert_allclose(median_sigma(X * scale), median_sigma(X) * scale, rtol=1e-14)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # random data, default tol
@pytest.mark.parametrize("estimator", [MinimumVolumeEmbedding, ColoredMVU])
def test_distance_embeddings_work_at_any_representable_scale(estimator):
    # X near 1e-150 divided by zero and near 1e150 overflowed (squared distances, their squares
    # in the bound B); the solver now runs on X / 2^e, so a power-of-two scale changes nothing.
    Xs = RNG.standard_normal((20, 3))
    y = np.arange(20) % 2
    reference = estimator(2, random_state=0).fit(Xs, y).embedding_
    for exponent in (-495, 495):
        fitted = estimator(2, random_state=0).fit(np.ldexp(Xs, exponent), y)
        np.testing.assert_array_equal(np.ldexp(fitted.embedding_, -exponent), reference)
    with pytest.raises(ValueError, match="X's squared distances .* rescale X"):
        estimator(2).fit(Xs * 1e200, y)


@pytest.mark.parametrize("C", [5e-324, 1e-301, 1e301])
@pytest.mark.parametrize("estimator", [SimpleNPKL, ColoredMVU, StructurePreservingEmbedding])
def test_penalty_outside_the_core_range_is_a_value_error(estimator, C):
    # C = 5e-324 made rho = 2 / C infinite and ended in a RuntimeError from LAPACK.
    args = () if estimator is SimpleNPKL else (2,)
    with pytest.raises(ValueError, match=f"{estimator.__name__}: C must be >= 1e-300 and <= 1e\\+300"):
        estimator(*args, C=C).fit(X, Y)


@pytest.mark.parametrize("sigma", [1e-300, 1e300])
def test_kdac_sigma_outside_the_core_range_is_a_value_error(sigma):
    # sigma = 1e-300 gave NaN kernels and "ism: eigensolver failed on Phi" (RuntimeError).
    with pytest.raises(ValueError, match="KDAC: sigma must be"):
        KDAC(2, sigma=sigma).fit(X, Y)
