"""SimpleNPKLCV, the pair folds it splits by and the pair score it ranks by."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler

from kernlearn.constraints import from_labels, pair_folds
from kernlearn.datasets import load_iris
from kernlearn.evaluation import pair_distance_auc
from kernlearn.npkl import SimpleNPKL
from kernlearn.npkl_cv import SimpleNPKLCV


@pytest.fixture(scope="module")
def partly_labelled():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    labelled = np.random.RandomState(0).rand(y.size) < 0.3
    pairs, labels = from_labels(np.where(labelled, y, -1))
    return X, y, pairs, labels


def test_pair_folds_hold_out_points_not_pairs(partly_labelled):
    _, _, pairs, _ = partly_labelled
    folds = pair_folds(pairs, 3, random_state=0)
    assert len(folds) == 3
    held = []
    for train, test in folds:
        assert np.intersect1d(train, test).size == 0 and train.size + test.size == len(pairs)
        # no test pair is covered by the training pairs' points alone: each touches a point
        # that no training pair does
        seen = np.unique(pairs[train])
        assert not np.isin(pairs[test], seen).all(axis=1).any()
        held.append(np.setdiff1d(np.unique(pairs[test]), seen))
    # the held-out points partition the constrained points
    assert np.array_equal(np.sort(np.concatenate(held)), np.unique(pairs))
    again = pair_folds(pairs, 3, random_state=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))


def test_pair_folds_bad_input():
    with pytest.raises(ValueError, match="n_splits"):
        pair_folds(np.array([[0, 1]]), 3)
    with pytest.raises(ValueError, match="pairs must have shape"):
        pair_folds(np.zeros((0, 2), dtype=int))


def test_pair_distance_auc_is_the_roc_auc_of_kernel_distances():
    rng = np.random.default_rng(0)
    F = rng.standard_normal((20, 3))
    pairs = np.array([[i, j] for i in range(20) for j in range(i + 1, 20)])[::3]
    labels = np.where(rng.random(len(pairs)) < 0.5, 1, -1)
    K = F @ F.T
    distance = K[pairs[:, 0], pairs[:, 0]] + K[pairs[:, 1], pairs[:, 1]] - 2 * K[pairs[:, 0], pairs[:, 1]]
    assert pair_distance_auc(F, pairs, labels) == pytest.approx(roc_auc_score(labels, -distance))
    # points with no mass are no better than chance, whatever their directions
    assert pair_distance_auc(np.zeros((20, 3)), pairs, labels) == 0.5
    with pytest.raises(ValueError, match="both"):
        pair_distance_auc(F, pairs, np.ones(len(pairs)))


def test_cv_results_are_the_manual_loop(partly_labelled):
    X, _, pairs, labels = partly_labelled
    cv = SimpleNPKLCV(SimpleNPKL(random_state=0), Cs=(0.1, 1.0), Gs=(1e-3, 1e-2), random_state=0)
    cv.fit(X, pairs=pairs, pair_labels=labels)
    folds = pair_folds(pairs, 3, random_state=np.random.RandomState(0))
    expected = []
    for C in (0.1, 1.0):
        for G in (1e-3, 1e-2):
            scores = []
            for train, test in folds:
                model = SimpleNPKL(C=C, G=G, random_state=0).fit(X, pairs=pairs[train], pair_labels=labels[train])
                scores.append(pair_distance_auc(model.embedding_, pairs[test], labels[test]))
            expected.append(np.mean(scores))
    np.testing.assert_allclose(cv.cv_results_["mean_test_score"], expected, rtol=1e-12)
    best = int(np.argmax(expected))
    assert cv.best_params_ == {"C": cv.cv_results_["param_C"][best], "G": cv.cv_results_["param_G"][best]}
    assert cv.cv_results_["rank_test_score"][best] == 1
    refit = SimpleNPKL(random_state=0, **cv.best_params_).fit(X, pairs=pairs, pair_labels=labels)
    np.testing.assert_array_equal(cv.embedding_, refit.embedding_)
    np.testing.assert_array_equal(cv.transform(X[:5]), refit.transform(X[:5]))


def test_cv_tunes_the_bound_too_and_from_labels(partly_labelled):
    X, y, _, _ = partly_labelled
    labelled = np.random.RandomState(1).rand(y.size) < 0.3
    cv = SimpleNPKLCV(Cs=(0.3,), Bs=(100.0, 1e4), random_state=0).fit(X, np.where(labelled, y, -1))
    assert set(cv.best_params_) == {"C", "B"} and cv.best_params_["B"] in (100.0, 1e4)
    assert cv.best_estimator_.G is None
    no_refit = SimpleNPKLCV(Cs=(0.3,), Gs=(1e-3,), refit=False, random_state=0).fit(X, np.where(labelled, y, -1))
    with pytest.raises(Exception, match="refit=False"):
        no_refit.transform(X)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(Cs=(-1.0,)), "Cs must be a non-empty sequence of positive"),
        (dict(Gs=()), "Gs must be a non-empty"),
        (dict(cv=1), "cv"),
        (dict(estimator="SimpleNPKL"), "estimator"),
    ],
)
def test_bad_parameters(partly_labelled, params, message):
    X, _, pairs, labels = partly_labelled
    with pytest.raises((ValueError, TypeError), match=message):
        SimpleNPKLCV(**params).fit(X, pairs=pairs, pair_labels=labels)


def test_too_few_pairs_for_the_folds(partly_labelled):
    X, *_ = partly_labelled
    # must-links only: no fold's test pairs can hold both kinds, whatever the split
    with pytest.raises(ValueError, match="no fold"):
        SimpleNPKLCV(cv=3, random_state=0).fit(
            X, pairs=np.array([[0, 1], [2, 3], [4, 5]]), pair_labels=np.array([1, 1, 1])
        )
