"""Kernels learned from several (indefinite) similarity matrices by entropic mirror descent: what
ESKL, EMKL and REKL share (input checks, the mirror-descent loop, the MKL base).

Kundu, Tankasali, Bhattacharyya & Ben-Tal, "Efficient algorithms for learning kernels from
multiple similarity matrices with general convex loss functions", NIPS 2010. Given m symmetric
similarity matrices S_1, ..., S_m over n points (possibly indefinite: BLAST scores, TL1, tanh,
negative distances) and labels of some of the points:

* :class:`ESKL` (eq. (4), Algorithm 1) learns one kernel K, psd with tr K = tau, minimising
  ``omega(K) + rho sum_i L(K, S_i)``, where omega is the SVM dual optimum (1);
* :class:`EMKL` (eq. (6), Algorithm 2) learns one kernel K_i per similarity, combined by the
  mixed-norm MKL Omega of eq. (10) (see :mod:`kernlearn._mkl`):
  ``Omega(K_1..K_m) + rho sum_i L(K_i, S_i)``;
* :class:`REKL` (eq. (7), Algorithm 3) restricts K_i to the eigenvectors of S_i and learns its
  spectrum mu_i on the simplex {mu >= 0, sum mu = tau}: no eigendecomposition per iteration.

Every loss is a convex function ``loss(K, S) -> (value, subgradient)``; "l1" (sum |K - S|),
"fro" (||K - S||_F) and "sq_fro" (||K - S||_F^2) are built in (L1, L2, L3 of Section 4), and a
callable plugs in any other (for REKL it receives the spectra (mu, lambda) instead).

Corrections to the paper (each also noted where it is implemented):

* Algorithms 1-2: the update pairs the eigenvalues of K^(t) with the eigenvectors of the
  subgradient, which is the mirror step of the entropy (9)/(14) only when the two commute. The
  true step is the matrix exponentiated gradient ``K+ = tau exp(log K - eta G) / tr(.)``,
  computed in the log domain with one eigendecomposition (:func:`kernlearn._mirror_descent.meg_step`).
* Theorem 3.2 and Proposition 3.2 print the step ``sqrt(2 log n / (m t)) / Lip``; their own proof
  (sigma = 1/(m tau), B <= m tau log n in eq. (15)) gives ``sqrt(2 sigma B / t) / Lip =
  sqrt(2 log n / t) / Lip``. The extra 1/sqrt(m) only loses a constant factor; we use the step
  the proof gives.
* Eq. (7): the simplex constraint reads sum_{j=1}^{m} mu_ij = tau; it is sum_{j=1}^{n}.
* Eq. (10): gamma is kept >= 1e-4 (:data:`kernlearn._mkl.GAMMA_MIN`); on low-rank kernels the
  unrestricted maximiser sends some gamma_i to 0, where the SVM kernel K_i / gamma_i and the
  subgradient (12) are unbounded (Theorem 3.2 assumes bounded subgradients). See :mod:`kernlearn._mkl`.
* Initialisation: the paper's K^(1) = tau I / n makes the radius log n but is very slow in
  practice (bench/results/similarity.md); the default is a
  trace-normalised Denoise warm start ``(1 - eps) tau S_+ / tr S_+ + eps tau I / n`` with
  eps = %(eps)g (interior, as mirror descent requires); the step rule then uses the radius
  ``log(tau / lambda_min(K^(1)))``, which bounds the Bregman distance from K^(1) (see
  :class:`kernlearn._mirror_descent.StepRule`), so Proposition 3.1's guarantee still holds.

The iteration returns the best iterate (the guarantee is on min_t f). It stops when the
certificate ``best f - lower bound <= tol * best f`` holds (the lower bound aggregates the
linearisations of f, see :mod:`kernlearn._mirror_descent`; it is exact but, like the
O(1/sqrt(t)) rate it follows, loose: bench/results/similarity.md), or when min_t f has decreased
by at most ``tol`` (relative) over the last ``n_iter_no_change`` iterations (the paper's "until
convergence"); ``stop_reason_`` says which.
Otherwise it stops after ``max_iter`` SVM/MKL solves with a ConvergenceWarning.

Transductive and inductive use. ``fit(S, y)`` takes S of shape (m, n, n) over the labelled and
the unlabelled points (y = -1 marks unlabelled points, scikit-learn's semi-supervised
convention: a class may therefore not be labelled -1). The kernel is learned over all n points;
the SVM sees the labelled ones; ``predict()`` without arguments labels the unlabelled points.
``predict(S_test)`` takes S_test of shape (m, n_test, n) (similarities of new points to the n
fitted points) and extends each learned kernel by the rule

    k_i(x, .) = s_i(x)' S_i^+ K_i,

the linear map that sends the rows of S_i to the rows of K_i (the Nystroem-type extension of a
spectrum transform, Chen, Gupta & Recht 2009, for REKL; for ESKL, S_i and K_i are the mean
similarity and the single kernel). S_i^+ keeps the eigenvalues above ``oos_rcond * max |lambda|``.
On the fitted points it reproduces K_i whenever S_i is nonsingular, so ``predict(S[:, idx])``
agrees with the transductive labels. Multi-class problems are solved one-vs-rest, one kernel (or
set of kernels) per class, as the paper's protein experiment.

Memory and time: every method is O(n^2) memory per kernel (dense n x n); ESKL and EMKL do one
n x n symmetric eigendecomposition per kernel per iteration (LAPACK ``syevd`` through SciPy,
measured fastest in ``bench/bench_similarity.py``), REKL one product V_l diag(mu) V_l' over the
labelled rows.
"""

