"""Embeddings solved by the SimpleNPKL saddle-point iteration (Zhuang, Tsang & Hoi, JMLR 2011,
Section 6): colored maximum variance unfolding, minimum volume embedding and structure
preserving embedding.

Each learns a kernel K (psd, centred: K 1 = 0, and tr K^2 <= B) and embeds the points by its top
eigenvectors. All three are instances of the core's problem (``saddle_point.hpp``)::

    max_alpha  J(alpha) = -sqrt(B) |A(alpha)_+|_F + w'alpha - (rho/2) |alpha|^2
    A(alpha)   = H (M + sum_c alpha_c C_c) H,      K(alpha) = sqrt(B) A_+ / |A_+|_F

with H = I - 11'/n. Centring is the MVU constraint sum_ij K_ij = 0: for K psd it is K 1 = 0,
and max { tr(A K) : K psd, K 1 = 0, |K|_F^2 <= B } = sqrt(B) |(H A H)_+|_F.

Distance pairs. For a kNN pair (i, j), T_ij = (e_i - e_j)(e_i - e_j)', so tr(K T_ij) = K_ii +
K_jj - 2 K_ij = d_ij, the squared distance in the embedding.

Units. Squared distances are measured in units of Dbar, the mean squared input distance over
the kNN pairs: the solver sees D / Dbar and B / Dbar^2, so C is scale-free, and the returned
kernel and embedding are in the input's units again. For MVE, ``B=None`` takes B = T^2 with T = (n/2) x
the mean squared geodesic (shortest-path) distance on the kNN graph, from a few Dijkstra runs:
a centred K whose distances stay below the geodesic ones has |K|_F <= tr K <= T, so the bound
leaves room for the fully unfolded data. (Measured: the input's own linear-kernel norm, the
obvious alternative, holds a swiss roll at its rolled-up size, which MVE then folds into a disc;
with T^2 it unrolls: R^2 of the arc length 0.98-0.995 against 0.92-0.94.) Colored MVU, which
does not unfold, keeps |H X X' H|_F^2.

Colored MVU (Song et al. 2008; eq. 31). With Y the label kernel,

    min_K  -tr(H Y H K) + (C/2) sum_(i,j) (D_ij - d_ij)^2          (units of Dbar)

The Lagrangian with alpha_ij for d_ij = D_ij - xi_ij and xi eliminated (xi = alpha / C) gives
A = HYH + sum alpha_ij T_ij, w = D, rho = 1/C, alpha free, gradient D_ij - d_ij - alpha_ij / C.
HYH is kept as Q diag(s^2) Q' from the thin SVD of H Phi (Y = Phi Phi'), never n x n, and is
scaled to spectral norm 1 so that C means the same as in MVE.

Minimum volume embedding (Shaw & Jebara 2007; eq. 32). The same problem with M = K0 =
sum_{i<=d} v_i v_i' - sum_{i>d} v_i v_i' from the previous K; over a full eigenbasis that is
K0 = 2 V_d V_d' - I, so A = H(2 V_d V_d' - I + sum alpha T)H is applied as low rank + identity +
sparse. The outer loop maximises F(K) = sum_{i<=d} lambda_i - sum_{i>d} lambda_i - loss(K), a
minorise-maximise scheme: by Ky Fan, tr(K K0) <= sum_{i<=d} lambda_i - sum_{i>d} lambda_i with
equality at the K that K0 came from, so F never decreases (up to the inner duality gap). Each
outer step starts from the previous alpha and, with ``inexact=True``, is solved to a gap of
max(tol, min(1e-2, 0.1 x the last relative change of F)): early steps need not be exact (the
last allowed step always is). The loop stops when F changes by
less than ``outer_tol`` relative in a step solved to ``tol``, or after ``n_outer`` steps.
Initialisation: ``init="pca"`` takes V_d from the input's
principal components (linear kernel PCA, O(n d_x^2), scales); ``init="mvu"`` first solves MVU
(M = I, as Shaw & Jebara do), whose first iterate has rank n - 1, so it is for small n or a
basis; ``"auto"`` picks between them.

Structure preserving embedding (Shaw & Jebara 2009; Section 6.3). With W the connectivity
(0/1, symmetric) and N_i the neighbours of i, the triplet constraints d_ij >= d_ik - xi for
k in N_i, j not in N_i (j != i) share one slack:

    min_{K, xi >= 0}  -tr(W K) + C xi
    L = -tr(W K) + C xi - sum_t alpha_t (d_ij - d_ik + xi),    alpha_t >= 0
      = -tr([W + sum_t alpha_t (T_ij - T_ik)] K) + xi (C - sum_t alpha_t)

Minimising over xi >= 0 is finite only for sum alpha <= C, so the dual is
max { -sqrt(B) |(H A H)_+|_F : alpha >= 0, sum alpha <= C } with A = W + sum alpha_t (T_ij - T_ik)
and gradient d_ik - d_ij (the paper writes A = W - sum alpha (T_ik - T_ij), the same matrix; its
dual as printed has the sign of the constraint term flipped). Without centring the problem is
degenerate (K along W's Perron vector, near 11', satisfies every triplet with xi = 0), which is
why Shaw & Jebara's SDP centres K. There are O(n^2 k) triplets, so a cutting plane solves it:
start from K(alpha = 0), ask the C++ oracle for each point's most violated triplets (only i's
farthest neighbour matters), add them, re-solve from the previous alpha, and stop when no
triplet is violated by more than xi + tol * dbar (dbar = 2 tr K / n, the mean squared distance
of a centred K). That final check runs over every triplet, so it certifies the whole problem.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._utils import _solver_choice
from .._utils._signs import fix_signs
from .._utils._validation import (
    blas_threads,
    check_choice,
    check_data,
    check_int,
    check_real,
    check_square_sparse,
    resolve_n_threads,
    warn_unconverged_eigensolves,
)
from ..graph import knn, knn_graph
from ..linalg import eigsh

__all__ = ["ColoredMVU", "MinimumVolumeEmbedding", "StructurePreservingEmbedding"]

_SOLVERS = ("auto", "lanczos", "dense", "mixed")


class _SaddleEmbedding(BaseEstimator):
    """What the three embeddings share: parameters checks, kNN distance pairs, the core call and
    the fitted attributes."""

    def _check_common(self, n):
        check_int(self.n_components, "n_components", low=1, high=n)
        check_int(self.n_neighbors, "n_neighbors", low=1, high=n)
        check_real(self.C, "C")
        if self.B is not None:
            check_real(self.B, "B")
        if not (isinstance(self.rank, str) and self.rank == "auto"):
            check_int(self.rank, "rank", low=self.n_components, high=n)
        check_choice(self.eigen_solver, "eigen_solver", _SOLVERS)
        if self.basis is not None:
            check_int(self.basis, "basis", low=self.n_components, high=n)
        check_int(self.max_iter, "max_iter", low=1)
        check_real(self.tol, "tol")
        if self.callback is not None and not callable(self.callback):
            raise TypeError("callback must be callable")

    def _distance_pairs(self, X):
        """The kNN pairs (i < j, each once) and their squared input distances."""
        indices, _ = knn(X, self.n_neighbors, n_jobs=self.n_jobs)
        n = X.shape[0]
        rows = np.repeat(np.arange(n, dtype=np.int64), indices.shape[1])
        first, second = np.minimum(rows, indices.ravel()), np.maximum(rows, indices.ravel())
        # Deduplicated as the codes i n + j (sorted in (i, j) order): a 1-D unique, where
        # np.unique(..., axis=0) sorts rows as structured records (0.17 against 0.04 ms at n = 100).
        codes = np.unique(first.astype(np.int64) * n + second)
        pairs = np.stack([codes // n, codes % n], axis=1)
        diff = X[pairs[:, 0]] - X[pairs[:, 1]]
        return pairs, np.einsum("ij,ij->i", diff, diff)

    def _solve(
        self,
        n,
        *,
        pairs,
        rows,
        target,
        rho,
        dual_set,
        upper,
        alpha0,
        B,
        lowrank=None,
        coef=None,
        shift=0.0,
        sparse=None,
        seed=0,
        max_iter=None,
        tol=None,
        basis=None,
        newton=False,
    ):
        """One call of the core's saddle-point solver (see the module docstring). newton: let the
        core take Newton steps (a free alpha; they pay where the positive rank stays low)."""
        sparse = sp.csr_matrix((n, n)) if sparse is None else sparse
        lowrank = np.zeros((n, 0)) if lowrank is None else lowrank
        coef = np.zeros(lowrank.shape[1]) if coef is None else coef
        rank = 0 if isinstance(self.rank, str) else int(self.rank)
        solver = self.eigen_solver
        fraction = _solver_choice.auto_dense_fraction(n)  # 1.0: above the dense limit
        if solver == "auto" and newton and basis is None and n <= _solver_choice.NEWTON_DENSE_MAX_N and fraction < 1.0:
            solver = "dense"
        n_threads = resolve_n_threads(self.n_jobs)
        with blas_threads(n_threads):
            out = _core.methods.saddle_point(
                n,
                sparse.indptr.astype(np.int64),
                sparse.indices.astype(np.int64),
                sparse.data.astype(np.float64),
                np.asfortranarray(lowrank, dtype=np.float64),
                np.asarray(coef, dtype=np.float64),
                float(shift),
                True,
                pairs,
                "distance",
                *rows,
                np.asarray(target, dtype=np.float64),
                float(rho),
                dual_set,
                float(upper),
                np.asarray(alpha0, dtype=np.float64),
                2.0,
                False,
                float(B),
                1.0,
                rank,
                solver,
                fraction,
                int(self.max_iter if max_iter is None else max_iter),
                float(self.tol if tol is None else tol),
                0.0,
                True,
                1e-10,
                False,
                seed,
                n_threads,
                self._monitor(),
                np.zeros((n, 0)) if basis is None else basis,
                newton=newton,
            )
        warn_unconverged_eigensolves(out, type(self).__name__)
        return out

    def _laplacian_basis(self, W, seed):
        """Section 5.4's fixed basis: the ``basis`` smoothest non-constant eigenvectors of the kNN
        graph's Laplacian L = D - W (Weinberger et al. 2007's basis for large MVU problems),
        made orthogonal to the constant vector so that centring keeps K = U E U'."""
        if self.basis is None:
            return None
        degree = np.asarray(W.sum(axis=1)).ravel()
        shifted = (sp.diags(2.0 * degree.max() - degree) + W).tocsr()  # 2 d_max I - L: top = smoothest
        k = int(self.basis) + 1
        if W.shape[0] <= _solver_choice.DENSE_MAX_N:
            V = np.linalg.eigh(shifted.toarray())[1][:, ::-1][:, :k]
        else:
            _, V, _ = eigsh(shifted, k, random_state=seed, n_jobs=self.n_jobs)
        V = V - V.mean(axis=0)  # the constant eigenvector becomes ~0 here and drops out below
        U = np.linalg.svd(V, full_matrices=False)[0][:, : int(self.basis)]
        return np.asfortranarray(U - U.mean(axis=0))

    def _monitor(self):
        if not self.verbose and self.callback is None:
            return None
        name = type(self).__name__

        def monitor(info):
            if self.verbose:
                print(
                    f"[{name}] iter {info['iteration']:4d}  J {info['dual']:.6e}  P {info['primal']:.6e}  "
                    f"gap {info['gap']:.2e}  rank {info['rank']}",
                    flush=True,
                )
            return bool(self.callback(info)) if self.callback is not None else False

        return monitor

    def _store_kernel(self, out, scale):
        """eigenvalues_, eigenvectors_ and embedding_ in the input's units (K = scale * K')."""
        lam = np.asarray(out["eigenvalues"]) * scale
        V = fix_signs(out["eigenvectors"])
        self.eigenvalues_, self.eigenvectors_ = lam, V
        d = self.n_components
        emb = np.zeros((V.shape[0], d))
        r = min(d, lam.size)
        emb[:, :r] = V[:, :r] * np.sqrt(lam[:r])
        self.embedding_ = emb

    def _warn_unconverged(self, converged, what, ranks=()):
        """ranks: the rank histories of the unconverged saddle-point solves behind ``what``."""
        if not converged:
            warnings.warn(
                f"{type(self).__name__}: {what}{_inactive_bound_hint(ranks)}", ConvergenceWarning, stacklevel=3
            )

    def kernel(self, dense=False):
        """The learned kernel: the factor F = V sqrt(lambda) (K = F F'), or the n x n matrix."""
        check_is_fitted(self, "eigenvectors_")
        F = self.eigenvectors_ * np.sqrt(self.eigenvalues_)
        return F @ F.T if dense else F

    def fit_transform(self, X, y=None, **fit_params):
        return self.fit(X, y, **fit_params).embedding_


