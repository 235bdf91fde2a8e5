"""Indefinite kernel logistic regression (IKLR): a Newton solver for the well-posed model, and the
paper's concave-inexact-convex procedure (CCICP).

Liu, Huang, Gong, Yang & Suykens, "Indefinite kernel logistic regression with concave-inexact-
convex procedure", IEEE TNNLS 30(3), 2019. With f = K a (representer theorem in a Krein space)
the model is eq. (5)/(6),

    F(a) = (1/n) sum_i log(1 + exp(-y_i (K a)_i)) + (lambda/2) a'K a,    K = K+ - K-,

a difference of convex functions g - h with g = loss + (lambda/2) a'K+ a, h = (lambda/2) a'K- a.
CCCP (Yuille & Rangarajan) linearises h at a_k and minimises the convex F_k of eq. (9); CCICP stops
the inner gradient descent early (``|F_k(t+1) - F_k(t)| <= eps``, Algorithm 1).

**The paper's model is ill-posed.** When K has a negative eigenvalue mu_min with eigenvector v,
F(s v) = loss + (lambda/2) mu_min s^2 -> -infinity: objective (6) is unbounded below, and exact
CCCP diverges geometrically (Theorem 1's contraction argument bounds ||K+^-1|| by 1/||K+|| where it
should be 1/lambda_min(K+), so its condition (15) does not ensure a contraction). CCICP returns
something finite because of its fixed schedule: eta_t = eta_0 decay^t inside each outer step and
20 outer steps, so the schedule is part of the model.

**What the estimator does by default.** ``penalty="positive"`` regularises with (lambda/2) a'K+ a:
convex and bounded below, and for a PSD kernel (K- = 0) it is plain kernel logistic regression.
``solver="newton"`` minimises it by an inexact Newton method (conjugate gradients inside, Armijo
line search, all loops in C++) and certifies the result: ``converged_`` says whether the gradient
norm fell to ``tol`` times its value at a = 0 (``gradient_norm_`` holds the ratio), and a
ConvergenceWarning says when it did not. On a PSD kernel the Newton system is solved in the form
lambda I + D^1/2 K D^1/2 / n, whose condition number is at most 1 + ||K|| / (4 n lambda) however
small K's eigenvalues are; gradient descent in the coefficients (CCICP's inner loop) is instead
governed by K's whole spectrum. Figures: bench/results/iklr_solver.md. The default kernel is RBF
with SVC's gamma="scale" (the "defaults" table of bench/results/suite_iklr.md) and alpha="auto".

**Choosing alpha** (``alpha="auto"``, the RidgeCV / LogisticRegressionCV pattern inside fit): no
fixed alpha serves every data set (1e-4 overfits Pima: train accuracy 0.95, test 0.72, where
1e-2 gives 0.78). fit runs the Newton solver along the grid ``ALPHA_GRID`` (1 down to 1e-6, one per
decade), each fit warm-started from the previous alpha's solution and solved to
``ALPHA_PATH_TOL`` = 1e-6 (the final fit to ``tol``), on ``ALPHA_FOLDS`` = 3 stratified folds of
the training points (drawn from ``random_state``), and scores each alpha by the validation
log-loss of :meth:`predict_proba` (one alpha for all one-vs-rest classifiers).
The path stops ``ALPHA_PATIENCE`` = 3 grid points past the best mean score; the smallest mean
wins (ties to the larger alpha), and the final fit on all the points starts from the folds'
solutions at that alpha. A fold's model is the training model with the validation points'
coefficients held at 0 (the principal submatrices of K and K-, so the training decomposition
serves every fold). The Nystrom model holds out one third only (the first fold): above 5,000
points that third is large enough, and its path reuses the training kernel columns, so it costs
a small multiple of one fit. ``alpha_``, ``alpha_path_`` and ``alpha_scores_`` record the
choice; a float alpha fits that alpha alone, as before. The evidence (test accuracy against the
old default 1e-4, fixed alphas and SVC, the criterion log-loss against accuracy, and the
fit-time ratio): bench/results/iklr_alpha.md. The paper's solvers run no path: with them "auto"
means ``ALPHA_PAPER_SOLVERS`` = 1e-4 (their step schedule is part of the model).

**The paper's algorithm** stays selectable: ``solver="ccicp-gd"`` (Algorithm 1 with GD, eps = 1),
``"ccicp-sgd"`` (SGD with the corrected step, eps = 1e-4), ``"ccicp-sgd-literal"`` (SGD with eq.
(12) as printed), ``"cccp-gd"`` (near-exact subproblems, eps = 1e-4); ``penalty="krein"`` with
``learning_rate=0.02, decay=0.8, max_outer=20`` is the paper's setting. With ``penalty="krein"`` an
indefinite kernel raises :class:`IndefiniteKernelWarning`; ``solver="newton"`` refuses that model
(ValueError) because it has no minimum to find. ``init`` sets a_0 (Table 6: 0, 1, -1 or U(0, 1)).

**Decompositions** (K- = V diag(w) V' + s I, K+ = K + K-; only K is stored densely):

- ``"spectral"``: Proposition 1 as the paper builds it, ``K- = tau I + V_- |M_-| V_-'`` over the
  negative eigenpairs ``(V_-, M_-)`` with tau = max(-mu_min, 0) (the paper's condition tau >= -mu_n;
  its "rho - mu_{v+1}" is a typo for "tau - mu_{v+1}"). The negative pairs come from the threshold
  mode of the Lanczos core, or LAPACK when they are many; ``max_negative_rank`` caps them (the
  decomposition stays exact and PSD because ``tau >= |mu|`` for every pair left out).
- ``"shift"``: K- = s I, K+ = K + s I with s = max(-mu_min, 0): exact, and it needs only the
  smallest eigenvalue (one Lanczos run), never an O(n^3) eigendecomposition.

**The Nystrom model** (``approximation``: by default above 5,000 training points). With M
centres Z (a uniform sample of the training points by default) and their kernel block
``W = U S U'`` (the pairs with ``abs(s) > 1e-10 max abs(s)``), the features
``phi(x) = k(x, Z) U abs(S)^-1/2`` give the model ``f(x) = phi(x)'beta + s b`` with penalty
``(lambda/2)(beta'beta + b^2)``: for a PSD kernel, exactly the positive-penalty model with f
restricted to the span of k(., z_j); for an indefinite kernel (TL1) the features use the
magnitudes of S, the spectrum-flipped Nystrom approximation ``C abs(W)^+ C'``, which is not the
exact model's shift decomposition. It is solved by Newton-CG in the r <= M feature weights
(cpp/include/kernlearn/methods/iklr_nystrom.hpp) with Falkon's preconditioner (Rudi, Carratino &
Rosasco 2017; Meanti et al. 2020): the Hessian estimated at the centres, an r x r Cholesky
factor per Newton step. Memory O(n M) (the n x M kernel columns; the features
``C U abs(S)^-1/2`` are applied as two factors, never formed), O(n M) per CG step. The
certificate is the same as the exact Newton's: ``gradient_norm_``, the gradient norm of the
Nystrom objective against its value at zero. What it gives up: the exact model's optimum (the
restriction to M centres); its test accuracy against the exact model's, and its time, are in
bench/results/iklr_nystrom.md. The coefficients are kept on the centres (``dual_coef_``,
``X_fit_``), so new points cost O(M d) each.

**Kernels that are never formed.** The solvers run in C++ on a kernel operator
(cpp/include/kernlearn/linalg/operator.hpp), whatever holds the kernel: a dense n x n array, a
:class:`kernlearn.kernels.KernelOperator` that recomputes the entries tile by tile on every
product (``kernel_storage``: dense while the matrix takes at most 1.9 GiB, the operator above, the
rule in ``_utils/_solver_choice.py``), or, with ``backend="dask"``, a
:class:`kernlearn.distributed.KernelOperator` whose products run on a cluster and reach the same
C++ iterations through a callback (docs/user_guide/distributed.rst, "IKLR"). The decomposition's
eigenvalues come from Lanczos on the operator.

**Where TL1 is positive definite** (tau = 0.7 d on min-max-scaled features, the paper's setting;
figures in the "tl1" table of bench/results/iklr_reproduction.md): on sonar the TL1 kernel of the whole
data set and of every training half is PD (smallest eigenvalue about 1.1 to 1.8), on ionosphere
every training half is PSD (smallest eigenvalue 0 to 0.22) and on scikit-learn's breast cancer
(569 x 30) PD as well. There K- = 0, CCICP is plain KLR by gradient descent, and the spectrum
transforms Flip / Clip / Shift leave K unchanged, so they cannot differ from an SVC on K: the
paper's Table III gaps between them (0.50-0.55 against KLR's 0.79 on sonar) cannot come from the
transforms. The UCI breast (Wisconsin original) TL1 kernel is indefinite (smallest eigenvalue
about -3.5 to -4.8 on a training half). That file has 9 features (after its ID column) where
the paper's Table II lists m = 10, presumably counting the ID; ionosphere has 34 columns, one of
them constant, where Table II lists 33.

**Corrections to the paper** (checked by finite differences in tests/test_indefinite.py):

- eq. (10)-(11): the gradient of F_k is lambda K+ a - (1/n) K (y o beta) - lambda K- a_k with
  beta_i = 1 / (1 + exp(y_i (K a)_i)); as printed, eq. (11) defines beta through itself and
  eq. (10) multiplies y outside K.
- eq. (12): the SGD step as printed, a - eta (-y_i K_i beta_i + lambda K+ a), drops the
  linearised concave term -lambda K- a_k, so it descends g alone and never sees h; "ccicp-sgd"
  keeps the term, "ccicp-sgd-literal" runs eq. (12) as printed.
- Section IV-C: the logistic term's gradient is Lipschitz with constant ||K||^2 / (4n) (the paper
  writes ||K|| / (4n)); ``learning_rate="auto"`` uses eta_0 = 1 / (lambda ||K+|| + ||K||^2 / (4n)),
  the scale-invariant choice (the paper's fixed 0.02 overshoots when ||K|| is in the thousands).
- Section IV-A's cost: an inner GD step costs O(n^2) (two products with the dense n x n kernel:
  K beta for the gradient and K a for the next margins), not O(dn) as stated; d enters only
  when the kernel is built (O(d n^2), once), and the decomposition adds one Lanczos run (shift)
  or an eigendecomposition (spectral). An SGD step still costs O(n) for its column plus O(n^2)
  for the margins the stopping test needs.
- Algorithm 1's loop test compares F_k at two consecutive iterates, so at least one step is taken
  per outer iteration; eta restarts from eta_0 at each outer step (t counts from 0, line 6).
"""