import numbers
import time
import warnings
from types import SimpleNamespace

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._utils._monitor import Monitor
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._validation import blas_threads, check_data, resolve_n_threads, symmetrized
from ..linalg import eigsh
from . import _mirror_descent as md
from ._mkl import mkl

# Weight of tau I / n in the Denoise warm start: keeps K^(1) positive definite (mirror descent
# needs an interior point) at the price of a radius log(n / eps) instead of log n.
INIT_EPS = 1e-2

if __doc__:  # None under python -OO
    __doc__ = __doc__ % {"eps": INIT_EPS}

UNLABELLED = -1

# What the verbose line and the callback's info dict show after every iteration.
_RECORD_FIELDS = [("objective", ".6g"), ("best", ".6g"), ("lower_bound", ".6g"), ("gap", ".3g"), ("step", ".3g")]


# ----------------------------------------------------------------------------- input checks


def _stack(S, name):
    """A 3-D array, a list of 2-D arrays or one 2-D matrix (an array or a list of rows) as a
    float64 array (m, rows, cols); every matrix is validated (finite, real)."""
    if isinstance(S, (list, tuple)):
        if len(S) == 0:
            raise ValueError(f"{name} is empty; give at least one similarity matrix")
        if all(np.ndim(s) == 2 for s in S):  # a list of matrices (a list of rows is one matrix)
            mats = [check_data(s, f"{name}[{i}]") for i, s in enumerate(S)]
            shapes = {x.shape for x in mats}
            if len(shapes) > 1:
                raise ValueError(f"all similarity matrices in {name} must have the same shape, got {sorted(shapes)}")
            return np.stack(mats)
    if not isinstance(S, (list, tuple)) and not hasattr(S, "toarray"):  # sparse: check_data says no
        S = np.asarray(S)
    if getattr(S, "ndim", None) == 3:
        if S.shape[0] == 0:
            raise ValueError(f"{name} holds no similarity matrix (shape {S.shape})")
        return np.stack([check_data(s, f"{name}[{i}]") for i, s in enumerate(S)])
    if getattr(S, "ndim", None) == 1:
        raise ValueError(
            f"{name} must be 2-D (n, n) or 3-D (m, n, n), got a 1-D array. Reshape your data, e.g. "
            "with S.reshape(1, -1) for the similarities of a single point"
        )
    return check_data(S, name)[None]


