"""SimpleNPKLCV: SimpleNPKL with C and its capacity (G or B) tuned on the pairs themselves, no
labels needed.

The paper tunes C by cross-validation against class labels. A user with pairs only has no
labels, so the folds here are over the pairs (:func:`kernlearn.constraints.pair_folds`: each
test pair touches a point no training pair does) and the score is how well the learned kernel
separates held-out must-links from cannot-links (:func:`kernlearn.evaluation.pair_distance_auc`).
"""

import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ._utils._param_validation import Interval, validate_params
from ._utils._validation import check_random_state, validate_X
from .constraints import pair_folds, pairs_for_fit
from .evaluation import pair_distance_auc
from .npkl import SimpleNPKL

__all__ = ["SimpleNPKLCV"]

# The default grids, around SimpleNPKL's defaults on small data (C = 0.3, G = 1e-3): 12 points, the budget the
# suite gives every tuned method (bench/results/suite.md).
DEFAULT_CS = (0.03, 0.1, 0.3, 1.0)
DEFAULT_GS = (1e-4, 1e-3, 1e-2)


def _score(estimator, pairs, pair_labels):
    """The default CV score: pair_distance_auc of the fitted kernel on the test pairs."""
    return pair_distance_auc(estimator.embedding_, pairs, pair_labels)