class _DistancePreserving(_SaddleEmbedding):
    """Colored MVU and MVE: square loss on the kNN distances, alpha free."""

    def _setup(self, X, seed):
        pairs, D = self._distance_pairs(X)
        scale = float(D.mean())
        if scale <= 0.0:
            raise ValueError("every kNN distance is 0 (duplicate points): nothing to unfold")
        n = X.shape[0]
        W = None  # the kNN graph, weighted by distance: only the geodesic bound and the basis use it
        if (self.B is None and self._unfolds) or self.basis is not None:
            W = sp.coo_matrix((np.sqrt(D), (pairs[:, 0], pairs[:, 1])), shape=(n, n)).tocsr()
            W = W + W.T
        if self.B is not None:
            self.B_ = float(self.B)
        elif self._unfolds:  # MVE: room for the unrolled data
            self.B_ = _geodesic_trace(W, seed) ** 2
        else:  # colored MVU: the input's own centred linear kernel (the geodesic bound made its
            Xc = X - X.mean(axis=0)  # dual take over 5000 iterations on scikit-learn's test data)
            self.B_ = float(np.linalg.norm(Xc.T @ Xc) ** 2)
        B = self.B_
        m = len(pairs)
        rows = (np.arange(m + 1, dtype=np.int64), np.arange(m, dtype=np.int64), np.ones(m))
        basis = None if self.basis is None else self._laplacian_basis((W > 0).astype(np.float64), seed)
        return dict(
            pairs=pairs,
            rows=rows,
            target=D / scale,
            rho=1.0 / self.C,
            dual_set="free",
            upper=0.0,
            B=B / scale**2,
            basis=basis,
        ), scale

    def _loss(self, out, problem):
        """(C/2) sum (D - d)^2 in units of Dbar at the returned K."""
        return 0.5 * self.C * float(np.sum((problem["target"] - out["constraint_values"]) ** 2))


