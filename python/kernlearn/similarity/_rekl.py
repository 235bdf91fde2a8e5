"""REKL: restricted entropic kernel learning (Algorithm 3 of Kundu et al. 2010); see :mod:`._base`."""

import numpy as np

from . import _mirror_descent as md
from ._base import OOS_RCOND, _fit_result, _MKLBase
from ._mkl import LowRankKernels

__all__ = ["REKL"]


def _spectral_loss(loss):
    """REKL's loss on spectra: the built-ins apply to vectors unchanged (see the REKL docstring)."""
    if callable(loss):
        return md.resolve_loss(loss)
    return md.LOSSES[loss]


class _REKLOracle:
    def __init__(self, est, prep, y, loss):
        self.est, self.prep, self.y, self.loss = est, prep, y, loss
        self.gamma = None
        # eigenvectors of each S_i restricted to the labelled rows, and their eigenvalues
        self.V_lab = np.stack([V[prep.lab] for _, V in prep.eig])
        self.lam = np.stack([lam for lam, _ in prep.eig])

    def copy(self, state):
        return state.copy()

    def start_change(self, start, state):
        """As EMKL's: K_i = V_i diag(mu_i) V_i' with orthonormal V_i, so ||K_i||_F = ||mu_i||_2."""
        mu0 = np.exp(start)
        return md.relative_change(float(np.sum((np.exp(state) - mu0) ** 2)), float(np.sum(mu0**2)))

    def evaluate(self, log_mu):
        est, m = self.est, self.prep.m
        mu = np.exp(log_mu)
        if self.prep.rank is None:
            Ks_lab = np.stack([(self.V_lab[i] * mu[i]) @ self.V_lab[i].T for i in range(m)])
        else:  # K_i[lab, lab] = F_i F_i' with F_i = V_i,lab diag(sqrt(mu_i)), n_l x rank
            Ks_lab = LowRankKernels([self.V_lab[i] * np.sqrt(mu[i]) for i in range(m)])
        res = est._mkl(Ks_lab, self.y, self.gamma)
        self.gamma = res["gamma"]
        beta, gamma = res["beta"], res["gamma"]
        f = res["omega"]
        proj = np.einsum("ilj,l->ij", self.V_lab, beta) ** 2  # (v_ij' Y alpha)^2
        g = -proj / (2.0 * gamma[:, None])  # Algorithm 3's dOmega/dmu_ij
        for i in range(m):
            if est.rho > 0:
                value, grad = self.loss(mu[i], self.lam[i])
                f += est.rho * value
                g[i] += est.rho * grad
        model = (beta, res["intercept"], res["gamma_svm"], res["gamma"])
        # dual of the norm sum_i ||mu_i||_1 is max_ij |g_ij| (Proposition 3.2)
        return {"f": f, "G": g, "dual_norm": float(np.abs(g).max()), "x_dot_g": float(np.vdot(g, mu)), "model": model}

    def step(self, log_mu, g, eta):
        return np.stack([md.simplex_step(log_mu[i], g[i], eta, self.prep.tau) for i in range(self.prep.m)])


