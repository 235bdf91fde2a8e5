"""ESKL and EMKL restricted to a subspace: the fits with ``rank`` (the path of LinearOperators).

The dense ESKL and EMKL take a matrix exponentiated-gradient step on the full n x n kernel at
every iteration. With ``rank=r`` each learned kernel is restricted to an r-dimensional subspace,

    K = B Kr B',   B (n x r) with orthonormal columns,  Kr psd (r x r),  tr Kr = tau,

and the mirror descent runs on Kr: the steps (:func:`kernlearn.similarity._mirror_descent.meg_step`
and ``paper_step``), their eigendecompositions and the certificate's lambda_min are r x r, and
the similarities enter only through one block product S_i B each, before the loop. So S_i may
be a LinearOperator (:class:`kernlearn.distributed.KernelOperator`): nothing n x n is formed.

Which subspace. ESKL: B holds the r eigenvectors with the eigenvalues largest in magnitude of the mean similarity
S_mean = sum_i S_i / m (the matrix whose spectrum gives the Denoise start and whose
pseudo-inverse gives the out-of-sample rule), from one eigensolve of the operator sum
(:func:`kernlearn.similarity._operators.leading_eigenpairs`). EMKL: one subspace per similarity,
B_i the r leading eigenvectors of S_i itself and K_i = B_i Kr_i B_i' (REKL is this restriction
with Kr_i diagonal in B_i).

The losses in the subspace. The loss of K is measured against the compression P_i = B' S_i B
(for EMKL, B_i' S_i B_i = diag(lambda_i)). Write S_i = B P_i B' + R_i: the rest R_i is orthogonal
(Frobenius) to every kernel of the subspace, so ``||K - S_i||_F^2 = ||Kr - P_i||_F^2 + ||R_i||_F^2``.
With "sq_fro" the fit minimises eq. (4) / eq. (6) itself over the kernels of the subspace, up to
the constant ``rho sum_i ||R_i||_F^2``, which ``objective_`` leaves out (no kernel of the
subspace can fit R_i). With "fro" the loss is ``||Kr - P_i||_F``, the distance to the compressed
similarity B P_i B'; the full ``||K - S_i||_F`` has ``||R_i||_F^2`` under the square root (a flatter
function of Kr, and R_i is not known without n products), so the fit solves the compressed
problem, as REKL does with "fro". Both losses are invariant under the change of basis B (for
rank = n, B is orthogonal, R_i = 0 and the fit is the dense one up to rounding). The entrywise
"l1" is not: the sum of abs(Kr - P_i) over the entries is not the l1 distance of K to anything,
so "l1" and callable losses (which may not be invariant either) are refused with a rank.

Pieces of one iteration, in r-space. The SVM sees K_lab = B_lab Kr B_lab' (B_lab the labelled
rows of B, n_l x r); the subgradient of eq. (8) pulled back by B, ``G_r = B' G B``, is
``rho sum_i L'(Kr, P_i) - u u' / 2`` with u = B_lab' beta (EMKL: ``- u_i u_i' / (2 gamma_i)`` with
u_i = B_i,lab' beta). Its Frobenius norm is that of G restricted to the subspace, and
``<G_r, Kr> = <G, K>``; the certificate's minimum of <G, K> over the restricted spectraplex is
``tau lambda_min(G_r)``. The start is the dense one's within the subspace: Kr^(1) is diagonal in B
(state (I_r, log mu)), with mu from the restricted spectrum for init="denoise" and tau / r for
"identity". ``tau="trace"`` is the mean tr (P_i)_+ (ESKL) or the mean positive trace of the
truncations diag(lambda_i) (EMKL, as REKL).

Outputs. ``eigenvectors_`` is B Vr (n x r: Kr = Vr diag(exp(l)) Vr'), ``eigenvalues_`` exp(l)
(r); the decision values K[:, lab] beta. The out-of-sample rule of :mod:`kernlearn.similarity._base`
applies with S^+ the pseudo-inverse of the truncation (B diag(1 / lam) B', lam the r kept
eigenvalues of S_mean, or of S_i for EMKL), so ``coef_`` stays (n_problems, m, n).

Cost. With operators, ESKL runs one Lanczos eigensolve on S_mean (each of its products is m
products, one per S_i) and m block products S_i B; EMKL one eigensolve per S_i (as REKL). Each
iteration then costs O(n_l r^2 + r^3) per kernel plus the SVM on the n_l labelled points.
"""

