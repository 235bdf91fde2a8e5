"""The oracles of ESKL and EMKL, written once for a kernel held in a basis: the dense fit (the
identity basis, K itself) and the fit restricted to a rank (the path of LinearOperators).

The dense ESKL and EMKL take a matrix exponentiated-gradient step on the full n x n kernel at
every iteration: their basis is the identity (``basis`` None below), the state is K's own
eigendecomposition, and the losses compare K with S_i. With ``rank=r`` each learned kernel is
restricted to an r-dimensional subspace,

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
from ._mkl import LowRankKernels, svm_dual, svm_dual_features

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
    """ESKL's :class:`kernlearn.similarity._base._Prep`: the eigenpairs of the mean similarity, and
    the basis its one kernel lives in (the identity for the dense fit, the subspace B of the rank
    leading eigenvectors otherwise) with the similarities in it (S_i, or P_i = B' S_i B).

    Attributes (besides those of ``_Prep``): ``mean_eig`` (lam, V), the eigenpairs of S_mean (the
    rank of largest magnitude with a rank), ascending; ``basis``, None or B; ``eig``, the
    eigenpairs of the S_i (of the P_i, r-space vectors, with a rank), which tau="trace" reads.
    """

    def _spectra(self, rank, rng):
        if rank is None:
            eig = super()._spectra(rank, rng)
            mean = sum(self.S) / self.m
            self.mean_eig = eig[0] if self.m == 1 else scipy.linalg.eigh(mean, overwrite_a=True, check_finite=False)
            return eig
        if _operators.diagonalised_in_full(self.S, rank):
            mean = sum(self.S) / self.m
            self.mean_eig = _operators.dense_leading_eigenpairs(mean, rank, self.driver)
        else:
            ops = [_operators.as_operator(s) for s in self.S]
            mean = functools.reduce(operator.add, ops) * (1.0 / self.m)  # one product per S_i
            found = _operators.leading_eigenpairs(mean, rank, rng, self.driver, parts=ops)
            self.mean_eig = found[:2]
            if len(found) == 3:  # the block route: S_i B from its last step, no further product
                B = self.mean_eig[1]
                self._compressed = [_symmetric(B.T @ SB) for SB in found[2]]
                return [scipy.linalg.eigh(P, check_finite=False, driver=self.driver) for P in self._compressed]
        B = self.mean_eig[1]
        self._compressed = [_symmetric(B.T @ _times(s, B)) for s in self.S]
        return [scipy.linalg.eigh(P, check_finite=False, driver=self.driver) for P in self._compressed]

    def _in_bases(self):
        if self.rank is None:
            return [None], list(self.S)
        return [self.mean_eig[1]], self._compressed

    @property
    def basis(self):
        return self.bases[0]


class _Basis:
    """How a kernel state (V, log eigenvalues) in the basis B maps to the n points: B None is the
    identity (the dense fit, V itself n x n), else K = B Kr B' with Kr = V diag(exp(l)) V'."""

    def __init__(self, B, lab):
        self.B, self.lab = B, lab
        self.B_lab = None if B is None else B[lab]

    def labelled_kernel(self, Kr, state):
        """K[lab, lab] (n_l x n_l), exactly symmetric."""
        if self.B is None:
            return Kr[np.ix_(self.lab, self.lab)]
        return md.dense_from_log(self.B_lab @ state[0], state[1])

    def subtract_labelled_outer(self, G, beta, divisor):
        """G -= (B' P beta)(B' P beta)' / divisor, P placing the labelled entries: the SVM's share
        of the subgradient (eq. (8) / (12)) pulled back into the basis."""
        if self.B is None:
            G[np.ix_(self.lab, self.lab)] -= np.outer(beta, beta) / divisor
        else:
            u = self.B_lab.T @ beta
            G -= np.outer(u, u) / divisor

    def vectors(self, V):
        """The kernel's eigenvectors on the n points: B V (V itself for the identity)."""
        return V if self.B is None else self.B @ V


class _SingleOracle(md.OneKernelState):
    """ESKL's oracle on the state (V, log eigenvalues) of its kernel in the basis of ``prep``
    (eq. (8))."""

    def __init__(self, est, prep, y, loss):
        self.est, self.prep, self.y, self.loss = est, prep, y, loss
        self.basis = _Basis(prep.basis, prep.lab)

    def evaluate(self, state):
        est = self.est
        Kr = md.dense_from_log(*state)
        if self.basis.B is None:
            omega, beta, b = svm_dual(self.basis.labelled_kernel(Kr, state), self.y, est.C, est.svm_tol)
        else:  # K[lab, lab] = F F', F = B_lab V diag(exp(l / 2)) (n_l x r): the SVM on F's rows
            F = (self.basis.B_lab @ state[0]) * np.exp(state[1] / 2.0)
            omega, beta, b = svm_dual_features(F, self.y, est.C, est.svm_tol)
        G = np.zeros_like(Kr)
        f = omega
        if est.rho > 0:
            for P in self.prep.compressions:
                value, grad = self.loss(Kr, P)
                f += est.rho * value
                G += est.rho * grad
        # eq. (8): f'(K) = -1/2 Y alpha alpha' Y + rho sum_i L'(K - S_i), on the labelled block
        self.basis.subtract_labelled_outer(G, beta, 2.0)
        return {"f": f, "G": G, "dual_norm": np.linalg.norm(G), "x_dot_g": float(np.vdot(G, Kr)), "model": (beta, b)}


class _MultipleOracle(md.KernelListState):
    """EMKL's oracle on the states (V_i, log eigenvalues) of its kernels, each in the basis of its
    similarity (eq. (12))."""

    def __init__(self, est, prep, y, loss):
        self.est, self.prep, self.y, self.loss = est, prep, y, loss
        self.bases = [_Basis(B, prep.lab) for B in prep.bases]
        self.gamma = None  # warm start of the MKL alternation

    def evaluate(self, state):
        est = self.est
        Ks = np.stack([md.dense_from_log(V, l) for V, l in state])
        if self.prep.rank is None:
            Ks_lab = np.stack([basis.labelled_kernel(K, st) for basis, K, st in zip(self.bases, Ks, state)])
        else:  # K_i[lab, lab] = F_i F_i', F_i = B_i,lab V_i diag(exp(l_i / 2)): n_l x r, never n_l x n_l
            Ks_lab = LowRankKernels([(basis.B_lab @ V) * np.exp(l / 2.0) for basis, (V, l) in zip(self.bases, state)])
        res = est._mkl(Ks_lab, self.y, self.gamma)
        self.gamma = res["gamma"]
        beta, gamma = res["beta"], res["gamma"]
        f = res["omega"]
        G = np.zeros_like(Ks)
        for i in range(self.prep.m):
            if est.rho > 0:
                value, grad = self.loss(Ks[i], self.prep.compressions[i])
                f += est.rho * value
                G[i] = est.rho * grad
            # eq. (12): d/dK_i = -Y alpha alpha' Y / (2 gamma_i) + rho L'(K_i - S_i)
            self.bases[i].subtract_labelled_outer(G[i], beta, 2.0 * gamma[i])
        dual_norm = max(np.linalg.norm(g) for g in G)  # dual of ||K|| = sum_i ||K_i||_F
        model = (beta, res["intercept"], res["gamma_svm"], res["gamma"])
        return {"f": f, "G": G, "dual_norm": dual_norm, "x_dot_g": float(np.vdot(G, Ks)), "model": model}


def solve_single(est, prep, y, rng, label):
    """ESKL's binary problem: the result dict of ``ESKL._solve``, with the kernel's eigenvectors on
    the n points (n x r; r = n for the dense fit)."""
    lam, B = prep.mean_eig
    state = prep.warm_start(lam, prep.start_vectors(B), est.init)
    radius = np.log(prep.tau) - state[1].min()  # log(tau / lambda_min(K^(1)))
    oracle = _SingleOracle(est, prep, y, md.resolve_loss(est.loss))
    lower_min = _spectraplex_lower_min(prep.tau)

    best, n_iter, reason, hist = est._run(oracle, state, md.StepRule(radius, est._step_scale()), lower_min, rng, label)
    Vr, l = best["state"]
    beta, b = best["model"]
    W = oracle.basis.vectors(Vr)  # the kernel's eigenvectors
    kb = (W * np.exp(l)) @ (W[prep.lab].T @ beta)  # K[:, lab] beta
    # out-of-sample: k(x, .) = sbar(x)' Sbar^+ K, Sbar^+ the pseudo-inverse of the mean similarity
    # (of its truncation, with a rank)
    w = _pinv_apply(lam, B, kb, est.oos_rcond) / prep.m
    coef = np.tile(w, (prep.m, 1))
    return _fit_result(best, n_iter, reason, hist, coef=coef, intercept=b, decision=kb + b, kernel=(np.exp(l), W))


def solve_multiple(est, prep, y, rng, label):
    """EMKL's binary problem, each kernel in the basis of its similarity's eigenvectors (all n, or
    the rank leading ones): the result dict of ``EMKL._solve``, eigenvectors (n x r) on the points."""
    state = [prep.warm_start(lam, prep.start_vectors(V), est.init) for lam, V in prep.eig]
    radius = np.mean([np.log(prep.tau) - l.min() for _, l in state])
    oracle = _MultipleOracle(est, prep, y, md.resolve_loss(est.loss))
    lower_min = _spectraplex_lower_min(prep.tau, prep.m)

    best, n_iter, reason, hist = est._run(oracle, state, md.StepRule(radius, est._step_scale()), lower_min, rng, label)
    beta, b, gamma_svm, _ = best["model"]
    coef = np.empty((prep.m, prep.n))
    decision = np.full(prep.n, b)
    vectors = []
    for i, ((lam, V), (Vr, l)) in enumerate(zip(prep.eig, best["state"])):
        W = oracle.bases[i].vectors(Vr)
        kb = ((W * np.exp(l)) @ (W[prep.lab].T @ beta)) / gamma_svm[i]  # K_i[:, lab] beta / gamma_i
        decision += kb
        coef[i] = _pinv_apply(lam, V, kb, est.oos_rcond)
        vectors.append(W)
    kernel = (np.stack([np.exp(l) for _, l in best["state"]]), np.stack(vectors), gamma_svm)
    return _fit_result(best, n_iter, reason, hist, coef=coef, intercept=b, decision=decision, kernel=kernel)
