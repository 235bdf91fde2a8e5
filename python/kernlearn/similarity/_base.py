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

Every loss is a convex function ``loss(K, S) -> (value, subgradient)``; "l1" (``sum |K - S|``),
"fro" (||K - S||_F) and "sq_fro" (||K - S||_F^2) are built in (L1, L2, L3 of Section 4), and a
callable plugs in any other (for REKL it receives the spectra (mu, lambda) instead).

Corrections to the paper (each also noted where it is implemented):

* Algorithms 1-2: the update pairs the eigenvalues of K^(t) with the eigenvectors of the
  subgradient, which is the mirror step of the entropy (9)/(14) only when the two commute. The
  true step is the matrix exponentiated gradient ``K+ = tau exp(log K - eta G) / tr(.)``,
  computed in the log domain with one eigendecomposition (:func:`kernlearn._mirror_descent.meg_step`),
  the default ``update="meg"``. ``update="paper"`` (ESKL, EMKL) runs the printed update instead
  (:func:`kernlearn._mirror_descent.paper_step`, eigenvalues and eigenvectors matched in ascending
  order, which the paper leaves open); the step rule and the certificate hold for any sequence of
  iterates, so the stopping rule stays valid, but Proposition 3.1's rate is not proved for it
  (bench/results/similarity_tables.md compares the two).
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
convergence"); ``stop_reason_`` says which. A stall whose window reaches back to the start
(min_t f never decreased by more than ``tol`` relative to f(K^(1))) is not convergence: the kernel
did not move from its start, ``stop_reason_`` is "stalled_at_start", ``converged_`` is False and
a ConvergenceWarning says what to try (not for ``n_iter_no_change=1``, the explicit request to
stop at the first step that does not improve). ``start_change_`` records, per problem, how far the
returned kernel(s) moved: ``||K - K^(1)||_F / ||K^(1)||_F`` (over all m kernels together for
EMKL and REKL: ``sqrt(sum_i ||K_i - K_i^(1)||_F^2 / sum_i ||K_i^(1)||_F^2)``).
Otherwise it stops after ``max_iter`` SVM/MKL solves with a ConvergenceWarning.

Layout of the similarities. ``fit(S, y)`` takes S of shape **(n, n, m)**: the n points
(labelled and unlabelled) on the first two axes, the m similarity matrices on the last, so that
``S[:, :, i]`` is S_i. The estimators are tagged pairwise, and this is the layout scikit-learn's
cross-validation slices (``S[np.ix_(train, train)]`` to fit, ``S[np.ix_(test, train)]`` to
predict): ``cross_val_score`` and ``GridSearchCV`` work on it directly. A 3-D array is *always*
read as (n, n, m), even when m = n; a stack in the layout (m, n, n) is refused when it is not
square on its first two axes, and must be passed as ``np.moveaxis(S, 0, -1)`` (or as a list).
A Python list (or tuple) of m (n, n) matrices is accepted too, and one (n, n) matrix is m = 1.
Internally the methods work on the m matrices (n, n) one at a time: each strided slice
``S[:, :, i]`` is copied once, contiguously, at fit (the fit holds one copy of S); ``S_test`` is
used without a copy when it is float64 and C-contiguous. The fitted attributes keep the
similarity index first (``coef_`` (n_problems, m, n), ``eigenvalues_of_S_`` (m, n), ...).

Transductive and inductive use. y = -1 marks unlabelled points (scikit-learn's semi-supervised
convention: a numeric class may therefore not be -1, and binary labels in {-1, +1} are refused
with an explanation; strings work, see :func:`kernlearn._utils._labels.encode_labels`). The
kernel is learned over all n points; the SVM sees the labelled ones; ``predict()`` without
arguments labels the unlabelled points. ``predict(S_test)`` takes S_test of shape
(n_test, n, m) (similarities of new points to the n fitted points) and extends each learned
kernel by the rule

    k_i(x, .) = s_i(x)' S_i^+ K_i,