def _check_similarities(S, name="S"):
    """S as a float64 array (m, n, n); see :func:`_stack` for the accepted forms.

    Non-symmetric matrices are symmetrised as (S + S') / 2 with a UserWarning (sequence scores
    such as BLAST are not symmetric; the methods are defined on symmetric matrices). The
    caller's array is never modified.
    """
    arr = _stack(S, name)
    if arr.shape[1] != arr.shape[2]:
        raise ValueError(f"{name} must be square: each similarity matrix must be (n, n), got {arr.shape[1:]}")
    matrices = [symmetrized(arr[i], f"{name}[{i}]") for i in range(arr.shape[0])]
    if all(m is a for m, a in zip(matrices, arr)):
        return arr
    return np.stack(matrices)


def _check_test_similarities(S, m, n, owner, name="S_test"):
    """S_test as (m, n_test, n)."""
    arr = _stack(S, name)
    if arr.shape[0] != m:
        raise ValueError(f"{name} holds {arr.shape[0]} similarity matrices, but the model was fitted with m = {m}")
    if arr.shape[2] != n:
        raise ValueError(
            f"{name} must have shape (m, n_test, n_train) with n_train = {n} (the points passed to "
            f"fit, labelled and unlabelled): X has {arr.shape[2]} features, but {owner} is "
            f"expecting {n} features as input"
        )
    return arr


def _check_labels(y, n):
    if y is None:
        raise ValueError(
            "ESKL, EMKL and REKL requires y to be passed, but the target y is None (-1 marks unlabelled points)"
        )
    y = column_or_1d(y, warn=True)  # a column vector is raveled with a DataConversionWarning
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} labels but S is over n = {n} points (labelled and unlabelled)")
    if y.dtype.kind in "biuf":
        labelled = y != UNLABELLED
    else:
        labelled = np.ones(n, dtype=bool)
    if not labelled.any():
        raise ValueError("y has no labelled point (-1 marks unlabelled points)")
    check_classification_targets(y[labelled])
    classes = np.unique(y[labelled])
    if classes.size < 2:
        raise ValueError(
            f"y must hold at least 2 classes among the labelled points; got 1 class ({classes[0]!r}); "
            "note that -1 marks unlabelled points"
        )
    return y, labelled, classes


# ----------------------------------------------------------------------------- shared machinery


class _Prep:
    """What a fit needs from the similarities: their eigendecompositions and tau."""

    def __init__(self, S, labelled, tau, driver):
        self.S = S
        self.m, self.n = S.shape[0], S.shape[1]
        self.lab = np.flatnonzero(labelled)
        self.driver = driver
        self.eig = [scipy.linalg.eigh(s, check_finite=False, driver=driver) for s in S]
        if tau == "trace":
            self.tau = float(np.mean([np.maximum(lam, 0).sum() for lam, _ in self.eig]))
            if not self.tau > 0:
                raise ValueError('tau="trace" needs a similarity with a positive eigenvalue; give tau as a number')
        else:
            self.tau = float(tau)

    def warm_start(self, lam, V, init):
        """(V, log eigenvalues) of K^(1) from the spectrum of a similarity (module docstring)."""
        n = self.n
        floor = INIT_EPS * self.tau / n
        pos = np.maximum(lam, 0.0)
        if init == "identity" or pos.sum() == 0:
            return np.eye(n), np.full(n, np.log(self.tau / n))
        mu = (1 - INIT_EPS) * self.tau * pos / pos.sum() + floor
        return V.copy(), np.log(mu)


def _pinv_apply(lam, V, X, rcond):
    """S^+ X for S = V diag(lam) V', eigenvalues below rcond * max|lam| dropped."""
    inv = np.zeros_like(lam)
    keep = np.abs(lam) > rcond * np.abs(lam).max()
    inv[keep] = 1.0 / lam[keep]
    return V @ (inv[:, None] * (V.T @ X)) if X.ndim == 2 else V @ (inv * (V.T @ X))


def _lambda_min(A, v0, rng):
    """Smallest eigenvalue of the symmetric A and its vector (warm start for the next call)."""
    n = A.shape[0]
    if n <= 2:
        w, U = np.linalg.eigh(A)
        return float(w[0]), U[:, 0]
    w, U, _ = eigsh(A, 1, "SA", v0=v0, tol=1e-9, random_state=rng, check_symmetric=False)
    return float(w[0]), U[:, 0]