import functools
import operator

import numpy as np
import scipy.linalg

from . import _mirror_descent as md
from . import _operators
from ._base import _fit_result, _pinv_apply, _Prep, _spectraplex_lower_min
from ._mkl import svm_dual

__all__ = ["MeanSubspace", "check_loss", "solve_single", "solve_multiple"]

# The losses that are invariant under an orthogonal change of basis, hence defined in the subspace.
INVARIANT_LOSSES = ("fro", "sq_fro")


def check_loss(loss, owner):
    """Refuse the losses that the restriction to a subspace does not define (module docstring)."""
    if isinstance(loss, str) and loss in INVARIANT_LOSSES:
        return
    shown = "a callable loss" if callable(loss) else f"loss={loss!r}"
    raise ValueError(
        f"{owner} with rank (which S given as LinearOperators requires) cannot use {shown}: the fit measures "
        "the loss of K = B Kr B' in the subspace of B, as L(Kr, B' S_i B), and that is the loss of K (up to "
        "what no kernel of the subspace can fit) only for the losses invariant under the change of basis B, "
        f"{' and '.join(map(repr, INVARIANT_LOSSES))}; the entrywise 'l1' is not. Use one of those, or rank=None "
        "with dense S"
    )


def _times(S, B):
    """S @ B for a dense matrix or a LinearOperator, as a float64 array."""
    return np.asarray(S @ B if isinstance(S, np.ndarray) else S.matmat(B), dtype=np.float64)


def _symmetric(A):
    return (A + A.T) / 2.0


class MeanSubspace(_Prep):
    """ESKL's :class:`kernlearn.similarity._base._Prep` with a rank: the subspace B of the mean
    similarity and the compressions P_i = B' S_i B.

    Attributes (besides those of ``_Prep``): ``mean_eig`` (lam, B), the rank eigenpairs of largest
    magnitude of S_mean, ascending; ``compressions``, the m matrices P_i (r x r); ``eig``, the
    eigenpairs of the P_i (r-space vectors), which tau="trace" reads.
    """

    def _spectra(self, rank, rng):
        if isinstance(self.S[0], np.ndarray):
            mean = sum(self.S) / self.m
            self.mean_eig = _operators.dense_leading_eigenpairs(mean, rank, self.driver)
        else:
            mean = functools.reduce(operator.add, self.S) * (1.0 / self.m)  # one product per S_i
            self.mean_eig = _operators.leading_eigenpairs(mean, rank, rng, self.driver)
        B = self.mean_eig[1]
        self.compressions = [_symmetric(B.T @ _times(s, B)) for s in self.S]
        return [scipy.linalg.eigh(P, check_finite=False, driver=self.driver) for P in self.compressions]


def _labelled_kernel(B_lab, V, log_lam):
    """B_lab Kr B_lab' for Kr = V diag(exp(log_lam)) V', exactly symmetric (n_l x n_l)."""
    return md.dense_from_log(B_lab @ V, log_lam)


class _SingleOracle(md.OneKernelState):
    """ESKL's oracle on the state (Vr, log eigenvalues) of Kr (module docstring)."""

    def __init__(self, est, prep, y, loss):
        self.est, self.prep, self.y, self.loss = est, prep, y, loss
        self.B_lab = prep.mean_eig[1][prep.lab]

    def evaluate(self, state):
        est = self.est
        Kr = md.dense_from_log(*state)
        omega, beta, b = svm_dual(_labelled_kernel(self.B_lab, *state), self.y, est.C, est.svm_tol)
        G = np.zeros_like(Kr)
        f = omega
        if est.rho > 0:
            for P in self.prep.compressions:
                value, grad = self.loss(Kr, P)
                f += est.rho * value
                G += est.rho * grad
        u = self.B_lab.T @ beta  # B' of eq. (8)'s -1/2 Y alpha alpha' Y on the labelled block
        G -= 0.5 * np.outer(u, u)
        return {"f": f, "G": G, "dual_norm": np.linalg.norm(G), "x_dot_g": float(np.vdot(G, Kr)), "model": (beta, b)}