the linear map that sends the rows of S_i to the rows of K_i (the Nystroem-type extension of a
spectrum transform, Chen, Gupta & Recht 2009, for REKL; for ESKL, S_i and K_i are the mean
similarity and the single kernel). S_i^+ keeps the eigenvalues above ``oos_rcond * max |lambda|``.
With a cut-off below the smallest relevant ``|eigenvalue|`` it reproduces K_i on the fitted points,
so ``predict(S[idx])`` (the rows idx: similarities to all n fitted points) agrees with the
transductive labels; but the near-null
directions of an indefinite S_i are noise, and inverting them ruins the predictions on new
points. The default cut-off (%(oos_rcond)g) was chosen from held-out accuracies on three data
sets, see bench/results/similarity_oos.md. ``score(S_test, y)`` is the accuracy on the labelled
entries of y: entries -1 are left out (a ValueError when none is labelled), so cross-validation
over semi-supervised y scores the held-out labelled points. Multi-class problems are solved
one-vs-rest, one kernel (or set of kernels) per class, as the paper's protein experiment.

Memory and time: every method is O(n^2) memory per kernel (dense n x n); ESKL and EMKL do one
n x n symmetric eigendecomposition per kernel per iteration (LAPACK ``syevd`` through SciPy,
measured fastest in ``bench/bench_similarity.py``), REKL one product V_l diag(mu) V_l' over the
labelled rows. With ``rank=r`` the three restrict the learned kernels to r leading eigenvectors
and take the S_i as LinearOperators too (e.g. :class:`kernlearn.kernels.KernelOperator`, or
:class:`kernlearn.distributed.KernelOperator` on a cluster): the r eigenpairs come from Lanczos
(up to 2,000 points) or block subspace iteration (above: a few products with r + max(10, r / 2)
columns, :func:`kernlearn.similarity._operators.block_leading_eigenpairs`), then O(n r) memory.
The default ``rank="auto"`` is the dense fit for arrays of up to 500 points and rank 30 above it
and for operators (:func:`kernlearn._utils._solver_choice.similarity_rank`; figures in
bench/results/similarity_scale.md); ``rank_`` is the rank used, ``gap_`` the final certificate
(best f - lower bound) of the problem solved, the restricted one with a rank. REKL keeps r eigenpairs per S_i and
learns their spectra (:class:`REKL`); ESKL and EMKL run the mirror descent on r x r matrices in
the span of the leading eigenvectors of the mean similarity (ESKL) or of each S_i (EMKL), one
r x r eigendecomposition per kernel per iteration (:mod:`kernlearn.similarity._oracles`,
:mod:`kernlearn.similarity._operators`).
"""

import numbers
import time
import warnings
from types import SimpleNamespace
from typing import Any, Callable, Optional

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.utils.validation import check_is_fitted

from .._utils import _solver_choice
from .._utils._labels import UNLABELLED, encode_labels
from .._utils._monitor import Monitor
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._validation import blas_threads, check_data, check_random_state, naming, resolve_n_threads, symmetrized
from ..linalg import eigsh
from . import _mirror_descent as md
from . import _operators
from ._mkl import NonFiniteKernel, mkl

# Weight of tau I / n in the Denoise warm start: keeps K^(1) positive definite (mirror descent
# needs an interior point) at the price of a radius log(n / eps) instead of log n.
INIT_EPS = 1e-2

# Default relative cut-off of S_i^+ in the out-of-sample rule (module docstring), chosen from the
# held-out accuracies of bench/bench_similarity_oos.py (bench/results/similarity_oos.md).
OOS_RCOND = 1e-3

# libsvm stops when its largest KKT violation, a difference of rounded gradient entries, falls
# below svm_tol: a tolerance under their rounding (5e-324, say) is never met, and libsvm spun
# without end, deaf to Ctrl-C (issue 48). 1e-10 leaves five decades below the default 1e-5.
SVM_TOL_MIN = 1e-10

if __doc__:  # None under python -OO
    __doc__ = __doc__ % {"eps": INIT_EPS, "oos_rcond": OOS_RCOND}

# What the verbose line and the callback's info dict show after every iteration.
_RECORD_FIELDS = [("objective", ".6g"), ("best", ".6g"), ("lower_bound", ".6g"), ("gap", ".3g"), ("step", ".3g")]


# ----------------------------------------------------------------------------- input checks


def _ndim(s):
    try:
        return np.ndim(s)
    except ValueError:  # a ragged nested sequence: check_data says what is wrong with it
        return -1


def _layout_hint(name, test):
    shape = "(n_test, n_train, m)" if test else "(n, n, m)"
    return (
        f"{name} must have shape {shape}: samples on the first two axes, the m similarity matrices "
        "on the last (scikit-learn's pairwise layout, which cross-validation slices as "
        f"{name}[np.ix_(rows, cols)]); a stack in the layout (m, n, n) must be moved with "
        f"np.moveaxis({name}, 0, -1), or pass a list of the m matrices"
    )


def _as_list_or_array(S, name):
    """A Python list / tuple of 2-D matrices as a list; anything else as an array (or the sparse
    matrix itself, for check_data to refuse)."""
    if isinstance(S, (list, tuple)):
        if len(S) == 0:
            raise ValueError(f"{name} is empty; give at least one similarity matrix")
        if all(_ndim(s) == 2 for s in S):  # a list of matrices (a list of rows is one matrix)
            return list(S)
        return S  # a list of rows: one matrix, check_data converts it
    if S is None:
        raise TypeError(f"{name} must be an array of similarities, got None")
    if hasattr(S, "toarray"):  # sparse: check_data says no
        return S
    return np.asarray(S)


def _check_3d(arr, name, test):
    if arr.ndim != 3:
        return
    if 0 in arr.shape:
        raise ValueError(f"{name} is empty (shape {arr.shape}). " + _layout_hint(name, test))
    if not test and arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} has shape {arr.shape}, not square on its first two axes. " + _layout_hint(name, test))


def _check_similarities(S, name="S"):
    """The m similarity matrices of ``fit`` as a list of float64 C-contiguous (n, n) arrays.

    Accepted: a 3-D array (n, n, m), always read in that layout; a list or tuple of m (n, n)
    matrices; one (n, n) matrix (an array or a list of rows). Every matrix is validated (finite,
    real). A 2-D input that already is float64 and C-contiguous is used as it is; each slice
    ``S[:, :, i]`` of a 3-D array is strided, so it is copied once, contiguously (the
    eigendecompositions need contiguous matrices): the fit holds one copy of S, not more.

    Non-symmetric matrices are symmetrised as (S + S') / 2 with a UserWarning (sequence scores
    such as BLAST are not symmetric; the methods are defined on symmetric matrices). The
    caller's arrays are never modified.
    """
    S = _as_list_or_array(S, name)
    if isinstance(S, list) and all(_ndim(s) == 2 for s in S):
        names = [f"{name}[{i}]" for i in range(len(S))]
        mats = [check_data(s, nm) for s, nm in zip(S, names)]
    elif getattr(S, "ndim", None) == 3:
        _check_3d(S, name, test=False)
        names = [f"{name}[:, :, {i}]" for i in range(S.shape[2])]
        mats = [check_data(S[:, :, i], nm) for i, nm in enumerate(names)]
    elif getattr(S, "ndim", None) in (0, 1) or getattr(S, "ndim", 2) > 3:
        raise ValueError(
            f"{name} must be one (n, n) similarity matrix, a 3-D array (n, n, m) or a list of m (n, n) "
            f"matrices; got a {S.ndim}-D array of shape {S.shape}"
        )
    else:
        names, mats = [name], [check_data(S, name)]
    shapes = {x.shape for x in mats}
    if len(shapes) > 1:
        raise ValueError(f"all similarity matrices in {name} must have the same shape, got {sorted(shapes)}")
    shape = mats[0].shape
    if shape[0] != shape[1]:
        raise ValueError(f"{name} must be square: each similarity matrix must be (n, n), got {shape}")
    return [symmetrized(s, nm) for s, nm in zip(mats, names)]


def _check_test_similarities(S, m, n, owner, name="S_test"):
    """S_test checked against the fit: a float64 3-D array (n_test, n_train, m) (no copy when it
    already is float64 and C-contiguous) or a list of m float64 (n_test, n_train) matrices."""
    S = _as_list_or_array(S, name)
    if isinstance(S, list) and all(_ndim(s) == 2 for s in S):
        mats = [check_data(s, f"{name}[{i}]") for i, s in enumerate(S)]
        shapes = {x.shape for x in mats}
        if len(shapes) > 1:
            raise ValueError(f"all similarity matrices in {name} must have the same shape, got {sorted(shapes)}")
        rows, cols = mats[0].shape
        got_m = len(mats)
    elif getattr(S, "ndim", None) == 3:
        _check_3d(S, name, test=True)
        rows, cols, got_m = S.shape
        if got_m != m:
            raise ValueError(
                f"{name} holds {got_m} similarity matrices on its last axis (shape {S.shape}), but the model "
                f"was fitted with m = {m}. " + _layout_hint(name, test=True)
            )
        flat = check_data(S.reshape(rows, cols * m), name)  # a view for float64 C-contiguous input
        mats = flat.reshape(rows, cols, m)
    elif getattr(S, "ndim", None) in (0, 1):
        raise ValueError(
            f"{name} must be 2-D (n_test, n_train) or 3-D (n_test, n_train, m), got a {S.ndim}-D array. "
            f"Reshape your data, e.g. with {name}.reshape(1, -1) for the similarities of a single point"
        )
    elif getattr(S, "ndim", 2) > 3:
        raise ValueError(f"{name} must be 2-D or 3-D, got shape {S.shape}. " + _layout_hint(name, test=True))
    else:
        mats = [check_data(S, name)]
        rows, cols = mats[0].shape
        got_m = 1
    if got_m != m:
        raise ValueError(
            f"{name} holds {got_m} similarity matrix(ces), but the model was fitted with m = {m}. "
            + _layout_hint(name, test=True)
        )
    if cols != n:
        raise ValueError(
            f"{name} must have shape (n_test, n_train, m) with n_train = {n} (the points passed to "
            f"fit, labelled and unlabelled): X has {cols} features, but {owner} is "
            f"expecting {n} features as input"
        )
    return mats


def _too_large(scale, what):
    return (
        f"S: {what}. The entries of S (largest |S_ij| = {scale:.3g}) are out of the range that float64 "
        "arithmetic handles here (the losses and the SVM square them); rescale S, e.g. by the mean trace "
        "of its positive parts"
    )


def _check_labels(y, n):
    """(classes, codes, labelled mask): codes index classes, -1 for an unlabelled point
    (:func:`kernlearn._utils._labels.encode_labels`: string labels work, y in {-1, +1} is refused
    with an explanation)."""
    if y is None:  # scikit-learn's wording, which its estimator checks look for
        raise ValueError(
            "ESKL, EMKL and REKL requires y to be passed, but the target y is None (-1 marks unlabelled points)"
        )
    if n < 2:
        raise ValueError(f"S holds {n} sample (n_samples = {n}); fit needs labelled points of at least 2 classes")
    with naming("y"):  # numpy's own conversion errors (ragged y) get the name too
        classes, codes = encode_labels(y, n, semi_supervised=True, name="y")
    return classes, codes, codes != UNLABELLED


# ----------------------------------------------------------------------------- shared machinery


class _Prep:
    """What a fit needs from the similarities: their eigendecompositions (all n pairs, or the rank
    pairs of largest magnitude; :mod:`._operators`) and tau."""

    def __init__(self, S, labelled, tau, driver, *, rank=None, rng=None):
        self.S = S  # a sequence of m (n, n) matrices, or of m LinearOperators (with a rank)
        self.m, self.n = len(S), S[0].shape[0]
        self.lab = np.flatnonzero(labelled)
        self.driver = driver
        self.rank = rank  # None: the dense fit; an int: the fit restricted to a subspace
        self.eig = self._spectra(rank, rng)
        # The basis each learned kernel lives in (None: the identity, the dense fit) and the
        # similarities in those bases, which the losses compare the kernels with (_oracles.py).
        self.bases, self.compressions = self._in_bases()
        if tau == "trace":
            self.tau = float(np.mean([np.maximum(lam, 0).sum() for lam, _ in self.eig]))
            if not self.tau > 0:
                raise ValueError('tau="trace" needs a similarity with a positive eigenvalue; give tau as a number')
        else:
            self.tau = float(tau)

    def _spectra(self, rank, rng):
        """The (eigenvalues, eigenvectors) of each S_i, all n or the rank of largest magnitude;
        tau="trace" reads their positive parts."""
        if _operators.diagonalised_in_full(self.S, rank):
            return [_operators.dense_leading_eigenpairs(s, rank, self.driver) for s in self.S]
        return [_operators.leading_eigenpairs(_operators.as_operator(s), rank, rng, self.driver) for s in self.S]

    def _in_bases(self):
        """EMKL's kernels (one per similarity): each in the basis of its similarity's eigenvectors
        kept (the identity for the dense fit), where that similarity is diag(lambda_i)."""
        if self.rank is None:
            return [None] * self.m, list(self.S)
        return [V for _, V in self.eig], [np.diag(lam) for lam, _ in self.eig]

    def start_vectors(self, V):
        """The eigenvectors of a similarity in its kernel's basis: V itself for the dense fit,
        the identity when the basis is V's leading columns."""
        return V if self.rank is None else np.eye(V.shape[1])

    def warm_start(self, lam, V, init):
        """(V, log eigenvalues) of K^(1) from the spectrum of a similarity (module docstring); the
        spectrum has r = lam.size entries (n, except with a rank)."""
        r = lam.size
        floor = INIT_EPS * self.tau / r
        pos = np.maximum(lam, 0.0)
        if init == "identity" or pos.sum() == 0:
            return (np.eye(r) if r == self.n else V.copy()), np.full(r, np.log(self.tau / r))
        mu = (1 - INIT_EPS) * self.tau * pos / pos.sum() + floor
        return V.copy(), np.log(mu)


