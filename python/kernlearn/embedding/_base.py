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
leaves room for the fully unfolded data. (The input's own linear-kernel norm, the obvious
alternative, holds a swiss roll at its rolled-up size, which MVE then folds into a disc; with
T^2 it unrolls. Figures: bench/results/embedding.md.) Colored MVU, which does not unfold, keeps
|H X X' H|_F^2. ``B_per_point=m`` instead sets B = m x n in every estimator: the paper's
setting (Section 7.5: "B = m x N, m in {0.1, 1, 2, 10}"), in the input's units like ``B``.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._utils import _solver_choice
from .._utils._certificate import spectrum_certificate
from .._utils._monitor import Monitor, history_arrays
from .._utils._out_of_sample import TrainingNeighbors, reconstruction_rows
from .._utils._param_validation import Interval, StrOptions
from .._utils._scaling import binary_exponent
from .._utils._signs import fix_signs
from .._utils._validation import (
    blas_threads,
    check_int,
    resolve_n_threads,
    validate_X,
    warn_unconverged_eigensolves,
)
from ..constraints import core_csr
from ..graph import knn
from ..linalg import eigsh
from ._helpers import geodesic_trace, inactive_bound_hint, warn_if_disconnected

__all__ = []

_SOLVERS = ("auto", "lanczos", "dense", "mixed")

# The per-iteration record fields shown by verbose and handed to the callback, and those of history_.
MONITOR_FIELDS = ("dual", "primal", ("gap", ".2e"), "matvecs", "rank")
HISTORY_FIELDS = ("dual", "primal", "gap", "step", "matvecs", "rank")

# The parameters every embedding shares; each estimator adds its own.
SADDLE_CONSTRAINTS = {
    "n_components": [Interval(Integral, 1, None)],
    "n_neighbors": [Interval(Integral, 1, None)],
    "C": [Interval(Real, *_core.methods.C_RANGE)],
    "B": [Interval(Real, 0, None, closed="neither"), None],
    "B_per_point": [Interval(Real, 0, None, closed="neither"), None],
    "basis": [Interval(Integral, 1, None), StrOptions({"auto"}), None],
    "rank": [Interval(Integral, 1, None), StrOptions({"auto"})],
    "eigen_solver": [StrOptions(set(_SOLVERS))],
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "random_state": ["random_state"],
    "verbose": ["boolean", Interval(Integral, 0, None)],
    "callback": ["callable", None],
}


def converged(out):
    """Whether a saddle-point solve met its gap."""
    return out.status == _core.core.SolverStatus.converged


def relative_gap(out):
    """The last iterate's duality gap relative to its primal value."""
    last = out.history[-1]
    return float(last.gap / max(abs(last.primal), 1e-300))


def rank_history(out):
    """K's rank per iteration of a solve."""
    return history_arrays(out.history, ("rank",))["rank"]