class ColoredMVU(_DistancePreserving):
    _unfolds = False

    """Colored maximum variance unfolding (Song, Smola, Borgwardt & Gretton 2008) by SimpleNPKL.

    Maximises the dependence tr(H K H Y) between the embedding's kernel K and a label kernel Y
    while keeping the kNN distances (square loss, weight C). See the module docstring for the
    model and its derivation.

    Parameters
    ----------
    n_components : int, default 2
    n_neighbors : int, default 5
    C : float, default 1.0
        Weight of the distance loss, squared distances in units of their kNN mean.
    B : float or None
        Bound on tr K^2 (input units); None: the squared norm |H X X' H|_F^2 of the input's centred
        linear kernel, which matches every distance (MVE's default is the geodesic bound instead).
    label_kernel : {"delta", "linear", "precomputed"}
        How ``y`` becomes Y: ``"delta"`` Y_ij = [y_i == y_j] (one-hot; classes), ``"linear"``
        Y = y y' (y of shape (n,) or (n, q), real), ``"precomputed"`` y is the n x n psd Y.
    basis : None or int
        None: the exact problem. An int r: K = U E U' on the r smoothest non-constant eigenvectors
        U of the kNN graph's Laplacian (Section 5.4; Weinberger et al. 2007): every iteration is
        an r x r eigenproblem, so this is the option for large n.
    rank : "auto" or int
        All positive eigenpairs of A per iteration (exact), or the top ``rank`` only.
    eigen_solver : {"auto", "lanczos", "dense", "mixed"}
        As in :class:`kernlearn.npkl.SimpleNPKL` (mixed precision: single-precision reduction,
        double-precision refinement). Above 16,000 points "auto" keeps to Lanczos: an
        intermediate iterate with many positive eigenvalues then costs Lanczos time and bases,
        not an n x n matrix.
    max_iter, tol : int, float
        Saddle-point iterations and the relative duality gap to stop at.
    random_state, n_jobs, verbose, callback
        As in :class:`kernlearn.npkl.SimpleNPKL`.

    Attributes
    ----------
    embedding_ : (n, n_components) top eigenvectors of K times sqrt(eigenvalues)
    eigenvalues_, eigenvectors_ : K = V diag(lambda) V' (input units)
    B_ : the bound on tr K^2 used (input units)
    dual_coef_ : alpha, one per kNN pair; pairs_ : the kNN pairs
    n_iter_, converged_, history_ : as in SimpleNPKL (dual, primal, gap, step, matvecs, rank)
    """

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=5,
        C=1.0,
        B=None,
        label_kernel="delta",
        basis=None,
        rank="auto",
        eigen_solver="auto",
        max_iter=500,
        tol=1e-4,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.C = C
        self.B = B
        self.basis = basis
        self.label_kernel = label_kernel
        self.rank = rank
        self.eigen_solver = eigen_solver
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y):
        X = check_data(X, "X", min_samples=3)
        n, self.n_features_in_ = X.shape
        self._check_common(n)
        check_choice(self.label_kernel, "label_kernel", ("delta", "linear", "precomputed"))
        U, s2 = self._label_factor(y, n)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        problem, scale = self._setup(X, seed)
        out = self._solve(n, lowrank=U, coef=s2, alpha0=np.zeros(len(problem["pairs"])), seed=seed, **problem)
        self._store_kernel(out, scale)
        self.dual_coef_ = np.asarray(out["alpha"])
        self.pairs_ = problem["pairs"]
        self.n_iter_, self.converged_ = int(out["n_iter"]), bool(out["converged"])
        self.history_ = {k: np.asarray(out[k]) for k in ("dual", "primal", "gap", "step", "matvecs", "rank")}
        self._warn_unconverged(self.converged_, f"duality gap above tol after {self.n_iter_} iterations", [out["rank"]])
        return self

    def _label_factor(self, y, n):
        """HYH = U diag(s2) U' (U orthonormal), scaled to spectral norm 1."""
        if y is None:
            raise ValueError("ColoredMVU.fit needs y (labels, label vectors, or a label kernel)")
        if self.label_kernel == "delta":
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != n:
                raise ValueError(f"y must be 1-D with one label per sample ({n}), got shape {y.shape}")
            _, codes = np.unique(y, return_inverse=True)
            Phi = np.zeros((n, codes.max() + 1))
            Phi[np.arange(n), codes] = 1.0
        elif self.label_kernel == "linear":
            y = np.asarray(y)
            Phi = check_data(y.reshape(-1, 1) if y.ndim == 1 else y, "y")
            if Phi.shape[0] != n:
                raise ValueError(f"y must have one row per sample ({n}), got shape {y.shape}")
        else:
            Y = check_data(y, "y")
            if Y.shape != (n, n):
                raise ValueError(f"a precomputed label kernel y must be {n} x {n}, got shape {Y.shape}")
            if not np.allclose(Y, Y.T, rtol=1e-10, atol=1e-12 * np.abs(Y).max()):
                raise ValueError("the precomputed label kernel y must be symmetric")
            w, V = np.linalg.eigh(Y)
            if w.min() < -1e-8 * max(abs(w).max(), 1e-300):
                raise ValueError(f"the precomputed label kernel y must be psd (smallest eigenvalue {w.min():.3e})")
            keep = w > 1e-12 * max(w.max(), 1e-300)
            Phi = V[:, keep] * np.sqrt(w[keep])
        Phi = Phi - Phi.mean(axis=0)
        U, s, _ = np.linalg.svd(Phi, full_matrices=False)
        keep = s > 1e-12 * max(s.max() if s.size else 0.0, 1e-300)
        if not keep.any():
            raise ValueError("the label kernel is constant after centring (one class only?): nothing to color by")
        s2 = s[keep] ** 2
        return np.ascontiguousarray(U[:, keep]), s2 / s2.max()


