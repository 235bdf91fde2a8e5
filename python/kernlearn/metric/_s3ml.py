"""Sparse metric learning: SICE solvers and semi-supervised sparse metric learning (S3ML).

Liu, Ma, Tao, Liu & Liu, "Semi-supervised sparse metric learning using alternating
linearization optimization", KDD 2010. S3ML (Algorithm 2) propagates a few must-link /
cannot-link constraints over the kNN graph of all points (:func:`propagate_affinities`, eq. 6-10),
forms T = X' (D - W) X, and learns the Mahalanobis matrix

    M = argmin_{M > 0}  -log det M + <Sigma, M> + rho ||M||_1,    Sigma = M0^-1 + beta T   (eq. 11, 13)

with the l1-penalised log-det (SICE) solver :func:`sparse_inverse_covariance`. S2ML is the same
with W = W0 (the constraints alone, no propagation).

Solvers. ``solver="newton"`` (the default through ``"auto"``) is kernlearn's own second-order
SICE method (QUIC's direction, then orthant-wise Newton; ``kernlearn.metric._sice``), not the
paper's. ``solver="alm"`` is the paper's alternating linearization (Algorithm 1) with the
smoothing ``sigma`` (the paper's runs use 1e-6); both reach the same optimum (tests/test_s3ml_alm.py;
figures in bench/results/sice.md). The paper's own step rule and Theorem 5's bounds are
selectable in :func:`sparse_inverse_covariance` (``step="paper"``, ``bounds=True``).

Errata: where the paper's text does not work as written, and what is done instead
---------------------------------------------------------------------------------
1. **The step mu (Algorithm 1, after eq. 19).** The paper sets mu = 1 / max(L(f), L(h_sigma))
   = min(lambda^2, sigma), i.e. mu <= sigma = 1e-6: M then moves by about 1e-6 per iteration and
   thousands of iterations leave the objective far from optimal (bench/results/sice.md). The
   default ``step="adaptive"`` uses mu = g_min g_max of the current M (the rate-optimal step of
   Peaceman-Rachford splitting for a smooth, strongly convex f near M), re-estimated every 20
   iterations. ``step="paper"`` keeps the paper's rule.
2. **Remark 2's sparsity.** The paper says ALM "preserves the sparsity" of M. With sigma > 0 the
   Y-step (eq. 25) gives Y_ij = sigma Z_ij / (sigma + mu) wherever ``|Z_ij| <= rho (sigma + mu)``:
   small, never exactly 0. Exact zeros come only at sigma = 0 (the soft threshold). For sigma > 0 the
   returned M has its entries in h_sigma's quadratic zone (``|M_ij| <= sigma rho``) rounded to 0 when
   that lowers the objective of eq. (13) (ours).
3. **The dual point (end of Section 4.2).** The paper takes grad h_sigma(M^i) + Sigma as a feasible
   point of the dual eq. (15). It lies in the box ``|Z - Sigma| <= rho`` but need not be positive
   definite, and then log det Z is undefined: it is not a feasible dual point. Both solvers keep
   the best positive definite box point met (that one and the clip of M^-1 into the box), so the
   reported duality gap is certified.
4. **Theorem 5's constraints.** Imposing M in C = {M >= lambda I} changes eq. (23) to
   g_j = max(lambda, .), as the paper says; imposing Y in C has no closed form (h_sigma acts entry by
   entry, the constraint on the spectrum), although the theorem needs it. ``bounds=True`` projects
   the unconstrained Y onto C (an approximation of ours). lambda = 1 / (||Sigma||_2 + ||rho||_2)
   (the paper's m rho bounds ||rho||_2).
5. **Sigma + rho I indefinite (eq. 11, 13).** With cannot-link pairs T is indefinite and problem
   (13) is unbounded below for beta >= beta_max (below); the paper gives no range for beta.
6. **Preprocessing and the prior (Section 5.2).** Not stated by the paper; the choices are below.

Conventions the paper leaves open, chosen here:

* **Standardisation** (``standardize=True``): features are centred and scaled to unit variance
  before anything else, and ``transform`` applies the same map. On raw UCI features Sigma's
  condition number reaches 1e11, and a uniform rho penalises features by their units.
* **Prior.** ``prior="covariance"`` is the paper's M0 = inverse covariance, so M0^-1 is the
  (standardised) covariance itself: it is used as is, never inverted twice. ``"identity"``:
  M0 = I. With label-only selection (the LOO rows of bench/results/s3ml_table2.md) the identity
  prior's error is below the covariance prior's on iris and breast cancer (4-7 points) and equal
  on wine; on the crabs (4 groups, species x sex, which a common size factor hides from
  Euclidean distances) it is the other way round: 1-NN error 0.49-0.52 with the identity prior
  against 0.15 with the covariance prior. No fixed prior serves both, hence ``prior="auto"``.
* **Choosing the prior and beta** (``prior="auto"``, ``beta="auto"``, the defaults; the
  RidgeCV pattern inside fit): T and the affinities are computed once, then SICE is solved for
  each candidate (prior in {identity, covariance}) x (beta in {1, 0.5, 0} x ``beta_fraction`` x
  beta_max, ``S3ML_BETA_FRACTIONS``; beta = 0 is Sigma = M0^-1 alone, no affinity term), and
  each is scored by a label-only criterion: the leave-one-out 1-NN error of the labelled points
  among themselves in the candidate's metric (fit with ``y``), or, fit with ``pairs``, 1 - AUC
  of the pair distances (the chance that a cannot-link pair is no farther apart than a
  must-link one). Only the labels given to fit are read. The one-standard-error rule picks: the
  first candidate, in the order above (the former default, identity prior and ``beta_fraction``
  x beta_max, first), whose score is within one binomial standard error sqrt(s (1 - s) / count)
  of the best score s (count: the labelled points, or the smaller set of pairs); the plain
  minimum switched on noise where a few labelled points decide (wine, sonar). The extra cost
  is five m x m SICE solves and kNN searches among the labelled points; the propagation, which
  dominates at scale, runs once. Evidence (1-NN error of the old default, the new one, every
  candidate and Euclidean, and the fit-time ratio): bench/results/s3ml_defaults.md.
* **Penalised diagonal.** The paper's ||M||_1 includes the diagonal (``penalize_diagonal=True``).
* **Admissible beta.** T is built from signed affinities: cannot-link pairs make it strongly
  indefinite, so Sigma = M0^-1 + beta T loses positive definiteness for large beta and problem
  (13) is then unbounded below (the diagonal penalty adds rho I, so the condition is
  M0^-1 + rho I + beta T > 0). With B = M0^-1 + rho I > 0 this holds exactly for
  beta < beta_max = 1 / lambda_max(-T, B), the largest generalised eigenvalue of the pencil
  (-T, B) (beta_max = inf when T >= 0). ``fit`` computes beta_max and raises a ValueError
  naming it when beta is outside; ``beta="auto"`` and a float ``beta_fraction`` choose beta
  as a fraction of it (see the estimator).

Why S3ML is close to S2ML (diagnosis: bench/results/s3ml_diagnosis.md). With every pair among the
labelled points a constraint, W0's own +-1 pairs carry most of T: ||T - T0||_F / ||T||_F is
0.12-0.32 at 5 % labelled and 0.04-0.07 at 20 % on iris, wine and breast cancer, and the S3ML and
S2ML metrics differ by 2-11 %. After propagation a constrained pair keeps ``|W_ij|`` of about 0.55,
while a kNN edge between unlabelled points gets about (1 - a) a / k = 0.04, and the constrained
pairs grow as the square of the labelled points. This follows from eq. (9)-(10) with the paper's
k = 6, a = 0.5, theta = 0.01, not from an implementation choice; weighing the constraints down
(same file) did not lower the error either.
"""