class REKL(_MKLBase):
    """Restricted entropic kernel learning (Algorithm 3): K_i = V_i diag(mu_i) V_i' with V_i the
    eigenvectors of S_i, mu_i on the simplex {mu >= 0, sum mu = tau}, combined by the MKL (10).

    Minimises ``Omega(K_1..K_m) + rho sum_i l(mu_i, lambda_i)`` (eq. (7), with its simplex
    sum over j = 1..n: the printed upper limit m is a typo) by entropic mirror descent on the
    product of simplices: one eigendecomposition per S_i before the loop and none inside it.

    Since K_i and S_i share eigenvectors, the built-in losses on spectra are matrix losses:
    "fro" ``||mu - lambda||_2 = ||K_i - S_i||_F`` (the paper's choice; Section 4 writes it per
    index, ``l(mu_j, lambda_j) = ||mu_j - lambda_j||_2``, meaning the vector norm of eq. (7)),
    "sq_fro" its square,
    "l1" ``sum_j |mu_j - lambda_j| = ||K_i - S_i||_*`` (the trace norm, *not* ESKL's entrywise
    L1). A callable receives ``(mu_i, lambda_i)`` and returns (value, subgradient w.r.t. mu_i).
    With "fro", REKL is EMKL with the Frobenius loss restricted to the eigenbases (the tests
    check this). The step is ``sqrt(2 R / t) / Lip_t`` with Lip_t the running max of
    ``max_ij |g_ij|`` (Proposition 3.2, corrected: :mod:`kernlearn.similarity._base`).

    Data layout as :class:`ESKL`: ``fit(S, y)`` with S of shape (n, n, m) (the similarity index
    last; a 3-D array is always read so), a list of m (n, n) matrices or one (n, n) matrix, and
    ``predict`` / ``decision_function`` / ``score`` with S_test of shape (n_test, n, m): the
    pairwise layout that scikit-learn's cross-validation and GridSearchCV slice.

    Similarities as operators. ``fit(S, y)`` also takes S as a list of m symmetric
    ``scipy.sparse.linalg.LinearOperator`` of shape (n, n) (or one operator), e.g.
    :class:`kernlearn.distributed.KernelOperator`, whose products run on a Dask cluster; dense
    (n, n) arrays may be mixed in, or :class:`kernlearn.kernels.KernelOperator` (never formed,
    multiplied in C++). A rank is then required (``rank="auto"`` gives one). An operator is only
    multiplied: its ``rank`` eigenpairs of largest magnitude come from :func:`kernlearn.linalg.eigsh`
    on S_i^2 and a rank x rank Rayleigh-Ritz step with S_i up to 2,000 points, from block
    subspace iteration above (:func:`kernlearn.similarity._operators.block_leading_eigenpairs`;
    n <= 300 or rank > 0.1 n, where eigsh itself would go dense, multiply it out instead), and
    everything afterwards holds O(n rank) per similarity, plus the SVM's n_l x n_l kernels on the
    n_l labelled points (the method needs them: many unlabelled points are cheap, many labelled
    ones are not). Operators must be real, square, of one n, and pass a symmetry probe (one
    product with two random vectors); otherwise fit raises naming ``S[i]``.

    What the rank restriction means. K_i lies in the span of V_i, the rank leading eigenvectors
    of S_i; write S_i = V_i diag(lambda_i) V_i' + R_i, with R_i the rest of S_i (orthogonal to that
    span). Then ``||K_i - S_i||_F^2 = ||mu_i - lambda_i||^2 + ||R_i||_F^2`` and
    ``||K_i - S_i||_* = ||mu_i - lambda_i||_1 + ||R_i||_*``: with "sq_fro" and "l1" the fit
    minimises eq. (7) itself over the kernels of that span, up to a constant that
    ``objective_`` leaves out. With "fro" the loss is the distance to the truncation,
    ``||mu_i - lambda_i||_2``; the full ``||K_i - S_i||_F = sqrt(||mu_i - lambda_i||^2 + ||R_i||_F^2)``
    has the constant under the square root, so it is a different (flatter) function of mu_i and
    the fit solves the truncated problem (the residual of an operator is not known without
    n products). ``tau="trace"`` is the mean trace of the positive parts of the truncations.
    rank = n is the dense REKL exactly; a dense S with a rank is diagonalised in full (LAPACK)
    and truncated the same way.

    Prediction with a rank. ``coef_`` stays (n_problems, m, n) and the out-of-sample rule is the
    one of :mod:`kernlearn.similarity._base` with S_i^+ the pseudo-inverse of the truncation,
    ``V_i diag(1 / lambda_i) V_i'``, so ``decision_function`` needs only the similarities of the
    test points to the n fitted points: (n_test, n, m) arrays, m (n_test, n) blocks, or m
    LinearOperators of shape (n_test, n), each multiplied once by an (n, n_problems) block.
    For many test points pass them in row batches; nothing n x n is formed.

    Parameters
    ----------
    rank : int, None or "auto", default "auto"
        Keep the ``rank`` eigenpairs of largest magnitude of each S_i (above); at most n. None
        keeps all n (the paper's REKL; not with LinearOperators).
        "auto" (the default): the dense fit (None) for S given as arrays of up to
        ``_solver_choice.SIMILARITY_DENSE_MAX_N`` = 500 points, else rank =
        ``SIMILARITY_RANK`` = 30 (at most n), and always a rank for LinearOperators; the rule and
        its figures (accuracy against the dense fit, time and peak memory to 20,000 points):
        bench/results/similarity_scale.md. ``rank_`` is the rank used.
    **params
        The parameters of :class:`EMKL` but ``update`` (loss, rho, tau, C, max_iter, tol,
        n_iter_no_change, step, init, svm_tol, mkl_tol, mkl_max_iter, oos_rcond, random_state,
        n_jobs, verbose, callback).

    Attributes
    ----------
    As :class:`ESKL`, with ``spectra_`` (n_problems, m, r): the learned mu_i, in the order of
    ``eigenvalues_of_S_`` (m, r) / ``eigenvectors_of_S_`` (m, n, r), and ``gamma_``; r is
    ``rank`` (n when None), the eigenvalues ascending.

    Examples
    --------
    Transductive use: the kernels are learned over 100 ionosphere returns of which 40 are
    labelled (y = -1 marks the others), and ``predict()`` labels the other 60. The fit starts
    from the identity (the paper's start): from REKL's default start, the Denoise kernels, the
    fit often ends where it started, with a ConvergenceWarning
    (bench/results/suite_similarity.md).

    >>> from scipy.spatial.distance import cdist
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.datasets import load_ionosphere
    >>> from kernlearn.similarity import REKL
    >>> X, y = load_ionosphere(return_X_y=True)
    >>> points = np.random.default_rng(0).permutation(len(y))[:100]
    >>> X, y = StandardScaler().fit_transform(X[points]), y[points]
    >>> D = cdist(X, X)
    >>> S = np.stack([np.maximum(np.median(D) - D, 0), np.tanh(X @ X.T / X.shape[1] - 0.5), -D], axis=-1)
    >>> S /= np.abs(S).mean(axis=(0, 1))  # comparable scales
    >>> y_semi = np.where(np.arange(100) < 40, y, -1)
    >>> model = REKL(init="identity", random_state=0).fit(S, y_semi)
    >>> model.stop_reason_, model.spectra_.shape
    ('stalled', (1, 3, 100))
    >>> model.gamma_.round(2)
    array([[0.24, 0.37, 0.39]])
    >>> model.predict()[:10].tolist()
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 1]
    >>> y[40:50].tolist()
    [0, 0, 1, 0, 0, 1, 0, 1, 0, 1]
    >>> round(float(np.mean(model.predict() == y[40:])), 2)
    0.88

    The same similarities as LinearOperators (scipy's wrappers here; a
    :class:`kernlearn.distributed.KernelOperator` goes the same way), each restricted to its 20
    eigenpairs of largest magnitude:

    >>> from scipy.sparse.linalg import aslinearoperator
    >>> operators = [aslinearoperator(np.ascontiguousarray(S[:, :, i])) for i in range(3)]
    >>> low_rank = REKL(rank=20, init="identity", random_state=0).fit(operators, y_semi)
    >>> low_rank.eigenvectors_of_S_.shape, low_rank.spectra_.shape
    ((3, 100, 20), (1, 3, 20))
    >>> round(float(np.mean(low_rank.predict() == y[40:])), 2)
    0.78
    """

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
        self.rank = rank

    def _solve(self, prep, y, rng, label):
        log_mu = np.stack(
            [
                prep.warm_start(lam, V, self.init)[1]
                if self.init == "denoise"
                else np.full(lam.size, np.log(prep.tau / lam.size))
                for lam, V in prep.eig
            ]
        )
        radius = np.mean(np.log(prep.tau) - log_mu.min(axis=1))
        oracle = _REKLOracle(self, prep, y, _spectral_loss(self.loss))

        def lower_min(g, rng):
            return prep.tau * float(g.min(axis=1).sum())

        best, n_iter, reason, hist = self._run(
            oracle, log_mu, md.StepRule(radius, self._step_scale()), lower_min, rng, label
        )
        beta, b, gamma_svm, _ = best["model"]
        mu = np.exp(best["state"])
        coef = np.empty((prep.m, prep.n))
        decision = np.full(prep.n, b)
        for i, (lam, V) in enumerate(prep.eig):
            c = (oracle.V_lab[i].T @ beta) / gamma_svm[i]  # V_i[lab]' beta / gamma_i
            decision += V @ (mu[i] * c)
            # S_i^+ K_i = V_i diag(mu_i / lambda_i) V_i': the spectrum-transform extension
            inv = np.zeros_like(lam)
            ok = np.abs(lam) > self.oos_rcond * np.abs(lam).max()
            inv[ok] = 1.0 / lam[ok]
            coef[i] = V @ (inv * mu[i] * c)
        return _fit_result(
            best, n_iter, reason, hist, coef=coef, intercept=b, decision=decision, kernel=(mu, gamma_svm, prep)
        )

    def _set_kernels(self, results):
        self.spectra_ = np.stack([r["kernel"][0] for r in results])
        self.gamma_ = np.stack([r["kernel"][1] for r in results])
        prep = results[0]["kernel"][2]
        self.eigenvalues_of_S_ = np.stack([lam for lam, _ in prep.eig])
        self.eigenvectors_of_S_ = np.stack([V for _, V in prep.eig])
