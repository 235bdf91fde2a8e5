"""Indefinite kernel logistic regression (IKLR) by the concave-inexact-convex procedure.

Liu, Huang, Gong, Yang & Suykens, "Indefinite kernel logistic regression with concave-inexact-
convex procedure", IEEE TNNLS 30(3), 2019. With f = K a (representer theorem in a Krein space)
the model is eq. (5)/(6),

    F(a) = (1/n) sum_i log(1 + exp(-y_i (K a)_i)) + (lambda/2) a'K a,    K = K+ - K-,

a difference of convex functions g - h with g = loss + (lambda/2) a'K+ a, h = (lambda/2) a'K- a.
CCCP (Yuille & Rangarajan) linearises h at a_k and minimises the convex F_k of eq. (9); CCICP stops
the inner gradient descent early (|F_k(t+1) - F_k(t)| <= eps, Algorithm 1).

**The model is ill-posed.** When K has a negative eigenvalue mu_min with eigenvector v, F(s v)
= loss + (lambda/2) mu_min s^2 -> -infinity: objective (6) is unbounded below, and exact CCCP
diverges geometrically (Theorem 1's contraction argument bounds ||K+^-1|| by 1/||K+|| where it
should be 1/lambda_min(K+), so its condition (15) does not ensure a contraction). CCICP returns
something finite because of its fixed schedule: eta_t = eta_0 decay^t inside each outer step and
20 outer steps, so the schedule is part of the model. The estimator implements that schedule as
its default, warns (:class:`IndefiniteKernelWarning`) when K is indefinite, and offers a
well-posed model: ``penalty="positive"`` regularises with (lambda/2) a'K+ a, which is convex and
bounded below (for a PSD kernel both models coincide with plain kernel logistic regression).

**Decompositions** (K- = V diag(w) V' + s I, K+ = K + K-; only K is stored densely):

- ``"spectral"``: Proposition 1 as the paper builds it, K- = tau I + V_- |M_-| V_-' over the
  negative eigenpairs (V_-, M_-) with tau = max(-mu_min, 0) (the paper's condition tau >= -mu_n;
  its "rho - mu_{v+1}" is a typo for "tau - mu_{v+1}"). The negative pairs come from the threshold
  mode of the Lanczos core, or LAPACK when they are many; ``max_negative_rank`` caps them (the
  decomposition stays exact and PSD because tau >= |mu| for every pair left out).
- ``"shift"``: K- = s I, K+ = K + s I with s = max(-mu_min, 0): exact, and it needs only the
  smallest eigenvalue (one Lanczos run), never an O(n^3) eigendecomposition.

**Corrections to the paper** (checked by finite differences in tests/test_indefinite.py):

- eq. (10)-(11): the gradient of F_k is lambda K+ a - (1/n) K (y o beta) - lambda K- a_k with
  beta_i = 1 / (1 + exp(y_i (K a)_i)); as printed, eq. (11) defines beta through itself and
  eq. (10) multiplies y outside K.
- eq. (12): the SGD step keeps the linearised concave term -lambda K- a_k, which the paper drops.
- Section IV-C: the logistic term's gradient is Lipschitz with constant ||K||^2 / (4n) (the paper
  writes ||K|| / (4n)); ``learning_rate="auto"`` uses eta_0 = 1 / (lambda ||K+|| + ||K||^2 / (4n)),
  the scale-invariant choice (the paper's fixed 0.02 overshoots when ||K|| is in the thousands).
- Algorithm 1's loop test compares F_k at two consecutive iterates, so at least one step is taken
  per outer iteration; eta restarts from eta_0 at each outer step (t counts from 0, line 6).
"""

import numbers
import time
import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from . import _core
from ._utils import _solver_choice
from ._utils._monitor import Monitor, history_arrays
from ._utils._param_validation import Interval, StrOptions, validate_params
from ._utils._validation import naming, resolve_n_threads, symmetrized
from .kernels import extreme_eigenpairs, kernel_operator, rbf_kernel, tl1_kernel
from .linalg import eigsh

__all__ = ["IndefiniteKernelLogisticRegression", "KreinDecomposition", "krein_decomposition", "IndefiniteKernelWarning"]


class IndefiniteKernelWarning(UserWarning):
    """The kernel has negative eigenvalues: the IKLR objective (6) is unbounded below."""