import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._utils import _solver_choice
from .._utils._monitor import Progress
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._scaling import binary_exponent
from .._utils._validation import as_label_array, as_real_array, check_data, check_random_state, validate_X
from ..constraints import check_pairs, from_labels
from ..evaluation import pair_distance_auc
from ..graph import knn
from ._affinity import initial_affinities, laplacian_quadratic_form, propagate_affinities
from ._sice import sparse_inverse_covariance

__all__ = ["S3ML", "admissible_beta"]

# prior="auto" / beta="auto" (module docstring, "Choosing the prior and beta"; figures in
# bench/results/s3ml_defaults.md): the candidate betas, as fractions of beta_fraction * beta_max
# (1: the former beta="auto"; 0: Sigma = M0^-1, no affinity term).
S3ML_BETA_FRACTIONS = (1.0, 0.5, 0.0)


def admissible_beta(prior_inverse, T, rho):
    """The supremum of the betas for which prior_inverse + rho I + beta T is positive definite.

    Parameters
    ----------
    prior_inverse : ndarray of shape (m, m)
        M0^-1, symmetric positive semidefinite.
    T : ndarray of shape (m, m)
        Symmetric, possibly indefinite.
    rho : float
        The diagonal penalty's shift, >= 0; prior_inverse + rho I must be positive definite.

    Returns
    -------
    float
        1 / lambda_max(-T, B) with B = prior_inverse + rho I, or inf when -T has no positive
        generalised eigenvalue (then every beta >= 0 is admissible) or when 1 / lambda_max exceeds
        the largest float (then every representable beta is).

    Examples
    --------
    The bound S3ML's ``fit`` computes for the identity prior, with T from the affinities of
    iris propagated from the labels of 10 % of the points:

    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.constraints import from_labels
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.metric import admissible_beta, laplacian_quadratic_form, propagate_affinities
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_semi = np.where(np.random.default_rng(0).random(len(y)) < 0.1, y, -1)
    >>> T = laplacian_quadratic_form(X, propagate_affinities(X, *from_labels(y_semi)))
    >>> beta_max = admissible_beta(np.eye(4), T, rho=0.01)
    >>> print(f"{beta_max:.3g}")
    0.00151
    >>> def smallest_eigenvalue(beta):
    ...     return np.linalg.eigvalsh(np.eye(4) + 0.01 * np.eye(4) + beta * T)[0]
    >>> bool(smallest_eigenvalue(0.9 * beta_max) > 0), bool(smallest_eigenvalue(1.1 * beta_max) > 0)
    (True, False)

    A positive semidefinite T (no cannot-link) admits every beta:

    >>> admissible_beta(np.eye(4), np.eye(4), rho=0.01)
    inf
    """
    validate_params({"rho": [Interval(Real, 0, None)]}, {"rho": rho}, "admissible_beta")
    T = as_real_array(T, "T")
    m = T.shape[0]
    prior_inverse = as_real_array(prior_inverse, "prior_inverse")
    if T.shape != (m, m) or prior_inverse.shape != (m, m):
        raise ValueError(f"T and prior_inverse must be square of one size, got {T.shape} and {prior_inverse.shape}")
    B = prior_inverse + rho * np.eye(m)
    # lambda_max(-T, B) of T / 2^e, scaled back: LAPACK loses a subnormal or huge T.
    scale = float(np.ldexp(1.0, binary_exponent(T)))
    try:
        top = scipy.linalg.eigh(-T / scale, B, eigvals_only=True)[-1]
    except np.linalg.LinAlgError:
        raise ValueError(
            f"the prior M0^-1 + rho I is not positive definite (rho = {rho!r}); increase rho or use prior='identity'"
        ) from None
    if not top > 0:
        return np.inf
    with np.errstate(over="ignore"):  # beyond the largest float: every representable beta is admissible
        return float(1.0 / float(top) / scale)