import numbers
import sys
import time
import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted

from . import _core
from ._utils import _solver_choice
from ._utils._monitor import Monitor, history_arrays
from ._utils._nystrom import NystromMap
from ._utils._operators import CoreLinearOperator, as_core_operator, check_symmetric_operator
from ._utils._param_validation import Interval, Options, StrOptions, validate_params
from ._utils._scaling import binary_exponent
from ._utils._validation import as_real_array, check_random_state, naming, resolve_n_threads, symmetrized, validate_X
from .kernels import KernelOperator, _lanczos_extreme_eigenpairs, kernel_operator, rbf_kernel, tl1_kernel
from .linalg import eigsh

__all__ = ["IndefiniteKernelLogisticRegression", "KreinDecomposition", "krein_decomposition", "IndefiniteKernelWarning"]


class IndefiniteKernelWarning(UserWarning):
    """The kernel has negative eigenvalues: the IKLR objective (6) is unbounded below."""


class KreinDecomposition:
    """K = K+ - K- with K- = V diag(w) V' + shift I and K+ = K + K- (both PSD).

    What :func:`krein_decomposition` returns. Only K is stored densely: K- is kept as its
    factors and applied by :meth:`negative_times`.

    Attributes
    ----------
    method : str
        The decomposition: "shift" or "spectral".
    negative_vectors : ndarray of shape (n, r)
        V: the negative eigenvectors kept (r = 0 for "shift").
    negative_weights : ndarray of shape (r,)
        w >= 0: minus their eigenvalues.
    shift : float
        The multiple of I in K-: tau >= max(-mu_min, 0).
    mu_min, mu_max : float
        The extreme eigenvalues of K.
    seconds : float
        Time taken.
    n_matvec : int
        Lanczos mat-vecs (0 when a dense eigensolver ran).
    negative_converged : bool
        Whether every negative eigenpair was certified found.

    Examples
    --------
    The truncated-L1 kernel of the (min-max scaled) iris data is indefinite:

    >>> from sklearn.preprocessing import MinMaxScaler
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.indefinite import KreinDecomposition, krein_decomposition
    >>> from kernlearn.kernels import tl1_kernel
    >>> X, _ = load_iris(return_X_y=True)
    >>> K = tl1_kernel(MinMaxScaler().fit_transform(X))
    >>> dec = krein_decomposition(K, "spectral")
    >>> isinstance(dec, KreinDecomposition)
    True
    >>> dec.method, dec.negative_vectors.shape, dec.negative_converged
    ('spectral', (150, 5), True)
    >>> round(dec.mu_min, 2), round(dec.mu_max), round(dec.shift, 2)
    (-0.27, 251, 0.27)

    ``negative_times`` applies K- = V diag(w) V' + shift I to a vector without forming it:

    >>> V, w = dec.negative_vectors, dec.negative_weights
    >>> K_minus = (V * w) @ V.T + dec.shift * np.eye(len(K))
    >>> x = np.ones(len(K))
    >>> bool(np.allclose(dec.negative_times(x), K_minus @ x))
    True
    >>> round(dec.norm_positive, 1)
    251.4
    """

    def __init__(self, method, V, w, shift, mu_min, mu_max, seconds, n_matvec, negative_converged=True):
        self.method = method
        self.negative_vectors = V
        self.negative_weights = w
        self.shift = float(shift)
        self.mu_min = float(mu_min)
        self.mu_max = float(mu_max)
        self.seconds = seconds
        self.n_matvec = n_matvec
        self.negative_converged = negative_converged

    def negative_times(self, x):
        """K- x without forming K-."""
        V, w = self.negative_vectors, self.negative_weights
        return self.shift * x + V @ (w * (V.T @ x))

    @property
    def norm_positive(self):
        """||K+|| = mu_max + tau: K+ has eigenvalues mu + tau on K's nonnegative pairs, tau on the
        negative pairs kept in V and mu + tau >= 0 on the others."""
        return max(self.mu_max, 0.0) + self.shift

    def as_dict(self):
        return {
            "method": self.method,
            "mu_min": self.mu_min,
            "mu_max": self.mu_max,
            "shift": self.shift,
            "negative_rank": int(self.negative_weights.size),
            "seconds": self.seconds,
            "n_matvec": self.n_matvec,
            "negative_converged": self.negative_converged,
        }


_KREIN_PARAMETERS = {
    "method": [StrOptions({"shift", "spectral"})],
    "tau": [None, Interval(numbers.Real, 0, None)],
    "max_negative_rank": [None, Interval(numbers.Integral, 1, None)],
    "spectral_matvecs": [Interval(numbers.Integral, 1, None)],
    "tol": [Interval(numbers.Real, 0, 1, closed="neither")],
    "random_state": ["random_state"],
}


def krein_decomposition(
    K,
    method="shift",
    *,
    tau=None,
    max_negative_rank=None,
    spectral_matvecs=500,
    tol=1e-8,
    random_state=None,
    n_jobs=None,
):
    """Positive decomposition K = K+ - K- of a symmetric kernel (Proposition 1 of the IKLR paper).

    Parameters
    ----------
    K : array-like of shape (n, n), symmetric and finite
        Kept in float32 when given so (the products run in that precision); any other dtype is
        read as float64. An asymmetric K is used as (K + K') / 2 with a warning.
    method : {"shift", "spectral"}
        See the module docstring.
    tau : float, optional
        The shift, >= max(-mu_min, 0) (default exactly that).
    max_negative_rank : int, optional
        "spectral": keep at most this many negative eigenpairs (the most negative).
    spectral_matvecs : int
        "spectral" above SPECTRAL_DENSE_MAX_N: cap on the threshold-mode Lanczos run for the
        negative eigenpairs (``negative_converged`` in the result says whether it finished); the
        decomposition is exact and PSD either way.
    tol : float in (0, 1)
        Relative tolerance of the eigenvalues; "spectral" counts an eigenvalue below
        ``-tol * max(|mu_min|, |mu_max|)`` as negative.
    random_state : int, RandomState or None
        Start vectors of the Lanczos runs (large K only).
    n_jobs : int, optional
        Threads for the mat-vecs.

    Returns
    -------
    KreinDecomposition
        V, w, the shift and the extreme eigenvalues of K.

    Examples
    --------
    The truncated-L1 kernel of the (min-max scaled) iris data has five negative eigenvalues:

    >>> from sklearn.preprocessing import MinMaxScaler
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.indefinite import krein_decomposition
    >>> from kernlearn.kernels import tl1_kernel
    >>> X, _ = load_iris(return_X_y=True)
    >>> K = tl1_kernel(MinMaxScaler().fit_transform(X))
    >>> dec = krein_decomposition(K, "spectral")
    >>> dec.negative_weights.size, round(dec.mu_min, 2), round(dec.shift, 2)
    (5, -0.27, 0.27)

    K+ = K + K- is positive semidefinite:

    >>> V, w = dec.negative_vectors, dec.negative_weights
    >>> K_plus = K + (V * w) @ V.T + dec.shift * np.eye(len(K))
    >>> bool(np.linalg.eigvalsh(K_plus)[0] > -1e-9 * dec.mu_max)
    True

    "shift" (the default) needs only the smallest eigenvalue: K- = s I.

    >>> shift = krein_decomposition(K, random_state=0)
    >>> shift.method, shift.negative_weights.size, round(shift.shift, 2)
    ('shift', 0, 0.27)
    """
    validate_params(
        _KREIN_PARAMETERS,
        {
            "method": method,
            "tau": tau,
            "max_negative_rank": max_negative_rank,
            "spectral_matvecs": spectral_matvecs,
            "tol": tol,
            "random_state": random_state,
        },
        "krein_decomposition",
    )
    K = as_real_array(K, "K", dtype=(np.float64, np.float32), ensure_min_samples=2)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    K = np.ascontiguousarray(symmetrized(K, "K"))
    n = K.shape[0]
    start = time.perf_counter()
    rng = check_random_state(random_state)
    resolve_n_threads(n_jobs)  # checked on every path, the dense one included
    if n <= _solver_choice.SPECTRAL_DENSE_MAX_N and (method == "spectral" or n <= _solver_choice.DENSE_MAX_N):
        mu, U = scipy.linalg.eigh(np.asarray(K, dtype=np.float64), driver="evd")
        mu_min, mu_max = mu[0], mu[-1]
        V, w = np.empty((n, 0)), np.empty(0)
        if method == "spectral":
            neg = mu < -tol * max(abs(mu_min), abs(mu_max))
            V, w = U[:, neg], -mu[neg]
        spectrum = (V, w, mu_min, mu_max, 0, True)
    else:
        op = kernel_operator(K, n_jobs)
        spectrum = _lanczos_negative_part(op, method, max_negative_rank, spectral_matvecs, tol, rng)
    return _assembled(method, spectrum, tau, max_negative_rank, start)