class _SaddleEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What the three embeddings share: the data-dependent parameter rules, kNN distance pairs,
    the core call, the fitted attributes and the out-of-sample rule.

    New points are placed by LLE's locally linear extension (Saul & Roweis 2003, Section 6.1;
    Bengio et al. 2004): x is reconstructed from its ``n_neighbors`` nearest training points by
    affine weights and its row of the factor is the same combination of theirs
    (``kernlearn._utils._out_of_sample.reconstruction_rows``). The embeddings keep the kNN
    distances (or the kNN graph's order), which is what locally linear weights carry over; a
    point that coincides with a training point gets its row exactly, so
    ``transform(X_train)`` reproduces ``embedding_``."""

    _saddle_progress_level = 1  # verbose=1 shows each saddle-point iteration unless a subclass loops around it

    def _check_common(self, n):
        """The shared rules that tie parameters to n or to each other (the tables check the rest)."""
        check_int(self.n_components, "n_components", low=1, high=n)
        check_int(self.n_neighbors, "n_neighbors", low=1, high=n)
        if not isinstance(self.rank, str):
            check_int(self.rank, "rank", low=self.n_components, high=n)
        if self.basis is None or isinstance(self.basis, str):
            self.basis_ = _solver_choice.embedding_basis(n, self.n_components) if self.basis == "auto" else None
        else:
            check_int(self.basis, "basis", low=self.n_components, high=n)
            self.basis_ = int(self.basis)
        if self.B is not None and self.B_per_point is not None:
            raise ValueError(
                f"{type(self).__name__}: B={self.B!r} and B_per_point={self.B_per_point!r} both set the bound on "
                "tr K^2: give one of them (B_per_point=m means B = m x n_samples)"
            )

    def _explicit_bound(self, n):
        """The bound on tr K^2 the user set (input units): ``B``, or ``B_per_point`` x n (the
        paper's B = m N, Section 7.5); None when both are None (each estimator's own default)."""
        if self.B is not None:
            return float(self.B)
        if self.B_per_point is not None:
            return float(self.B_per_point) * n
        return None

    def _distance_pairs(self, X):
        """The kNN pairs (i < j, each once) and their squared input distances."""
        indices, _ = knn(X, self.n_neighbors, n_jobs=self.n_jobs)
        n = X.shape[0]
        rows = np.repeat(np.arange(n, dtype=np.int64), indices.shape[1])
        first, second = np.minimum(rows, indices.ravel()), np.maximum(rows, indices.ravel())
        # Deduplicated as the codes i n + j (sorted in (i, j) order): a 1-D unique, where
        # np.unique(..., axis=0) sorts rows as structured records, which is slower
        # (figures: bench/results/embedding.md).
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
        methods = _core.methods
        problem = methods.SaddleProblem(
            sparse=core_csr(sp.csr_matrix((n, n)) if sparse is None else sparse),
            shift=float(shift),
            center=True,
            pairs=pairs,
            pattern=methods.PairPattern.distance,
            rows=methods.ConstraintRows(*rows),
            target=np.ascontiguousarray(target, dtype=np.float64),
            rho=float(rho),
            dual_set=methods.DualSet.__members__[dual_set],
            upper=float(upper),
            alpha0=np.ascontiguousarray(alpha0, dtype=np.float64),
        )
        if lowrank is not None:
            problem.lowrank = np.asarray(lowrank, dtype=np.float64)
            problem.lowrank_coef = np.asarray(coef, dtype=np.float64)
        solver = self.eigen_solver
        fraction = _solver_choice.auto_dense_fraction(n)  # 1.0: above the dense limit
        if solver == "auto" and newton and basis is None and n <= _solver_choice.NEWTON_DENSE_MAX_N and fraction < 1.0:
            solver = "dense"
        options = dict(
            B=float(B),
            eigen_solver=methods.SpectralSolver.__members__[solver],
            dense_fraction=fraction,
            max_iter=int(self.max_iter if max_iter is None else max_iter),
            tol=float(self.tol if tol is None else tol),
            newton=newton,
            seed=seed,
        )
        if not isinstance(self.rank, str):
            options["rank"] = int(self.rank)
        inner = self._saddle_progress_level > 1
        monitor = Monitor(
            f"{type(self).__name__} saddle point" if inner else type(self).__name__,
            self.verbose,
            self.callback,
            MONITOR_FIELDS,
            max_iter=options["max_iter"],
            objective="primal",
            certificate="gap",
            level=self._saddle_progress_level,
        )
        n_threads = resolve_n_threads(self.n_jobs)
        with monitor, blas_threads(n_threads):
            out = methods.saddle_point(
                problem,
                methods.SpectralOptions(**options),
                basis=basis,
                callback=monitor.core_callback(),
                n_threads=n_threads,
            )
        warn_unconverged_eigensolves(out, type(self).__name__)
        return out

    def _laplacian_basis(self, W, seed):
        """Section 5.4's fixed basis: the ``basis_`` smoothest non-constant eigenvectors of the kNN
        graph's Laplacian L = D - W (Weinberger et al. 2007's basis for large MVU problems),
        made orthogonal to the constant vector so that centring keeps K = U E U'."""
        if self.basis_ is None:
            return None
        degree = np.asarray(W.sum(axis=1)).ravel()
        shifted = (sp.diags(2.0 * degree.max() - degree) + W).tocsr()  # 2 d_max I - L: top = smoothest
        k = self.basis_ + 1
        if W.shape[0] <= _solver_choice.DENSE_MAX_N:
            V = np.linalg.eigh(shifted.toarray())[1][:, ::-1][:, :k]
        else:
            _, V, _ = eigsh(shifted, k, random_state=seed, n_jobs=self.n_jobs)
        V = V - V.mean(axis=0)  # the constant eigenvector becomes ~0 here and drops out below
        U = np.linalg.svd(V, full_matrices=False)[0][:, : self.basis_]
        return np.ascontiguousarray(U - U.mean(axis=0))

    def _store_kernel(self, out, scale):
        """eigenvalues_, eigenvectors_ and embedding_ in the input's units (K = scale * K')."""
        lam = np.asarray(out.eigenvalues) * scale
        V = fix_signs(np.array(out.eigenvectors))
        self.eigenvalues_, self.eigenvectors_ = lam, V
        d = self.n_components
        emb = np.zeros((V.shape[0], d))
        r = min(d, lam.size)
        emb[:, :r] = V[:, :r] * np.sqrt(lam[:r])
        self.embedding_ = emb
        self.spectrum_certificate_ = spectrum_certificate(out)  # in the solver's units (A of X / 2^e)

    def _warn_unconverged(self, converged, what, ranks=()):
        """ranks: the rank histories of the unconverged saddle-point solves behind ``what``."""
        if not converged:
            warnings.warn(
                f"{type(self).__name__}: {what}{inactive_bound_hint(ranks)}", ConvergenceWarning, stacklevel=3
            )

    def _keep_training(self, X):
        """Store what ``transform`` needs: the training points and a kNN index over them."""
        self._training = TrainingNeighbors(X, self.n_neighbors)

    def _factor(self):
        """F = V sqrt(lambda) over every eigenpair of the learned kernel (K = F F')."""
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    def _extend(self, X, F, name="X"):
        """Rows of F for new points X by the locally linear extension (class docstring); errors
        name the argument X stands for. Where a new point's distances to the training points
        overflow float64 the extension has no finite answer: a ValueError, never NaN."""
        check_is_fitted(self, "eigenvectors_")
        if getattr(self, "_training", None) is None:
            raise ValueError(
                f"{type(self).__name__} was fitted on a precomputed graph: there are no training "
                "features to place new points by, so transform is not available"
            )
        X = validate_X(self, X, reset=False, accept_sparse=sp.issparse(self._training.X), name=name)
        with np.errstate(over="ignore", invalid="ignore"):
            indices, distances = self._training.query(X)
        if not np.isfinite(distances).all():
            raise ValueError(
                f"{name}: the distances of its rows to the training points overflow float64 (max |{name}| = "
                f"{float(abs(X).max()):.3g}): rescale {name} to the training data's units"
            )
        rows = reconstruction_rows(F, self._training.X, X, indices, distances)
        if not np.isfinite(rows).all():
            raise ValueError(f"{name}: the extension of its rows overflows float64: rescale {name}")
        return rows

    def transform(self, X):
        """The embedding of new points X by the locally linear extension (class docstring); on
        the training points it is ``embedding_``.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
            New points, in the features of the training data.

        Returns
        -------
        X_new : ndarray of shape (n_new, n_components)
        """
        check_is_fitted(self, "eigenvectors_")
        return self._extend(X, self.embedding_)

    def kernel(self, X=None, X_other=None, *, dense=False):
        """The learned kernel.

        Without X: the factor F = V sqrt(lambda) of the training points (K = F F'), or with
        ``dense=True`` the n x n matrix. With X: the (n_new, n_train) cross-kernel K(X, X_train),
        or with ``X_other`` the (n_new, n_other) kernel between two sets of new points, each new
        point's factor row given by the locally linear extension."""
        check_is_fitted(self, "eigenvectors_")
        F = self._factor()
        if X is None:
            if X_other is not None:
                raise ValueError("X_other needs X: kernel(X, X_other) is the kernel between two sets of new points")
            return F @ F.T if dense else F
        rows = self._extend(X, F)
        with np.errstate(over="ignore", invalid="ignore"):
            K = rows @ (F if X_other is None else self._extend(X_other, F, "X_other")).T
        if not np.isfinite(K).all():
            raise ValueError("X, X_other: the kernel between their points overflows float64: rescale them")
        return K

    def fit_transform(self, X, y=None, **fit_params):
        """``fit`` and return ``embedding_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            As in ``fit``.
        y : array-like, optional
            As in ``fit`` (required by :class:`ColoredMVU`, ignored by the others).

        Returns
        -------
        embedding : ndarray of shape (n_samples, n_components)
        """
        return self.fit(X, y, **fit_params).embedding_

    @property
    def _n_features_out(self):
        """Columns of ``transform``'s output, for ``get_feature_names_out``."""
        return self.n_components