# The mirror steps of ESKL / EMKL (``update``): the corrected one and the paper's (module docstring).
UPDATES = ("meg", "paper")


def _plain(value):
    """A numpy scalar as the Python value it holds, so that messages read 1, not np.int64(1)."""
    return value.item() if isinstance(value, np.generic) else value


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


def _fit_result(best, n_iter, reason, history, *, coef, intercept, decision, kernel):
    """What an estimator's _solve returns for one binary problem (read by _Base._store):
    ``best`` is _run's best iterate (its f, start_change), ``kernel`` what _set_kernels keeps."""
    return {
        "coef": coef,
        "intercept": intercept,
        "decision": decision,
        "n_iter": n_iter,
        "reason": reason,
        "history": history,
        "objective": best["f"],
        "start_change": best["start_change"],
        "kernel": kernel,
    }


def _spectraplex_lower_min(tau, m=None):
    """The certificate's minimum of <G, K> over {K psd, tr K = tau}: tau lambda_min(G), or for a
    list of m kernels (m given) the sum over them; each Lanczos run warm-started from the
    previous call's vector."""
    v0 = [None] * (m or 1)

    def lower_min(G, rng):
        Gs = [G] if m is None else G
        total = 0.0
        for i, Gi in enumerate(Gs):
            value, v0[i] = _lambda_min(Gi, v0[i], rng)
            total += tau * value
        return total

    return lower_min


