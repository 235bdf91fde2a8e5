"""Colored MVU (Song et al. 2008; eq. 31). With Y the label kernel,

    min_K  -tr(H Y H K) + (C/2) sum_(i,j) (D_ij - d_ij)^2          (units of Dbar)

The Lagrangian with alpha_ij for d_ij = D_ij - xi_ij and xi eliminated (xi = alpha / C) gives
A = HYH + sum alpha_ij T_ij, w = D, rho = 1/C, alpha free, gradient D_ij - d_ij - alpha_ij / C.
HYH is kept as Q diag(s^2) Q' from the thin SVD of H Phi (Y = Phi Phi'), never n x n, and is
scaled to spectral norm 1 so that C means the same as in MVE.
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._utils import _solver_choice
from .._utils._monitor import history_arrays
from .._utils._param_validation import StrOptions, validate_params
from .._utils._validation import as_label_array, check_data, check_random_state, naming, validate_X
from ._base import HISTORY_FIELDS, SADDLE_CONSTRAINTS, _DistancePreserving, converged, rank_history

__all__ = ["ColoredMVU"]


class ColoredMVU(_DistancePreserving):
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
        Bound on tr K^2 (input units); None: the squared norm ``|H X X' H|_F^2`` of the input's centred
        linear kernel, which matches every distance (MVE's default is the geodesic bound instead).
    B_per_point : float or None
        m > 0: B = m x n_samples, the paper's setting (Section 7.5: m in {0.1, 1, 2, 10}), in the
        input's units like B; give B or B_per_point, not both.
    label_kernel : {"delta", "linear", "precomputed"}
        How ``y`` becomes Y: ``"delta"`` Y_ij = [y_i == y_j] (one-hot; classes; -1 marks an
        unlabelled point, whose row and column of Y are zero, as in scikit-learn's
        semi-supervised estimators), ``"linear"``
        Y = y y' (y of shape (n,) or (n, q), real), ``"precomputed"`` y is the n x n psd Y.
    basis : "auto", None or int, default "auto"
        None: the exact problem. An int r: K = U E U' on the r smoothest non-constant eigenvectors
        U of the kNN graph's Laplacian (Section 5.4; Weinberger et al. 2007): every iteration is
        an r x r eigenproblem, so this is the option for large n. The duality gap (``history_``)
        then certifies the restricted problem, not the exact one. "auto": exact up to
        %(EMBEDDING_EXACT_MAX_N)d points, r = %(EMBEDDING_BASIS_SIZE)d above (at least
        n_components); what the restriction costs where both run, and the time and memory it
        saves: bench/results/scale.md.
    rank : "auto" or int
        All positive eigenpairs of A per iteration (exact), or the top ``rank`` only.
    eigen_solver : {"auto", "lanczos", "dense", "mixed"}
        As in :class:`kernlearn.npkl.SimpleNPKL` (mixed precision: single-precision reduction,
        double-precision refinement). Above %(DENSE_LIMIT_N)d points "auto" keeps to Lanczos: an
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
    basis_ : the basis size used (None: the exact problem)
    B_ : the bound on tr K^2 used (input units; inf where that exceeds float64, ``|X|`` beyond
        about 1e77: the solver works on X / 2^e and is unaffected)
    dual_coef_ : alpha, one per kNN pair
    pairs_ : the kNN pairs
    n_iter_, converged_, history_ : as in SimpleNPKL (dual, primal, gap, step, matvecs, rank)
    spectrum_certificate_ : as in SimpleNPKL, of the last saddle-point solve (in the solver's
        units: A of the rescaled data)

    Examples
    --------
    A 2-D embedding of the 13 wine features that keeps the kNN distances and is coloured by the
    cultivar, then 1-NN classification in it:

    >>> import numpy as np
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.datasets import load_wine
    >>> from kernlearn.embedding import ColoredMVU
    >>> X, y = load_wine(return_X_y=True)
    >>> test = np.random.RandomState(0).rand(len(y)) < 0.2  # hold out about a fifth
    >>> model = make_pipeline(StandardScaler(), ColoredMVU(2, random_state=0), KNeighborsClassifier(1))
    >>> model = model.fit(X[~test], y[~test])
    >>> cmvu = model[1]
    >>> cmvu.embedding_.shape, cmvu.converged_
    ((141, 2), True)
    >>> model[:2].transform(X[test]).shape  # new points, by the locally linear extension
    (37, 2)
    >>> round(model.score(X[test], y[test]), 2)
    0.97
    """

    _unfolds = False
    _parameter_constraints = {
        **SADDLE_CONSTRAINTS,
        "label_kernel": [StrOptions({"delta", "linear", "precomputed"})],
    }

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=5,
        C=1.0,
        B=None,
        B_per_point=None,
        label_kernel="delta",
        basis="auto",
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
        self.B_per_point = B_per_point
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
        """Learn the kernel and the embedding of X, coloured by y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), (n_samples, q) or (n_samples, n_samples)
            Class labels (``label_kernel="delta"``), real label vectors (``"linear"``) or the
            label kernel Y itself (``"precomputed"``).

        Returns
        -------
        self : ColoredMVU
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        X = validate_X(self, X, min_samples=3)
        n = X.shape[0]
        self._check_common(n)
        U, s2 = self._label_factor(y, n)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        problem, scale = self._setup(X, seed)
        out = self._solve(n, lowrank=U, coef=s2, alpha0=np.zeros(len(problem["pairs"])), seed=seed, **problem)
        self._store_kernel(out, scale)
        self._keep_training(X)
        self.dual_coef_ = np.array(out.alpha)
        self.pairs_ = problem["pairs"]
        self.n_iter_, self.converged_ = int(out.n_iter), converged(out)
        self.history_ = history_arrays(out.history, HISTORY_FIELDS)
        self._warn_unconverged(
            self.converged_, f"duality gap above tol after {self.n_iter_} iterations", [rank_history(out)]
        )
        return self

    def _label_factor(self, y, n):
        """HYH = U diag(s2) U' (U orthonormal), scaled to spectral norm 1."""
        if y is None:
            raise ValueError("ColoredMVU.fit needs y (labels, label vectors, or a label kernel)")
        if self.label_kernel == "delta":
            y = as_label_array(y, "y")
            if y.ndim != 1 or y.shape[0] != n:
                raise ValueError(f"y must be 1-D with one label per sample ({n}), got shape {y.shape}")
            if y.dtype.kind == "c":
                raise ValueError("y must hold class labels, got complex values")
            if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
                raise ValueError("y contains NaN or infinity")
            with naming("y"):
                check_classification_targets(y)  # class labels: continuous values are errors
            # -1 marks an unlabelled point (scikit-learn's semi-supervised convention, as in every
            # other estimator here): its row of Phi is zero, so it carries no colour.
            labelled = ~((y == -1) if y.dtype.kind in "iuf" else np.zeros(n, dtype=bool))
            if not labelled.any():
                raise ValueError("y: every point is unlabelled (-1): nothing to color by")
            classes, codes = np.unique(y[labelled], return_inverse=True)
            Phi = np.zeros((n, classes.size))
            Phi[np.flatnonzero(labelled), codes] = 1.0
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
            raise ValueError("y: the label kernel is constant after centring (one class only?): nothing to color by")
        s2 = s[keep] ** 2
        return np.ascontiguousarray(U[:, keep]), s2 / s2.max()


if ColoredMVU.__doc__:  # None under python -OO
    ColoredMVU.__doc__ = ColoredMVU.__doc__ % {
        "DENSE_LIMIT_N": _solver_choice.DENSE_LIMIT_N,
        "EMBEDDING_EXACT_MAX_N": _solver_choice.EMBEDDING_EXACT_MAX_N,
        "EMBEDDING_BASIS_SIZE": _solver_choice.EMBEDDING_BASIS_SIZE,
    }
