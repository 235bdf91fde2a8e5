"""KDAC as the paper runs it: q by the eigengap of Phi(W*) after a fit at q = k
(``n_components="auto"``), the (sigma, lambda) search against inequality (10)
(``search="inequality"``), and several alternative views in sequence (``n_views``)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from kernlearn.cluster import KDAC
from test_kdac import load, needs_data, nmi  # the data sets, found as test_kdac finds them


def three_views(n=240, seed=0):
    """Three independent 2-cluster structures, one per feature pair (separations 4, 3.5, 3 in units
    of the within-cluster spread 0.5 x 2): returns X (n x 6) and the three labelings."""
    rng = np.random.default_rng(seed)
    labels = [rng.integers(0, 2, n) for _ in range(3)]
    blocks = [
        np.c_[sep * lab + 0.5 * rng.standard_normal(n), 0.5 * rng.standard_normal(n)]
        for lab, sep in zip(labels, (4.0, 3.5, 3.0))
    ]
    return np.hstack(blocks), labels


# --------------------------------------------------------------------------------------------
# q: the eigengap (11) of Phi(W*) after a fit at q = k


def test_auto_q_comes_from_phi_at_the_q_equals_k_fit():
    """ "auto" = a fit at q = k, then q at the largest gap of that fit's Phi(W*), refitted; the
    eigenvalues it records are those of the q = k fit (not Phi_0's: "init-gap" reads those)."""
    X, (a, b, c) = three_views()
    auto = KDAC(2, n_components="auto", random_state=0).fit(X, a)
    search = auto.n_components_search_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # q = 2 cycles here; the reason "auto" moves q
        at_k = KDAC(2, n_components=2, random_state=0).fit(X, a)
    np.testing.assert_allclose(search["phi_eigenvalues"], at_k.phi_eigenvalues_, rtol=1e-8)
    assert search["initial"] == 2 and not search["condition_held"]
    assert search["initial_n_iter"] == at_k.n_iter_ and search["initial_converged"] == at_k.converged_
    assert search["chosen"] == int(np.argmax(np.diff(at_k.phi_eigenvalues_))) + 1
    assert auto.n_components_ == search["chosen"] and auto.projection_.shape == (6, search["chosen"])
    # The known answer: the existing clustering lives in one direction (feature 0), which Phi(W*)
    # penalises far above the rest, so the largest gap leaves exactly it out: q = d - 1.
    assert search["chosen"] == 5
    assert np.linalg.norm(auto.projection_[0]) < 0.25  # |P e_0|; a random 5-of-6 subspace: ~0.9
    init_gap = KDAC(2, n_components="init-gap", random_state=0).fit(X, a)
    assert init_gap.n_components_search_ is None
    assert int(np.argmax(np.diff(init_gap.init_eigenvalues_))) + 1 == init_gap.n_components_


def test_auto_q_stays_at_k_when_inequality_10_holds():
    """The paper moves q only "if (10) is not yet satisfied": at a huge sigma it holds."""
    X, (a, b, c) = three_views(n=120)
    m = KDAC(2, n_components="auto", sigma=1e3, random_state=0).fit(X, a)
    assert m.n_components_search_["condition_held"] and m.sigma_condition_["holds"]
    assert m.n_components_search_["chosen"] == 2 == m.n_components_


@needs_data
@pytest.mark.parametrize(
    "name, k, sigma, lam, q_paper, scale",
    [("moon_200x7", 2, 0.2, 0.1, 6, "moonn"), ("Four_gaussian_3D_200", 2, 5.0, 10.0, 3, None)],
)
def test_auto_q_is_the_papers_q(name, k, sigma, lam, q_paper, scale):
    """At the appendix's (sigma, lambda), the rule picks the appendix's q (MoonN 6, LG 3) and the
    alternative is found (bench/results/kdac_search.md has Faces 17 and Moon 3 as well)."""
    X, original, alternative = load(name)
    if scale == "moonn":
        X = StandardScaler().fit_transform(X)
        X[:, 4:] /= 3
    m = KDAC(k, n_components="auto", sigma=sigma, lambda_=lam, lambda_scale="absolute", random_state=0)
    m.fit(X, original)
    assert m.n_components_search_["initial"] == k and not m.n_components_search_["condition_held"]
    assert m.n_components_ == q_paper
    assert nmi(alternative, m.labels_) == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------
# The (sigma, lambda) search against inequality (10)


def test_search_keeps_the_best_cq_among_pairs_satisfying_10():
    X, (a, b, c) = three_views(n=120)
    grid_s, grid_l = (0.5, 1.0, 1e3), (0.5, 2.0)
    m = KDAC(2, n_components=2, search="inequality", sigma_grid=grid_s, lambda_grid=grid_l, random_state=0)
    m.fit(X, a)
    r = m.search_results_
    assert r["sigma"].size == 6 and r["chosen"].sum() == 1
    assert set(zip(r["sigma"], r["lambda_"])) == {(s, lam) for s in grid_s for lam in grid_l}
    np.testing.assert_array_equal(r["holds"], r["lhs"] >= r["rhs"])
    assert r["holds"].any() and not r["holds"].all()  # sigma = 1e3 satisfies (10), 0.5 does not
    best = int(np.flatnonzero(r["chosen"])[0])
    assert r["holds"][best] and r["quality"][best] == r["quality"][r["holds"]].max()
    assert m.search_best_params_ == {"sigma": r["sigma"][best], "lambda_": r["lambda_"][best]}
    assert m.sigma_ == r["sigma"][best] and m.quality_ == pytest.approx(r["quality"][best])
    assert m.views_[0]["lambda_"] == r["lambda_"][best]


def test_search_without_a_satisfying_pair_takes_the_closest():
    X, (a, b, c) = three_views(n=120)
    m = KDAC(2, search="inequality", sigma_grid=[1.0, 2.0, 4.0], lambda_grid=[1.0], random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(X, a)
    r = m.search_results_
    assert not r["holds"].any()
    assert r["ratio"][r["chosen"]][0] == r["ratio"].max()
    np.testing.assert_allclose(r["ratio"], r["lhs"] / r["rhs"])


def test_search_default_grid_is_relative_to_the_median_sigma():
    from kernlearn.cluster import median_sigma
    from kernlearn.cluster._kdac import LAMBDA_GRID, SIGMA_GRID_FACTORS

    X, (a, b, c) = three_views(n=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = KDAC(2, n_components=2, search="inequality", random_state=0).fit(X, a)
    r = m.search_results_
    assert r["sigma"].size == len(SIGMA_GRID_FACTORS) * len(LAMBDA_GRID)
    np.testing.assert_allclose(np.unique(r["sigma"]), np.array(SIGMA_GRID_FACTORS) * median_sigma(X), rtol=1e-12)
    assert not hasattr(KDAC(2, n_components=2, sigma=1.0).fit(X, a), "search_results_")


# --------------------------------------------------------------------------------------------
# Several views in sequence


def test_three_views_are_recovered_in_turn():
    """Given the first structure, view 0 and view 1 are the other two (in either order), each
    novel against the given labels and against the views before it."""
    X, (a, b, c) = three_views()
    X_before = X.copy()
    m = KDAC(2, n_views=2, random_state=0).fit(X, a)
    assert np.array_equal(X, X_before)
    assert m.labels_views_.shape == (2, X.shape[0])
    np.testing.assert_array_equal(m.labels_views_[0], m.labels_)
    assert m.projection_views_[0] is m.projection_ or np.array_equal(m.projection_views_[0], m.projection_)
    scores = np.array([[nmi(t, v) for t in (b, c)] for v in m.labels_views_])
    assert scores.max(axis=1).min() > 0.85  # each view is one of the two hidden structures
    assert set(np.argmax(scores, axis=1)) == {0, 1}  # ... and not the same one twice
    for v, view in enumerate(m.views_):
        assert nmi(a, m.labels_views_[v]) < 0.05
        assert view["novelty"].shape == (1 + v,) and view["novelty"].max() < 0.05
    # q = d minus the directions of the clusterings to be novel against ("residual"): 6 - 1 for
    # view 0 (the given structure's), 6 - 2 for view 1 (the given one's and view 0's).
    assert [view["n_components"] for view in m.views_] == [5, 4]
    assert np.linalg.norm(m.projection_views_[0][0]) < 0.25  # |P e_0|; a random 5-of-6 subspace: ~0.9


def test_one_view_is_the_plain_fit():
    X, (a, b, c) = three_views(n=120)
    one = KDAC(2, random_state=0).fit(X, a)
    two = KDAC(2, n_views=2, random_state=0).fit(X, a)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    np.testing.assert_allclose(one.projection_, two.projection_)
    assert one.labels_views_.shape == (1, 120) and len(one.views_) == 1


# --------------------------------------------------------------------------------------------
# Bad input names the parameter


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"search": "grid"}, ValueError, "search"),
        ({"search": "inequality", "sigma_grid": []}, ValueError, "sigma_grid"),
        ({"search": "inequality", "sigma_grid": [1.0, -1.0]}, ValueError, "sigma_grid"),
        ({"search": "inequality", "sigma_grid": [1.0, np.nan]}, ValueError, "sigma_grid"),
        ({"search": "inequality", "sigma_grid": [[1.0, 2.0]]}, ValueError, "sigma_grid"),
        ({"search": "inequality", "sigma_grid": ["a"]}, ValueError, "sigma_grid"),
        ({"search": "inequality", "sigma_grid": "1.0"}, TypeError, "sigma_grid"),
        ({"search": "inequality", "lambda_grid": [-0.1]}, ValueError, "lambda_grid"),
        ({"search": "inequality", "lambda_grid": [np.inf]}, ValueError, "lambda_grid"),
        ({"search": "inequality", "lambda_grid": 3.0}, TypeError, "lambda_grid"),
        ({"n_views": 0}, ValueError, "n_views"),
        ({"n_views": 1.5}, TypeError, "n_views"),
        ({"n_views": "2"}, TypeError, "n_views"),
        ({"n_components": "gap"}, ValueError, "n_components"),
    ],
)
def test_bad_new_parameters(params, error, match):
    X, (a, b, c) = three_views(n=30)
    with pytest.raises(error, match=match):
        KDAC(2, **params).fit(X, a)


def test_a_degenerate_view_stops_with_n_views_named(monkeypatch):
    """If a view puts every point in one cluster there is nothing for the next to be novel
    against: ValueError naming n_views (forced here by k-means returning one label)."""
    import kernlearn.cluster._kdac as kdac_module

    class OneCluster:
        def __init__(self, k, **kwargs):
            self.k = k

        def fit(self, Z):
            self.labels_ = np.zeros(Z.shape[0], dtype=np.int32)
            self.cluster_centers_ = np.zeros((self.k, Z.shape[1]))
            return self

    monkeypatch.setattr(kdac_module, "KMeans", OneCluster)
    X, (a, b, c) = three_views(n=40)
    with pytest.raises(ValueError, match="n_views"):
        KDAC(2, n_components=2, n_views=2, random_state=0).fit(X, a)