class KreinDecomposition:
    """K = K+ - K- with K- = V diag(w) V' + shift I and K+ = K + K- (both PSD).

    Attributes: ``method``, ``negative_vectors`` (V, n x r), ``negative_weights`` (w >= 0),
    ``shift``, ``mu_min``, ``mu_max`` (extreme eigenvalues of K), ``seconds``, ``n_matvec``,
    ``negative_converged`` (whether every negative eigenpair was certified found).
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
    with naming("K"):
        K = check_array(K, dtype=[np.float64, np.float32], order="C", ensure_min_samples=2, input_name="K")
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    K = np.ascontiguousarray(symmetrized(K, "K"))
    n = K.shape[0]
    start = time.perf_counter()
    rng = check_random_state(random_state)
    op = kernel_operator(K, n_jobs)
    n_matvec = 0
    negative_converged = True
    V, w = np.empty((n, 0)), np.empty(0)
    if n <= _solver_choice.SPECTRAL_DENSE_MAX_N and (method == "spectral" or n <= _solver_choice.DENSE_MAX_N):
        mu, U = scipy.linalg.eigh(np.asarray(K, dtype=np.float64), driver="evd")
        mu_min, mu_max = mu[0], mu[-1]
        if method == "spectral":
            neg = mu < -tol * max(abs(mu_min), abs(mu_max))
            V, w = U[:, neg], -mu[neg]
    else:
        mu_min, v_min, mu_max, deflated, n_matvec = extreme_eigenpairs(op, tol, rng)
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


def _generator(random_state):
    """A numpy Generator from scikit-learn's random_state conventions (SGD's sample indices)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        return np.random.default_rng(random_state)
    return np.random.default_rng(check_random_state(random_state).randint(np.iinfo(np.int32).max))


