"""ESKL: entropic single kernel learning (Algorithm 1 of Kundu et al. 2010); see :mod:`._base`."""

import numpy as np

from .._utils._param_validation import StrOptions
from . import _oracles
from ._base import OOS_RCOND, UPDATES, _Base

__all__ = ["ESKL"]


class ESKL(_Base):
    """Entropic single kernel learning (Algorithm 1): one kernel from m similarity matrices.

    Minimises ``omega(K) + rho sum_i L(K, S_i)`` over {K psd, tr K = tau} (eq. (4)) by matrix
    exponentiated-gradient mirror descent with an SVM (libsvm) per iteration; see
    :mod:`kernlearn.similarity._base` for the corrections to the paper, the certificate and the out-of-sample rule.

    Data layout (as EMKL and REKL): ``fit(S, y)`` takes S of shape (n, n, m), the m similarity
    matrices over the n points stacked on the *last* axis (a 3-D array is always read so; an
    (m, n, n) stack must be passed as ``np.moveaxis(S, 0, -1)``), or a list of m (n, n)
    matrices, or one (n, n) matrix; y holds n labels, -1 for an unlabelled point.
    ``predict(S_test)``, ``decision_function(S_test)`` and ``score(S_test, y)`` take the
    similarities of new points to the n fitted points, shape (n_test, n, m). This is the pairwise
    layout scikit-learn slices, so ``cross_val_score(ESKL(), S, y)`` and ``GridSearchCV`` work.
    ``score`` leaves out the entries -1 of y (unlabelled points).

    Restricted to a rank; similarities as operators. With ``rank=r`` the kernel is restricted
    to the span of B, the r eigenvectors with the eigenvalues largest in magnitude of the mean similarity
    S_mean = sum_i S_i / m: K = B Kr B' with Kr psd (r x r), tr Kr = tau, and every iteration
    (the mirror step, its eigendecomposition, the certificate) is r x r; the losses are measured
    against the compressions B' S_i B (:mod:`kernlearn.similarity._oracles`: with "sq_fro" this
    is eq. (4) over the kernels of the span up to a constant, with "fro" the distance to the
    compressed similarities; "l1" and callable losses are refused). ``fit(S, y)`` then also takes
    S as a list of m symmetric ``scipy.sparse.linalg.LinearOperator`` (n, n), or one operator,
    e.g. :class:`kernlearn.kernels.KernelOperator` (never formed, multiplied in C++) or
    :class:`kernlearn.distributed.KernelOperator`: B comes from one eigensolve of the operator
    sum (Lanczos up to 2,000 points, block subspace iteration above:
    :mod:`kernlearn.similarity._operators`), then each S_i is multiplied once by B, and the fit
    holds O(n r) plus the SVM's n_l x n_l kernel on the labelled points; rank=None is refused
    then. rank = n is the dense ESKL up to rounding; a dense S with a rank is diagonalised in
    full and truncated the same way up to 2,000 points (above, its products give B as for an
    operator). The out-of-sample rule uses the
    pseudo-inverse of the truncation B diag(1 / lambda) B', so ``decision_function`` takes the
    similarities of new points to the n fitted points as for the dense fit (arrays, or m
    LinearOperators (n_test, n)).

    Parameters
    ----------
    loss : {"l1", "fro", "sq_fro"} or callable, default "fro"
        L1, L2, L3 of Section 4. A callable ``loss(K, S) -> (value, subgradient)`` must be
        convex in K; its subgradient's symmetric part is used. With ``rank``, "fro" or "sq_fro".
    rank : int, None or "auto", default "auto"
        Restrict the kernel to the ``rank`` eigenvectors of largest magnitude of the mean
        similarity (above); at most n. None keeps all n (the paper's ESKL; not with
        LinearOperators).
        "auto" (the default): the dense fit (None) for S given as arrays of up to
        ``_solver_choice.SIMILARITY_DENSE_MAX_N`` = 500 points, else rank =
        ``SIMILARITY_RANK`` = 30 (at most n), and always a rank for LinearOperators; the rule and
        its figures (accuracy against the dense fit, time and peak memory to 20,000 points):
        bench/results/similarity_scale.md. ``rank_`` is the rank used.
    rho : float >= 0, default 1.0
        Weight of the losses.
    tau : "trace" or float > 0, default "trace"
        tr K. "trace": the mean of tr (S_i)_+ (the trace of the Denoise kernels); with a rank,
        of tr (B' S_i B)_+.
    C : float > 0, default 1.0
        SVM regularisation.
    max_iter : int, default 100
        Maximum number of SVM solves (mirror-descent iterations).
    tol : float >= 0, default 1e-3
        Stop when best f - lower bound <= tol * best f (a certificate), or when the best f
        decreased by at most tol * best f over the last ``n_iter_no_change`` iterations.
    n_iter_no_change : int, default 20
    step : "theory" or float > 0, default "theory"
        "theory": eta_t = sqrt(2 R / t) / Lip_t (Proposition 3.1 with the radius R of the
        start, Lip_t = running max of ||f'||_F); a float multiplies that step.
    init : {"denoise", "identity"}, default "denoise"
        K^(1): "denoise", the trace-normalised Denoise kernel of the mean similarity (mixed with
        1 % of identity: ``0.99 tau S_+ / tr S_+ + 0.01 tau I / n``); "identity", the paper's
        K^(1) = tau I / n (Section 3). From Denoise a fit may never leave its start when C and
        rho make it near-stationary (``stop_reason_ == "stalled_at_start"``); the identity start
        always has to learn the kernel. EMKL / REKL start every K_i the same way from S_i.
    update : {"meg", "paper"}, default "meg"
        The mirror step. "meg": the matrix exponentiated gradient ``tau exp(log K - eta G) /
        tr(.)``, the entropy's mirror step (our correction). "paper": Algorithm 1 as printed, K's
        eigenvalues reweighted by exp(-eta d) on the eigenvectors of the subgradient G = U diag(d)
        U', matched in ascending order; the two agree from the identity start's first step and
        whenever K and G commute (:mod:`kernlearn.similarity._base`).
    svm_tol : float, default 1e-5
        libsvm's stopping tolerance (tight, so that the subgradient is stable).
    oos_rcond : float, default 1e-3
        Relative cut-off of the pseudo-inverse S^+ in the out-of-sample rule: eigenvalues below
        ``oos_rcond * max |lambda|`` are dropped. The default was chosen for the best held-out
        accuracy on three data sets (bench/results/similarity_oos.md); a cut-off near 0
        reproduces the learned kernel exactly on the fitted points but amplifies the noise of
        S's near-null directions on new ones.
    random_state : int, RandomState or None
        Start vector of the Lanczos runs of the certificate.
    n_jobs : int, optional
        Threads for LAPACK/BLAS.
    verbose : int, default 0
    callback : callable, optional
        Called after every iteration with a dict (iteration, objective, best, lower_bound,
        gap, step); returning True stops.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_features_in_ : int
        n, the number of fitted points (labelled and unlabelled).
    eigenvalues_ : ndarray of shape (n_problems, r)
    eigenvectors_ : ndarray of shape (n_problems, n, r)
        The best kernel ``V diag(lam) V'`` per problem; n_problems is 1 for two classes, else
        n_classes (one-vs-rest). r is ``rank`` (n when None); with a rank the columns of V span
        the rank leading eigenvectors of the mean similarity.
    coef_ : ndarray of shape (n_problems, m, n)
        Out-of-sample weights: the decision value of a new point is
        ``sum_i S_test[:, :, i] @ coef_[p, i] + intercept_[p]``.
    intercept_ : ndarray of shape (n_problems,)
    transduction_ : ndarray of shape (n,)
        Labels of all n fitted points (given ones kept, the others predicted).
    decision_transductive_ : ndarray of shape (n,) or (n, n_classes)
        Decision values of all n fitted points.
    objective_ : ndarray of shape (n_problems,)
        Best f per problem.
    gap_ : ndarray of shape (n_problems,)
        The certificate of the problem solved (the restricted one with a rank): best f minus the
        lower bound at the last iteration, an upper bound on ``objective_`` minus the optimum.
    rank_ : int or None
        The rank of the fit (None: the dense fit), as ``rank="auto"`` chose it.
    tau_ : float
        The trace used.
    n_iter_ : int
        Iterations run (the most over the problems).
    converged_ : bool
        Whether every problem stopped by the certificate or a stall.
    stop_reason_ : str, or list of str (one per problem)
        "certificate", "stalled", "stalled_at_start", "callback" or "max_iter".
        "stalled_at_start": min_t f never fell below f(K^(1)) by more than tol, the kernel did
        not move from its start, ``converged_`` is False and a ConvergenceWarning is issued.
    start_change_ : ndarray of shape (n_problems,)
        ``||K - K^(1)||_F / ||K^(1)||_F`` of the returned kernel (0 when it is the start; for
        EMKL / REKL over the m kernels together).
    history_ : dict of arrays, or list of dict
        Per iteration: objective, best, lower_bound, gap, step, lip, time; a list of dicts, one
        per problem, for more than two classes.

    Examples
    --------
    Three similarities over the sonar returns (truncated L1, tanh and minus the distance; the
    last two indefinite), fitted on 60 labelled points and applied to 50 held-out ones. The
    test rows hold the similarities of the new points to the training points, in the layout
    of fit:

    >>> from scipy.spatial.distance import cdist
    >>> from sklearn.model_selection import train_test_split
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.datasets import load_sonar
    >>> from kernlearn.similarity import ESKL
    >>> X, y = load_sonar(return_X_y=True)
    >>> train, test = train_test_split(np.arange(len(y)), train_size=60, test_size=50, stratify=y, random_state=0)
    >>> X = StandardScaler().fit(X[train]).transform(X)
    >>> D = cdist(X, X)
    >>> S = np.stack([np.maximum(np.median(D) - D, 0), np.tanh(X @ X.T / X.shape[1] - 0.5), -D], axis=-1)
    >>> S /= np.abs(S[np.ix_(train, train)]).mean(axis=(0, 1))  # comparable scales
    >>> S.shape
    (208, 208, 3)
    >>> model = ESKL(random_state=0).fit(S[np.ix_(train, train)], y[train])
    >>> model.stop_reason_, model.eigenvalues_.shape
    ('stalled', (1, 60))
    >>> S_test = S[np.ix_(test, train)]
    >>> model.predict(S_test)[:10].tolist()
    [0, 1, 0, 1, 0, 1, 0, 1, 1, 1]
    >>> y[test][:10].tolist()
    [0, 1, 0, 1, 0, 1, 0, 1, 1, 0]
    >>> round(model.score(S_test, y[test]), 2)
    0.86

    The same fit restricted to the 20 eigenvectors of largest magnitude of the mean similarity,
    the similarities given as LinearOperators (scipy's wrappers here; a
    :class:`kernlearn.distributed.KernelOperator` goes the same way):

    >>> from scipy.sparse.linalg import aslinearoperator
    >>> S_train = S[np.ix_(train, train)]
    >>> operators = [aslinearoperator(np.ascontiguousarray(S_train[:, :, i])) for i in range(3)]
    >>> low_rank = ESKL(rank=20, random_state=0).fit(operators, y[train])
    >>> low_rank.eigenvalues_.shape, low_rank.eigenvectors_.shape
    ((1, 20), (1, 60, 20))
    >>> round(low_rank.score(S_test, y[test]), 2)
    0.84
    """

    _parameter_constraints = {**_Base._parameter_constraints, "update": [StrOptions(set(UPDATES))]}
    _rank_keeps = "the rank eigenvectors of largest magnitude of the mean similarity sum_i S_i / m"
    _rank_loss_check = staticmethod(_oracles.check_loss)

    def __init__(
        self,
        loss="fro",
        *,
        rank="auto",
        rho=1.0,
        tau="trace",
        C=1.0,
        max_iter=100,
        tol=1e-3,
        n_iter_no_change=20,
        step="theory",
        init="denoise",
        update="meg",
        svm_tol=1e-5,
        oos_rcond=OOS_RCOND,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.loss = loss
        self.rank = rank
        self.rho = rho
        self.tau = tau
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.step = step
        self.init = init
        self.update = update
        self.svm_tol = svm_tol
        self.oos_rcond = oos_rcond
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def _prepare(self, S, labelled, rank, rng):
        return _oracles.MeanSubspace(S, labelled, self.tau, "evd", rank=rank, rng=rng)

    def _solve(self, prep, y, rng, label):
        return _oracles.solve_single(self, prep, y, rng, label)

    def _set_kernels(self, results):
        self.eigenvalues_ = np.stack([r["kernel"][0] for r in results])
        self.eigenvectors_ = np.stack([r["kernel"][1] for r in results])
