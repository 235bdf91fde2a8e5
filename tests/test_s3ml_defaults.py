"""S3ML's prior="auto" / beta="auto": the candidates' scores against independent computations
(leave-one-out 1-NN in numpy on explicitly fitted candidates; the pair AUC by
scikit-learn's roc_auc_score), the choice on a constructed case where only the covariance prior
separates the classes, explicit values as before, bad values refused by name."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import KNeighborsClassifier

from kernlearn.constraints import from_labels
from kernlearn.metric import S3ML


def _size_and_shape(n=200, seed=0):
    """Crab-like data: a large common size factor in every feature, the class in a small
    difference of two features. Euclidean 1-NN sees the size; the covariance prior (a
    Mahalanobis metric) removes it. 20 % labelled."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    size = rng.normal(size=n) * 5.0
    shape = (2 * y - 1) * 0.4 + 0.25 * rng.normal(size=n)
    X = np.column_stack([size + shape, size - shape, size + 0.3 * rng.normal(size=n), rng.normal(size=n)])
    ys = np.full(n, -1)
    labelled = rng.choice(n, n // 5, replace=False)
    ys[labelled] = y[labelled]
    return X, y, ys


def _one_nn_error(model, X, y, ys):
    Z = model.transform(X)
    known = ys != -1
    knn = KNeighborsClassifier(1).fit(Z[known], y[known])
    return float(np.mean(knn.predict(Z[~known]) != y[~known]))


def test_scores_are_the_leave_one_out_errors_of_the_explicit_candidates():
    X, y, ys = _size_and_shape()
    model = S3ML(random_state=0).fit(X, ys)
    c = model.candidates_
    assert list(c["prior"]) == ["identity"] * 3 + ["covariance"] * 3
    np.testing.assert_allclose(c["beta_fraction"], [0.9, 0.45, 0.0] * 2)
    np.testing.assert_allclose(c["beta"], c["beta_fraction"] * c["beta_max"], rtol=1e-12)
    known = ys != -1
    for prior, beta, score in zip(c["prior"], c["beta"], c["score"]):
        explicit = S3ML(prior=prior, beta=float(beta), random_state=0).fit(X, ys)
        assert explicit.candidates_ is None and explicit.prior_ == prior
        Z = explicit.transform(X)[known]
        D = ((Z[:, None] - Z[None]) ** 2).sum(-1)
        np.fill_diagonal(D, np.inf)
        loo = np.mean(ys[known][np.argmin(D, axis=1)] != ys[known])
        assert score == pytest.approx(loo, abs=1e-12)
    # the one-standard-error rule: the first candidate within sqrt(s (1 - s) / labelled) of the best
    best = c["score"].min()
    chosen = int(np.flatnonzero(c["score"] <= best + np.sqrt(best * (1 - best) / known.sum()))[0])
    assert model.prior_ == c["prior"][chosen] and model.beta_ == c["beta"][chosen]
    assert model.beta_max_ == c["beta_max"][chosen]


def test_the_covariance_prior_is_chosen_where_only_it_separates():
    X, y, ys = _size_and_shape()
    model = S3ML(random_state=0).fit(X, ys)
    assert model.prior_ == "covariance"
    old = S3ML(prior="identity", random_state=0).fit(X, ys)
    euclidean = S3ML(prior="identity", beta=0.0, rho=0.0, random_state=0).fit(X, ys)
    assert _one_nn_error(model, X, y, ys) < min(_one_nn_error(old, X, y, ys), _one_nn_error(euclidean, X, y, ys)) - 0.1


def test_pairs_are_scored_by_the_auc_of_their_distances():
    X, _, ys = _size_and_shape(120)
    pairs, labels = from_labels(ys)
    model = S3ML(random_state=0).fit(X, pairs=pairs, pair_labels=labels)
    for prior, beta, score in zip(model.candidates_["prior"], model.candidates_["beta"], model.candidates_["score"]):
        explicit = S3ML(prior=prior, beta=float(beta)).fit(X, pairs=pairs, pair_labels=labels)
        distances = explicit.pair_distance(X[pairs[:, 0]], X[pairs[:, 1]])
        assert score == pytest.approx(1.0 - roc_auc_score(labels < 0, distances), abs=1e-12)


def test_one_standard_error_rule_prefers_the_former_default(monkeypatch):
    """Scores 0.30 (the former default), 0.25 and 0.10 over 40 labelled points: one standard
    error of 0.10 is 0.047, so 0.10 wins; with 0.13 for the first it is the first."""
    X, _, ys = _size_and_shape()
    for first, expected in ((0.30, 5), (0.13, 0)):

        def scores(self, *args, first=first):
            return np.array([first, 0.25, 0.25, 0.2, 0.15, 0.10]), 40

        monkeypatch.setattr(S3ML, "_selection_scores", scores)
        model = S3ML(random_state=0).fit(X, ys)
        assert model.beta_ == model.candidates_["beta"][expected]
        assert model.prior_ == model.candidates_["prior"][expected]


def test_only_the_chosen_candidates_warnings_reach_the_user(monkeypatch):
    X, _, ys = _size_and_shape()
    solve = S3ML._solve
    calls = []

    def warning_solve(self, Sigma, rho):
        calls.append(len(calls))
        warnings.warn(f"candidate {calls[-1]}", ConvergenceWarning, stacklevel=2)
        return solve(self, Sigma, rho)

    monkeypatch.setattr(S3ML, "_solve", warning_solve)
    with pytest.warns(ConvergenceWarning) as records:
        model = S3ML(random_state=0).fit(X, ys)
    c = model.candidates_
    chosen = int(np.flatnonzero((c["beta"] == model.beta_) & (c["prior"] == model.prior_))[0])
    assert len(calls) == 6 and [str(r.message) for r in records] == [f"candidate {chosen}"]


def test_explicit_prior_or_beta_restricts_the_candidates():
    X, _, ys = _size_and_shape()
    identity = S3ML(prior="identity", random_state=0).fit(X, ys)
    assert set(identity.candidates_["prior"]) == {"identity"} and identity.prior_ == "identity"
    fixed_beta = S3ML(beta=0.0, random_state=0).fit(X, ys)
    assert list(fixed_beta.candidates_["prior"]) == ["identity", "covariance"]
    assert fixed_beta.beta_ == 0.0
    both = S3ML(prior="identity", beta=0.0, random_state=0).fit(X, ys)
    assert both.candidates_ is None and both.prior_ == "identity" and both.beta_ == 0.0


def test_a_beta_admissible_for_one_prior_only():
    X, _, ys = _size_and_shape()
    caps = S3ML(random_state=0).fit(X, ys).candidates_["beta_max"]
    low, high = sorted({caps[0], caps[3]})
    model = S3ML(beta=0.5 * (low + high), random_state=0).fit(X, ys)
    assert model.candidates_ is None and model.beta_max_ == high
    with pytest.raises(ValueError, match="beta = .* admissible range"):
        S3ML(beta=2 * high, random_state=0).fit(X, ys)


@pytest.mark.parametrize(("name", "value"), [("prior", "mahalanobis"), ("beta", "fast"), ("beta", -1.0)])
def test_bad_values_are_refused_by_name(name, value):
    X, _, ys = _size_and_shape(60)
    with pytest.raises((ValueError, TypeError), match=name):
        S3ML(**{name: value}).fit(X, ys)