class IndefiniteKernelLogisticRegression(ClassifierMixin, BaseEstimator):
    """Kernel logistic regression with indefinite kernels, solved by CCICP (Liu et al. 2019).

    Parameters
    ----------
    kernel : {"tl1", "rbf", "precomputed"} or callable
        "precomputed": X in ``fit`` is the (n, n) training kernel and in ``predict`` the (m, n)
        kernel between test and training points. A callable gets (X, Y) and returns K(X, Y).
    tau : float, optional
        TL1 truncation (default 0.7 * n_features).
    gamma : float, optional
        RBF width exp(-gamma ||x - y||^2) (default 1 / n_features).
    alpha : float
        The paper's lambda, > 0 (default 0.01, the middle of the paper's grid; choose it by
        cross-validation, as the paper does).
    solver : {"ccicp-gd", "ccicp-sgd", "cccp-gd"}
        Inner loop (GD or single-sample SGD); "cccp-gd" is GD with a small eps (near-exact
        subproblems).
    eps : float, optional
        Inner stopping threshold on |F_k(t+1) - F_k(t)|; default 1 ("ccicp-gd"), 1e-4 (others), as
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
        smallest eigenvalue.
    max_negative_rank : int, optional
        "spectral": at most this many negative eigenpairs.
    penalty : {"krein", "positive"}
        "krein" is the paper's (lambda/2) a'K a (unbounded below for an indefinite K);
        "positive" is (lambda/2) a'K+ a, convex and well posed.
    kernel_dtype : {"float64", "float32"}
        Storage of the training kernel; float32 halves memory and mat-vec time.
    random_state : int, RandomState, Generator or None
        Lanczos start vectors and SGD's sample indices (a numpy Generator).
    verbose : int
        Print one line per outer iteration.
    callback : callable, optional
        Called after each outer iteration with a dict (class index, iteration, objective,
        inner_steps); returning True stops that fit.
    n_jobs : int, optional
        Threads for the kernel and the mat-vecs.

    Attributes
    ----------
    classes_ : ndarray
    dual_coef_ : ndarray of shape (n_classifiers, n_train)
        The expansion coefficients a (one row for binary problems, one per class for one-vs-rest).
    n_iter_ : ndarray of shape (n_classifiers,)
        Outer iterations run.
    history_ : list of dict
        Per classifier: ``objective`` (F of eq. (6), or the convex model, at a_0 then after each
        outer iteration), ``inner_steps``, ``matvecs``.
    decomposition_ : dict
        Method, mu_min, mu_max, shift, negative rank, time and mat-vecs of the decomposition,
        and the eta_0 used.
    X_fit_ : ndarray or None
        Training inputs (needed to evaluate the kernel at new points); None for a precomputed
        kernel, which is not kept.
    shape_fit_ : tuple
        Shape of the training X (or kernel).
    """

    _parameter_constraints = {
        "kernel": [StrOptions({"tl1", "rbf", "precomputed"}), "callable"],
        "tau": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "gamma": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "solver": [StrOptions({"ccicp-gd", "ccicp-sgd", "cccp-gd"})],
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
        "random_state": ["random_state"],
        "verbose": [Interval(numbers.Integral, 0, None), "boolean"],
        "callback": [None, "callable"],
    }

    def __init__(
        self,
        kernel="tl1",
        *,
        tau=None,
        gamma=None,
        alpha=0.01,
        solver="ccicp-gd",
        eps=None,
        max_outer=20,
        max_inner=1000,
        learning_rate=0.02,
        decay=0.8,
        schedule="restart",
        decomposition="shift",
        max_negative_rank=None,
        penalty="krein",
        kernel_dtype="float64",
        random_state=None,
        verbose=0,
        callback=None,
        n_jobs=None,
    ):
        self.kernel = kernel
        self.tau = tau
        self.gamma = gamma
        self.alpha = alpha
        self.solver = solver
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
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.n_jobs = n_jobs

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
            return rbf_kernel(X, Y, self.gamma, dtype=dtype, n_jobs=self.n_jobs)
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
        """Fit on training inputs X (or a precomputed (n, n) kernel) and labels y."""
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        eps = self._eps()
        with naming("X", "y"):
            X, y = validate_data(self, X, y, dtype=np.float64, order="C", ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"y has a single class ({self.classes_[0]!r}); at least 2 are needed")
        K = self._training_kernel(X)
        n = K.shape[0]
        rng = _generator(self.random_state)
        decomposition = krein_decomposition(
            K,
            self.decomposition,
            max_negative_rank=self.max_negative_rank,
            random_state=check_random_state(int(rng.integers(np.iinfo(np.int32).max))),
            n_jobs=self.n_jobs,
        )
        # Eigenvalues within the rounding of the stored kernel (n eps ||K||) count as zero.
        rounding = 10 * n * np.finfo(K.dtype).eps * max(abs(decomposition.mu_max), abs(decomposition.mu_min))
        if decomposition.mu_min < -rounding and self.penalty == "krein":
            warnings.warn(
                f"the kernel is indefinite (smallest eigenvalue {decomposition.mu_min:.4g}, largest "
                f"{decomposition.mu_max:.4g}): objective (6) is unbounded below, and the fit is what the "
                "fixed step schedule returns; penalty='positive' is the well-posed alternative",
                IndefiniteKernelWarning,
                stacklevel=2,
            )
        norm_K = max(abs(decomposition.mu_min), abs(decomposition.mu_max))
        if self.learning_rate == "auto":
            eta0 = 1.0 / (self.alpha * decomposition.norm_positive + norm_K**2 / (4.0 * n))
        else:
            eta0 = float(self.learning_rate)
        self.decomposition_ = {**decomposition.as_dict(), "learning_rate": eta0}

        targets = [self.classes_[1]] if self.classes_.size == 2 else list(self.classes_)
        inner = "sgd" if self.solver == "ccicp-sgd" else "gd"
        max_outer, max_inner = int(self.max_outer), int(self.max_inner)
        options = _core.methods.IklrOptions(
            inner=_core.methods.IklrInner.__members__[inner],
            lambda_=float(self.alpha),
            eps=eps,
            max_outer=max_outer,
            max_inner=max_inner,
            learning_rate=eta0,
            decay=float(self.decay),
            restart_rate=self.schedule == "restart",
            concave=self.penalty == "krein",
        )
        n_threads = resolve_n_threads(self.n_jobs)
        V = np.ascontiguousarray(decomposition.negative_vectors, dtype=np.float64)
        w = np.ascontiguousarray(decomposition.negative_weights, dtype=np.float64)
        coefs, n_iter, history = [], [], []
        for c, target in enumerate(targets):
            signs = np.where(y == target, 1.0, -1.0)
            indices = rng.integers(0, n, size=max_outer * max_inner) if inner == "sgd" else np.empty(0, np.int64)
            out = _core.methods.ccicp(
                K,
                signs,
                V,
                w,
                np.zeros(n),
                shift=decomposition.shift,
                options=options,
                sgd_indices=np.ascontiguousarray(indices, dtype=np.int64),
                callback=self._monitor(c, max_outer).core_callback(),
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
                    stacklevel=2,
                )
            if self.solver == "cccp-gd" and np.any(steps >= max_inner):
                warnings.warn(
                    f"the inner GD hit max_inner={max_inner} before |F_k(t+1) - F_k(t)| <= eps={eps:g} "
                    f"in {int(np.sum(steps >= max_inner))} of {len(steps)} outer iterations",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            coefs.append(out.alpha)
            n_iter.append(len(steps))
            history.append(
                {
                    "objective": np.concatenate([[out.initial_objective], records["objective"]]),
                    "inner_steps": steps,
                    "matvecs": records["matvecs"].astype(np.int64),
                }
            )
        self.dual_coef_ = np.vstack(coefs)
        self.n_iter_ = np.asarray(n_iter)
        self.history_ = history
        self.shape_fit_ = X.shape
        self.X_fit_ = None if self.kernel == "precomputed" else X
        return self

    def _monitor(self, c, max_outer):
        """The progress monitor of classifier c: its info dicts carry ``classifier`` first."""
        callback = self.callback
        if callback is not None:
            user = callback

            def callback(info):
                return user({"classifier": c, **info})

        fields = [("objective", ".6g"), ("inner_steps", "d")]
        return Monitor(f"IKLR {c}", self.verbose, callback, fields, max_iter=max_outer)

    def decision_function(self, X):
        """K(X, X_fit) a: one column per class for one-vs-rest, a vector for two classes."""
        check_is_fitted(self)
        with naming("X"):
            X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        if self.kernel == "precomputed":
            if X.shape[1] != self.shape_fit_[0]:
                raise ValueError(
                    f"a precomputed test kernel needs one column per training point ({self.shape_fit_[0]}), "
                    f"got shape {X.shape}"
                )
            Kx = X
        else:
            Kx = self._kernel(X, self.X_fit_)
        scores = Kx @ self.dual_coef_.T
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict_proba(self, X):
        """Probabilities: the logistic of the decision values (one-vs-rest ones normalised to sum 1)."""
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            p = _sigmoid(scores)
            return np.column_stack([1.0 - p, p])
        p = _sigmoid(scores)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


def _sigmoid(t):
    return np.exp(-np.logaddexp(0.0, -t))