class _DistancePreserving(_SaddleEmbedding):
    """Colored MVU and MVE: square loss on the kNN distances, alpha free."""

    def _setup(self, X, seed):
        # Everything below runs on X / 2^e with the largest entry near 1 (exact), so squared
        # distances and the bound B (fourth powers) neither overflow nor underflow; the kernel
        # comes back in the input's units through the returned scale.
        exponent = binary_exponent(X)
        X = np.ldexp(X, -exponent)
        pairs, D = self._distance_pairs(X)
        scale = float(D.mean())
        if scale <= 0.0:
            raise ValueError("every kNN distance in X is 0 (duplicate points): nothing to unfold")
        if self._unfolds:  # ColoredMVU's label term ties the components together; MVE has nothing that does
            warn_if_disconnected(pairs, X.shape[0], self.n_neighbors, type(self).__name__)
        with np.errstate(over="ignore", under="ignore"):
            input_scale = float(np.ldexp(scale, 2 * exponent))  # K = input_scale * K' in the input's units
        if not 0.0 < input_scale < np.inf or input_scale < np.finfo(np.float64).tiny:
            raise ValueError(
                f"X's squared distances (mean over the kNN pairs 2^{2 * exponent} x {scale:.3g}) are beyond "
                "float64's normal range, and so would be the kernel: rescale X"
            )
        n = X.shape[0]
        explicit = self._explicit_bound(n)  # B, or B_per_point x n
        W = None  # the kNN graph, weighted by distance: only the geodesic bound and the basis use it
        if (explicit is None and self._unfolds) or self.basis_ is not None:
            W = sp.coo_matrix((np.sqrt(D), (pairs[:, 0], pairs[:, 1])), shape=(n, n)).tocsr()
            W = W + W.T
        # B is a bound on |K|_F^2: fourth powers of the input's units, 2^(4e) of the scaled ones.
        if explicit is not None:
            B = float(np.ldexp(explicit, -4 * exponent))
        elif self._unfolds:  # MVE: room for the unrolled data
            B = geodesic_trace(W, seed) ** 2
        else:  # colored MVU: the input's own centred linear kernel (the geodesic bound made its
            Xc = X - X.mean(axis=0)  # dual crawl: bench/results/embedding.md)
            B = float(np.linalg.norm(Xc.T @ Xc) ** 2)
        with np.errstate(over="ignore"):
            self.B_ = explicit if explicit is not None else float(np.ldexp(B, 4 * exponent))
        m = len(pairs)
        rows = (np.arange(m + 1, dtype=np.int64), np.arange(m, dtype=np.int64), np.ones(m))
        basis = None if self.basis_ is None else self._laplacian_basis((W > 0).astype(np.float64), seed)
        return dict(
            pairs=pairs,
            rows=rows,
            target=D / scale,
            rho=1.0 / self.C,
            dual_set="free",
            upper=0.0,
            B=B / scale**2,
            basis=basis,
        ), input_scale

    def _loss(self, out, problem):
        """(C/2) sum (D - d)^2 in units of Dbar at the returned K."""
        return 0.5 * self.C * float(np.sum((problem["target"] - out.constraint_values) ** 2))
