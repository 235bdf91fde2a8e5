"""KDAC's default q rule (n_components="residual") and its relative novelty weight
(lambda_scale="relative"): the rule's q on constructed cases, the scale against a dense numpy
reference, lambda changing the labels where it should, and bad values refused by name."""

import numpy as np
import pytest
from sklearn.metrics import normalized_mutual_info_score

from kernlearn.cluster import KDAC
from kernlearn.cluster._kdac import residual_dimension


def nmi(a, b):
    return normalized_mutual_info_score(a, b, average_method="geometric")


def one_hot(y):
    return np.eye(int(y.max()) + 1)[y]


def centred_within(X, y, columns):
    """X with the given columns centred within each group of y: the groups' means agree exactly there."""
    X = X.copy()
    for g in np.unique(y):
        rows = y == g
        X[np.ix_(rows, columns)] -= X[np.ix_(rows, columns)].mean(axis=0)
    return X


def test_residual_dimension_is_d_minus_the_span_of_the_class_means():
    rng = np.random.default_rng(0)
    n, d = 90, 6
    y = np.repeat([0, 1, 2], 30)
    X = rng.normal(size=(n, d))
    X[:, :2] += 3.0 * rng.normal(size=(3, 2))[y]
    X = centred_within(X, y, [2, 3, 4, 5])  # the 3 means differ in features 0-1 only
    # Independent reference: the orthogonal complement of the centred class means.
    means = np.vstack([X[y == g].mean(axis=0) for g in range(3)]) - X.mean(axis=0)
    assert np.linalg.matrix_rank(means) == 2
    assert residual_dimension(X, one_hot(y)) == d - 2 == 4
    model = KDAC(2, random_state=0).fit(X, y)
    assert model.n_components_ == 4 and model.projection_.shape == (d, 4)
    # A second existing clustering whose means differ in feature 2 removes one more direction.
    z = np.tile([0, 1], n // 2)
    X2 = centred_within(X, z, [0, 1, 3, 4, 5])
    X2[:, 2] += 2.0 * z
    assert residual_dimension(X2, np.hstack([one_hot(y), one_hot(z)])) == 3
    assert KDAC(2, random_state=0).fit(X2, np.c_[y, z]).n_components_ == 3
    # When the existing means span every direction, one dimension is still kept.
    X3 = rng.normal(size=(n, 2)) + 3.0 * rng.normal(size=(3, 2))[y]
    assert residual_dimension(X3, one_hot(y)) == 1


def two_structures(seed, n=120):
    """A strong given 2-group structure (feature 0) and a weaker hidden one (feature 1), plus noise."""
    rng = np.random.default_rng(seed)
    given, hidden = rng.integers(0, 2, size=(2, n))
    X = np.c_[6.0 * given, 3.0 * hidden, np.zeros(n)] + rng.normal(scale=0.5, size=(n, 3))
    return X, given, hidden


def test_lambda_changes_the_labels():
    X, given, hidden = two_structures(2)
    weak = KDAC(2, n_components=1, lambda_=0.01, random_state=0).fit(X, given)
    strong = KDAC(2, n_components=1, lambda_=10.0, random_state=0).fit(X, given)
    # A negligible novelty weight lets W keep the strong given structure; the default-sized one
    # moves it to the hidden one.
    assert nmi(weak.labels_, given) > 0.9
    assert nmi(strong.labels_, hidden) > 0.9 and nmi(strong.labels_, given) < 0.05
    assert np.argmax(np.abs(weak.projection_[:, 0])) == 0
    assert np.argmax(np.abs(strong.projection_[:, 0])) == 1


def test_relative_lambda_against_a_dense_reference():
    X, given, _ = two_structures(5, n=60)
    model = KDAC(2, lambda_=3.0, random_state=0).fit(X, given)
    # The scale: HSIC(X, U_0) / HSIC(X, Y) in the full space, U_0 the top-2 eigenvectors of Q.
    Xc = X - X.mean(axis=0)
    K = np.exp(-((Xc[:, None] - Xc[None]) ** 2).sum(-1) / (2 * model.sigma_**2))
    degree = K.sum(axis=1)
    H = np.eye(60) - 1.0 / 60
    Q = H @ (K / np.sqrt(np.outer(degree, degree))) @ H
    Yc = H @ one_hot(given)
    quality0 = np.linalg.eigvalsh(Q)[-2:].sum()
    expected = 3.0 * quality0 / np.trace(Yc.T @ Q @ Yc)
    assert model.lambda_effective_ == pytest.approx(expected, rel=1e-8)
    assert model.views_[0]["lambda_effective"] == model.lambda_effective_
    assert model.cost_ == pytest.approx(model.quality_ - expected * model.history_["hsic_y"][-1], rel=1e-10)
    absolute = KDAC(2, lambda_=3.0, lambda_scale="absolute", random_state=0).fit(X, given)
    assert absolute.lambda_effective_ == 3.0


def test_relative_lambda_does_not_depend_on_the_scale_of_y():
    # The same clustering given twice doubles HSIC(XW, Y); the relative weight halves with it, so
    # the fit is the same. With the absolute weight the novelty term doubles.
    X, given, _ = two_structures(3, n=80)
    once = KDAC(2, random_state=0).fit(X, given)
    twice = KDAC(2, random_state=0).fit(X, [given, given])
    assert twice.lambda_effective_ == pytest.approx(once.lambda_effective_ / 2, rel=1e-10)
    np.testing.assert_array_equal(twice.labels_, once.labels_)
    assert twice.cost_ == pytest.approx(once.cost_, rel=1e-8)


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"lambda_scale": "balanced"}, ValueError, "lambda_scale"),
        ({"lambda_scale": None}, TypeError, "lambda_scale"),
        ({"n_components": "residuals"}, ValueError, "n_components"),
        ({"lambda_": -1.0}, ValueError, "lambda_"),
        ({"lambda_": np.nan}, ValueError, "lambda_"),
    ],
)
def test_bad_values_are_refused_by_name(params, error, match):
    X, given, _ = two_structures(4, n=30)
    with pytest.raises(error, match=match):
        KDAC(2, **params).fit(X, given)