def _operator_krein_decomposition(op, method="shift", *, max_negative_rank=None, spectral_matvecs=500, tol=1e-8, rng):
    """krein_decomposition of a symmetric LinearOperator (a distributed kernel) by Lanczos alone:
    only products with op, whatever n, so no n x n array is formed. rng is a RandomState."""
    start = time.perf_counter()
    spectrum = _lanczos_negative_part(op, method, max_negative_rank, spectral_matvecs, tol, rng)
    return _assembled(method, spectrum, None, max_negative_rank, start)


def _lanczos_negative_part(op, method, max_negative_rank, spectral_matvecs, tol, rng):
    """(V, w, mu_min, mu_max, mat-vecs, negative_converged) from Lanczos runs on op."""
    n = op.shape[0]
    V, w = np.empty((n, 0)), np.empty(0)
    negative_converged = True
    mu_min, v_min, mu_max, deflated, n_matvec = _lanczos_extreme_eigenpairs(op, tol, rng)
    if method == "spectral" and mu_min < 0:
        # Certifying that no eigenvalue below 0 was missed needs the cluster of kernel
        # eigenvalues just above 0 resolved, which can take thousands of mat-vecs; the
        # decomposition does not need it: K- = V diag(w) V' + tau I with tau >= -mu_min keeps
        # K+ = K + K- PSD for any V and w >= 0. So the threshold run is capped at
        # spectral_matvecs and keeps the negative Ritz pairs it has.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            values, vectors, info = eigsh(
                deflated,
                which="SA",
                threshold=0.0,
                k=min(n - 1, 20),
                v0=v_min,
                tol=tol,
                method="lanczos",
                max_rank=max_negative_rank,
                maxiter=spectral_matvecs,
                random_state=rng,
            )
        negative_converged = not caught
        n_matvec += info["n_matvec"]
        keep = values < 0
        V, w = vectors[:, keep], -values[keep]
    return V, w, mu_min, mu_max, n_matvec, negative_converged


def _assembled(method, spectrum, tau, max_negative_rank, start):
    """The KreinDecomposition of (V, w, mu_min, mu_max, mat-vecs, negative_converged): at most
    max_negative_rank pairs (the most negative), and the shift tau (default max(-mu_min, 0))."""
    V, w, mu_min, mu_max, n_matvec, negative_converged = spectrum
    if max_negative_rank is not None and w.size > max_negative_rank:
        order = np.argsort(-w)[:max_negative_rank]
        V, w = V[:, order], w[order]
    floor = max(-mu_min, 0.0)
    if tau is None:
        tau = floor
    elif tau < floor:
        raise ValueError(f"tau must be >= max(-mu_min, 0) = {floor:.6g} for K+ and K- to be PSD, got {tau!r}")
    return KreinDecomposition(
        method,
        np.ascontiguousarray(V),
        np.ascontiguousarray(w),
        tau,
        mu_min,
        mu_max,
        time.perf_counter() - start,
        n_matvec,
        negative_converged,
    )


# The per-outer-iteration record fields kept in history_.
_RECORD_FIELDS = ("objective", "inner_steps", "matvecs")
_NEWTON_FIELDS = ("objective", "inner_steps", "matvecs", "gradient_norm", "step")

# Conjugate-gradient steps per Newton step: the PSD system's condition number is at most
# 1 + ||K|| / (4 n alpha), so this cap binds only for alpha far below the default
# (bench/results/iklr_solver.md).
_MAX_CG = 1000

# Entries of one block of the cross-kernel K(X_test, X_fit) in decision_function: 32 MiB of
# float64, large enough that each block is a BLAS-3 product.
_CROSS_KERNEL_BLOCK_ENTRIES = 2**22

# alpha="auto" (module docstring, "Choosing alpha"; figures in bench/results/iklr_alpha.md): the
# grid, largest first, one per decade (half-decades cost 1.2-1.5x as much and chose no better); the
# folds of the exact model (the Nystrom model holds out the first fold's third only); the path
# stops ALPHA_PATIENCE grid points past the best mean validation log-loss. The paper's solvers
# keep alpha = ALPHA_PAPER_SOLVERS under "auto" (their step schedule is part of the model; no
# path is run).
ALPHA_DEFAULT = "auto"
ALPHA_GRID = tuple(10.0**-k for k in range(7))
ALPHA_FOLDS = 3
ALPHA_PATIENCE = 3
ALPHA_PAPER_SOLVERS = 1e-4
# The Newton tolerance of the path's fits (the final fit keeps ``tol``): a score needs the
# decision values to a few digits, not the optimum to 1e-8. At 1e-6 the fold scores stay within
# 3e-4 (relative) of the tight path's on breast cancer and two circles; at 1e-4 one moved 17 %.
ALPHA_PATH_TOL = 1e-6
# The validation criterion of the path: "log_loss" of predict_proba, or "accuracy" (the
# comparison in bench/results/iklr_alpha.md).
_ALPHA_CRITERION = "log_loss"
# The exact model's fold kernels are kept across the path while they take at most this many
# bytes (all folds together); above, each alpha copies them again from K.
_FOLD_CACHE_BYTES = 2**28


def _stratified_folds(y, k, rng):
    """k (train, test) index pairs: each class's points, shuffled by rng (a Generator), dealt to
    the folds in turn (the next class continues where the last stopped, so the folds' sizes
    differ by at most one); folds with no test or no training point are dropped."""
    fold_of = np.empty(y.size, dtype=np.int64)
    offset = 0
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        fold_of[members] = (offset + np.arange(members.size)) % k
        offset += members.size
    splits = [(np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f)) for f in range(k)]
    return [(train, test) for train, test in splits if train.size and test.size]


def _validation_log_loss(y, classes, decisions):
    """The path's criterion on one validation fold (lower is better): the mean log-loss of
    predict_proba's probabilities (the logistic of the decision values, one-vs-rest ones
    normalised), or the error rate under _ALPHA_CRITERION = "accuracy"."""
    p = expit(decisions)
    proba = np.column_stack([1.0 - p[:, 0], p[:, 0]]) if classes.size == 2 else p / p.sum(axis=1, keepdims=True)
    index = np.searchsorted(classes, y)
    if _ALPHA_CRITERION == "accuracy":
        return float(np.mean(np.argmax(proba, axis=1) != index))
    return float(-np.mean(np.log(np.clip(proba[np.arange(y.size), index], 1e-300, 1.0))))


class _RestrictedOperator(LinearOperator):
    """K[train][:, train] of a symmetric operator K, by products of K with zero-padded blocks."""

    def __init__(self, K, rows):
        super().__init__(np.float64, (rows.size, rows.size))
        self.K, self.rows = K, rows

    def _matmat(self, B):
        return _padded_product(self.K, self.rows, B)[self.rows]

    def _adjoint(self):
        return self


def _padded_product(K, rows, B):
    """K @ P B where P puts the rows of B at ``rows`` of an n-row zero block."""
    full = np.zeros((K.shape[0],) + B.shape[1:])
    full[rows] = B
    return np.asarray(K.matmat(full.reshape(K.shape[0], -1))).reshape(full.shape)


class _ExactFolds:
    """alpha="auto" on the exact model: ALPHA_FOLDS stratified folds. A fold's model is the
    training model with the validation points' coefficients held at 0: the principal
    submatrices K[train, train] of K and of K- (V's training rows, w, the shift). A principal
    submatrix of a PSD matrix is PSD, so the training kernel's decomposition serves every fold
    and no fold needs an eigenvalue of its own."""

    def __init__(self, estimator, K, V, w, shift, n_threads):
        self.estimator, self.K, self.V, self.w, self.shift, self.n_threads = estimator, K, V, w, shift, n_threads
        self.tol = max(float(estimator.tol), ALPHA_PATH_TOL)
        self._cache = {}

    def splits(self, y, rng):
        self._splits = _stratified_folds(y, ALPHA_FOLDS, rng)
        n, dense = self.K.shape[0], isinstance(self.K, np.ndarray)
        self._keep = dense and 2 * n * n * self.K.dtype.itemsize <= _FOLD_CACHE_BYTES
        return self._splits

    def problem(self, train, test):
        key = int(test[0])
        if key in self._cache:
            return self._cache[key]
        problem = _ExactFold(self, train, test)
        if self._keep:
            self._cache[key] = problem
        return problem

    def final_start(self, coefs):
        """The final fit's start: the folds' coefficients, zero-padded to n and averaged."""
        a = np.zeros(self.K.shape[0])
        for (train, _), coef in zip(self._splits, coefs):
            a[train] += coef
        return a / len(coefs)


class _ExactFold:
    def __init__(self, folds, train, test):
        self.folds = folds
        K = folds.K
        if isinstance(K, np.ndarray):
            self.K = np.ascontiguousarray(K[np.ix_(train, train)])
            self.cross = K[np.ix_(test, train)]
        else:
            self.K = CoreLinearOperator(as_core_operator(_RestrictedOperator(K, train), "K"), folds.n_threads)
            self.cross = None
        self.train, self.test = train, test
        self.V = np.ascontiguousarray(folds.V[train])

    def first_start(self, a0):
        return a0

    def solve(self, signs, start, alpha):
        f = self.folds
        out = f.estimator._newton_run(self.K, signs, self.V, f.w, f.shift, start, f.n_threads, alpha, tol=f.tol)
        return out.alpha

    def decision(self, coef):
        if self.cross is not None:
            return self.cross @ coef.astype(self.cross.dtype, copy=False)
        return _padded_product(self.folds.K, self.train, coef)[self.test]


