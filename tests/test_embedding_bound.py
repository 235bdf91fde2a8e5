"""The paper's bound B = m x N (Section 7.5) as ``B_per_point=m`` on the three embeddings: the
same fit as the explicit number m n, and bad values rejected by name."""

import numpy as np
import pytest

from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding


def blobs(n=24, seed=0, d=3):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.standard_normal((n, d)) + 2.5 * y[:, None]
    return X, y


MAKERS = {
    "ColoredMVU": lambda **kw: ColoredMVU(n_neighbors=4, random_state=0, **kw),
    "MinimumVolumeEmbedding": lambda **kw: MinimumVolumeEmbedding(n_neighbors=4, n_outer=5, random_state=0, **kw),
    "StructurePreservingEmbedding": lambda **kw: StructurePreservingEmbedding(n_neighbors=4, random_state=0, **kw),
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("m", [0.1, 2.0, 10])
def test_b_per_point_is_b_equal_to_m_times_n(name, m):
    X, y = blobs()
    n = len(X)
    per_point = MAKERS[name](B_per_point=m).fit(X, y)
    explicit = MAKERS[name](B=m * n).fit(X, y)
    assert per_point.B_ == explicit.B_ == pytest.approx(m * n, rel=1e-15)
    np.testing.assert_array_equal(per_point.embedding_, explicit.embedding_)
    np.testing.assert_array_equal(per_point.eigenvalues_, explicit.eigenvalues_)
    assert per_point.get_params()["B_per_point"] == m and per_point.get_params()["B"] is None


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_bound_is_active_for_a_small_b_per_point():
    """tr K^2 reaches m n when the bound is far below what the distances ask for."""
    X, _ = blobs(seed=1)
    model = MinimumVolumeEmbedding(n_neighbors=4, B_per_point=0.1, n_outer=3, random_state=0).fit(X)
    assert np.sum(model.eigenvalues_**2) == pytest.approx(0.1 * len(X), rel=1e-6)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_defaults_are_unchanged_by_the_option():
    """B_per_point=None keeps each estimator's own default (MVE: geodesic trace squared, SPE: n)."""
    X, _ = blobs(seed=2)
    spe = StructurePreservingEmbedding(n_neighbors=4, random_state=0).fit(X)
    assert spe.B_ == len(X)
    spe_one = StructurePreservingEmbedding(n_neighbors=4, B_per_point=1, random_state=0).fit(X)
    np.testing.assert_array_equal(spe.embedding_, spe_one.embedding_)
    mve = MinimumVolumeEmbedding(n_neighbors=4, n_outer=2, random_state=0).fit(X)
    assert mve.B_ > 100 * len(X)  # the geodesic bound, far above m n for the paper's m


@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("bad", [0, -1.0, np.inf, np.nan])
def test_bad_b_per_point_is_a_value_error_naming_it(name, bad):
    X, y = blobs(n=12)
    with pytest.raises(ValueError, match="B_per_point"):
        MAKERS[name](B_per_point=bad).fit(X, y)


@pytest.mark.parametrize("name", list(MAKERS))
def test_b_per_point_of_the_wrong_type_is_a_type_error_naming_it(name):
    X, y = blobs(n=12)
    with pytest.raises(TypeError, match="B_per_point"):
        MAKERS[name](B_per_point="2n").fit(X, y)


@pytest.mark.parametrize("name", list(MAKERS))
def test_b_and_b_per_point_together_is_a_value_error_naming_both(name):
    X, y = blobs(n=12)
    with pytest.raises(ValueError, match=r"B=.*B_per_point=.*give one of them"):
        MAKERS[name](B=5.0, B_per_point=1.0).fit(X, y)
