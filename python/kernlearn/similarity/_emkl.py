"""EMKL: entropic multiple kernel learning (Algorithm 2 of Kundu et al. 2010); see :mod:`._base`."""

import numpy as np

from .._utils._param_validation import StrOptions
from . import _oracles
from ._base import OOS_RCOND, UPDATES, _MKLBase

__all__ = ["EMKL"]


class EMKL(_MKLBase):
    """Entropic multiple kernel learning (Algorithm 2): one kernel per similarity, combined by
    the mixed-norm MKL of eq. (10).

    Minimises ``Omega(K_1..K_m) + rho sum_i L(K_i, S_i)`` over K_i psd, tr K_i = tau (eq. (6)).
    Each iteration solves the MKL (alternating libsvm and the closed-form gamma, warm-started
    from the previous gamma; :mod:`kernlearn._mkl`) and takes one matrix exponentiated-gradient
    step per kernel. The step is ``sqrt(2 R / t) / Lip_t`` with R the mean radius of the
    starts and Lip_t the running max of max_i ||dF/dK_i||_F (Theorem 3.2, corrected:
    :mod:`kernlearn.similarity._base`).

    Data layout as :class:`ESKL`: ``fit(S, y)`` with S of shape (n, n, m) (the similarity index
    last; a 3-D array is always read so), a list of m (n, n) matrices or one (n, n) matrix, and
    ``predict`` / ``decision_function`` / ``score`` with S_test of shape (n_test, n, m): the
    pairwise layout that scikit-learn's cross-validation and GridSearchCV slice.

    Restricted to a rank; similarities as operators. With ``rank=r`` each kernel is restricted
    to the span of B_i, the r eigenvectors with the eigenvalues largest in magnitude of its own S_i:
    K_i = B_i Kr_i B_i' with Kr_i psd (r x r), tr Kr_i = tau, and every iteration is r x r per
    kernel (plus the MKL on the labelled points); the loss of K_i is measured against
    B_i' S_i B_i = diag(lambda_i) (:mod:`kernlearn.similarity._oracles`: with "sq_fro" this is
    eq. (6) over the kernels of the spans up to a constant, with "fro" the distance to the
    truncations; "l1" and callable losses are refused). :class:`REKL` is the same restriction
    with Kr_i diagonal. ``fit(S, y)`` then also takes S as LinearOperators (n, n), e.g.
    :class:`kernlearn.kernels.KernelOperator`, as :class:`REKL` does (one eigensolve per S_i;
    rank=None is refused then). rank = n is the dense EMKL up to rounding; a dense S with a
    rank is diagonalised in full and truncated up to 2,000 points, and above that its rank
    eigenpairs come from its products as for an operator. ``rank="auto"`` (the default) is the
    dense fit up to 500 points given as arrays and rank 30 above (:class:`ESKL`'s ``rank``).
    The out-of-sample rule uses the pseudo-inverses of
    the truncations, B_i diag(1 / lambda_i) B_i'.

    Parameters are those of :class:`ESKL` (``update="paper"`` runs Algorithm 2's printed step on
    every K_i; ``rank`` keeps the leading eigenvectors of each S_i, above), plus ``mkl_tol``
    (relative increase of the MKL objective at which the alternation stops) and
    ``mkl_max_iter``. ``init="denoise"`` starts every K_i at its own trace-normalised
    Denoise(S_i).

    Attributes
    ----------
    As :class:`ESKL`, with ``eigenvalues_`` (n_problems, m, r), ``eigenvectors_``
    (n_problems, m, n, r) (r is ``rank``, n when None) and ``gamma_`` (n_problems, m): the MKL
    weights; the classifier's kernel is ``sum_i K_i / gamma_i``.

    Examples
    --------
    One kernel per similarity (truncated L1, tanh, minus the distance) on the ionosphere
    returns, learned from 40 labelled points and applied to 50 held-out ones; ``tol=1e-2``
    stops a little earlier than the default, with the same predictions here:

    >>> from scipy.spatial.distance import cdist
    >>> from sklearn.model_selection import train_test_split
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.datasets import load_ionosphere
    >>> from kernlearn.similarity import EMKL
    >>> X, y = load_ionosphere(return_X_y=True)
    >>> train, test = train_test_split(np.arange(len(y)), train_size=40, test_size=50, stratify=y, random_state=0)
    >>> X = StandardScaler().fit(X[train]).transform(X)
    >>> D = cdist(X, X)
    >>> S = np.stack([np.maximum(np.median(D) - D, 0), np.tanh(X @ X.T / X.shape[1] - 0.5), -D], axis=-1)
    >>> S /= np.abs(S[np.ix_(train, train)]).mean(axis=(0, 1))  # comparable scales
    >>> model = EMKL(tol=1e-2, random_state=0).fit(S[np.ix_(train, train)], y[train])
    >>> model.stop_reason_, model.eigenvalues_.shape
    ('stalled', (1, 3, 40))

    The weights gamma of the three kernels (the SVM's kernel is ``sum_i K_i / gamma_i``):

    >>> model.gamma_.round(2)
    array([[0.24, 0.38, 0.38]])
    >>> S_test = S[np.ix_(test, train)]
    >>> model.predict(S_test)[:10].tolist()
    [1, 0, 0, 0, 0, 1, 1, 0, 0, 0]
    >>> y[test][:10].tolist()
    [1, 0, 1, 0, 0, 1, 1, 0, 0, 0]
    >>> round(model.score(S_test, y[test]), 2)
    0.94

    Each kernel restricted to the 10 eigenvectors of largest magnitude of its similarity, the
    similarities given as LinearOperators:

    >>> from scipy.sparse.linalg import aslinearoperator
    >>> S_train = S[np.ix_(train, train)]
    >>> operators = [aslinearoperator(np.ascontiguousarray(S_train[:, :, i])) for i in range(3)]
    >>> low_rank = EMKL(rank=10, tol=1e-2, random_state=0).fit(operators, y[train])
    >>> low_rank.eigenvectors_.shape
    (1, 3, 40, 10)
    >>> round(low_rank.score(S_test, y[test]), 2)
    0.92
    """

    _parameter_constraints = {**_MKLBase._parameter_constraints, "update": [StrOptions(set(UPDATES))]}
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
        mkl_tol=1e-5,
        mkl_max_iter=20,
        oos_rcond=OOS_RCOND,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        super().__init__(
            loss,
            rho=rho,
            tau=tau,
            C=C,
            max_iter=max_iter,
            tol=tol,
            n_iter_no_change=n_iter_no_change,
            step=step,
            init=init,
            svm_tol=svm_tol,
            mkl_tol=mkl_tol,
            mkl_max_iter=mkl_max_iter,
            oos_rcond=oos_rcond,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
            callback=callback,
        )
        self.update = update
        self.rank = rank

    def _solve(self, prep, y, rng, label):
        return _oracles.solve_multiple(self, prep, y, rng, label)

    def _set_kernels(self, results):
        self.eigenvalues_ = np.stack([r["kernel"][0] for r in results])
        self.eigenvectors_ = np.stack([r["kernel"][1] for r in results])
        self.gamma_ = np.stack([r["kernel"][2] for r in results])