class _NystromFolds:
    """alpha="auto" on the Nystrom model: one stratified hold-out (the first of ALPHA_FOLDS folds,
    a third of the points; above IKLR_EXACT_MAX_N points that third holds more than 1,600, and
    the path's cost stays near that of one fit, bench/results/iklr_alpha.md). The feature map
    is the training one, so a fold is a subset of the rows of C, and its feature weights start
    the final fit as they are."""

    def __init__(self, estimator, C, feature_map, s, n_threads):
        self.estimator, self.C, self.map, self.s, self.n_threads = estimator, C, feature_map, s, n_threads
        self.tol = max(float(estimator.tol), ALPHA_PATH_TOL)
        self._problem = None

    def splits(self, y, rng):
        return _stratified_folds(y, ALPHA_FOLDS, rng)[:1]

    def problem(self, train, test):
        if self._problem is None:
            self._problem = _NystromFold(self, train, test)
        return self._problem

    def final_start(self, coefs):
        return coefs[0][0]


class _NystromFold:
    def __init__(self, folds, train, test):
        self.folds = folds
        self.C_train = np.ascontiguousarray(folds.C[train])
        self.C_test = folds.C[test]

    def first_start(self, a0):
        f = self.folds
        beta0 = f.map.projection.T @ (self.C_train.T @ a0) if a0.any() else np.zeros(f.map.n_features)
        return (beta0, 0.0)

    def solve(self, signs, start, alpha):
        f = self.folds
        out = f.estimator._nystrom_run(self.C_train, f.map, signs, start[0], f.s, f.n_threads, alpha, tol=f.tol)
        return (out.beta, out.intercept_weight)

    def decision(self, coef):
        beta, b = coef
        return self.C_test @ (self.folds.map.projection @ beta) + self.folds.s * b


def _solver_kernel(K):
    """What the core's IKLR solvers take: the dense array itself, or the operator's core Operator."""
    return K if isinstance(K, np.ndarray) else K.core_operator