class MinimumVolumeEmbedding(_DistancePreserving):
    _unfolds = True

    """Minimum volume embedding (Shaw & Jebara 2007) with each SDP step solved by SimpleNPKL.

    Grows the top ``n_components`` eigenvalues of K and shrinks the rest, keeping the kNN
    distances (square loss, weight C); see the module docstring for the outer loop, its
    monotone objective, the initialisation and the stopping rule.

    Parameters
    ----------
    n_components : int, default 2
        d, the dimension whose eigenvalues are grown.
    n_neighbors, C, B, basis, rank, eigen_solver, max_iter, tol, random_state, n_jobs, verbose, callback
        As in :class:`ColoredMVU` (max_iter and tol per inner solve), except that up to 1,000
        points eigen_solver="auto" is "dense" for the outer steps, whose duals the core then
        solves by Newton steps wherever the positive rank is at most n / 4 (L-BFGS elsewhere,
        and with "lanczos"). B = None takes the squared geodesic trace: room for the unfolded
        data. Data with nothing to unfold (e.g. uniform
        noise) leave that bound inactive; the dual is then not differentiable at the optimum,
        the inner solves crawl, and the convergence warning says so: give a smaller B.
    n_outer : int, default 50
    outer_tol : float, default 1e-3
        Stop when F changes by less than this, relative (measured: on standardized wine F still
        rises by 1e-3 per step after 15 steps and the embedding no longer changes visibly).
    inexact : bool, default True
        Solve the early outer steps to a looser gap (see the module docstring; on wine: 501
        inner iterations instead of 1150 to the same F within 1e-3). False solves every step to
        ``tol``, which keeps F and the energy outside the top d monotone to that accuracy.
    init : {"auto", "pca", "mvu"}
        "auto": "mvu" when n <= 1000 or with a basis (both cheap there; measured on standardized
        wine, 5-NN: 93.2% 5-NN accuracy in 2-D from MVU, 88.8% from PCA), else "pca".

    Attributes
    ----------
    embedding_, eigenvalues_, eigenvectors_, dual_coef_, pairs_
    n_iter_ : outer iterations; n_inner_iter_ : inner iterations in total
    history_ : dict of arrays per outer iteration: objective (F), energy_outside (share of
        sum lambda beyond the top d), inner_iterations, gap (relative, last inner)
    """

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=5,
        C=1.0,
        B=None,
        n_outer=50,
        outer_tol=1e-3,
        inexact=True,
        init="auto",
        basis=None,
        rank="auto",
        eigen_solver="auto",
        max_iter=500,
        tol=1e-4,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.C = C
        self.B = B
        self.basis = basis
        self.n_outer = n_outer
        self.outer_tol = outer_tol
        self.inexact = inexact
        self.init = init
        self.rank = rank
        self.eigen_solver = eigen_solver
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y=None):
        X = check_data(X, "X", min_samples=3)
        n, self.n_features_in_ = X.shape
        self._check_common(n)
        check_int(self.n_outer, "n_outer", low=1)
        check_real(self.outer_tol, "outer_tol")
        check_choice(self.init, "init", ("auto", "pca", "mvu"))
        d = self.n_components
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        problem, scale = self._setup(X, seed)
        alpha = np.zeros(len(problem["pairs"]))
        init = self.init
        if init == "auto":
            init = "mvu" if n <= _solver_choice.MVU_INIT_MAX_N or self.basis is not None else "pca"
        self.init_ = init
        if init == "pca":
            Vd = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)[0][:, :d]
        else:  # MVU: maximise tr K
            out = self._solve(n, shift=1.0, alpha0=alpha, seed=seed, **problem)
            Vd, alpha = np.asarray(out["eigenvectors"])[:, :d], np.asarray(out["alpha"])
        history = {"objective": [], "energy_outside": [], "inner_iterations": [], "gap": [], "inner_converged": []}
        converged, inner_total, unconverged = False, 0, []
        change = np.inf  # relative change of F in the last outer step
        for outer in range(self.n_outer):
            # Inexact majorisation: while F still moves by much, an inner gap well below that
            # change is enough; the final steps are solved to tol.
            last = outer == self.n_outer - 1
            inner_tol = self.tol if last or not self.inexact else max(self.tol, min(1e-2, 0.1 * change))
            out = self._solve(
                n,
                lowrank=np.ascontiguousarray(Vd),
                coef=np.full(Vd.shape[1], 2.0),
                shift=-1.0,
                alpha0=alpha,
                seed=seed,
                tol=inner_tol,
                newton=True,
                **problem,
            )
            alpha, lam = np.asarray(out["alpha"]), np.asarray(out["eigenvalues"])
            Vd = np.asarray(out["eigenvectors"])[:, :d]
            F = float(lam[:d].sum() - lam[d:].sum()) - self._loss(out, problem)
            inner_total += int(out["n_iter"])
            history["objective"].append(F)
            history["energy_outside"].append(float(lam[d:].sum() / lam.sum()) if lam.size else 0.0)
            history["inner_iterations"].append(int(out["n_iter"]))
            history["gap"].append(float(out["gap"][-1] / max(abs(out["primal"][-1]), 1e-300)))
            history["inner_converged"].append(bool(out["converged"]))
            if not out["converged"]:
                unconverged.append(np.asarray(out["rank"]))  # not out: it holds n x r eigenvectors
            if self.verbose:
                print(
                    f"[MinimumVolumeEmbedding] outer {outer:3d}  F {F:.6e}  energy outside top {d} "
                    f"{history['energy_outside'][-1]:.3e}  inner tol {inner_tol:.1e}",
                    flush=True,
                )
            if outer > 0:
                change = abs(F - history["objective"][-2]) / max(abs(F), 1e-300)
            if Vd.shape[1] == 0:  # K = 0: nothing left to grow; a solution only if the solve converged
                converged = bool(out["converged"])
                break
            if change <= self.outer_tol and inner_tol == self.tol:
                converged = True
                break
        self._store_kernel(out, scale)
        self.dual_coef_, self.pairs_ = alpha, problem["pairs"]
        self.n_iter_, self.n_inner_iter_, self.converged_ = outer + 1, inner_total, converged
        self.history_ = {k: np.asarray(v) for k, v in history.items()}
        self._warn_unconverged(converged, f"the outer loop did not settle in n_outer = {self.n_outer} steps")
        self._warn_unconverged(
            all(history["inner_converged"]),
            f"{history['inner_converged'].count(False)} inner solve(s) stopped at max_iter = {self.max_iter} above tol",
            unconverged,
        )
        return self