class SimpleNPKLCV(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """SimpleNPKL with C and G (or B) chosen by cross-validation on the pairs.

    Every (C, G) or (C, B) of the grid is fitted on each fold's training pairs (all points, transductive as
    SimpleNPKL is) and scored on the fold's test pairs; the best mean score wins (ties: the
    first in grid order, i.e. the smaller C, then the first capacity) and ``refit`` fits it on every
    pair. With class labels ``y`` the pairs come from :func:`kernlearn.constraints.from_labels`
    first, so the labels themselves are never read by the score.

    Parameters
    ----------
    estimator : SimpleNPKL, optional
        The model whose C and B are tuned (its other parameters are kept). Default
        ``SimpleNPKL()``.
    Cs : sequence of float > 0, default (0.03, 0.1, 0.3, 1)
    Gs : sequence of float > 0, default (1e-4, 1e-3, 1e-2)
        Penalties (Proposition 2's form, SimpleNPKL's default).
    Bs : sequence of float > 0, optional
        Trace bounds (Proposition 1's form) to search instead of ``Gs``.
    cv : int >= 2, default 3
        Folds over the constrained points (:func:`kernlearn.constraints.pair_folds`).
    scoring : callable, optional
        ``scoring(fitted_estimator, test_pairs, test_pair_labels) -> float``, larger is better.
        Default: :func:`kernlearn.evaluation.pair_distance_auc` of ``embedding_``.
    refit : bool, default True
    random_state : int, RandomState or None
        The folds and, with ``y``, the drawn pairs.

    Attributes
    ----------
    best_params_ : dict with "C" and "G" (or "B")
    best_score_ : float
    cv_results_ : dict of arrays, one entry per grid point: "param_C", "param_G" (or "param_B"),
        "mean_test_score", "std_test_score", "split<k>_test_score", "rank_test_score"
    n_splits_ : the folds scored: a fold whose test pairs are all must-links or all
        cannot-links has no score and is left out
    best_estimator_ : the refitted SimpleNPKL (``refit=True``)
    embedding_, n_features_in_ : the refitted model's

    Examples
    --------
    The data of :class:`kernlearn.npkl.SimpleNPKL`'s example; a small grid keeps this example fast
    (the default grid has 4 x 3 points).

    >>> import numpy as np
    >>> from kernlearn.constraints import from_labels
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.npkl_cv import SimpleNPKLCV
    >>> X, y = load_iris(return_X_y=True)
    >>> rng = np.random.RandomState(0)
    >>> train = rng.rand(150) >= 0.2
    >>> pairs, pair_labels = from_labels(np.where(rng.rand(150) < 0.5, y, -1)[train])
    >>> search = SimpleNPKLCV(Cs=[0.3], Gs=[1e-3, 1e-2], random_state=0)
    >>> search = search.fit(X[train], pairs=pairs, pair_labels=pair_labels)
    >>> search.best_params_
    {'C': 0.3, 'G': 0.001}
    >>> search.cv_results_["mean_test_score"].round(2)  # per G: the held-out pairs' AUC
    array([0.99, 0.94])
    >>> search.embedding_.shape  # the best model, refitted on every pair
    (122, 3)
    >>> search.transform(X[~train]).shape
    (28, 3)
    """

    _parameter_constraints = {
        "estimator": [SimpleNPKL, None],
        "Cs": ["array-like"],
        "Gs": ["array-like"],
        "Bs": ["array-like", None],
        "cv": [Interval(Integral, 2, None)],
        "scoring": ["callable", None],
        "refit": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        Cs=DEFAULT_CS,
        Gs=DEFAULT_GS,
        Bs=None,
        cv=3,
        scoring=None,
        refit=True,
        random_state=None,
    ):
        self.estimator = estimator
        self.Cs = Cs
        self.Gs = Gs
        self.Bs = Bs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.random_state = random_state

    def fit(self, X, y=None, *, pairs=None, pair_labels=None):
        """Tune C and G (or B) on ``pairs`` + ``pair_labels`` (or on the pairs drawn from ``y``, as
        SimpleNPKL.fit does) and refit the best.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Class labels (-1: unlabelled), as in :meth:`kernlearn.npkl.SimpleNPKL.fit`. Give y
            or ``pairs``.
        pairs : array-like of shape (n_pairs, 2), optional
        pair_labels : array-like of shape (n_pairs,), optional
            +1 (must-link) or -1 (cannot-link) per pair; required with ``pairs``.

        Returns
        -------
        self : SimpleNPKLCV
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        X = validate_X(self, X, accept_sparse=True, min_samples=2)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        base = SimpleNPKL() if self.estimator is None else self.estimator
        pairs, labels = pairs_for_fit(n, y, pairs, pair_labels, rng, partners=getattr(base, "partners", None))
        Cs = self._grid(self.Cs, "Cs")
        if self.Bs is None:
            name, capacities, other = "G", self._grid(self.Gs, "Gs"), "B"
        else:
            name, capacities, other = "B", self._grid(self.Bs, "Bs"), "G"
        folds = pair_folds(pairs, self.cv, random_state=rng)
        # A fold whose test pairs are all of one kind (or that leaves no training pair) has no
        # score; it is left out (n_splits_ counts the folds scored), and no fold at all is refused.
        usable = [(train, test) for train, test in folds if train.size and np.unique(labels[test]).size == 2]
        if not usable:
            raise ValueError(
                f"no fold of cv = {self.cv} has both must-links and cannot-links among its test pairs "
                "and a training pair: give more pairs or a smaller cv"
            )
        folds = usable
        self.n_splits_ = len(folds)
        scoring = _score if self.scoring is None else self.scoring
        grid = [{"C": float(C), name: float(value), other: None} for C in Cs for value in capacities]
        scores = np.empty((len(grid), len(folds)))
        for g, params in enumerate(grid):
            model = clone(base).set_params(**params)
            for f, (train, test) in enumerate(folds):
                with warnings.catch_warnings():
                    # An unconverged candidate is scored as it is; the refit warns if the best does.
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    # a training fold may hold must-links only; the refit on every pair warns if so
                    warnings.filterwarnings("ignore", message="only must-link pairs", category=UserWarning)
                    # a zero kernel scores 0.5 (no separation): the grid ranks it, no warning needed
                    warnings.filterwarnings("ignore", message="the learned kernel is zero", category=UserWarning)
                    model.fit(X, pairs=pairs[train], pair_labels=labels[train])
                scores[g, f] = scoring(model, pairs[test], labels[test])
        mean = scores.mean(axis=1)
        best = int(np.argmax(mean))  # first maximum: grid order breaks ties
        self.cv_results_ = {
            "param_C": np.array([params["C"] for params in grid]),
            f"param_{name}": np.array([params[name] for params in grid]),
            "mean_test_score": mean,
            "std_test_score": scores.std(axis=1),
            "rank_test_score": (np.argsort(np.argsort(-mean, kind="stable"), kind="stable") + 1).astype(np.int32),
            **{f"split{f}_test_score": scores[:, f] for f in range(len(folds))},
        }
        self.best_params_ = {"C": grid[best]["C"], name: grid[best][name]}
        self.best_score_ = float(mean[best])
        if self.refit:
            self.best_estimator_ = clone(base).set_params(**grid[best])
            self.best_estimator_.fit(X, pairs=pairs, pair_labels=labels)
            self.embedding_ = self.best_estimator_.embedding_
        return self

    @staticmethod
    def _grid(values, name):
        values = np.asarray(values, dtype=np.float64).ravel()
        if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise ValueError(f"{name} must be a non-empty sequence of positive finite numbers, got {values!r}")
        return values

    def _fitted(self):
        check_is_fitted(self, "best_estimator_", msg="refit=False: there is no fitted model to use")
        return self.best_estimator_

    def fit_transform(self, X, y=None, **fit_params):
        """``fit`` and return the refitted model's ``embedding_``.

        Parameters
        ----------
        X, y
            As in :meth:`fit`.
        **fit_params
            ``pairs`` and ``pair_labels``, as in :meth:`fit`.

        Returns
        -------
        embedding : ndarray of shape (n_samples, rank)
        """
        return self.fit(X, y, **fit_params).embedding_

    def transform(self, X):
        """The refitted model's :meth:`kernlearn.npkl.SimpleNPKL.transform`.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_new, n_features)

        Returns
        -------
        F_new : ndarray of shape (n_new, rank)
        """
        return self._fitted().transform(X)

    def kernel(self, X=None, X_other=None, *, dense=False):
        """The refitted model's :meth:`SimpleNPKL.kernel`."""
        return self._fitted().kernel(X, X_other, dense=dense)

    @property
    def _n_features_out(self):
        return self._fitted().embedding_.shape[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