class S3ML(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Semi-supervised sparse metric learning (Liu et al., KDD 2010; S2ML with ``supervised``).

    Parameters
    ----------
    n_neighbors : int
        k of the kNN transition matrix P (eq. 6).
    alpha : float in (0, 1)
        Propagation weight a (eq. 7-9).
    theta : float in (0, 1)
        Affinities below theta in magnitude are dropped (eq. 10).
    beta : float or "auto"
        Weight of the affinity term, Sigma = M0^-1 + beta T. It must lie in [0, beta_max)
        (see the module docstring); ``fit`` raises a ValueError stating beta_max otherwise
        (with ``prior="auto"``, when no prior admits it; a prior that does not is left out).
        ``"auto"`` (default) chooses among ``beta_fraction * beta_max`` times 1, 0.5 and 0 by
        the label-only criterion of the module docstring ("Choosing the prior and beta"); when
        T >= 0 and beta_max is infinite, 1 / ||T||_2 takes the place of ``beta_fraction *
        beta_max``. T grows with the number of points and pairs, so a fixed float does not
        transfer between data sets; the fraction does.
    beta_fraction : float in (0, 1)
        The largest candidate of ``beta="auto"``, as a fraction of beta_max. Default 0.9, with
        ``rho=0.01`` and ``prior="identity"``, set by bench/results/suite_metric.md (20 %
        labelled, 6 data sets: below standardised Euclidean on 5, equal on the sixth). At the
        paper's 5 % (bench/results/s3ml_table2.md, grid f in 0.01-0.999, rho in 0-10) the error
        is flat near these values (within 0.6 points of the best at 30 of 36 grid points);
        f >= 0.99 with rho <= 0.01 is worse.
    rho : float
        l1 weight (on every entry, diagonal included, as in the paper's eq. 13), >= 0. Large rho
        (about 1 on standardised data) makes M diagonal, i.e. close to standardised Euclidean.
    prior : {"auto", "identity", "covariance"}
        M0: I, or the paper's inverse covariance of the (standardised) data; "auto" (default)
        chooses between them by the label-only criterion (module docstring, "Choosing the prior
        and beta"; the default before was "identity").
    standardize : bool
        Centre and scale the features to unit variance first (part of ``transform``).
    supervised : bool
        True: S2ML, W = W0 (the constraints only, no kNN graph, no propagation).
    solver : {"auto", "alm", "newton"}
        SICE solver (:func:`sparse_inverse_covariance`): "newton" (kernlearn's, the default
        through "auto") or "alm" (the paper's Algorithm 1, with ``sigma``).
    sigma : float >= 0
        "alm" only: the smoothing of the l1 term (eq. 18); the paper runs 1e-6, 0 (default)
        solves eq. (13) unsmoothed (see errata 1-2 in the module docstring).
    tol : float
        Duality-gap tolerance of the SICE solver.
    max_iter : int
        SICE iterations.
    partners : int or "auto"
        Pairs from partially labelled y: every pair among the labelled points (the paper's
        protocol) or, with an int k, each labelled point paired with k must-link and k
        cannot-link partners (:func:`kernlearn.constraints.from_labels`), so the pairs grow
        linearly. "auto" (default): every pair up to 500 labelled points (125,000 pairs), k = 5
        above (``S3ML_ALL_PAIRS_MAX_LABELLED`` in ``_utils/_solver_choice.py``; all pairs grow
        quadratically and their propagation with them, bench/results/s3ml_scale.md).
    propagation_tol : float or "auto"
        The ``tol`` of :func:`propagate_affinities` (each entry of the propagated affinities to
        within ``propagation_tol * theta``). "auto" (default): 1e-12 up to 5,000 points, 1e-2
        above, where the pushes' cost grows with 1 / tol: an entry within 1e-4 of theta may then
        fall on either side of eq. (10)'s threshold (``S3ML_EXACT_PROPAGATION_MAX_N``; figures in
        bench/results/s3ml_scale.md).
    random_state : int, RandomState or None
        Draws the pairs when fit is given fully labelled y, or partners.
    verbose : int, default 0
        1 logs one line after the solve (its iterations, objective, duality gap, beta and the
        number of non-zeros); 2 also each iteration's relative gap (``kernlearn`` logger, see
        :doc:`/getting_started`).
    n_jobs : int or None
        Threads for the kNN search and the propagation.

    Attributes
    ----------
    metric_ : ndarray of shape (n_features, n_features)
        The learned sparse M, on standardised features when ``standardize`` (the space of
        ``components_``); :meth:`get_mahalanobis_matrix` gives it on the input features.
    support_ : ndarray of bool, shape (n_features, n_features)
        Exact non-zeros of M.
    components_ : ndarray of shape (n_features, n_features)
        L with M = L' L (upper Cholesky factor), so ``transform(X) = standardized(X) @ L'``.
    duality_gap_ : float
        Certified gap of the SICE solution.
    n_iter_ : int
    converged_ : bool
    beta_ : float
        The beta used.
    beta_max_ : float
        Admissible bound on beta for this fit and ``prior_`` (inf when none).
    prior_ : {"identity", "covariance"}
        The prior used.
    candidates_ : dict of ndarray or None
        The candidates of ``prior="auto"`` / ``beta="auto"``, in the order of preference (the
        former default first): ``prior``, ``beta_fraction`` (of beta_max; NaN for an explicit beta), ``beta``,
        ``beta_max`` and ``score`` (the label-only criterion, lower is better: leave-one-out 1-NN
        error of the labelled points, or 1 - AUC of the pair distances when fit got pairs; the
        first within one standard error of the lowest is chosen).
        None when prior and beta were both given (or only one candidate was admissible).
    affinity_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        W (W0 for S2ML).
    covariance_ : ndarray of shape (n_features, n_features)
        Sigma = M0^-1 + beta T handed to the solver.
    mean_, scale_ : ndarray of shape (n_features,)
        Standardisation (zeros and ones without it).
    pairs_, pair_labels_ : ndarray
        The constraints used.
    n_features_in_ : int

    Examples
    --------
    A metric for iris from the labels of 20 % of the points (y = -1 marks the others):

    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.metric import S3ML
    >>> X, y = load_iris(return_X_y=True)
    >>> labelled = np.random.default_rng(0).random(len(y)) < 0.2
    >>> model = S3ML(random_state=0).fit(X, np.where(labelled, y, -1))
    >>> model.metric_.round(1)
    array([[ 2.1, -1.2,  1.5,  1.4],
           [-1.2,  2.8, -1.8, -1.8],
           [ 1.5, -1.8,  3.1,  2. ],
           [ 1.4, -1.8,  2. ,  3. ]])
    >>> model.converged_, bool(model.beta_ < model.beta_max_)
    (True, True)

    ``transform`` maps points to the space where Euclidean distances are the learned ones;
    there, 1-NN from the labelled points classifies the others better than on standardised
    features:

    >>> Z = model.transform(X)
    >>> Z.shape
    (150, 4)
    >>> knn = KNeighborsClassifier(n_neighbors=1)
    >>> round(knn.fit(Z[labelled], y[labelled]).score(Z[~labelled], y[~labelled]), 2)
    0.91
    >>> Xs = StandardScaler().fit_transform(X)
    >>> round(knn.fit(Xs[labelled], y[labelled]).score(Xs[~labelled], y[~labelled]), 2)
    0.89
    >>> round(float(model.pair_distance(X[:1], X[50:51])[0]), 2)
    8.82

    A larger ``rho`` gives a sparser metric (exact zeros in ``support_``):

    >>> int(S3ML(rho=0.3, random_state=0).fit(X, np.where(labelled, y, -1)).support_.sum())
    6
    """

    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None)],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "theta": [Interval(Real, 0, 1, closed="neither")],
        "beta": [StrOptions({"auto"}), Interval(Real, 0, None)],
        "beta_fraction": [Interval(Real, 0, 1, closed="neither")],
        "rho": [Interval(Real, 0, None)],
        "prior": [StrOptions({"auto", "covariance", "identity"})],
        "standardize": ["boolean"],
        "supervised": ["boolean"],
        "solver": [StrOptions({"auto", "alm", "newton"})],
        "sigma": [Interval(Real, 0, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
        "partners": [StrOptions({"auto"}), Interval(Integral, 1, None)],
        "propagation_tol": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval(Integral, None, None)],
        "n_jobs": [Interval(Integral, None, None), None],
    }

    def __init__(
        self,
        n_neighbors=6,
        alpha=0.5,
        theta=0.01,
        beta="auto",
        beta_fraction=0.9,
        rho=0.01,
        prior="auto",
        standardize=True,
        supervised=False,
        solver="auto",
        sigma=0.0,
        tol=1e-8,
        max_iter=1000,
        partners="auto",
        propagation_tol="auto",
        random_state=None,
        verbose=False,
        n_jobs=None,
    ):
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.theta = theta
        self.beta = beta
        self.beta_fraction = beta_fraction
        self.rho = rho
        self.prior = prior
        self.standardize = standardize
        self.supervised = supervised
        self.solver = solver
        self.sigma = sigma
        self.tol = tol
        self.partners = partners
        self.propagation_tol = propagation_tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # constraints come from y (or pairs)
        return tags

    def _constraints(self, n, y, pairs, pair_labels):
        if pairs is None:
            if y is None:
                raise ValueError(
                    "S3ML requires y to be passed, but the target y is None: fit needs labels y "
                    "(-1 = unlabelled) or pairs with pair_labels"
                )
            partners = None if self.partners == "auto" else int(self.partners)
            unlabelled = np.asarray(y).dtype.kind in "iuf" and bool(np.any(np.asarray(y) == -1))
            if self.partners == "auto" and unlabelled:  # fully labelled y: from_labels' own default
                partners = _solver_choice.s3ml_partners(int(np.sum(np.asarray(y) != -1)))
            pairs, pair_labels = from_labels(y, random_state=check_random_state(self.random_state), partners=partners)
        elif y is not None:
            raise ValueError("give either y or pairs, not both")
        if pair_labels is None:
            raise ValueError("pair_labels is required with pairs (+1 must-link, -1 cannot-link)")
        pairs, labels = check_pairs(pairs, n, pair_labels)
        if not np.any(labels < 0):
            source = "pair_labels" if y is None else "y (its pairs)"
            raise ValueError(
                f"{source} has no cannot-link (-1) pair: the constraints show fewer than two "
                "classes, and without one nothing separates them"
            )
        return pairs, labels

    def _report(self, result, beta, beta_max, m, start):
        """Progress after the fact: the SICE solve has no per-iteration callback, so ``verbose=2``
        replays its relative gaps and ``verbose=1`` gives the one line of the solve."""
        inner = Progress("S3ML SICE", self.verbose, self.max_iter, level=2, start=start)
        for i, gap in enumerate(np.asarray(result.history).ravel()):
            inner.report(i + 1, [("relative gap", float(gap), ".2e")])
        progress = Progress("S3ML", self.verbose, self.max_iter, start=start)
        progress.report(
            self.n_iter_,
            [
                ("objective", float(result.primal_objective), ".6g"),
                ("gap", self.duality_gap_, ".2e"),
                ("beta", float(beta), ".4g"),
                ("admissible below", float(beta_max), ".4g"),
                ("solver", result.solver, ""),
                ("non-zeros", f"{int(self.support_.sum())}/{m * m}", ""),
            ],
        )

    def fit(self, X, y=None, *, pairs=None, pair_labels=None):
        """Learn M from points X and constraints: partially labelled ``y`` (-1 = unlabelled;
        every pair among the labelled points; fully labelled y draws pairs as
        :func:`kernlearn.constraints.from_labels` does) or ``pairs`` + ``pair_labels``
        (+1 must-link, -1 cannot-link).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            All points, labelled and unlabelled (the kNN graph of the propagation is theirs).
        y : array-like of shape (n_samples,), optional
            Class labels, -1 for an unlabelled point. Give y or ``pairs``, not both.
        pairs : array-like of shape (n_pairs, 2), optional
            Indices into X of the constrained pairs.
        pair_labels : array-like of shape (n_pairs,), optional
            +1 must-link, -1 cannot-link; required with ``pairs``.

        Returns
        -------
        self : S3ML
            The fitted estimator.
        """
        start = time.perf_counter()
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        X = validate_X(self, X, min_samples=2)
        n, m = X.shape
        if y is not None:
            y = as_label_array(y, "y")
            if y.shape != (n,):
                raise ValueError(f"y must have shape ({n},) to match X, got {y.shape}")
        pairs, labels = self._constraints(n, y, pairs, pair_labels)
        if not self.supervised and self.n_neighbors >= n:
            raise ValueError(
                f"n_neighbors must be < n_samples = {n} (a point is not its own neighbour); got {self.n_neighbors}"
            )
        if self.standardize:
            # The statistics of X / 2^e, scaled back (exact): the squares of data near 1e300 overflow.
            exponent = binary_exponent(X)
            Xe = np.ldexp(X, -exponent)
            mean, scale = Xe.mean(axis=0), Xe.std(axis=0)
            # A constant feature stays 0 after centring; scaling it by 1 avoids 0 / 0.
            scale = np.where(scale > 1e-12 * max(np.ldexp(1.0, -exponent), np.abs(mean).max()), scale, 2.0**-exponent)
            self.mean_, self.scale_ = np.ldexp(mean, exponent), np.ldexp(scale, exponent)
            if not (np.isfinite(self.mean_).all() and np.isfinite(self.scale_).all()):
                raise ValueError("X: its mean or standard deviation overflows float64: rescale X")
            Xs = (Xe - mean) / scale
        else:
            self.mean_, self.scale_ = np.zeros(m), np.ones(m)
            Xs = X
        if self.supervised:
            W = initial_affinities(n, pairs, labels)
        else:
            W = propagate_affinities(
                Xs if self.standardize else X,
                pairs,
                labels,
                n_neighbors=self.n_neighbors,
                alpha=self.alpha,
                theta=self.theta,
                tol=_solver_choice.s3ml_propagation_tol(n) if self.propagation_tol == "auto" else self.propagation_tol,
                n_jobs=self.n_jobs,
            )
        T = laplacian_quadratic_form(Xs, W)
        if self.sigma > 0 and self.solver != "alm":
            raise ValueError(f"sigma = {self.sigma!r} > 0 smooths the 'alm' solver only; got solver = {self.solver!r}")
        rho = float(self.rho)
        candidates = self._candidates(Xs, T, rho)
        fits, caught = [], []
        for _, _, beta, _, prior_inverse in candidates:
            # A candidate's warnings (a SICE solve stopping early) reach the user only if it is chosen.
            with warnings.catch_warnings(record=True) as records:
                warnings.simplefilter("always")
                fits.append(self._solve(prior_inverse + beta * T, rho))
            caught.append(records)
        self.candidates_ = None
        chosen = 0
        if len(candidates) > 1:
            scores, n_scored = self._selection_scores(Xs, y, pairs, labels, fits)
            # The one-standard-error rule: the first candidate (the former default leads) whose
            # score is within one binomial standard error of the best; the plain minimum switched
            # on noise (bench/results/s3ml_defaults.md).
            best = float(scores.min())
            chosen = int(np.flatnonzero(scores <= best + np.sqrt(best * (1.0 - best) / n_scored))[0])
            self.candidates_ = {
                "prior": np.array([c[0] for c in candidates]),
                "beta_fraction": np.array([c[1] for c in candidates], dtype=float),
                "beta": np.array([c[2] for c in candidates], dtype=float),
                "beta_max": np.array([c[3] for c in candidates], dtype=float),
                "score": scores,
            }
        for record in caught[chosen]:
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
        prior, _, beta, beta_max, prior_inverse = candidates[chosen]
        result = fits[chosen]
        Sigma = prior_inverse + beta * T
        M = np.array(result.precision, dtype=np.float64)
        self.metric_ = M
        self.support_ = np.array(result.support, dtype=bool)
        self.components_ = _factor(M)
        self.duality_gap_ = float(result.duality_gap)
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.history_ = np.asarray(result.history)
        self.beta_, self.beta_max_ = float(beta), float(beta_max)
        self.prior_ = prior
        self.affinity_ = W
        self.covariance_ = Sigma
        self.pairs_, self.pair_labels_ = pairs, labels.astype(np.int64)
        self._report(result, beta, beta_max, m, start)
        return self

    def _solve(self, Sigma, rho):
        """The SICE problem (13) for one Sigma (``sparse_inverse_covariance`` checks and
        symmetrises it, and warns itself if it stops early)."""
        extra = {"sigma": float(self.sigma)} if self.solver == "alm" else {}
        return sparse_inverse_covariance(
            Sigma, rho, penalize_diagonal=True, solver=self.solver, tol=self.tol, max_iter=self.max_iter, **extra
        )

    def _candidates(self, Xs, T, rho):
        """(prior, beta fraction, beta, beta_max, M0^-1) of every candidate, the old default
        (identity prior, ``beta_fraction``) first: one for explicit prior and beta, else the
        priors of ``prior`` times the betas of ``beta`` ("auto": S3ML_BETA_FRACTIONS of
        beta_max, the largest being ``beta_fraction``). A candidate whose prior is singular or
        whose explicit beta is not admissible is left out under prior="auto"; with nothing left
        (or with one prior) the ValueError says why."""
        n, m = Xs.shape
        priors = ("identity", "covariance") if self.prior == "auto" else (self.prior,)
        out, errors = [], []
        for prior in priors:
            if prior == "covariance":
                centred = Xs - Xs.mean(axis=0)
                prior_inverse = centred.T @ centred / n  # M0^-1 is the covariance: used, not inverted
            else:
                prior_inverse = np.eye(m)
            try:
                beta_max = admissible_beta(prior_inverse, T, rho)
            except ValueError as error:
                errors.append(error)
                continue
            if isinstance(self.beta, str):
                # The largest candidate is the former beta="auto": beta_fraction * beta_max, or
                # 1 / ||T||_2 when every beta is admissible (T >= 0).
                top = (
                    self.beta_fraction * beta_max if np.isfinite(beta_max) else 1.0 / max(np.linalg.norm(T, 2), 1e-300)
                )
                for fraction in dict.fromkeys(f * self.beta_fraction for f in S3ML_BETA_FRACTIONS):
                    out.append((prior, fraction, top * fraction / self.beta_fraction, beta_max, prior_inverse))
                continue
            beta = float(self.beta)
            if beta >= beta_max:
                errors.append(
                    ValueError(
                        f"beta = {beta!r} makes Sigma + rho I = M0^-1 + rho I + beta T indefinite (T = X'LX from "
                        f"signed affinities is indefinite) with prior={prior!r}, so problem (13) is unbounded; the "
                        f"admissible range for this data, prior and rho = {rho!r} is 0 <= beta < {beta_max:.6g}"
                    )
                )
                continue
            out.append((prior, np.nan, beta, beta_max, prior_inverse))
        if not out:
            raise errors[0]
        return out

    def _selection_scores(self, Xs, y, pairs, labels, fits):
        """The label-only criterion of each candidate's metric (lower is better) and the count
        its standard error is taken over: with y, the leave-one-out 1-NN error of the labelled
        points among themselves (over the labelled points); with pairs, 1 - AUC of the pair
        distances, the chance that a cannot-link pair is no farther apart than a must-link one
        (over the smaller of the two sets of pairs). Only the labels fit was given are read."""
        scores = np.empty(len(fits))
        if y is not None:
            labelled = np.flatnonzero(y != -1) if y.dtype.kind in "iuf" else np.arange(y.size)
            for i, result in enumerate(fits):
                Z = Xs[labelled] @ _factor(np.asarray(result.precision, dtype=np.float64)).T
                nearest, _ = knn(Z, 1, n_jobs=self.n_jobs)
                scores[i] = np.mean(y[labelled][nearest[:, 0]] != y[labelled])
            return scores, labelled.size
        cannot = labels < 0
        n_cannot, n_must = int(cannot.sum()), int((~cannot).sum())
        if n_must == 0 or n_cannot == 0:  # one kind of pair only: nothing to rank, every candidate ties
            return np.zeros(len(fits)), max(n_cannot, n_must)
        # Only the pairs' endpoints are mapped (a few of the n points when the pairs are few).
        endpoints, local = np.unique(pairs, return_inverse=True)
        local = local.reshape(pairs.shape)
        X_endpoints = Xs[endpoints]
        for i, result in enumerate(fits):
            L = _factor(np.asarray(result.precision, dtype=np.float64))
            scores[i] = 1.0 - pair_distance_auc(X_endpoints @ L.T, local, labels)
        return scores, min(n_cannot, n_must)

    def _standardized(self, X, name="X"):
        check_is_fitted(self, "components_")
        if name == "X":
            X = validate_X(self, X, reset=False)
        return (X - self.mean_) / self.scale_

    def transform(self, X):
        """Map X into the learned space: Euclidean distances there are the learned Mahalanobis
        distances, ||L (s(x) - s(y))|| = sqrt((s(x) - s(y))' M (s(x) - s(y))).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points, new or fitted.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
            ``standardized(X) @ components_.T`` (s is the standardisation of fit).
        """
        with np.errstate(over="ignore", invalid="ignore"):
            Z = self._standardized(X) @ self.components_.T
        if not np.isfinite(Z).all():
            raise ValueError("X: its image in the learned space overflows float64: rescale X")
        return Z

    @property
    def _n_features_out(self):
        """Columns of ``transform``'s output, for ``get_feature_names_out``."""
        return self.components_.shape[0]

    def pair_distance(self, X1, X2):
        """Learned distances between the paired rows X1[i], X2[i] (metric-learn's pair_distance).

        Parameters
        ----------
        X1, X2 : array-like of shape (n_pairs, n_features)
            The two points of each pair, one pair per row.

        Returns
        -------
        ndarray of shape (n_pairs,)
            ``sqrt((x1 - x2)' M_input (x1 - x2))`` per pair (see :meth:`get_mahalanobis_matrix`).
        """
        check_is_fitted(self, "components_")
        X1 = check_data(X1, "X1")
        X2 = check_data(X2, "X2")
        for name, A in (("X1", X1), ("X2", X2)):
            if A.shape[1] != self.n_features_in_:
                raise ValueError(f"{name} has {A.shape[1]} features, but S3ML was fitted with {self.n_features_in_}")
        if X1.shape[0] != X2.shape[0]:
            raise ValueError(f"X1 and X2 must have the same number of rows, got {X1.shape[0]} and {X2.shape[0]}")
        # On X1, X2 / 2^e, and each row's norm on the row / its largest entry: exact scalings, so
        # the result overflows only where the distance itself does (then a ValueError).
        exponent = binary_exponent(X1, X2)
        diff = ((np.ldexp(X1, -exponent) - np.ldexp(X2, -exponent)) / self.scale_) @ self.components_.T
        peak = np.abs(diff).max(axis=1, initial=0.0)
        peak[peak == 0.0] = 1.0
        unit = diff / peak[:, None]
        with np.errstate(over="ignore"):
            distance = np.ldexp(peak * np.sqrt(np.einsum("ij,ij->i", unit, unit)), exponent)
        if not np.isfinite(distance).all():
            raise ValueError("X1, X2: a learned distance overflows float64: rescale X1 and X2")
        return distance

    def get_mahalanobis_matrix(self):
        """M on the input features: diag(1/s) M diag(1/s) with s the standardisation scales
        (the same sparsity as ``metric_``), so d(x, y)^2 = (x - y)' M_input (x - y)."""
        check_is_fitted(self, "metric_")
        return self.metric_ / np.outer(self.scale_, self.scale_)


def _factor(M):
    """Upper Cholesky factor L with M = L'L; M from the solver is positive definite, but an
    eigen-factor (negative rounding clipped) is the fallback should Cholesky fail."""
    try:
        return np.ascontiguousarray(scipy.linalg.cholesky(M, lower=False))
    except np.linalg.LinAlgError:
        w, V = np.linalg.eigh(M)
        return np.ascontiguousarray((V * np.sqrt(np.clip(w, 0.0, None))).T)