def _generator(random_state):
    """A numpy Generator from scikit-learn's random_state conventions (SGD's sample indices)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        return np.random.default_rng(random_state)
    return np.random.default_rng(check_random_state(random_state).randint(np.iinfo(np.int32).max))


class IndefiniteKernelLogisticRegression(ClassifierMixin, BaseEstimator):
    """Kernel logistic regression with (possibly) indefinite kernels (Liu et al. 2019).

    By default a Newton solver on the convex model (lambda/2) a'K+ a (plain kernel logistic
    regression for a PSD kernel); the paper's CCICP schedule and its ill-posed Krein model are
    options (see the module docstring).

    Parameters
    ----------
    kernel : {"rbf", "tl1", "precomputed"} or callable
        "rbf" is the default (bench/results/suite_iklr.md); "tl1" is the paper's truncated-L1
        kernel max(tau - ||x - y||_1, 0), indefinite on some data, PD on others (module
        docstring). "precomputed": X in ``fit`` is the (n, n) training kernel and in ``predict``
        the (m, n) kernel between test and training points. A callable gets (X, Y) and returns
        K(X, Y).
    tau : float, optional
        TL1 truncation (default 0.7 * n_features, the paper's choice for features in [0, 1]).
    gamma : "scale", float or None
        RBF width exp(-gamma ||x - y||^2): "scale" (default) is SVC's 1 / (n_features Var X);
        None is 1 / n_features.
    fit_intercept : bool, default True
        Fit f(x) = sum_j a_j k(x, x_j) + b with a regularised intercept b, by adding
        ``intercept_scaling**2`` to every kernel entry (a constant feature of value
        ``intercept_scaling``, as liblinear does): b = intercept_scaling**2 * sum_j a_j is
        ``intercept_``. The paper's model f = K a has none (``fit_intercept=False``); without it
        the default loses 4 points to SVC on ionosphere, with it none (the "intercept" table of
        bench/results/suite_iklr.md).
    intercept_scaling : float > 0, default 1.0
        The constant feature's value; the larger it is, the weaker the intercept's regularisation.
    alpha : "auto" or float
        The paper's lambda, > 0. "auto" (default): chosen inside fit along a warm-started path
        over ``ALPHA_GRID`` (1 to 1e-6) by 3-fold validation log-loss (the module docstring, "Choosing
        alpha"; bench/results/iklr_alpha.md); with the paper's solvers it means 1e-4. A float is
        fitted as it is (the default before "auto" was 1e-4).
    solver : {"newton", "ccicp-gd", "ccicp-sgd", "ccicp-sgd-literal", "cccp-gd"}
        "newton" (default): inexact Newton on the convex model, stopped by the gradient test
        ``tol``; it refuses penalty="krein" with an indefinite kernel (no minimum). The others
        are the paper's Algorithm 1: CCICP with the GD or single-sample SGD inner loop,
        "ccicp-sgd-literal" = eq. (12) as printed (without -lambda K- a_k), "cccp-gd" = GD with a
        small eps (near-exact subproblems).
    init : {0, 1, -1, "uniform"}
        The start a_0 (the paper's Table 6): all zeros (default), all ones, all minus ones, or
        U(0, 1) entries drawn from ``random_state``.
    tol : float
        "newton": converged when ||grad F(a)|| <= tol ||grad F(0)|| (default 1e-8).
    max_iter : int
        "newton": cap on Newton steps (default 100; a ConvergenceWarning when reached).
    eps, max_outer, max_inner, learning_rate, decay, schedule
        The paper's solvers only (the Newton solver ignores them).
    eps : float, optional
        Inner stopping threshold on ``|F_k(t+1) - F_k(t)|``; default 1 ("ccicp-gd"), 1e-4 (others), as
        in the paper.
    max_outer : int
        Outer (CCCP) iterations (the paper's k_max = 20).
    max_inner : int
        Cap on inner steps per outer iteration.
    learning_rate : float or "auto"
        eta_0 (paper: 0.02); "auto" = 1 / (alpha ||K+|| + ||K||^2 / (4 n)).
    decay : float
        eta <- decay * eta after every inner step (paper: 0.8; 1.0 = constant step).
    schedule : {"restart", "global"}
        "restart": eta returns to eta_0 at each outer iteration (eta_t = eta_0 decay^t with t
        counting from 0 in each, Algorithm 1 line 6); "global": it keeps decaying across outer
        iterations (Algorithm 1 sets eta once, line 1). The paper's text allows both readings.
    decomposition : {"shift", "spectral"}
        How K- is built (see the module docstring). "shift" is the default: it needs only the
        smallest eigenvalue. Not computed for kernel="rbf" with the Newton solver (PSD: K- = 0).
    max_negative_rank : int, optional
        "spectral": at most this many negative eigenpairs.
    penalty : {"positive", "krein"}
        "positive" (default) is (lambda/2) a'K+ a, convex and well posed; "krein" is the paper's
        (lambda/2) a'K a (unbounded below for an indefinite K: IndefiniteKernelWarning).
    kernel_dtype : {"float64", "float32"}
        Precision of the training kernel: its storage when dense (float32 halves memory and
        mat-vec time), its tiles when computed on the fly (:class:`kernlearn.kernels.KernelOperator`).
    kernel_storage : {"auto", "dense", "operator"}
        How the training kernel of ``kernel="rbf"`` or ``"tl1"`` is held: "dense", an n x n array
        (O(n^2) memory, formed once); "operator", a :class:`kernlearn.kernels.KernelOperator` that
        recomputes the entries tile by tile on every product (O(n d) memory; each product costs
        about one formation, bench/results/kernel_operator.md); "auto" (default), dense while the
        matrix takes at most 1.9 GiB (n = 16,000 in float64, 22,600 in float32), the operator
        above. Both give the same fit up to rounding. A callable kernel is always dense; a
        precomputed one is what X is (an array, or a LinearOperator such as a KernelOperator).
    approximation : {"auto", "exact", "nystrom"}
        "exact": the model on the whole n x n kernel (``kernel_storage``). "nystrom": the model
        restricted to M centres (``n_centers``, ``centers``; module docstring, "The Nystrom
        model"), O(n M) memory and O(n M) per Newton-CG step; it needs ``solver="newton"``,
        ``penalty="positive"``, ``backend="local"`` and a kernel that can be evaluated at new
        points (ValueError otherwise); its n x M kernel columns are float64 whatever
        ``kernel_dtype`` and ``kernel_storage`` say. "auto" (default): exact up to 5,000
        training points, Nystrom above (``IKLR_EXACT_MAX_N`` in ``_utils/_solver_choice.py``;
        figures in bench/results/iklr_nystrom.md), and exact whatever n where the Nystrom model
        does not apply.
    n_centers : int or "auto"
        M, the number of Nystrom centres drawn uniformly without replacement from the training
        points; at most n (ValueError above). "auto" (default): 1,000 (at most n), where the test
        accuracy of bench/results/iklr_nystrom.md stops moving.
    centers : "uniform" or array-like of shape (M, n_features)
        "uniform" (default): drawn from the training points (``random_state``). An array: these
        points are the centres (k-means centres, say), and the Nystrom model is used whatever
        ``approximation`` says, except "exact".
    random_state : int, RandomState, Generator or None
        Lanczos start vectors, SGD's sample indices and the Nystrom centres (a numpy Generator).
    verbose : int
        Print one line per outer iteration.
    callback : callable, optional
        Called after each outer iteration with a dict (class index, iteration, objective,
        inner_steps); returning True stops that fit.
    n_jobs : int, optional
        Threads for the kernel and the mat-vecs (with ``backend="dask"``: for the cross-kernel of
        :meth:`decision_function`).
    backend : {"local", "dask"}
        "local" (default): the training kernel is in this process (``kernel_storage``). "dask": the
        kernel is never formed; it is a :class:`kernlearn.distributed.KernelOperator` whose products
        run tile by tile on a Dask cluster (``pip install "kernlearn[dask]"``), the decomposition's
        eigenvalues come from Lanczos on it, and the same C++ Newton / CCICP iterations call its
        products, one or two distributed products per step (the same stopping rules, ``converged_``,
        ``gradient_norm_`` and ``history_``). Supported: ``kernel="rbf"`` or ``"tl1"`` with a NumPy
        X (the operator is built from ``gamma`` / ``tau``), or ``kernel="precomputed"`` with X a
        KernelOperator built by the caller (its kernel and parameters are used; predict then takes a
        precomputed test kernel). A callable kernel, a dense precomputed kernel and
        ``kernel_dtype="float32"`` are refused (ValueError). The training rows are kept in
        ``X_fit_`` and new points are scored in blocks of rows, never an n_test x n_train array.
    client : distributed.Client or None
        ``backend="dask"``: the cluster (None: the default client, else Dask's local threads).
        Leave it None for cross-validation: cloning the estimator copies its parameters.
    block_size : int or None
        ``backend="dask"``: rows per block of the operator (see KernelOperator).
    cache : bool
        ``backend="dask"``: keep the kernel's row blocks on the workers between products (faster
        when they fit: O(n^2 / workers) memory per worker; refused when they do not).

    Attributes
    ----------
    classes_ : ndarray
    dual_coef_ : ndarray of shape (n_classifiers, n_train) or (n_classifiers, M)
        The expansion coefficients a over the points of ``X_fit_`` (one row for binary problems,
        one per class for one-vs-rest): ``f(x) = sum_j a_j k(x, X_fit_[j]) + intercept_``.
    intercept_ : ndarray of shape (n_classifiers,)
        b = intercept_scaling**2 * sum_j a_j (0 when ``fit_intercept=False``); for the Nystrom
        model, intercept_scaling times the weight of its constant feature.
    n_iter_ : ndarray of shape (n_classifiers,)
        Newton steps, or CCICP outer iterations, run.
    converged_ : ndarray of bool, shape (n_classifiers,)
        "newton": whether the gradient test met ``tol``. The paper's solvers have no stopping
        certificate (they run ``max_outer`` steps): always False.
    gradient_norm_ : ndarray of shape (n_classifiers,)
        "newton": ||grad F(a)|| / ||grad F(0)|| at the returned a (the certificate); NaN for the
        paper's solvers.
    gamma_ : float or None
        The RBF gamma used (None for the other kernels).
    alpha_ : float
        The regularisation fitted: alpha, or the one ``alpha="auto"`` chose.
    alpha_path_ : ndarray of shape (n_alphas,) or None
        ``alpha="auto"``: the alphas tried, largest first (the grid up to where the path
        stopped); None for a float alpha and for the paper's solvers.
    alpha_scores_ : ndarray of shape (n_folds, n_alphas) or None
        ``alpha="auto"``: the validation log-loss of each fold (3 for the exact model, 1 for the
        Nystrom model) at each alpha of ``alpha_path_`` (lower is better; ``alpha_`` minimises
        their mean weighted by the folds' sizes); None with ``alpha_path_``.
    history_ : list of dict
        Per classifier: ``objective`` (F of eq. (6), or the convex model, at a_0 then after each
        Newton step or outer iteration), ``inner_steps`` (CG steps for Newton), ``matvecs``;
        Newton adds ``gradient_norm`` and ``step`` (line-search step) per step.
    decomposition_ : dict
        Method, mu_min, mu_max, shift, negative rank, time and mat-vecs of the decomposition,
        and the eta_0 used. For the Nystrom model: method "none (Nystrom)", n_centers, rank (the
        features kept), negative_rank (those from negative eigenvalues of the centres' block) and
        the seconds spent building the features.
    X_fit_ : ndarray or None
        The points the kernel is evaluated at for new points: the training inputs, or the Nystrom
        centres; None for a precomputed kernel, which is not kept.
    approximation_ : {"exact", "nystrom"}
        The model fitted (``approximation``).
    n_centers_ : int or None
        M for the Nystrom model, None for the exact one.
    shape_fit_ : tuple
        Shape of the training X (or kernel).

    Examples
    --------
    The paper's TL1 kernel on the sonar returns (features in [0, 1], as the kernel's default
    tau assumes), fitted on 70 % of the points and scored on the rest:

    >>> from sklearn.model_selection import train_test_split
    >>> from kernlearn.datasets import load_sonar
    >>> from kernlearn.indefinite import IndefiniteKernelLogisticRegression
    >>> X, y = load_sonar(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    >>> model = IndefiniteKernelLogisticRegression(kernel="tl1", random_state=0).fit(X_train, y_train)
    >>> model.dual_coef_.shape, model.converged_
    ((1, 145), array([ True]))

    alpha="auto" (the default) chose alpha along a warm-started path by 3-fold validation
    log-loss on the training points (``random_state`` draws the folds):

    >>> float(model.alpha_), model.alpha_path_.size, model.alpha_scores_.shape
    (0.001, 7, (3, 7))

    This kernel happens to be positive definite on sonar (smallest eigenvalue above 0), so K- = 0
    and the fit is plain kernel logistic regression:

    >>> round(model.decomposition_["mu_min"], 2), model.decomposition_["shift"]
    (0.69, 0.0)
    >>> model.predict(X_test[:8]).tolist()
    [1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_test[:8].tolist()
    [1, 0, 1, 0, 0, 0, 1, 1]
    >>> model.predict_proba(X_test[:2]).round(2)
    array([[0.01, 0.99],
           [0.87, 0.13]])
    >>> round(model.score(X_test, y_test), 2)
    0.89
    """

    _parameter_constraints = {
        "kernel": [StrOptions({"tl1", "rbf", "precomputed"}), "callable"],
        "tau": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "gamma": [None, StrOptions({"scale"}), Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        # Its square is added to every kernel entry: beyond 1e150 the kernel sums overflow
        # (1e308 ended in an OverflowError, issue 48).
        "intercept_scaling": [Interval(numbers.Real, 0, 1e150, closed="right")],
        "alpha": [StrOptions({"auto"}), Interval(numbers.Real, 0, None, closed="neither")],
        "solver": [StrOptions({"newton", "ccicp-gd", "ccicp-sgd", "ccicp-sgd-literal", "cccp-gd"})],
        "init": [Options(numbers.Integral, {0, 1, -1}), StrOptions({"uniform"})],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "eps": [None, Interval(numbers.Real, 0, None)],
        "max_outer": [Interval(numbers.Integral, 1, None)],
        "max_inner": [Interval(numbers.Integral, 1, None)],
        "learning_rate": [StrOptions({"auto"}), Interval(numbers.Real, 0, None, closed="neither")],
        "decay": [Interval(numbers.Real, 0, 1, closed="right")],
        "schedule": [StrOptions({"restart", "global"})],
        "decomposition": [StrOptions({"shift", "spectral"})],
        "max_negative_rank": [None, Interval(numbers.Integral, 1, None)],
        "penalty": [StrOptions({"krein", "positive"})],
        "kernel_dtype": [StrOptions({"float64", "float32"})],
        "kernel_storage": [StrOptions({"auto", "dense", "operator"})],
        "approximation": [StrOptions({"auto", "exact", "nystrom"})],
        "n_centers": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None)],
        "centers": [StrOptions({"uniform"}), "array-like"],
        "random_state": ["random_state"],
        "verbose": [Interval(numbers.Integral, 0, None), "boolean"],
        "callback": [None, "callable"],
        "backend": [StrOptions({"local", "dask"})],
        "client": [None, object],  # a distributed.Client, checked when fit uses it (no Dask import here)
        "block_size": [None, Interval(numbers.Integral, 1, None)],
        "cache": ["boolean"],
    }

    def __init__(
        self,
        kernel="rbf",
        *,
        tau=None,
        gamma="scale",
        fit_intercept=True,
        intercept_scaling=1.0,
        alpha=ALPHA_DEFAULT,
        solver="newton",
        init=0,
        tol=1e-8,
        max_iter=100,
        eps=None,
        max_outer=20,
        max_inner=1000,
        learning_rate=0.02,
        decay=0.8,
        schedule="restart",
        decomposition="shift",
        max_negative_rank=None,
        penalty="positive",
        kernel_dtype="float64",
        kernel_storage="auto",
        approximation="auto",
        n_centers="auto",
        centers="uniform",
        random_state=None,
        verbose=0,
        callback=None,
        n_jobs=None,
        backend="local",
        client=None,
        block_size=None,
        cache=False,
    ):
        self.kernel = kernel
        self.tau = tau
        self.gamma = gamma
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.alpha = alpha
        self.solver = solver
        self.init = init
        self.tol = tol
        self.max_iter = max_iter
        self.eps = eps
        self.max_outer = max_outer
        self.max_inner = max_inner
        self.learning_rate = learning_rate
        self.decay = decay
        self.schedule = schedule
        self.decomposition = decomposition
        self.max_negative_rank = max_negative_rank
        self.penalty = penalty
        self.kernel_dtype = kernel_dtype
        self.kernel_storage = kernel_storage
        self.approximation = approximation
        self.n_centers = n_centers
        self.centers = centers
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.n_jobs = n_jobs
        self.backend = backend
        self.client = client
        self.block_size = block_size
        self.cache = cache

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _eps(self):
        """The inner stopping threshold: eps, or the paper's default for the solver."""
        if self.eps is not None:
            return float(self.eps)
        return 1.0 if self.solver == "ccicp-gd" else 1e-4

    def _kernel(self, X, Y, dtype=np.float64):
        if self.kernel == "tl1":
            return tl1_kernel(X, Y, self.tau, dtype=dtype, n_jobs=self.n_jobs)
        if self.kernel == "rbf":
            return rbf_kernel(X, Y, self.gamma_, dtype=dtype, n_jobs=self.n_jobs)
        K = np.asarray(self.kernel(X, X if Y is None else Y))
        expected = (X.shape[0], (X if Y is None else Y).shape[0])
        if K.shape != expected:
            raise ValueError(f"the kernel callable returned shape {K.shape}, expected {expected}")
        if K.dtype.kind not in "biuf" or not np.isfinite(K).all():
            raise ValueError("the kernel callable returned non-real or non-finite values")
        return np.ascontiguousarray(K, dtype=dtype)

    def _training_kernel(self, X):
        dtype = np.dtype(self.kernel_dtype)
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"a precomputed training kernel must be square, got shape {X.shape}")
            X = symmetrized(X, "the precomputed kernel")
            return np.ascontiguousarray(X, dtype=dtype)  # no copy when already symmetric float64
        K = self._kernel(X, None, dtype)
        if callable(self.kernel):  # a user's function: symmetric only if they made it so
            K = np.ascontiguousarray(symmetrized(K, "the kernel callable's K(X, X)"), dtype=dtype)
        return K

    def fit(self, X, y):
        """Fit on training inputs X (or a precomputed (n, n) kernel) and labels y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training inputs; with ``kernel="precomputed"`` the training kernel.
        y : array-like of shape (n_samples,)
            Class labels, at least two classes (more are fitted one-vs-rest).

        Returns
        -------
        self : IndefiniteKernelLogisticRegression
            The fitted estimator.
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        self._check_backend(X)
        self.alpha_path_ = self.alpha_scores_ = None
        eps = self._eps()
        user_operator = X if isinstance(X, LinearOperator) else None
        if user_operator is not None:
            with naming("y"):
                y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
            if y.ndim != 1 or y.shape[0] != user_operator.shape[0]:
                raise ValueError(
                    f"y must have one label per row of the kernel operator ({user_operator.shape[0]}), "
                    f"got shape {y.shape}"
                )
            X = user_operator
            self.n_features_in_ = X.shape[0]
        else:
            X, y = validate_X(self, X, min_samples=2, y=y)
        with naming("y"):
            check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"y has a single class ({self.classes_[0]!r}); at least 2 are needed")
        self.gamma_ = None
        if self.kernel == "rbf":
            # "scale" is SVC's 1 / (d Var X); a constant X (Var X exactly 0) gives 1 / d.
            if isinstance(self.gamma, numbers.Real):
                self.gamma_ = float(self.gamma)
            else:  # Var X of X / 2^e, scaled back: 0 or inf (refused below) when it under- or overflows
                exponent = binary_exponent(X)
                scaled_var = float(np.ldexp(X, -exponent).var())
                with np.errstate(over="ignore", under="ignore", divide="ignore"):
                    spread = X.shape[1] * float(np.ldexp(scaled_var, 2 * exponent))
                    self.gamma_ = 1.0 / X.shape[1] if scaled_var == 0.0 else float(np.divide(1.0, spread))
            if not (0.0 < self.gamma_ < np.inf):  # Var X overflows near 1e300 and underflows near 1e-200
                raise ValueError(
                    f"gamma='scale' is 1 / (n_features x Var X) = {self.gamma_:.3g} for this X, not a positive "
                    "finite float: rescale X or give gamma"
                )
        rng = _generator(self.random_state)
        seed = int(rng.integers(np.iinfo(np.int32).max))
        n_threads = resolve_n_threads(self.n_jobs)
        self.approximation_ = self._approximation(X, user_operator)
        self.n_centers_ = None
        if self.approximation_ == "nystrom":
            return self._fit_nystrom(X, y, rng, n_threads)
        K = self._training_operator(X, user_operator, n_threads, check_random_state(seed))
        n = K.shape[0]
        # A user's KernelOperator of the RBF kernel is as PSD as ours.
        gaussian = self.kernel == "rbf" or getattr(user_operator, "gamma_", None) is not None
        if gaussian and self.solver == "newton":
            # The Gaussian kernel is PSD by construction: K- = 0, and no eigenvalue is needed
            # (Lanczos for the smallest one of an RBF kernel stalls on the cluster at 0: 200 s at
            # n = 1,000 in bench/results/iklr_solver.md before this shortcut).
            decomposition = KreinDecomposition("none (RBF)", np.empty((n, 0)), np.empty(0), 0.0, 0.0, np.nan, 0.0, 0)
        elif not isinstance(K, np.ndarray):
            decomposition = self._operator_decomposition(K, gaussian, check_random_state(seed))
        else:
            decomposition = krein_decomposition(
                K,
                self.decomposition,
                max_negative_rank=self.max_negative_rank,
                random_state=check_random_state(seed),
                n_jobs=self.n_jobs,
            )
        # Eigenvalues within the rounding of the stored kernel (n eps ||K||) count as zero.
        precision = K.dtype if isinstance(K, np.ndarray) else getattr(K, "kernel_dtype_", np.dtype(self.kernel_dtype))
        rounding = 10 * n * np.finfo(precision).eps * max(abs(decomposition.mu_max), abs(decomposition.mu_min))
        indefinite = decomposition.mu_min < -rounding
        if self.solver == "newton" and self.penalty == "krein" and indefinite:
            raise ValueError(
                f"solver='newton' needs a model bounded below, but with penalty='krein' and this indefinite "
                f"kernel (smallest eigenvalue {decomposition.mu_min:.4g}) objective (6) is unbounded below: use "
                "penalty='positive' (the default) or one of the paper's solvers ('ccicp-gd', 'ccicp-sgd', "
                "'ccicp-sgd-literal', 'cccp-gd')"
            )
        if indefinite and self.penalty == "krein":
            warnings.warn(
                f"the kernel is indefinite (smallest eigenvalue {decomposition.mu_min:.4g}, largest "
                f"{decomposition.mu_max:.4g}): objective (6) is unbounded below, and the fit is what the "
                "fixed step schedule returns; penalty='positive' is the well-posed alternative",
                IndefiniteKernelWarning,
                stacklevel=2,
            )
        norm_K = max(abs(decomposition.mu_min), abs(decomposition.mu_max))
        alpha = self._fixed_alpha()
        if self.solver == "newton":
            eta0 = None
        elif self.learning_rate == "auto":
            eta0 = 1.0 / (alpha * decomposition.norm_positive + norm_K**2 / (4.0 * n))
        else:
            eta0 = float(self.learning_rate)
        self.decomposition_ = {**decomposition.as_dict(), "learning_rate": eta0}

        targets = [self.classes_[1]] if self.classes_.size == 2 else list(self.classes_)
        V = np.ascontiguousarray(decomposition.negative_vectors, dtype=np.float64)
        w = np.ascontiguousarray(decomposition.negative_weights, dtype=np.float64)
        shift = decomposition.shift
        if not indefinite:  # PSD within rounding: K- = 0, both penalties are plain KLR
            V, w, shift = np.empty((n, 0)), np.empty(0), 0.0
        starts = None
        if alpha is None:
            alpha, starts = self._select_alpha(y, targets, _ExactFolds(self, K, V, w, shift, n_threads), rng)
        self.alpha_ = alpha
        coefs, n_iter, history, converged, gradient_norm = [], [], [], [], []
        for c, target in enumerate(targets):
            signs = np.where(y == target, 1.0, -1.0)
            alpha0 = self._start(n, rng) if starts is None else starts[c]
            if self.solver == "newton":
                out = self._fit_newton(K, signs, V, w, shift, alpha0, c, n_threads, alpha)
            else:
                out = self._fit_ccicp(K, signs, V, w, shift, alpha0, c, n_threads, eta0, eps, rng, norm_K, alpha)
            coefs.append(out["alpha"])
            n_iter.append(out["n_iter"])
            converged.append(out["converged"])
            gradient_norm.append(out["gradient_norm"])
            history.append(out["history"])
        self.dual_coef_ = np.vstack(coefs)
        self.intercept_ = self._intercept_constant() * self.dual_coef_.sum(axis=1)
        self.n_iter_ = np.asarray(n_iter)
        self.converged_ = np.asarray(converged, dtype=bool)
        self.gradient_norm_ = np.asarray(gradient_norm, dtype=float)
        self.history_ = history
        self.shape_fit_ = X.shape
        self.X_fit_ = None if self.kernel == "precomputed" else X
        return self

    @staticmethod
    def _is_kernel_operator(X):
        """Whether X is a kernlearn.distributed.KernelOperator (without importing Dask)."""
        module = sys.modules.get("kernlearn.distributed._kernel_operator")
        return module is not None and isinstance(X, module.KernelOperator)

    def _check_backend(self, X):
        """The combinations of backend, kernel and the Dask options that fit supports, each refused
        with a ValueError naming the parameter."""
        if isinstance(X, LinearOperator) and self.kernel != "precomputed":
            raise ValueError(f"X is a {type(X).__name__}: pass kernel='precomputed' to fit on a kernel operator")
        if self.backend == "local":
            for name, default in (("client", None), ("block_size", None), ("cache", False)):
                if getattr(self, name) is not default:
                    raise ValueError(f"{name} is used by backend='dask' only, got {name}={getattr(self, name)!r}")
            if self._is_kernel_operator(X):
                raise ValueError("X is a kernlearn.distributed.KernelOperator: fitting on it needs backend='dask'")
            return
        if callable(self.kernel):
            raise ValueError(
                "kernel: backend='dask' supports kernel='rbf' or 'tl1' (built on the workers), or "
                "kernel='precomputed' with X a kernlearn.distributed.KernelOperator; not a callable"
            )
        if self.kernel == "precomputed" and not self._is_kernel_operator(X):
            raise ValueError(
                "kernel='precomputed' with backend='dask' needs X to be a kernlearn.distributed.KernelOperator "
                f"(a dense kernel has nothing to distribute), got {type(X).__name__}"
            )
        if self.kernel_dtype != "float64":
            raise ValueError(f"kernel_dtype={self.kernel_dtype!r}: backend='dask' multiplies in float64 only")

    def _training_operator(self, X, user_operator, n_threads, rng):
        """The training kernel plus the intercept's constant: a dense array (stored), or a
        CoreLinearOperator (computed on the fly here, a user's LinearOperator, or products on a
        Dask cluster) whose core_operator the solvers use."""
        constant = self._intercept_constant()
        if self.backend == "dask" or user_operator is not None:
            if user_operator is None:
                from .distributed import KernelOperator as DistributedKernelOperator

                parameters = {"gamma": self.gamma_} if self.kernel == "rbf" else {"tau": self.tau}
                user_operator = DistributedKernelOperator(
                    X, self.kernel, client=self.client, block_size=self.block_size, cache=self.cache, **parameters
                )
            else:
                check_symmetric_operator(user_operator, "X", rng)
                self.gamma_ = getattr(user_operator, "gamma_", None)
            core = as_core_operator(user_operator, "K")
            if constant:
                core = _core.linalg.sum_operator([(core, 1.0)], constant=constant)
            return CoreLinearOperator(core, n_threads)
        if self._kernel_on_the_fly(X.shape[0]):
            parameters = {"gamma": self.gamma_} if self.kernel == "rbf" else {"tau": self.tau}
            return KernelOperator(
                X, self.kernel, constant=constant, dtype=self.kernel_dtype, n_jobs=self.n_jobs, **parameters
            )
        K = self._training_kernel(X)
        if self.fit_intercept:
            constant = np.asarray(constant, dtype=K.dtype)
            if self.kernel in ("rbf", "tl1"):  # K is ours: no second n x n array
                K += constant
            else:  # a precomputed X or a callable's result may be the user's array: never modified
                K = K + constant
        return K

    def _approximation(self, X, user_operator):
        """ "exact" or "nystrom": the ``approximation`` parameter, "auto" by the size rule of
        _utils/_solver_choice.py; a Nystrom model is refused (ValueError naming the parameter that
        excludes it) where it cannot be built or does not solve the chosen model."""
        if self.approximation == "exact":
            return "exact"
        reasons = []
        if user_operator is not None or self.kernel == "precomputed":
            reasons.append("kernel='precomputed' (a Nystrom model evaluates the kernel at new centres)")
        if self.backend != "local":
            reasons.append(f"backend={self.backend!r} (the Nystrom model is local)")
        if self.solver != "newton":
            reasons.append(f"solver={self.solver!r} (the Nystrom model is solved by Newton)")
        if self.penalty != "positive":
            reasons.append(f"penalty={self.penalty!r} (the Nystrom model is the positive-penalty one)")
        if self.approximation == "nystrom":
            if reasons:
                raise ValueError(f"approximation='nystrom' cannot be used with {reasons[0]}")
            return "nystrom"
        if not isinstance(self.centers, str):
            if reasons:
                raise ValueError(f"centers (an array of Nystrom centres) cannot be used with {reasons[0]}")
            return "nystrom"
        if reasons or X.shape[0] <= _solver_choice.IKLR_EXACT_MAX_N:
            return "exact"
        return "nystrom"

    def _nystrom_centers(self, X, rng):
        """The M centres: a uniform sample of the training rows without replacement (M from
        ``n_centers``, the "auto" rule of _utils/_solver_choice.py), or the caller's array."""
        n, d = X.shape
        if not isinstance(self.centers, str):
            Z = as_real_array(self.centers, "centers")
            if Z.shape[1] != d:
                raise ValueError(f"centers must have the {d} features of X, got shape {Z.shape}")
            if not isinstance(self.n_centers, str) and self.n_centers != Z.shape[0]:
                raise ValueError(
                    f"n_centers={self.n_centers} contradicts the {Z.shape[0]} rows of centers: leave it 'auto'"
                )
            return Z
        if self.n_centers == "auto":
            m = _solver_choice.iklr_nystrom_centers(n)
        else:
            m = int(self.n_centers)
            if m > n:
                raise ValueError(f"n_centers must be at most the number of training points ({n}), got {m}")
        return X[np.sort(rng.choice(n, size=m, replace=False))]

    def _fit_nystrom(self, X, y, rng, n_threads):
        """The Nystrom model (module docstring, "Nystrom model"): features at M centres, one Newton
        run per classifier in C++; the coefficients are kept on the centres, so that
        decision_function evaluates k(x, centres) like the exact model's k(x, X_fit)."""
        start = time.perf_counter()
        Z = self._nystrom_centers(X, rng)
        feature_map = NystromMap(lambda A, B: self._kernel(A, B), Z)
        C = feature_map.kernel_columns(X)
        seconds = time.perf_counter() - start
        s = float(self.intercept_scaling) if self.fit_intercept else 0.0
        targets = [self.classes_[1]] if self.classes_.size == 2 else list(self.classes_)
        alpha, starts = self._fixed_alpha(), None
        if alpha is None:
            alpha, starts = self._select_alpha(y, targets, _NystromFolds(self, C, feature_map, s, n_threads), rng)
        self.alpha_ = alpha
        coefs, intercepts, n_iter, history, converged, gradient_norm = [], [], [], [], [], []
        for c, target in enumerate(targets):
            signs = np.where(y == target, 1.0, -1.0)
            if starts is None:
                alpha0 = self._start(X.shape[0], rng)
                # f = K a ~ Phi Phi' a: the start a_0 as feature weights.
                beta0 = feature_map.projection.T @ (C.T @ alpha0) if alpha0.any() else np.zeros(feature_map.n_features)
            else:
                beta0 = starts[c]
            with self._monitor(c, int(self.max_iter), certificate="gradient_norm") as monitor:
                out = self._nystrom_run(C, feature_map, signs, beta0, s, n_threads, alpha, monitor.core_callback())
            fit = self._newton_outcome(out, feature_map.projection @ out.beta, stacklevel=4)
            coefs.append(fit["alpha"])
            intercepts.append(s * out.intercept_weight)
            n_iter.append(fit["n_iter"])
            converged.append(fit["converged"])
            gradient_norm.append(fit["gradient_norm"])
            history.append(fit["history"])
        self.dual_coef_ = np.vstack(coefs)
        self.intercept_ = np.asarray(intercepts)
        self.n_iter_ = np.asarray(n_iter)
        self.converged_ = np.asarray(converged, dtype=bool)
        self.gradient_norm_ = np.asarray(gradient_norm, dtype=float)
        self.history_ = history
        self.n_centers_ = Z.shape[0]
        self.decomposition_ = {
            "method": "none (Nystrom)",
            "n_centers": Z.shape[0],
            "rank": feature_map.n_features,
            "negative_rank": int(np.sum(feature_map.signs < 0)),
            "seconds": seconds,
            "learning_rate": None,
        }
        self.shape_fit_ = X.shape
        self.X_fit_ = Z
        return self

    def _nystrom_run(self, C, feature_map, signs, beta0, s, n_threads, alpha, callback=None, tol=None):
        """One run of the core's Nystrom Newton solver on the kernel columns C (rows: training
        points) at regularisation alpha from the feature weights beta0 (tol: ``self.tol``)."""
        tol = float(self.tol if tol is None else tol)
        options = _core.methods.IklrNystromOptions(
            lambda_=float(alpha), intercept=s, tol=tol, max_iter=int(self.max_iter), max_cg=_MAX_CG
        )
        return _core.methods.iklr_nystrom_newton(
            C,
            feature_map.projection,
            feature_map.center_features,
            signs,
            beta0,
            options=options,
            callback=callback,
            n_threads=n_threads,
        )

    def _fixed_alpha(self):
        """The regularisation when it is not selected: a float alpha, or ALPHA_PAPER_SOLVERS for
        alpha="auto" with one of the paper's solvers; None when alpha="auto" selects it."""
        if not isinstance(self.alpha, str):
            return float(self.alpha)
        return None if self.solver == "newton" else ALPHA_PAPER_SOLVERS

    def _select_alpha(self, y, targets, folds, rng):
        """alpha="auto" (module docstring, "Choosing alpha"): the warm-started path over
        ALPHA_GRID, largest first, on each fold of ``folds``, scored by the validation log-loss of
        predict_proba; it stops ALPHA_PATIENCE grid points after the best mean. Sets
        ``alpha_path_`` and ``alpha_scores_``; returns the chosen alpha and, per classifier, the
        final fit's start (the folds' solutions at that alpha, averaged)."""
        splits = folds.splits(y, rng)
        sizes = np.array([test.size for _, test in splits], dtype=float)
        grid = np.asarray(ALPHA_GRID)
        scores = np.full((len(splits), grid.size), np.nan)
        current = [[None] * len(targets) for _ in splits]
        best, best_j, best_solutions = np.inf, 0, None
        with warnings.catch_warnings():
            # A fit on the path that stops at max_iter still scores its alpha; the final fit warns.
            warnings.simplefilter("ignore", ConvergenceWarning)
            for j, alpha in enumerate(grid):
                for f, (train, test) in enumerate(splits):
                    problem = folds.problem(train, test)
                    decisions = []
                    for c, target in enumerate(targets):
                        signs = np.where(y[train] == target, 1.0, -1.0)
                        start = current[f][c]
                        if start is None:
                            start = problem.first_start(self._start(train.size, rng))
                        current[f][c] = problem.solve(signs, start, float(alpha))
                        decisions.append(problem.decision(current[f][c]))
                    scores[f, j] = _validation_log_loss(y[test], self.classes_, np.column_stack(decisions))
                mean = float(sizes @ scores[:, j] / sizes.sum())
                if mean < best:
                    best, best_j = mean, j
                    best_solutions = [list(row) for row in current]
                elif j - best_j >= ALPHA_PATIENCE:
                    break
        tried = j + 1
        self.alpha_path_ = grid[:tried].copy()
        self.alpha_scores_ = scores[:, :tried]
        starts = [folds.final_start([best_solutions[f][c] for f in range(len(splits))]) for c in range(len(targets))]
        return float(grid[best_j]), starts

    def _kernel_on_the_fly(self, n):
        """Whether the training kernel is a KernelOperator rather than a dense array
        (kernel_storage; "auto" by the memory rule of _utils/_solver_choice.py)."""
        if self.kernel not in ("rbf", "tl1") or self.kernel_storage == "dense":
            return False
        if self.kernel_storage == "operator":
            return True
        return not _solver_choice.dense_kernel_fits(n, np.dtype(self.kernel_dtype).itemsize)

    def _operator_decomposition(self, K, gaussian, rng):
        """krein_decomposition of the distributed kernel, by Lanczos (products only)."""
        if gaussian:
            # PSD by construction (the Newton path skips even this): K- = 0, and only ||K|| is
            # needed (learning_rate="auto"); its largest eigenvalue converges fast, where the
            # smallest stalls on the cluster at 0.
            start = time.perf_counter()
            top, _, info = eigsh(K, 1, "LA", tol=1e-8, method="lanczos", random_state=rng)
            n = K.shape[0]
            seconds = time.perf_counter() - start
            return KreinDecomposition(
                "none (RBF)", np.empty((n, 0)), np.empty(0), 0.0, 0.0, top[0], seconds, info["n_matvec"]
            )
        return _operator_krein_decomposition(K, self.decomposition, max_negative_rank=self.max_negative_rank, rng=rng)

    def _intercept_constant(self):
        """The constant added to every kernel entry: intercept_scaling**2, or 0 without intercept."""
        return float(self.intercept_scaling) ** 2 if self.fit_intercept else 0.0

    def _start(self, n, rng):
        """alpha_0 (the paper's Table 6): zeros, ones, minus ones or U(0, 1) from the estimator's generator."""
        if self.init == "uniform":
            return rng.random(n)
        return np.full(n, float(self.init))

    def _fit_newton(self, K, signs, V, w, shift, alpha0, c, n_threads, alpha):
        with self._monitor(c, int(self.max_iter), certificate="gradient_norm") as monitor:
            out = self._newton_run(K, signs, V, w, shift, alpha0, n_threads, alpha, monitor.core_callback())
        return self._newton_outcome(out, out.alpha, stacklevel=4)

    def _newton_run(self, K, signs, V, w, shift, alpha0, n_threads, alpha, callback=None, tol=None):
        """One run of the core's exact Newton solver at regularisation alpha from alpha0 (tol:
        ``self.tol``)."""
        tol = float(self.tol if tol is None else tol)
        options = _core.methods.IklrNewtonOptions(
            lambda_=float(alpha), tol=tol, max_iter=int(self.max_iter), max_cg=_MAX_CG
        )
        return _core.methods.iklr_newton(
            _solver_kernel(K), signs, V, w, alpha0, shift=shift, options=options, callback=callback, n_threads=n_threads
        )

    def _newton_outcome(self, out, coefficients, stacklevel):
        """The fit record of one Newton run (exact or Nystrom): its certificate, history and, when
        it did not reach tol, a ConvergenceWarning saying why."""
        records = history_arrays(out.history, _NEWTON_FIELDS)
        status = out.status
        relative = out.gradient_norm / out.reference_gradient_norm if out.reference_gradient_norm > 0 else 0.0
        if status in (_core.core.SolverStatus.max_iter, _core.core.SolverStatus.not_converged):
            reason = (
                f"max_iter={self.max_iter} Newton steps ran out"
                if status == _core.core.SolverStatus.max_iter
                else "the line search found no decrease (the rounding floor of the objective)"
            )
            warnings.warn(
                f"IKLR (Newton) did not reach tol={self.tol:g}: {reason}; the gradient norm is "
                f"{relative:.3g} times that at a = 0",
                ConvergenceWarning,
                stacklevel=stacklevel,
            )
        return {
            "alpha": coefficients,
            "n_iter": len(out.history),
            "converged": status == _core.core.SolverStatus.converged,
            "gradient_norm": relative,
            "history": {
                "objective": np.concatenate([[out.initial_objective], records["objective"]]),
                "inner_steps": records["inner_steps"].astype(np.int64),
                "matvecs": records["matvecs"].astype(np.int64),
                "gradient_norm": records["gradient_norm"],
                "step": records["step"],
            },
        }

    def _fit_ccicp(self, K, signs, V, w, shift, alpha0, c, n_threads, eta0, eps, rng, norm_K, alpha):
        n = K.shape[0]
        inner = "gd" if self.solver in ("ccicp-gd", "cccp-gd") else "sgd"
        max_outer, max_inner = int(self.max_outer), int(self.max_inner)
        options = _core.methods.IklrOptions(
            inner=_core.methods.IklrInner.__members__[inner],
            lambda_=float(alpha),
            eps=eps,
            max_outer=max_outer,
            max_inner=max_inner,
            learning_rate=eta0,
            decay=float(self.decay),
            restart_rate=self.schedule == "restart",
            concave=self.penalty == "krein",
            literal_sgd=self.solver == "ccicp-sgd-literal",
        )
        indices = rng.integers(0, n, size=max_outer * max_inner) if inner == "sgd" else np.empty(0, np.int64)
        with self._monitor(c, max_outer) as monitor:
            out = _core.methods.ccicp(
                _solver_kernel(K),
                signs,
                V,
                w,
                alpha0,
                shift=shift,
                options=options,
                sgd_indices=np.ascontiguousarray(indices, dtype=np.int64),
                callback=monitor.core_callback(),
                n_threads=n_threads,
            )
        records = history_arrays(out.history, _RECORD_FIELDS)
        steps = records["inner_steps"].astype(np.int64)
        if out.status == _core.core.SolverStatus.not_converged:
            warnings.warn(
                f"IKLR overflowed in outer iteration {len(steps) + 1} (the objective became "
                f"non-finite) and returns the iterate before it: learning_rate={eta0:.3g} is too "
                f"large for this kernel (||K|| = {norm_K:.3g}); learning_rate='auto' is scale-invariant",
                ConvergenceWarning,
                stacklevel=3,
            )
        if self.solver == "cccp-gd" and np.any(steps >= max_inner):
            warnings.warn(
                f"the inner GD hit max_inner={max_inner} before |F_k(t+1) - F_k(t)| <= eps={eps:g} "
                f"in {int(np.sum(steps >= max_inner))} of {len(steps)} outer iterations",
                ConvergenceWarning,
                stacklevel=3,
            )
        objective = np.concatenate([[out.initial_objective], records["objective"]])
        return {
            "alpha": out.alpha,
            "n_iter": len(steps),
            # The paper's schedule has no stopping certificate: it runs max_outer steps.
            "converged": False,
            "gradient_norm": np.nan,
            "history": {
                "objective": objective,
                "inner_steps": steps,
                "matvecs": records["matvecs"].astype(np.int64),
            },
        }

    def _monitor(self, c, max_outer, certificate=None):
        """The progress monitor of classifier c: its info dicts carry ``classifier`` first.

        Newton stops on the gradient norm; the paper's schedules have no certificate (they run
        max_outer steps), so their compact line shows the objective alone."""
        callback = self.callback
        if callback is not None:
            user = callback

            def callback(info):
                return user({"classifier": c, **info})

        fields = [("objective", ".6g"), ("inner_steps", "d")]
        if certificate is not None:
            fields.append((certificate, ".2e"))
        return Monitor(
            f"IKLR {c}",
            self.verbose,
            callback,
            fields,
            max_iter=max_outer,
            objective="objective",
            certificate=certificate,
        )

    def decision_function(self, X):
        """K(X, X_fit) a + b: one column per class for one-vs-rest, a vector for two classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train)
            New points; with ``kernel="precomputed"`` their kernel against the training points.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, > 0 means ``classes_[1]``; otherwise one column per class.
        """
        check_is_fitted(self)
        X = validate_X(self, X, reset=False)
        if self.kernel == "precomputed":
            if X.shape[1] != self.shape_fit_[0]:
                raise ValueError(
                    f"a precomputed test kernel needs one column per training point ({self.shape_fit_[0]}), "
                    f"got shape {X.shape}"
                )
            scores = X @ self.dual_coef_.T
        else:
            scores = self._scores_by_blocks(X)
        scores = scores + self.intercept_
        return scores[:, 0] if self.classes_.size == 2 else scores

    def _scores_by_blocks(self, X):
        """K(X, X_fit) a, the cross-kernel built one block of rows at a time (at most
        _CROSS_KERNEL_BLOCK_ENTRIES entries), so no n_test x n_train array exists at once."""
        rows = max(1, _CROSS_KERNEL_BLOCK_ENTRIES // self.X_fit_.shape[0])
        starts = range(0, X.shape[0], rows)
        return np.concatenate([self._kernel(X[i : i + rows], self.X_fit_) @ self.dual_coef_.T for i in starts])

    def predict_proba(self, X):
        """Probabilities: the logistic of the decision values (one-vs-rest ones normalised to sum 1).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train)
            As in :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Class probabilities, columns in the order of ``classes_``; rows sum to 1.
        """
        p = expit(self.decision_function(X))
        if self.classes_.size == 2:
            return np.column_stack([1.0 - p, p])
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Class labels: the sign of the decision value, or its largest column for one-vs-rest.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train)
            As in :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict(X)`` against y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train)
            As in :meth:`decision_function`.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), optional
            Weights of the samples.

        Returns
        -------
        float
            The fraction of correctly predicted labels (weighted), as
            :func:`sklearn.metrics.accuracy_score` computes it.
        """
        return super().score(X, y, sample_weight=sample_weight)