class _MultipleOracle(md.KernelListState):
    """EMKL's oracle on the states (Vr_i, log eigenvalues) of the Kr_i (module docstring)."""

    def __init__(self, est, prep, y, loss):
        self.est, self.prep, self.y, self.loss = est, prep, y, loss
        self.B_lab = [B[prep.lab] for _, B in prep.eig]
        self.compressions = [np.diag(lam) for lam, _ in prep.eig]  # B_i' S_i B_i
        self.gamma = None  # warm start of the MKL alternation

    def evaluate(self, state):
        est = self.est
        Ks = np.stack([md.dense_from_log(V, l) for V, l in state])
        Ks_lab = np.stack([_labelled_kernel(B_lab, V, l) for B_lab, (V, l) in zip(self.B_lab, state)])
        res = est._mkl(Ks_lab, self.y, self.gamma)
        self.gamma = res["gamma"]
        beta, gamma = res["beta"], res["gamma"]
        f = res["omega"]
        G = np.zeros_like(Ks)
        for i in range(self.prep.m):
            if est.rho > 0:
                value, grad = self.loss(Ks[i], self.compressions[i])
                f += est.rho * value
                G[i] = est.rho * grad
            u = self.B_lab[i].T @ beta  # B_i' of eq. (12)'s -Y alpha alpha' Y / (2 gamma_i)
            G[i] -= np.outer(u, u) / (2.0 * gamma[i])
        dual_norm = max(np.linalg.norm(g) for g in G)  # dual of ||K|| = sum_i ||K_i||_F
        model = (beta, res["intercept"], res["gamma_svm"], res["gamma"])
        return {"f": f, "G": G, "dual_norm": dual_norm, "x_dot_g": float(np.vdot(G, Ks)), "model": model}


def solve_single(est, prep, y, rng, label):
    """ESKL's binary problem in the subspace of ``prep`` (a :class:`MeanSubspace`): the result
    dict of ``ESKL._solve``, with the kernel's eigenvectors B Vr (n x r)."""
    lam, B = prep.mean_eig
    r = lam.size
    state = prep.warm_start(lam, np.eye(r), est.init)  # diagonal in B: the restricted spectrum
    radius = np.log(prep.tau) - state[1].min()  # log(tau / lambda_min(Kr^(1)))
    oracle = _SingleOracle(est, prep, y, md.LOSSES[est.loss])
    lower_min = _spectraplex_lower_min(prep.tau)

    best, n_iter, reason, hist = est._run(oracle, state, md.StepRule(radius, est._step_scale()), lower_min, rng, label)
    Vr, l = best["state"]
    beta, b = best["model"]
    W = B @ Vr  # the kernel's eigenvectors
    kb = (W * np.exp(l)) @ (W[prep.lab].T @ beta)  # K[:, lab] beta
    # out-of-sample: k(x, .) = sbar(x)' Sbar^+ K, Sbar^+ the pseudo-inverse of the truncation
    w = _pinv_apply(lam, B, kb, est.oos_rcond) / prep.m
    coef = np.tile(w, (prep.m, 1))
    return _fit_result(best, n_iter, reason, hist, coef=coef, intercept=b, decision=kb + b, kernel=(np.exp(l), W))


def solve_multiple(est, prep, y, rng, label):
    """EMKL's binary problem in the subspaces of the rank leading eigenvectors of each S_i
    (``prep.eig``): the result dict of ``EMKL._solve``, eigenvectors B_i Vr_i (n x r)."""
    r = prep.eig[0][0].size
    state = [prep.warm_start(lam, np.eye(r), est.init) for lam, _ in prep.eig]
    radius = np.mean([np.log(prep.tau) - l.min() for _, l in state])
    oracle = _MultipleOracle(est, prep, y, md.LOSSES[est.loss])
    lower_min = _spectraplex_lower_min(prep.tau, prep.m)

    best, n_iter, reason, hist = est._run(oracle, state, md.StepRule(radius, est._step_scale()), lower_min, rng, label)
    beta, b, gamma_svm, _ = best["model"]
    coef = np.empty((prep.m, prep.n))
    decision = np.full(prep.n, b)
    vectors = []
    for i, ((lam, B), (Vr, l)) in enumerate(zip(prep.eig, best["state"])):
        W = B @ Vr
        kb = ((W * np.exp(l)) @ (W[prep.lab].T @ beta)) / gamma_svm[i]  # K_i[:, lab] beta / gamma_i
        decision += kb
        coef[i] = _pinv_apply(lam, B, kb, est.oos_rcond)
        vectors.append(W)
    kernel = (np.stack([np.exp(l) for _, l in best["state"]]), np.stack(vectors), gamma_svm)
    return _fit_result(best, n_iter, reason, hist, coef=coef, intercept=b, decision=decision, kernel=kernel)