class _Base(ClassifierMixin, BaseEstimator):
    """fit / predict / decision_function shared by the three estimators."""

    _multi_kernel = False
    # What ``rank`` keeps, for the message that asks for it (ESKL: of the mean similarity).
    _rank_keeps = "the rank eigenpairs of largest magnitude of each S_i"
    # Called as check(loss, owner) when a rank is given: the losses a restriction defines
    # (ESKL, EMKL: _oracles.check_loss); None for REKL, whose losses act on spectra.
    _rank_loss_check: Optional[Callable[[Any, str], None]] = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    _parameter_constraints = {
        "loss": [StrOptions(set(md.LOSSES)), "callable"],
        "rank": [None, Interval(numbers.Integral, 1, None), StrOptions({"auto"})],
        "rho": [Interval(numbers.Real, 0, None)],
        "tau": [StrOptions({"trace"}), Interval(numbers.Real, 0, None, closed="neither")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
        "n_iter_no_change": [Interval(numbers.Integral, 1, None)],
        "step": [StrOptions({"theory"}), Interval(numbers.Real, 0, None, closed="neither")],
        "init": [StrOptions({"denoise", "identity"})],
        "svm_tol": [Interval(numbers.Real, SVM_TOL_MIN, None, closed="left")],
        "oos_rcond": [Interval(numbers.Real, 0, None)],
        "random_state": ["random_state"],
        "verbose": [Interval(numbers.Integral, 0, None)],
        "callback": [None, "callable"],
    }

    # -- fit

    def fit(self, S, y):
        """Learn the kernel(s) from the similarities of n points; returns self.

        Parameters
        ----------
        S : array (n, n, m), list of m arrays (n, n), or one array (n, n)
            The m similarity matrices over the n points (labelled and unlabelled). A 3-D array
            is always read as (n, n, m): samples on the first two axes, the similarity index
            last, so that scikit-learn's cross-validation can slice it (the estimator is tagged
            pairwise). A (m, n, n) stack must be passed as ``np.moveaxis(S, 0, -1)`` or as a
            list. Non-symmetric matrices are symmetrised with a warning; S is not modified.
            Unless rank=None, S may also be one symmetric ``scipy.sparse.linalg.LinearOperator``
            (n, n), or a list of m of them (dense matrices may be mixed in), e.g.
            :class:`kernlearn.kernels.KernelOperator` or
            :class:`kernlearn.distributed.KernelOperator`.
        y : array (n,)
            Class labels (numbers or strings); the number -1 marks an unlabelled point.

        Returns
        -------
        self
            The fitted estimator.
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        rng = check_random_state(self.random_state)
        operators = _operators.holds_operators(S)
        if operators:
            S = _operators.check_operators(S, rng)
        else:
            S = _check_similarities(S)
        n = S[0].shape[0]
        rank = self._checked_rank(n, operators)
        classes, codes, labelled = _check_labels(y, n)
        if not operators:
            scale = max(max(float(s.max()), -float(s.min())) for s in S)
            if scale > np.sqrt(np.finfo(np.float64).max) / n:  # ||S_i||_F^2 would overflow
                raise ValueError(_too_large(scale, f"its squared Frobenius norm overflows float64 (n = {n})"))
        n_threads = resolve_n_threads(self.n_jobs)
        self.classes_ = classes
        self.n_features_in_ = n
        codes_lab = codes[labelled]
        targets = [1] if classes.size == 2 else range(classes.size)
        try:
            with blas_threads(n_threads):
                prep = self._prepare(S, labelled, rank, rng)
                if operators:
                    scale = max(float(np.abs(lam).max()) for lam, _ in prep.eig)
                    if not scale <= np.sqrt(np.finfo(np.float64).max / rank):  # ||lambda_i||^2 would overflow
                        raise ValueError(_too_large(scale, "the squared norm of its spectrum overflows float64"))
                self.tau_ = prep.tau
                results = []
                for k in targets:
                    y_pm = np.where(codes_lab == k, 1.0, -1.0)
                    results.append(self._solve(prep, y_pm, rng, label=classes[k]))
        except NonFiniteKernel as err:
            raise ValueError(_too_large(scale, str(err))) from None
        self._store(results, prep, labelled)
        return self

    def _checked_rank(self, n, operators):
        """The number of eigenpairs the fit keeps: None (all n, the dense fit) or ``rank``;
        rank="auto" by :func:`kernlearn._utils._solver_choice.similarity_rank`."""
        if isinstance(self.rank, str):  # "auto": dense up to a size, the rank path above
            rank = _solver_choice.similarity_rank(n, operators)
            if rank is not None and self._rank_loss_check is not None:
                try:
                    self._rank_loss_check(self.loss, type(self).__name__)
                except ValueError as err:
                    raise ValueError(
                        f"rank='auto' restricts the fit to rank = {rank} at n = {n} points"
                        f"{' given as LinearOperators' if operators else ''} (dense up to n = "
                        f"{_solver_choice.SIMILARITY_DENSE_MAX_N} arrays), and {err}"
                    ) from None
            return rank
        if self.rank is None:
            if operators:
                raise ValueError(
                    f"rank is required when S is given as LinearOperators: {type(self).__name__} then keeps "
                    f"{self._rank_keeps} (e.g. rank=50, or rank='auto'); rank=None means all n, a dense "
                    "eigendecomposition"
                )
            return None
        if self.rank > n:
            raise ValueError(f"rank must be <= n = {n} (the number of points in S), got {self.rank}")
        if self._rank_loss_check is not None:
            self._rank_loss_check(self.loss, type(self).__name__)
        return int(self.rank)

    def _prepare(self, S, labelled, rank, rng):
        """What the fit needs from the similarities (:class:`_Prep`)."""
        return _Prep(S, labelled, self.tau, "evd", rank=rank, rng=rng)

    def _store(self, results, prep, labelled):
        self.coef_ = np.stack([r["coef"] for r in results])  # (n_problems, m, n)
        self.intercept_ = np.array([r["intercept"] for r in results])
        decision = np.stack([r["decision"] for r in results], axis=1)  # (n, n_problems)
        self.labelled_ = labelled
        self.n_iter_ = int(max(r["n_iter"] for r in results))
        reasons = [r["reason"] for r in results]
        self.stop_reason_ = reasons[0] if len(reasons) == 1 else reasons
        self.converged_ = all(r in ("certificate", "stalled") for r in reasons)
        self.start_change_ = np.array([r["start_change"] for r in results])
        self.history_ = results[0]["history"] if len(results) == 1 else [r["history"] for r in results]
        self.objective_ = np.array([r["objective"] for r in results])
        # the certificate of the problem solved (the restricted one with a rank): best f minus the
        # lower bound of the last iteration, >= the suboptimality of objective_
        self.gap_ = np.array([r["history"]["gap"][-1] for r in results])
        self.rank_ = prep.rank
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
        shown = _plain(label)
        monitor = Monitor(
            f"{type(self).__name__} {shown!r}",
            self.verbose,
            self.callback,
            _RECORD_FIELDS,
            max_iter=self.max_iter,
            objective="objective",
            certificate="gap",
            first_iteration=1,
        )
        bound = md.LowerBound()
        state0 = oracle.copy(state)  # K^(1), for start_change_
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
        if reason == "stalled" and history["objective"][0] - best["f"] <= self.tol * scale:
            # the stall window reaches back to K^(1): min_t f never went below f(K^(1)) by more
            # than tol, so the returned kernel is (all but) the start; not a converged fit
            reason = "stalled_at_start"
        if reason == "stalled_at_start" and self.n_iter_no_change > 1:
            # n_iter_no_change = 1 asks to stop at the first step that does not improve (a
            # deliberately minimal run): the status says so, without a warning
            warnings.warn(
                f"{type(self).__name__} stopped at iteration {t} without improving on its start "
                f"(class {shown!r}): "
                f"min_t f = {best['f']:.6g} is within tol = {self.tol} (relative) of f(K^(1)) = "
                f"{history['objective'][0]:.6g}, so the learned kernel did not move from its start "
                f"(init={self.init!r}) and the classifier is that of the start kernel. Try init='identity' "
                "(the paper's start), a C tuned for this estimator rather than for the start kernel, a "
                "larger step (step > 1), another rho, or a smaller tol / larger n_iter_no_change",
                ConvergenceWarning,
                stacklevel=4,
            )
        if reason is None:
            reason = "max_iter"
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter = {self.max_iter} iterations "
                f"(class {shown!r}): best f - lower bound = {gap:.3g} > "
                f"tol * f = {self.tol * abs(best['f']):.3g}, "
                f"and min_t f did not stay within tol = {self.tol} (relative) for n_iter_no_change = "
                f"{self.n_iter_no_change} iterations; the best iterate is returned",
                ConvergenceWarning,
                stacklevel=4,
            )
        monitor.close()
        hist = {k: np.asarray(v) for k, v in history.items()}
        best["start_change"] = oracle.start_change(state0, best["state"])
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
        points by the out-of-sample rule (module docstring).

        Parameters
        ----------
        S_test : array (n_test, n_train, m), list of m arrays (n_test, n_train), or None
            The similarities of the new points to the n_train points passed to fit, in the
            layout of fit (``S[np.ix_(test, train)]``); one array (n_test, n_train) when m = 1.
            Not copied when it is float64 and C-contiguous. None: the unlabelled fitted points
            (y = -1 in fit), in their order there. The m blocks may also be LinearOperators of
            shape (n_test, n_train) (a list of m, or one when m = 1): each is multiplied once by
            the (n_train, n_problems) coefficients, so the decision needs no n_test x n_train
            array either.

        Returns
        -------
        ndarray of shape (n_test,) or (n_test, n_classes)
            For two classes, > 0 means ``classes_[1]``; otherwise one column per class
            (one-vs-rest).
        """
        check_is_fitted(self, "coef_")
        if S_test is None:
            return self.decision_transductive_[~self.labelled_]
        if _operators.holds_operators(S_test):
            St = _operators.check_test_operators(S_test, self.coef_.shape[1], self.n_features_in_)
            dec = sum(np.asarray(s.matmat(self.coef_[:, i].T), dtype=np.float64) for i, s in enumerate(St))
            dec = dec + self.intercept_
            return dec[:, 0] if dec.shape[1] == 1 else dec
        St = _check_test_similarities(S_test, self.coef_.shape[1], self.n_features_in_, type(self).__name__)
        # sum_i s_i(x)' coef_[p, i] + b_p, for every problem p
        if isinstance(St, np.ndarray):  # (n_test, n_train, m) against coef_ (p, m, n_train)
            dec = np.tensordot(St, self.coef_, axes=([1, 2], [2, 1]))
        else:
            dec = sum(s @ self.coef_[:, i].T for i, s in enumerate(St))
        dec = dec + self.intercept_
        return dec[:, 0] if dec.shape[1] == 1 else dec

    def predict(self, S_test=None):
        """Class labels of the unlabelled fitted points (S_test None) or of new points.

        Parameters
        ----------
        S_test : array (n_test, n_train, m), list of m arrays (n_test, n_train), or None
            As in :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_test,)
            Labels from ``classes_``.
        """
        return self._labels(self.decision_function(S_test))

    def score(self, S_test, y, sample_weight=None):
        """Mean accuracy of ``predict(S_test)`` on the *labelled* entries of y.

        As in fit, the number -1 in y marks an unlabelled point: those entries (and their
        sample weights) are left out, so a cross-validation over semi-supervised y scores the
        held-out labelled points only. A ValueError is raised when y has no labelled entry.
        String labels have no such marker: every entry counts.

        Parameters
        ----------
        S_test : array (n_test, n_train, m) or list of m arrays (n_test, n_train)
            As in :meth:`decision_function`.
        y : array-like of shape (n_test,)
            True labels; the number -1 marks an entry left out.
        sample_weight : array-like of shape (n_test,), optional
            Weights of the entries.

        Returns
        -------
        float
            The (weighted) fraction of labelled entries predicted correctly.
        """
        pred = self.predict(S_test)
        y = np.asarray(y)
        if y.shape != pred.shape[:1]:
            raise ValueError(f"y must hold one label per row of S_test ({pred.shape[0]}), got shape {y.shape}")
        keep = y != UNLABELLED if y.dtype.kind in "biuf" else np.ones(y.shape[0], dtype=bool)
        if not keep.any():
            raise ValueError("y has no labelled entry to score (-1 marks an unlabelled point)")
        weights = None if sample_weight is None else np.asarray(sample_weight)[keep]
        return float(accuracy_score(y[keep], pred[keep], sample_weight=weights))


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
        oos_rcond=OOS_RCOND,
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