class StructurePreservingEmbedding(_SaddleEmbedding):
    """Structure preserving embedding (Shaw & Jebara 2009) by SimpleNPKL with cutting planes.

    Finds a centred K that maximises tr(W K) while every point's graph neighbours stay closer
    than its non-neighbours (one shared slack, weight C); see the module docstring for the
    derivation and the cutting-plane scheme.

    Parameters
    ----------
    n_components : int, default 2
    n_neighbors : int, default 5
        For ``affinity="nearest_neighbors"``: W is the symmetric binary kNN graph of X.
    affinity : {"nearest_neighbors", "precomputed"}
        ``"precomputed"``: X is the n x n connectivity matrix W (symmetric, 0/1, dense or sparse).
    C : float, default 1.0
    B : float or None
        Bound on tr K^2; None: n (the paper's B = N; the problem is scale-free).
    per_point : int, default 5
        Triplets added per point and round (its most violated).
    max_rounds : int, default 50
    basis, rank, eigen_solver, max_iter, tol, random_state, n_jobs, verbose, callback
        As in :class:`ColoredMVU` (the basis from W's Laplacian); tol also sets the violation
        allowed outside the set.

    Attributes
    ----------
    embedding_, eigenvalues_, eigenvectors_
    triplets_ : (t, 3) the active (i, j, k); dual_coef_ : their alpha
    slack_ : xi at the returned K; max_violation_ : max over every triplet of d_ik - d_ij
    n_iter_ : rounds; history_ : per round: n_triplets, max_violation, slack, inner_iterations, gap
    """

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=5,
        affinity="nearest_neighbors",
        C=1.0,
        B=None,
        basis=None,
        per_point=5,
        max_rounds=50,
        rank="auto",
        eigen_solver="auto",
        max_iter=1000,
        tol=1e-4,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.affinity = affinity
        self.C = C
        self.B = B
        self.basis = basis
        self.per_point = per_point
        self.max_rounds = max_rounds
        self.rank = rank
        self.eigen_solver = eigen_solver
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y=None):
        check_choice(self.affinity, "affinity", ("nearest_neighbors", "precomputed"))
        if self.affinity == "precomputed":
            W = _check_connectivity(X)
            n = W.shape[0]
            self.n_features_in_ = n
        else:
            X = check_data(X, "X", min_samples=3)
            n, self.n_features_in_ = X.shape
        self._check_common(n)
        check_int(self.per_point, "per_point", low=1)
        check_int(self.max_rounds, "max_rounds", low=1)
        if self.affinity != "precomputed":
            W = knn_graph(X, self.n_neighbors, mode="symmetric", n_jobs=self.n_jobs)
        W.sort_indices()
        B = float(n if self.B is None else self.B)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        n_threads = resolve_n_threads(self.n_jobs)
        graph = (W.indptr.astype(np.int64), W.indices.astype(np.int64))

        basis = self._laplacian_basis(W, seed)
        triplets = np.zeros((0, 3), dtype=np.int64)
        alpha = np.zeros(0)
        out = self._solve_triplets(n, W, triplets, alpha, B, seed, basis)  # K(alpha = 0): no constraint yet
        history = {"n_triplets": [], "max_violation": [], "slack": [], "inner_iterations": [], "gap": []}
        converged = False
        for round_ in range(self.max_rounds):
            Z = np.ascontiguousarray(np.asarray(out["eigenvectors"]) * np.sqrt(out["eigenvalues"]))
            if Z.shape[1] == 0:
                Z = np.zeros((n, 1))
            slack = max(0.0, float(-np.min(out["constraint_values"]))) if len(triplets) else 0.0
            margin = self.tol * 2.0 * float(np.sum(out["eigenvalues"])) / n
            new, _, worst = _core.methods.most_violated_triplets(
                Z, n, *graph, slack + margin, int(self.per_point), n_threads
            )
            history["n_triplets"].append(len(triplets))
            history["max_violation"].append(float(worst))
            history["slack"].append(slack)
            history["inner_iterations"].append(int(out["n_iter"]))
            history["gap"].append(float(out["gap"][-1] / max(abs(out["primal"][-1]), 1e-300)))
            if self.verbose:
                print(
                    f"[StructurePreservingEmbedding] round {round_:3d}  triplets {len(triplets)}  "
                    f"max violation {worst:.3e}  slack {slack:.3e}",
                    flush=True,
                )
            if len(new) == 0 or self.max_rounds == round_ + 1:
                converged = len(new) == 0
                break
            code = lambda t: (t[:, 0] * n + t[:, 1]) * n + t[:, 2]  # noqa: E731  (one int64 per triplet)
            new = np.asarray(new)[~np.isin(code(np.asarray(new)), code(triplets))]
            if len(new) == 0:  # the oracle's cuts are all in the set already: the inner solve is not tight
                break
            triplets = np.vstack([triplets, new])
            alpha = np.r_[alpha, np.zeros(len(new))]
            out = self._solve_triplets(n, W, triplets, alpha, B, seed, basis)
            alpha = np.asarray(out["alpha"])
        self._store_kernel(out, 1.0)
        self.triplets_, self.dual_coef_ = triplets, alpha
        self.slack_ = history["slack"][-1]
        self.max_violation_ = history["max_violation"][-1]
        self.n_iter_, self.converged_ = round_ + 1, converged
        self.history_ = {k: np.asarray(v) for k, v in history.items()}
        self._warn_unconverged(converged, f"triplets still violated after max_rounds = {self.max_rounds} rounds")
        return self

    def _solve_triplets(self, n, W, triplets, alpha, B, seed, basis):
        """The restricted problem over the active triplets: C_t = T_ij - T_ik."""
        t = len(triplets)
        if t == 0:
            rows = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
            return self._solve(
                n,
                sparse=W,
                pairs=np.zeros((0, 2), dtype=np.int64),
                rows=rows,
                target=np.zeros(0),
                rho=0.0,
                dual_set="fixed",
                upper=0.0,
                alpha0=np.zeros(0),
                B=B,
                seed=seed,
                basis=basis,
            )
        i, j, k = triplets.T
        ends = np.r_[np.c_[i, j], np.c_[i, k]]
        ends.sort(axis=1)
        pairs, which = np.unique(ends, axis=0, return_inverse=True)
        which = which.ravel()
        # Row t: +1 on pair (i, j), -1 on pair (i, k).
        rows = (
            np.arange(0, 2 * t + 1, 2, dtype=np.int64),
            np.ravel(np.c_[which[:t], which[t:]]).astype(np.int64),
            np.tile([1.0, -1.0], t),
        )
        return self._solve(
            n,
            sparse=W,
            pairs=np.ascontiguousarray(pairs, dtype=np.int64),
            rows=rows,
            target=np.zeros(t),
            rho=0.0,
            dual_set="capped_simplex",
            upper=float(self.C),
            alpha0=alpha,
            B=B,
            seed=seed,
            basis=basis,
        )