class _Base(ClassifierMixin, BaseEstimator):
    """fit / predict / decision_function shared by the three estimators."""

    _multi_kernel = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    _parameter_constraints = {
        "loss": [StrOptions(set(md.LOSSES)), "callable"],
        "rho": [Interval(numbers.Real, 0, None)],
        "tau": [StrOptions({"trace"}), Interval(numbers.Real, 0, None, closed="neither")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
        "n_iter_no_change": [Interval(numbers.Integral, 1, None)],
        "step": [StrOptions({"theory"}), Interval(numbers.Real, 0, None, closed="neither")],
        "init": [StrOptions({"denoise", "identity"})],
        "svm_tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "oos_rcond": [Interval(numbers.Real, 0, None)],
        "random_state": ["random_state"],
        "verbose": [Interval(numbers.Integral, 0, None)],
        "callback": [None, "callable"],
    }

    # -- fit

    def fit(self, S, y):
        """Learn the kernel(s) from S of shape (m, n, n) (or a list, or one (n, n) matrix) and y
        of length n with -1 for unlabelled points; returns self."""
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        S = _check_similarities(S)
        m, n, _ = S.shape
        y, labelled, classes = _check_labels(y, n)
        n_threads = resolve_n_threads(self.n_jobs)
        rng = check_random_state(self.random_state)
        self.classes_ = classes
        self.n_features_in_ = n
        y_lab = y[labelled]
        targets = [classes[1]] if classes.size == 2 else list(classes)
        with blas_threads(n_threads):
            prep = _Prep(S, labelled, self.tau, "evd")
            self.tau_ = prep.tau
            results = []
            for c in targets:
                y_pm = np.where(y_lab == c, 1.0, -1.0)
                results.append(self._solve(prep, y_pm, rng, label=c))
        self._store(results, prep, labelled)
        return self

    def _store(self, results, prep, labelled):
        self.coef_ = np.stack([r["coef"] for r in results])  # (n_problems, m, n)
        self.intercept_ = np.array([r["intercept"] for r in results])
        decision = np.stack([r["decision"] for r in results], axis=1)  # (n, n_problems)
        self.labelled_ = labelled
        self.n_iter_ = int(max(r["n_iter"] for r in results))
        reasons = [r["reason"] for r in results]
        self.stop_reason_ = reasons[0] if len(reasons) == 1 else reasons
        self.converged_ = all(r in ("certificate", "stalled") for r in reasons)
        self.history_ = results[0]["history"] if len(results) == 1 else [r["history"] for r in results]
        self.objective_ = np.array([r["objective"] for r in results])
        self._set_kernels(results)
        self.decision_transductive_ = decision[:, 0] if decision.shape[1] == 1 else decision
        self.transduction_ = self._labels(self.decision_transductive_)

    # -- the mirror-descent loop (one binary problem)

    def _run(self, oracle, state, step_rule, lower_min, rng, label):
        """Mirror descent on a binary problem.

        oracle(state) -> dict(f, G, dual_norm, x_dot_g, model) ; oracle.step(state, G, eta) ;
        lower_min(Gsum) -> min over the feasible set of <Gsum, x>.
        """
        history = {key: [] for key in ("objective", "best", "lower_bound", "gap", "step", "lip", "time")}
        shown = label.item() if isinstance(label, np.generic) else label  # 1, not np.int64(1)
        monitor = Monitor(
            f"{type(self).__name__} {shown!r}", self.verbose, self.callback, _RECORD_FIELDS, max_iter=self.max_iter
        )
        bound = md.LowerBound()
        best = None
        lower = -np.inf
        t = 0
        for t in range(1, self.max_iter + 1):
            start = time.perf_counter()
            out = oracle.evaluate(state)
            f = out["f"]
            if best is None or f < best["f"]:
                best = {"f": f, "state": oracle.copy(state), "model": out["model"]}
            eta = step_rule(t, out["dual_norm"])
            bound.add(f, out["G"], out["x_dot_g"], eta)
            if bound.weight > 0:
                lower = max(lower, bound.value(lambda G: lower_min(G, rng)))
            gap = best["f"] - lower
            history["objective"].append(f)
            history["best"].append(best["f"])
            history["lower_bound"].append(lower)
            history["gap"].append(gap)
            history["step"].append(eta)
            history["lip"].append(step_rule.lip)
            scale = max(abs(best["f"]), np.finfo(float).tiny)
            k = self.n_iter_no_change
            if gap <= self.tol * scale or eta == 0.0:
                reason = "certificate"
            elif t > k and history["best"][-1 - k] - best["f"] <= self.tol * scale:
                reason = "stalled"  # no relative decrease of min_t f above tol in k iterations
            else:
                reason = None
            record = SimpleNamespace(objective=f, best=best["f"], lower_bound=lower, gap=gap, step=eta)
            if monitor(t, record) and reason is None:
                reason = "callback"
            if reason is None and t < self.max_iter:
                state = oracle.step(state, out["G"], eta)
            history["time"].append(time.perf_counter() - start)
            if reason is not None:
                break
        if reason is None:
            reason = "max_iter"
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter = {self.max_iter} iterations "
                f"(class {label!r}): best f - lower bound = {gap:.3g} > tol * f = {self.tol * abs(best['f']):.3g}, "
                f"and min_t f did not stay within tol = {self.tol} (relative) for n_iter_no_change = "
                f"{self.n_iter_no_change} iterations; the best iterate is returned",
                ConvergenceWarning,
                stacklevel=4,
            )
        hist = {k: np.asarray(v) for k, v in history.items()}
        return best, t, reason, hist

    def _step_scale(self):
        return 1.0 if isinstance(self.step, str) else float(self.step)

    # -- prediction

    def _labels(self, decision):
        if decision.ndim == 1:
            return self.classes_[(decision > 0).astype(int)]
        return self.classes_[np.argmax(decision, axis=1)]

    def decision_function(self, S_test=None):
        """Decision values: of the unlabelled fitted points when S_test is None, else of new
        points given S_test of shape (m, n_test, n) by the out-of-sample rule (module docstring).
        Shape (n_test,) for two classes (> 0 means ``classes_[1]``), else (n_test, n_classes)."""
        check_is_fitted(self, "coef_")
        if S_test is None:
            return self.decision_transductive_[~self.labelled_]
        St = _check_test_similarities(S_test, self.coef_.shape[1], self.n_features_in_, type(self).__name__)
        # sum_i s_i(x)' coef_[p, i] + b_p, for every problem p
        dec = np.einsum("itn,pin->tp", St, self.coef_) + self.intercept_
        return dec[:, 0] if dec.shape[1] == 1 else dec

    def predict(self, S_test=None):
        """Class labels of the unlabelled fitted points (S_test None) or of new points."""
        return self._labels(self.decision_function(S_test))


class _MKLBase(_Base):
    _parameter_constraints = {
        **_Base._parameter_constraints,
        "mkl_tol": [Interval(numbers.Real, 0, None)],
        "mkl_max_iter": [Interval(numbers.Integral, 1, None)],
    }

    def __init__(
        self,
        loss="fro",
        *,
        rho=1.0,
        tau="trace",
        C=1.0,
        max_iter=100,
        tol=1e-3,
        n_iter_no_change=20,
        step="theory",
        init="denoise",
        svm_tol=1e-5,
        mkl_tol=1e-5,
        mkl_max_iter=20,
        oos_rcond=1e-8,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.loss = loss
        self.rho = rho
        self.tau = tau
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.step = step
        self.init = init
        self.svm_tol = svm_tol
        self.mkl_tol = mkl_tol
        self.mkl_max_iter = mkl_max_iter
        self.oos_rcond = oos_rcond
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def _mkl(self, Ks_lab, y, gamma0):
        return mkl(Ks_lab, y, self.C, gamma0=gamma0, tol=self.mkl_tol, max_iter=self.mkl_max_iter, svm_tol=self.svm_tol)