def _inactive_bound_hint(ranks):
    """Why unconverged solves crawl, when their rank histories show it: an iterate with A_+ = 0
    (K = 0) means the optimum has A's top eigenvalue at 0, i.e. |K|_F^2 < B: the trace bound is
    inactive, J = -sqrt(B) |A_+|_F + ... is not differentiable there and the dual steps stall."""
    if not any(np.any(np.asarray(rank)[1:] == 0) for rank in ranks):
        return ""
    return (
        "; iterates reached A_+ = 0: the optimum leaves the bound B inactive (|K|_F^2 < B), where the dual "
        "is not differentiable and converges slowly. A smaller B, which the solution reaches, is solved "
        "quickly"
    )


def _geodesic_trace(W, seed, n_sources=32):
    """(n/2) x the mean squared shortest-path distance on the kNN graph W (edge lengths: the
    input distances), from Dijkstra runs out of a few random sources.

    For a centred K, tr K = (1/2n) sum_ij d_ij, so any K whose embedded distances stay below the
    geodesic ones has tr K <= this value, and |K|_F <= tr K: its square is the default bound B.
    Pairs in different components (no geodesic) count with the largest finite distance."""
    n = W.shape[0]
    sources = np.random.default_rng(seed).choice(n, size=min(n_sources, n), replace=False)
    g = dijkstra(W, directed=False, indices=sources)
    finite = np.isfinite(g)
    g[~finite] = g[finite].max()
    return float(n * np.mean(g**2) / 2.0)


def _check_connectivity(W):
    """A symmetric 0/1 connectivity matrix as CSR with a zero diagonal."""
    W = check_square_sparse(W, "X (connectivity)")
    values = np.unique(W.data)
    if not np.all(np.isin(values, (0.0, 1.0))):
        raise ValueError(f"the connectivity matrix must be binary (0/1), got values such as {values[:5]}")
    if abs(W - W.T).sum() != 0:
        raise ValueError("the connectivity matrix must be symmetric")
    W.setdiag(0)
    W.eliminate_zeros()
    if W.nnz == 0:
        raise ValueError("X (connectivity) has no edges")
    return W
