"""KDAC alternative clustering solved by the iterative spectral method (ISM).

Wu, Ioannidis, Sznaier, Li, Kaeli & Dy, "Iterative Spectral Method for Alternative Clustering",
AISTATS 2018, for the KDAC objective of Niu, Dy & Jordan (TPAMI 2014). The whole W/D/U alternation
runs in C++ (``cpp/src/kdac.cpp``, ``cpp/src/hsic.cpp``); Python validates, resolves sigma,
runs k-means on the embedding and scores novelty.
"""

import numbers
import warnings

import numpy as np
import scipy.linalg
from scipy.spatial.distance import pdist
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .. import _core
from .._utils import _solver_choice
from .._utils._labels import encode_labels
from .._utils._monitor import Monitor, history_arrays
from .._utils._nystrom import NystromMap
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._scaling import binary_exponent
from .._utils._validation import as_real_array, check_random_state, resolve_n_threads, validate_X
from ..evaluation import nmi

__all__ = ["KDAC", "median_sigma"]

# Points used for sigma="median" (all pairs of a random subset; exact below this size).
MEDIAN_MAX_POINTS = 2000

# Rows of new points per block of the cross-kernel in predict (a block is _BLOCK_ROWS x n_train).
_BLOCK_ROWS = 1024


def median_sigma(X, *, factor=0.5, max_points=MEDIAN_MAX_POINTS, random_state=None):
    """``factor`` x the median Euclidean distance between distinct rows of X.

    ``factor = 0.5`` reproduces the paper's sigma on the standardised faces (bench/results/kdac.md).
    Above ``max_points`` rows the median is taken over all pairs of a random subset of that size.

    Examples
    --------
    >>> from kernlearn.cluster import median_sigma
    >>> from kernlearn.datasets import load_iris
    >>> X = load_iris().data
    >>> round(median_sigma(X), 3)  # KDAC's sigma="median"
    1.18
    >>> round(median_sigma(X, factor=1.0), 3)  # the median distance itself
    2.36
    >>> round(median_sigma(X, max_points=100, random_state=0), 3)  # from 100 of the 150 rows
    1.053
    """
    validate_params(
        _MEDIAN_SIGMA_PARAMETERS,
        {"factor": factor, "max_points": max_points, "random_state": random_state},
        "median_sigma",
    )
    X = as_real_array(X, "X", ensure_min_samples=2)
    if X.shape[0] > max_points:
        rows = check_random_state(random_state).choice(X.shape[0], max_points, replace=False)
        X = X[np.sort(rows)]
    # Distances of X / 2^e, scaled back: exact, and finite for any finite X whose distances are.
    exponent = binary_exponent(X)
    dist = pdist(np.ldexp(X, -exponent))
    med = float(np.ldexp(np.median(dist), exponent)) if dist.size else 0.0
    if not med > 0.0:
        raise ValueError("sigma='median' needs at least two distinct rows in X (the median distance is 0)")
    sigma = factor * med
    if not np.isfinite(sigma):
        raise ValueError(f"median_sigma: factor x the median distance of X overflows ({factor} x {med})")
    return sigma


def _data_sigma(X, rng):
    """sigma="median" for a fit: median_sigma, refused by name when it leaves the Gaussian kernel's
    range, the core's SIGMA_RANGE (sigma^2 and 1 / sigma^2 finite), which X near 1e±300 makes it do."""
    sigma = median_sigma(X, random_state=rng)
    low, high = _core.kernels.SIGMA_RANGE
    if not low <= sigma <= high:
        raise ValueError(
            f"sigma='median' is {sigma:.3g} for this X, outside [{low:g}, {high:g}] where the Gaussian kernel's "
            "sigma^2 and 1 / sigma^2 are finite: rescale X or give sigma"
        )
    return sigma


_MEDIAN_SIGMA_PARAMETERS = {
    "factor": [Interval(numbers.Real, 0, None, closed="neither")],
    "max_points": [Interval(numbers.Integral, 2, None)],
    "random_state": ["random_state"],
}


def _existing_clusterings(y, n_samples):
    """y -> (list of integer label arrays, stacked one-hot n x k_y float64 array)."""
    if y is None:
        raise ValueError(
            "KDAC requires y to be passed, but the target y is None: y is the existing clustering the "
            "new one must be novel against"
        )
    if (
        isinstance(y, (list, tuple))
        and len(y) > 0
        and all(np.ndim(v) == 1 for v in y)
        and np.ndim(y[0]) == 1
        and not all(np.isscalar(v) for v in y)
    ):
        views = [np.asarray(v) for v in y]
    else:
        arr = np.asarray(y)
        if arr.ndim == 1:
            views = [arr]
        elif arr.ndim == 2:
            views = [arr[:, j] for j in range(arr.shape[1])]
        else:
            raise ValueError(
                "y must be labels of shape (n_samples,), (n_samples, n_existing) or a list of such; "
                f"got shape {arr.shape}"
            )
    labels, blocks = [], []
    for i, v in enumerate(views):
        name = "y" if len(views) == 1 else f"y[{i}]"
        if v.shape[0] != n_samples:
            raise ValueError(f"{name} has {v.shape[0]} labels but X has {n_samples} samples")
        classes, inverse = encode_labels(v, n_samples, semi_supervised=False, name=name, min_classes=1)
        n_groups = classes.size
        if n_groups < 2:
            raise ValueError(f"{name} has a single cluster: there is no existing structure to be novel against")
        labels.append(inverse)
        blocks.append(np.eye(n_groups)[inverse])
    return labels, np.ascontiguousarray(np.hstack(blocks))


# Singular values of X'HY below this fraction of the largest count as zero in residual_dimension
# (a centred one-hot block has an exact null vector, met only up to rounding).
_RANK_RTOL = 1e-8


def residual_dimension(X, Y):
    """q of ``n_components="residual"``: d minus the number of directions that separate the means
    of the existing clusters, max(1, d - rank(X'HY)) for the n x k_y indicators Y (H centres).

    The span of X'HY is the span of the existing clusters' centred means, the directions the
    orthogonal projection of Cui, Fern & Dy (2007) removes; what is left is the room an
    alternative clustering has. O(n d k_y), no kernel.
    """
    Xc = X - X.mean(axis=0)
    Yc = Y - Y.mean(axis=0)
    singular = np.linalg.svd(Xc.T @ Yc, compute_uv=False)
    rank = int(np.count_nonzero(singular > _RANK_RTOL * singular[0])) if singular.size and singular[0] > 0 else 0
    return max(1, X.shape[1] - rank)


def _grid(values, name, *, positive):
    """A search grid as a list of floats ([] when None), checked (ValueError naming it)."""
    if values is None:
        return []
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers, got {values!r}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers, got {values!r}")
    low, high = _core.kernels.SIGMA_RANGE if positive else (0.0, np.inf)
    ok = np.isfinite(arr) & (arr > low if positive else arr >= low) & (arr < high)
    if not ok.all():
        what = f"in ({low:g}, {high:g})" if positive else "finite and >= 0"
        raise ValueError(f"{name} must hold numbers {what}, got {values!r}")
    return [float(v) for v in arr]


def _condition(out):
    """Inequality (10) at a core result: its two sides and whether it holds."""
    return {"holds": bool(out.sigma_lhs >= out.sigma_rhs), "lhs": float(out.sigma_lhs), "rhs": float(out.sigma_rhs)}


def _ratio(cond):
    """lhs / rhs of (10): >= 1 when it holds; how close a pair comes when it does not."""
    return cond["lhs"] / cond["rhs"] if cond["rhs"] > 0 else (np.inf if cond["lhs"] >= 0 else -np.inf)


def _view_summary(fit):
    """views_[v]: what one alternative view's fit chose and reached."""
    out = fit["out"]
    return {
        "labels": fit["labels"],
        "projection": out.W,
        "sigma": fit["sigma"],
        "lambda_": fit["lambda_"],
        "lambda_effective": float(out.lambda_effective),
        "n_components": int(out.q),
        "quality": float(out.quality),
        "cost": float(out.cost),
        "novelty": fit["novelty"],
        "sigma_condition": _condition(out),
        "converged": out.status == _core.core.SolverStatus.converged,
        "n_components_search": fit["n_components_search"],
        "search_best_params": fit["search_best_params"],
    }


# The default (sigma, lambda) grid of search="inequality". The paper searches (0, 10] x (0, 10] in
# steps of 0.01 (10^6 fits) in absolute units on standardised data; ours is 6 x 3 = 18 fits, sigma
# relative to the data's scale (these factors times sigma="median", i.e. 1/8 to 4 x the median
# distance), because a sigma far below the data's scale costs minutes per fit (faces at 0.1) and
# because the fallback rule ends at the grid's largest sigma anyway (bench/results/kdac_search.md).
SIGMA_GRID_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
LAMBDA_GRID = (0.1, 1.0, 10.0)

# The low-rank paths' defaults (approximation="nystrom" or "rff", "auto" taking "nystrom" above
# _solver_choice.KDAC_EXACT_MAX_N points): the Nystrom landmarks, and the random Fourier
# frequencies of "rff"'s Phi(W). Figures (NMI against the exact fit, time): bench/results/kdac_scale.md.
N_RANDOM_FEATURES = 256
N_LANDMARKS = 300

# ISM's Anderson depth when ism_acceleration is on (past residual differences used).
ANDERSON_DEPTH = 3

# The record fields the callback's info dict and the verbose line show, and those of history_.
_RECORD_FIELDS = [
    ("cost", ".6e"),
    ("quality", ".4f"),
    ("hsic_y", ".4f"),
    ("dist_w", ".2e"),
    ("dist_u", ".2e"),
    ("ism_iter", "d"),
    ("ism_cycled", ""),
    ("ism_damped", "d"),
]
_HISTORY_FIELDS = ("cost", "quality", "hsic_y", "dist_w", "dist_u", "ism_iter", "matvecs", "ism_cycled", "ism_damped")


class _NystromExtension:
    """The low-rank fit's kernel for the out-of-sample extension: the Nystrom kernel of the core
    (``cpp/include/kernlearn/kernels/hsic_lowrank.hpp``) on the training projections Z (n x q)
    and landmark rows L, K ~ C K_LL^+ C' with C = K(Z, Z_L), plus diag(1 - (C K_LL^+ C')_ii) on
    the training points. A new point x has the row k(x, Z_L) K_LL^+ C' (no diagonal term: it is
    none of the training points), so each costs O(M q)."""

    def __init__(self, Z, landmarks, sigma, n_threads):
        self._kernel = _core.kernels.PairwiseKernel(kind=_core.kernels.PairwiseKind.rbf, gamma=0.5 / sigma**2)
        self._n_threads = n_threads
        self._Z = Z
        self._ZL = np.ascontiguousarray(Z[landmarks])
        # K_LL^+ = R R' (the Gaussian K_LL is PSD: every kept eigenvalue is positive).
        self._R = NystromMap(lambda A, B: self._cross(A), self._ZL).projection

    def _cross(self, Z):
        return _core.kernels.pairwise_kernel(
            np.ascontiguousarray(Z), self._ZL, kernel=self._kernel, n_threads=self._n_threads
        )

    def _blocks(self, Z):
        for start in range(0, Z.shape[0], _BLOCK_ROWS * 16):
            rows = slice(start, min(start + _BLOCK_ROWS * 16, Z.shape[0]))
            yield rows, self._cross(Z[rows])

    def train_times(self, V):
        """K V on the training points (V: n x k), with the diagonal term; keeps R R' C' V and
        R R' C' 1 for the extension."""
        CtV = np.zeros((self._R.shape[0], V.shape[1]))
        Ct1 = np.zeros(self._R.shape[0])
        correction = np.empty(self._Z.shape[0])
        for rows, C in self._blocks(self._Z):
            CtV += C.T @ V[rows]
            Ct1 += C.sum(axis=0)
            correction[rows] = np.maximum(1.0 - np.square(C @ self._R).sum(axis=1), 0.0)
        self._CtV = self._R @ (self._R.T @ CtV)
        self._degree_coef = self._R @ (self._R.T @ Ct1)
        out = np.empty_like(V)
        for rows, C in self._blocks(self._Z):
            out[rows] = C @ self._CtV + correction[rows, None] * V[rows]
        return out

    def set_coefficients(self, M_inv):
        """The extension's V is (D^-1/2 U) M^+: R R' C' of it, from train_times' product."""
        self._coef = self._CtV @ M_inv

    def new_times(self, Z, n_threads):
        """d(x)^-1/2 K(x, X) (D^-1/2 U M^+) for the rows of Z (0 where d(x) <= 0)."""
        out = np.empty((Z.shape[0], self._coef.shape[1]))
        for rows, C in self._blocks(Z):
            degree = C @ self._degree_coef
            scale = np.zeros_like(degree)
            np.divide(1.0, np.sqrt(np.maximum(degree, 0.0)), out=scale, where=degree > 0)
            out[rows] = scale[:, None] * (C @ self._coef)
        return out


class KDAC(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):
    """Kernel Dimension Alternative Clustering, solved by the iterative spectral method (ISM).

    Given data X and an existing clustering y, finds an orthonormal projection W (d x q) and a
    spectral embedding U (n x k) maximising (eq. 2 of Wu et al. 2018)

        HSIC(XW, U) - lambda HSIC(XW, Y),   W'W = I, U'U = I,

    with HSIC(XW, U) = Tr(D^-1/2 K D^-1/2 H U U' H) for the Gaussian kernel K of XW, its degree
    matrix D and the centring H (the paper's 1/(n-1)^2 is dropped, as in its Table 1), then labels the
    rows of U by k-means. The alternation (Algorithm 1) runs in C++: W by ISM (Algorithm 2, the q
    smallest eigenvectors of the d x d Phi(W) of eq. 8, assembled by streaming row blocks: no
    n x n array), D from the new kernel, U as the top-k eigenvectors of H D^-1/2 K D^-1/2 H (Lanczos
    on the explicit matrix up to the core's ``KdacOptions().dense_max_n`` points, float32 storage
    above a smaller size; matrix-free beyond, O(n) memory; the thresholds and the measurements
    behind them: ``cpp/include/kernlearn/core/solver_choice.hpp``, ``bench/results/kdac.md``).

    Parameters
    ----------
    n_clusters : int, default 2
        k, the number of alternative clusters (and columns of U).
    n_components : int, "residual", "init-gap" or "auto", default "residual"
        q, the dimension of the subspace. "residual" (the default since issue 47): q = d minus the
        number of directions separating the means of the existing clusters,
        max(1, d - rank(X'HY)) (``residual_dimension`` in this module), the room left for an
        alternative once the given clustering's discriminant directions are out; known before the alternation
        starts, so it costs one fit (O(n d k_y) on top). On the paper's four Table 1 sets it is
        the appendix's q (17, 3, 6, 3); on the penguins (species given, sex hidden) it keeps 2 of
        4 dimensions where "init-gap" kept 3: NMI with the sex 0.49 against 0.33 (orthogonal
        projection + KMeans: 0.47), and on the crabs it keeps 4 of 5 as "init-gap" did (0.58;
        bench/results/kdac_defaults.md, which also has q = 1 .. d fixed). With ``n_views`` > 1
        each view's q also leaves out the directions of the views before it. "init-gap" (the
        default until issue 47): q at the largest gap between consecutive eigenvalues of the
        spectral-initialisation matrix Phi_0 (eq. 12), also one fit (with ``init="random"`` it
        means q = min(n_clusters, d)); Phi_0 has rank at most k + k_y, so its largest gap falls
        among the novelty term's eigenvalues and q depends on how those spread (3 of 4 on the
        penguins). "auto" is the paper's rule (Section 4, "Hyperparameter tuning"): fit at
        q = min(n_clusters, d); if inequality (10) fails at the result W*, move q to the largest
        gap (11) between consecutive eigenvalues of Phi(W*) and fit again
        (``n_components_search_`` records both steps). (10) almost always fails, so "auto" costs
        two fits, and the first, at q = k, is the slow one: it often runs all ``max_iter``
        iterations (Faces: 10.2 s against 0.2 s; bench/results/kdac_search.md and
        bench/results/kdac_scale.md).
    sigma : float or "median", default "median"
        Bandwidth of the Gaussian kernel ``exp(-|W'(x_i - x_j)|^2 / (2 sigma^2))``. "median" is 0.5 x
        the median pairwise distance of X (see :func:`median_sigma`): a default of ours, not the
        paper's (the paper tunes sigma, see ``search``); the factor 0.5 reproduces the paper's
        sigma on the standardised faces. sigma is absolute: the paper standardised faces and moons
        first (StandardScaler), so do the same to reproduce it.
    lambda_ : float, default 100.0
        Weight of the novelty term (>= 0), relative by default (``lambda_scale``): 100 weighs
        lambda HSIC(X, Y) a hundred times HSIC(X, U_0) at the start (the given clustering is
        largely what U_0 finds, so a large weight is needed to leave it). Measured on the
        development sets (bench/results/kdac_defaults.md): at 0.1 the fit returns the given
        clustering on the penguins and on four of the paper's six sets; the crabs' alternative
        appears from about 10 on (NMI 0.00 at 1, 0.58 at 10 to 1,000); above about 100 the
        labels stop changing. 100 rather than 10 because at 10 Faces lost 0.005 NMI (0.560
        against 0.565) while the penguins gained 0.03 (0.52 against 0.49, both above the
        orthogonal projection's 0.47); the former default's NMI is kept on every paper set.
    lambda_scale : {"relative", "absolute"}, default "relative"
        How ``lambda_`` is read. "relative" (the default since issue 47): the weight used is
        ``lambda_`` x HSIC(X, U_0) / HSIC(X, Y), the two terms of (2a) in the full space (W = I)
        where the starting embedding U_0 is found (``lambda_effective_`` records it; 1 x
        ``lambda_`` if either term is 0). "absolute": ``lambda_`` as is, the paper's scale. The
        paper's Y is 0/1, so HSIC(XW, Y) is of order n / k_y times HSIC(XW, U) (U has unit
        columns): on its scale the novelty term outweighs the clustering term 9- to 280-fold
        already at lambda = 1 (HSIC(X, U_0) / HSIC(X, Y) = 0.0036 to 0.11 on the development
        sets, bench/results/kdac_defaults.md), and lambda from 0.1 to 1,000 changed no label on
        the penguins. Use "absolute" to reproduce the paper's Table 1 settings
        (bench/suite_kdac.py does).
    search : None or "inequality", default None
        "inequality": the paper's hyperparameter search (Section 4): fit every (sigma, lambda) of
        ``sigma_grid`` x ``lambda_grid`` at q = n_clusters (or the given ``n_components``) and
        keep the pair with the highest CQ = HSIC(XW, U) among those satisfying inequality (10);
        if no pair does, the pair closest to satisfying it (the largest lhs / rhs, CQ breaking
        ties: our reading of "the highest CQ closest to satisfying (10)"). ``sigma`` and
        ``lambda_`` are then not used; the chosen pair is ``search_best_params_``, every pair's
        figures ``search_results_``. Measured on the four Table 1 data sets (bench/results/
        kdac_search.md): (10) held at no grid point (lhs / rhs at most 0.03 to 0.26), lhs / rhs
        grows with sigma, so the fallback always took the grid's largest sigma; that kept the
        alternative on LG (NMI 1) and Faces (0.56) but lost it on Moon and MoonN (NMI 0.31,
        0.32, against 1.0 at the paper's published pairs), at 18 fits per search (16 minutes
        on Faces). So it is an option, not the default.
    sigma_grid, lambda_grid : sequence of float or None, default None
        The grids of ``search="inequality"`` (ignored otherwise); sigmas are absolute. None, our
        coarse default: sigma = (0.25, 0.5, 1, 2, 4, 8) x the "median" sigma (1/8 to 4 x the
        median distance), lambda = (0.1, 1, 10) (read on the scale of ``lambda_scale``; not
        re-measured since it became relative), 18 fits. The paper's grid is (0, 10] x (0, 10]
        in absolute steps of 0.01 on standardised data, 10^6 fits.
    n_views : int, default 1
        How many alternative clusterings to find in sequence. View v (from 0) is fitted with the
        existing clustering(s) y and the labels of views 0 .. v-1 all as the clusterings to be
        novel against (Notes, "Several views"); each view runs the whole procedure (search,
        q rule). ``labels_`` and every single-view attribute describe view 0.
    init : {"spectral", "random"}, default "spectral"
        "spectral": W_0 from eq. (12), the top-q eigenvectors of X'H(U_0 U_0' - lambda YY')HX;
        "random": a random orthonormal W_0 drawn from ``random_state``.
    max_iter : int, default 100
        Outer (W, D, U) iterations.
    ism_max_iter : int, default 30
        ISM iterations per W-step (each W-step is also solved only as accurately as the outer loop
        is moving, see Notes). A W-step cut short is a damped step, which matters: on the Moon
        data (sigma = 0.1) ISM converges slowly (linearly), and W-steps each run to tol sent the
        alternation into a period-2 cycle, while the default converges (bench/results/kdac.md).
    ism_acceleration : bool, default False
        Anderson-accelerate each W-step (on the projectors WW', depth 3), used only while the
        fixed-point residual shrinks, so the fixed points and the 2-cycle handling are those of
        Algorithm 2. It solves one W-step to tolerance in far fewer Phi evaluations, and can
        turn a W-step's 2-cycle into a fixed point, but inside the alternation it changes the
        path: on Moon (SI) it took more outer iterations, and from random starts it converged
        less often (bench/results/kdac.md), so it is off by default.
    tol : float, default 1e-6
        Convergence when the projection distance ``|WW' - W_oW_o'|_F / sqrt 2`` (and the same for U)
        between iterations is <= tol. Subspaces, not raw eigenvector matrices, are compared: signs
        and the order within a degenerate eigenspace are arbitrary.
    normalize_rows : bool, default True
        Scale the rows of U to unit length before k-means (as the authors do; on the faces NMI
        drops without it: bench/results/kdac.md).
    approximation : {"auto", "exact", "nystrom", "rff"}, default "auto"
        How the kernel sums are computed. "exact": every Phi(W) streams all n^2 pairs, O(n^2 d)
        (memory O(n), and an explicit n x n U-step matrix up to the core's ``dense_max_n``).
        "nystrom": Phi(W), the degrees and the U-step from the Nystrom kernel
        C K_LL^+ C' on ``n_landmarks`` points drawn at random (C = K(XW, X_L W)): O(n M (q + d m))
        per Phi (m = n_clusters + the existing clusters), O(n M) per U-step product, no n x n
        array anywhere (Notes, "Low-rank paths"). "rff": the same, but Phi(W) from
        ``n_random_features`` random Fourier features instead (measured far less accurate:
        Notes). "auto": exact up to ``kernlearn._utils._solver_choice.KDAC_EXACT_MAX_N`` = 2,000
        points (faster there: 1.1-2.0 s against 2.5-3.2 s at 2,000; at 3,000 the Nystrom
        path took 4.1 s against 15 s), "nystrom" above
        (bench/results/kdac_scale.md). ``approximation_`` records the path taken.
        ``backend="dask"`` computes exact sums only.
    n_random_features : int, default 256
        F, the random Fourier frequencies of Phi(W) with ``approximation="rff"`` (each gives a
        cosine and a sine feature); the error of each kernel entry shrinks like 1 / sqrt(F).
    n_landmarks : int, default 300
        M, the Nystrom landmarks of the low-rank paths (at most n_samples when one is taken).
    random_state : int, RandomState or None
        Seeds the Lanczos start, random init, sigma's subsample and k-means.
    n_jobs : int or None
        Threads of the C++ core.
    backend : {"local", "dask"}, default "local"
        Where the alternation's kernel sums run. "local": the whole alternation in the C++ core, in
        this process. "dask": on a Dask cluster (the optional extra ``kernlearn[dask]``): X is
        sent to the workers once in row blocks, every Phi(W), degree vector and kernel product
        of the alternation runs as one task per pair of row blocks (I, J >= I), and only d x d
        matrices and n x k blocks come back. The alternation itself is the core's, the same C++
        loop as "local" (it calls the cluster's sums back, ``kernlearn/distributed/_hsic.py``),
        so the W/D/U steps, ISM with ``ism_acceleration``, the convergence and cycle tests and
        every attribute are those of "local". One difference: the U-step is Lanczos on the
        matrix-free operator from 200 points on (the core uses an explicit matrix below
        ``KdacOptions().dense_max_n`` points), so a fit agrees with "local" to the
        eigensolver's tolerance rather than bitwise, and ``used_dense_`` is False. The
        out-of-sample coefficients are computed on the cluster too.
    client : distributed.Client or None, default None
        With ``backend="dask"``: where the tasks run; None is the current default client, or
        Dask's local threaded scheduler when there is none.
    block_size : int or None, default None
        With ``backend="dask"``: rows per block of X; None is about four blocks per worker thread
        (from 2048 to 16384 rows each).
    verbose : int, default 0
        Print one line per outer iteration.
    callback : callable, optional
        Called after each outer iteration with a dict (iteration, cost, quality, hsic_y, dist_w,
        dist_u, ism_iter, ism_cycled, ism_damped); returning True stops that run. Every run is
        reported: each search candidate, the refit of ``n_components="auto"`` and each view.

    Attributes
    ----------
    labels_ : ndarray (n,)
    cluster_centers_ : ndarray (k, k)
        The k-means centres in the space k-means ran in (the rows of U, unit-normalised when
        ``normalize_rows``); :meth:`predict` assigns new points to the nearest.
    projection_ : ndarray (d, q), W
    embedding_ : ndarray (n, k), U (unnormalised eigenvectors)
    embedding_eigenvalues_ : ndarray (k,)
        diag(U'QU), the eigenvalues of Q = H D^-1/2 K D^-1/2 H belonging to U (their sum is
        ``quality_``), recomputed in double precision for the out-of-sample extension.
    nystrom_residual_ : float
        ``max |u(x_i) - U_i| / max |U|`` over the training points, u the out-of-sample extension: how
        exactly :meth:`extend_embedding` reproduces ``embedding_``: the U-step's eigensolver
        accuracy (measured: 1e-14 with the dense eigensolver, n <= 200; 3e-12 with Lanczos at
        n = 600; 3e-9 at n = 5000, where the U-step stores the kernel in float32).
    approximation_ : str, "exact", "nystrom" or "rff", the path the fit took (``approximation``)
    n_features_in_ : int, d
    feature_names_in_ : ndarray of str, when X was a DataFrame with string column names
    quality_ : float, HSIC(XW, U) = Tr(U'QU)
    cost_ : float
        The objective (2a) actually optimised at the returned (W, U): HSIC(XW, U) - lambda
        HSIC(XW, Y), Y the existing clustering(s) only, lambda = ``lambda_effective_``. (The
        paper's Table 1 "Cost" was computed after k-means had appended the new labels to Y; it is
        not this number.)
    lambda_effective_ : float
        The novelty weight used: ``lambda_`` x HSIC(X, U_0) / HSIC(X, Y) with
        ``lambda_scale="relative"``, ``lambda_`` with "absolute".
    novelty_ : ndarray (n_existing,)
        NMI (geometric-mean normalisation, as in the paper) between ``labels_`` and each existing
        clustering: 0 is fully novel.
    sigma_ : float, the bandwidth used
    n_components_ : int, q
    eigengap_ : float
        Eq. (11) at the end: the (q+1)-th minus the q-th smallest eigenvalue of Phi(W*) (NaN if q = d).
    sigma_condition_ : dict
        Inequality (10) at the end: ``lhs`` = sigma^2 x eigengap,
        ``rhs = sum_ij |gamma_ij| K_ij |x_i - x_j|^4 / sigma^2``, ``holds`` = lhs >= rhs (a
        sufficient condition for W* to satisfy the second-order necessary conditions; it rarely
        holds at practical sigma).
    fixed_point_residual_ : float
        ``|Phi(W)W - W W'Phi(W)W|_F / |Phi|_F`` with the final gamma (Lemma 2: 0 at a fixed point).
    phi_eigenvalues_ : ndarray (d,), ascending, of Phi(W*)
    init_projection_, init_eigenvalues_ : W_0, and the ascending eigenvalues of Phi_0 (eq. 12;
        empty for ``init="random"``)
    cycled_, cycle_period_ : whether the alternation ended on a cycle of period 2-4 (the state of
        the cycle with the largest cost is kept and a ConvergenceWarning emitted), and its period
    degree_ : ndarray (n,), the degrees D of the final kernel
    n_iter_, converged_, history_ : outer iterations, whether both subspaces converged, and a dict
        of per-iteration arrays (cost, quality, hsic_y, dist_w, dist_u, ism_iter, matvecs, ism_cycled,
        ism_damped: the W-step's steps to the middle of a period-2 cycle, see Notes).
    n_components_search_ : dict or None
        With ``n_components="auto"``: ``initial`` (the q first fitted), ``phi_eigenvalues`` (of
        Phi(W*) at that fit, ascending), ``condition_held`` (inequality (10) there) and ``chosen``
        (q at their largest gap, or ``initial`` when (10) held); ``initial_n_iter`` and
        ``initial_converged`` of the fit at ``initial``. None otherwise.
    search_results_ : dict of arrays, with ``search="inequality"``
        One entry per grid pair: ``sigma``, ``lambda_``, ``quality`` (CQ), ``cost`` (2a), ``lhs``,
        ``rhs``, ``ratio`` (lhs / rhs), ``holds``, ``converged``, ``n_components``, ``chosen``.
    search_best_params_ : dict, with ``search="inequality"``
        The chosen ``sigma`` and ``lambda_`` (``sigma_`` repeats the former).
    labels_views_ : ndarray (n_views, n)
        The labels of each view; row 0 is ``labels_``.
    projection_views_ : list of ndarray (d, q_v)
        W of each view; entry 0 is ``projection_``.
    views_ : list of dict
        Per view: ``labels``, ``projection``, ``sigma``, ``lambda_``, ``lambda_effective``,
        ``n_components``, ``quality``,
        ``cost``, ``novelty`` (NMI against each existing clustering, then each earlier view),
        ``sigma_condition``, ``converged``, ``n_components_search``, ``search_best_params``.

    Notes
    -----
    Errata of the paper (Wu et al. 2018 and its supplement), each corrected here:

    * Appendix "Implementation details of the derivative": sum_ij Psi_ij A_ij equals
      2 X'(D_Psi - Psi)X, not X'(D_Psi - Psi)X (each ordered pair contributes x_i x_i' + x_j x_j'
      - x_i x_j' - x_j x_i'). Phi here is eq. (8) exactly, (2 / sigma^2) X'(D_G - G)X with
      G = gamma o K, so the eigengap (11) and both sides of inequality (10) are on eq. (8)'s scale.
      The eigenvectors, hence ISM's iterates, do not depend on the factor.
    * Appendix "Implementation details of the cost function" writes U = argmin Tr(U'QU); eq. (3)
      maximises it, and so does the U-step here (the top-k eigenvectors of Q).
    * Section 3.2 calls eq. (12) a second-order Taylor approximation; the supplement expands the
      exponential of (4a) to first order (which is second order in W). Both give eq. (12). At
      W = 0, K = 11' and D = nI, so gamma = H(UU' - lambda YY')H / n has zero row sums and
      Phi_0 = -(2 / (n sigma^2)) X'H(UU' - lambda YY')HX: W_0 is its q smallest eigenvectors,
      the q largest of X'H(UU' - lambda YY')HX.
    * The supplement's gradient is written once with -2 W Lambda and once with -W Lambda; the
      Lagrangian (6) gives -W Lambda. Nothing here uses the multiplier's scale.
    * Table 1's Faces row was produced with the pose as the existing clustering and NMI against
      identity, the reverse of the text; the appendix's lambda for LG (Gauss B) is 2 where the
      authors' code uses 10; Table 1's "Cost" was computed after k-means had appended the new
      labels to Y, so it is not the objective (2a) (``cost_`` is). See bench/reproduce_kdac.py.
    * Section 4 says the (sigma, lambda) pair was searched against inequality (10); at the
      appendix's own pairs (10) fails by 4 to 6 orders of magnitude (lhs / rhs from 2e-6 to 4e-5
      on the four Table 1 data sets, bench/results/kdac_search.md), so the published pairs did
      not satisfy it.

    Choices of ours (not in the paper):

    * Defaults: ``sigma="median"`` (0.5 x the median pairwise distance), ``lambda_=100`` relative to
      the two terms' scales at the start (``lambda_scale``; the paper's lambda is absolute),
      ``n_components="residual"`` (q = d minus the existing clusters' discriminant directions,
      one fit; the paper's refitting rule is "auto"),
      no search; the coarse default grid of ``search`` and our reading of its fallback
      (``search``); the Nystrom path above 2,000 points (``approximation``).
    * U_0 (Algorithm 1's "from the original clustering") is the spectral step on the kernel of the
      full space (W = I).
    * D is recomputed right after each W-step, so the U-step uses Q = H D^-1/2 K D^-1/2 H of the
      current W (Algorithm 1 pairs the new K with the previous D until the next iteration).
    * HSIC drops the paper's 1/(n-1)^2, as its Table 1 does; the rows of U are scaled to unit
      length before k-means (``normalize_rows``, as the authors' code does).
    * Inexact W-steps: the W-step of outer iteration t runs ISM to max(tol, 0.1 x the previous
      outer change of W) (the first to 1e-3), not to tol: early W-steps chase a gamma the next U-
      and D-steps change anyway. Convergence still requires a W-step whose first ISM step moved
      <= tol, a fixed point of Algorithm 2 (Lemma 2). On the faces this reaches the same end point
      with far fewer Phi evaluations (bench/results/kdac.md).
    * ISM stops on the projection distance between subspaces. A period-2 cycle between two
      subspaces (seen with uniform-noise dimensions) is detected and the iteration steps to the
      subspace between its ends (the top q eigenvectors of W_s W_s' + W_s+1 W_s+1', up to 5
      times per W-step): from random starts on the paper's MoonN this reaches the alternative
      clustering far more often (bench/results/kdac.md). A cycle that outlasts these steps ends the W-step
      at the end with the smaller cost (4a), and a ConvergenceWarning says so. The outer
      alternation is watched the same way for cycles of period 2 to 4 (W and U both back where
      they were), keeping the state with the largest cost (2a).
    * Several existing clusterings (a list for y) are stacked into one Y of one-hot blocks,
      Y = [Y_1, ..., Y_m]. With the linear kernel YY' = sum_m Y_m Y_m', so the novelty term
      lambda HSIC(XW, Y) is exactly lambda sum_m HSIC(XW, Y_m): the concatenation and the sum of
      HSIC terms are the same choice, with equal weights (as in the iterative multi-view use of
      Niu et al. 2014). Labels may be integers, strings or any sortable values
      (``kernlearn._utils._labels.encode_labels``).
    * Several views (``n_views``): view v is fitted against y and the k-means labels of views
      0 .. v-1 by the rule just stated, each with the same lambda (or its own search), so a view
      is novel against all earlier ones at once, not only the last.

    Low-rank paths (``approximation``), for large n. The alternation, its tests and its
    attributes are the exact path's; only the kernel sums differ (``cpp/include/kernlearn/
    kernels/hsic_lowrank.hpp``):

    * "nystrom" (the default above 2,000 points): K ~ C K_LL^+ C' on M random landmarks, so
      gamma o K has rank (k + k_y) M and Phi(W) costs O(n M (q + d (k + k_y))), no pair loop. The
      degrees and the U-step use the same kernel with its diagonal set to 1 (the true kernel's),
      the U-step by Lanczos at O(n M) per product. The error is that of the Nystrom
      approximation, the norm of K - C K_LL^+ C', which shrinks quickly with M when the kernel's spectrum
      decays (a Gaussian kernel on a q-dimensional projection: at the exact fixed point, Phi on 50
      landmarks was within 2e-8 of the exact one, relative, at q = 2 on LG1000, and on 300
      landmarks within 8e-4 at q = 17 on the faces).
    * "rff": Phi(W) from 2F random Fourier features (Rahimi & Recht 2007), each kernel entry
      unbiased with error O(1 / sqrt F), frequencies drawn once per fit in the space of X and
      projected by W (so the features depend only on span W, as the kernel does). Phi is the
      difference of two large terms whose errors do not cancel: at the exact fixed point on
      LG1000 it was 3e-2 off at F = 256 and its q smallest eigenvectors 0.11 from W* (the eigengap
      that fixes W is 0.24 on a Phi of norm 328), and that fit did not
      converge; hence Nystrom by default.
    * What they give up: the fit optimises a surrogate of (2a), so W and U are close to, not
      equal to, the exact path's; ``sigma_condition_["rhs"]`` is estimated from 2^20 sampled
      pairs. NMI between the labels of the approximate and the exact fit at n = 1,000 to 5,000,
      on the paper's data, and time and memory up to n = 100,000: bench/results/kdac_scale.md.
    * :meth:`extend_embedding` and :meth:`predict` extend with the same Nystrom kernel (O(M q) per
      new point); ``nystrom_residual_`` includes the diagonal term the training points have and
      new points do not.

    Out-of-sample extension (:meth:`transform`, :meth:`extend_embedding`, :meth:`predict`):

    * ``transform(X) = X W``, the projection the kernel is computed on.
    * Which matrix U diagonalises. Once W is fixed, the objective (2a) depends on U only
      through HSIC(XW, U) = Tr(U'QU), Q = H D^-1/2 K D^-1/2 H for the kernel K of XW and its
      degrees D (the final W and D: the core recomputes D after each W-step, and a cycle restores
      W, D and U together). The novelty term lambda HSIC(XW, Y) = lambda Tr(Y'QY) holds no U: it
      shaped W, and is a constant of the U-step. So U is exactly the top-k eigenvectors of Q, a
      matrix without Y, and a new point, which has no Y, needs none: the extension below is of
      the very matrix the fit eigendecomposed, and it reproduces U on the training points.
    * The Nystrom formula (Bengio et al., "Out-of-sample extensions for LLE, Isomap, MDS,
      Eigenmaps and spectral clustering", NIPS 2003/2004) for Q. With the Gaussian kernel
      K(a, b) of the projections, the degree over the training points d(a) = sum_j K(a, x_j)
      (so d(x_i) = D_ii) and N(a, b) = K(a, b) / sqrt(d(a) d(b)), Q is N on the training points
      double-centred, and its data-dependent extension is the double-centred kernel
      Qt(x, x_j) = N(x, x_j) - mean_l N(x, x_l) - mean_l N(x_l, x_j) + mean_lm N(x_l, x_m).
      Then u_k(x) = (1 / lambda_k) sum_j Qt(x, x_j) u_jk. The columns of U are orthogonal to 1
      (Q1 = 0), so the terms constant in j drop and

          u(x) = (N(x, X) U - b) Lambda^-1,   b = (1/n) 1'N U (the column means of NU),

      which at x = x_i is (H N U)_i Lambda^-1 = (QU)_i Lambda^-1 = U_i. The centring term b is
      needed: 1'NU is not 0 (N's top eigenvector is D^1/2 1, not 1). Lambda is taken as
      M = U'QU (diag(lambda) for eigenvectors; the same formula for any basis of an invariant
      subspace, e.g. a degenerate eigenvalue), pseudo-inverted, so a zero eigenvalue (Q = 0)
      gives coordinate 0. A point whose kernel row to the training set underflows (d(x) = 0) gets
      N(x, X) = 0, the limit, i.e. u(x) = -b Lambda^-1.
    * :meth:`predict` then normalises the rows of u(x) as fit did (``normalize_rows``) and
      assigns the nearest of the k-means centres ``cluster_centers_``. ``predict(X_train)``
      reproduces ``labels_`` up to near-ties at the eigensolver's accuracy
      (``nystrom_residual_``). The cross-kernel is built in C++ in blocks of 1024 new points
      (memory O(1024 n)); each call costs O(m n q).

    Examples
    --------
    Two independent two-group structures, one per feature, and a noise feature. Given the first
    grouping, KDAC finds the second:

    >>> import numpy as np
    >>> from kernlearn.cluster import KDAC
    >>> from kernlearn.evaluation import nmi
    >>> rng = np.random.RandomState(0)
    >>> a, b = rng.randint(0, 2, size=(2, 120))
    >>> X = np.c_[4.0 * a, 4.0 * b, np.zeros(120)] + rng.normal(scale=0.6, size=(120, 3))
    >>> model = KDAC(2, n_components=1, random_state=0).fit(X[:100], a[:100])
    >>> round(nmi(model.labels_, b[:100]), 2)  # the other grouping
    1.0
    >>> round(float(model.novelty_[0]), 2)  # NMI against the given one
    0.0
    >>> int(np.argmax(np.abs(model.projection_[:, 0])))  # W picked the second feature
    1

    New points: the projection X W, and labels by the Nystrom extension of the embedding.

    >>> model.transform(X[100:]).shape
    (20, 1)
    >>> round(nmi(model.predict(X[100:]), b[100:]), 2)
    1.0
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None)],
        "n_components": [StrOptions({"auto", "init-gap", "residual"}), Interval(numbers.Integral, 1, None)],
        "sigma": [StrOptions({"median"}), Interval(numbers.Real, *_core.kernels.SIGMA_RANGE)],
        "lambda_": [Interval(numbers.Real, 0, None)],
        "lambda_scale": [StrOptions({"relative", "absolute"})],
        "search": [None, StrOptions({"inequality"})],
        "sigma_grid": [None, "array-like"],
        "lambda_grid": [None, "array-like"],
        "n_views": [Interval(numbers.Integral, 1, None)],
        "init": [StrOptions({"spectral", "random"})],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "ism_max_iter": [Interval(numbers.Integral, 1, None)],
        "ism_acceleration": ["boolean"],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "normalize_rows": ["boolean"],
        "approximation": [StrOptions({"auto", "exact", "nystrom", "rff"})],
        "n_random_features": [Interval(numbers.Integral, 1, None)],
        "n_landmarks": [Interval(numbers.Integral, 1, None)],
        "random_state": ["random_state"],
        "verbose": [Interval(numbers.Integral, 0, None), "boolean"],
        "callback": [None, "callable"],
        "backend": [StrOptions({"local", "dask"})],
        "block_size": [None, Interval(numbers.Integral, 1, None)],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        n_components="residual",
        sigma="median",
        lambda_=100.0,
        lambda_scale="relative",
        search=None,
        sigma_grid=None,
        lambda_grid=None,
        n_views=1,
        init="spectral",
        max_iter=100,
        ism_max_iter=30,
        ism_acceleration=False,
        tol=1e-6,
        normalize_rows=True,
        approximation="auto",
        n_random_features=N_RANDOM_FEATURES,
        n_landmarks=N_LANDMARKS,
        random_state=None,
        n_jobs=None,
        backend="local",
        client=None,
        block_size=None,
        verbose=0,
        callback=None,
    ):
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.sigma = sigma
        self.lambda_ = lambda_
        self.lambda_scale = lambda_scale
        self.search = search
        self.sigma_grid = sigma_grid
        self.lambda_grid = lambda_grid
        self.n_views = n_views
        self.init = init
        self.max_iter = max_iter
        self.ism_max_iter = ism_max_iter
        self.ism_acceleration = ism_acceleration
        self.tol = tol
        self.normalize_rows = normalize_rows
        self.approximation = approximation
        self.n_random_features = n_random_features
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.backend = backend
        self.client = client
        self.block_size = block_size
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y=None):
        """Find an alternative clustering of X, novel with respect to y (and, with ``n_views`` > 1,
        further ones, each novel with respect to y and the views before it).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_existing), or list of such
            The existing clustering(s) to be novel against: labels of any type, or several
            clusterings as a list of label arrays or as columns.

        Returns
        -------
        self : KDAC
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        X = validate_X(self, X, reset=True, min_samples=2)
        n, d = X.shape
        views, Y = _existing_clusterings(y, n)
        k = int(self.n_clusters)
        if k > n:
            raise ValueError(f"n_clusters must be <= the number of samples in X ({n}), got {k}")
        if isinstance(self.n_components, numbers.Integral) and int(self.n_components) > d:
            raise ValueError(f"n_components must be <= the number of features ({d}), got {self.n_components}")
        tiles = self._distributed_tiles(X)
        rng = check_random_state(self.random_state)
        # The low-rank paths' landmarks: drawn once, shared by every run of this fit.
        path = _solver_choice.kdac_approximation(n, self.approximation) if tiles is None else "exact"
        landmarks = self._landmarks(n, rng) if path != "exact" else None
        pairs = None
        if self.search == "inequality":
            sigmas = _grid(self.sigma_grid, "sigma_grid", positive=True)
            lambdas = _grid(self.lambda_grid, "lambda_grid", positive=False) or list(LAMBDA_GRID)
            if not sigmas:
                scale = _data_sigma(X, rng)
                sigmas = [f * scale for f in SIGMA_GRID_FACTORS]
            pairs = [(sg, lam) for sg in sigmas for lam in lambdas]
        n_threads = resolve_n_threads(self.n_jobs)
        fits = []
        for view in range(int(self.n_views)):
            if view > 0:
                # The next view is novel against y and every view found so far: their one-hot
                # indicators join Y (class docstring, "Several views").
                labels = fits[-1]["labels"]
                if np.unique(labels).size < 2:
                    raise ValueError(
                        f"n_views={self.n_views}: view {view} put every point in one cluster, so there is no "
                        "structure for the next view to be novel against; lower n_views"
                    )
                views = views + [labels]
                Y = np.ascontiguousarray(np.hstack([Y, np.eye(k)[labels]]))
            fits.append(self._fit_view(X, Y, views, pairs, rng, n_threads, tiles, landmarks))

        first = fits[0]
        out = first["out"]
        self.labels_ = first["labels"]
        self.cluster_centers_ = first["centers"]
        self.projection_ = out.W
        self.embedding_ = out.U
        self.sigma_ = first["sigma"]
        self.n_components_ = int(out.q)
        self.quality_ = float(out.quality)
        self.cost_ = float(out.cost)
        self.lambda_effective_ = float(out.lambda_effective)
        self.novelty_ = first["novelty"]
        self.eigengap_ = float(out.eigengap)
        self.sigma_condition_ = _condition(out)
        self.fixed_point_residual_ = float(out.fixed_point_residual)
        self.phi_eigenvalues_ = out.phi_eigenvalues
        self.init_eigenvalues_ = out.init_eigenvalues
        self.init_projection_ = out.W_init
        self.degree_ = out.degree
        self.n_components_search_ = first["n_components_search"]
        if pairs is not None:
            self.search_results_ = first["search_results"]
            self.search_best_params_ = first["search_best_params"]
        self.labels_views_ = np.vstack([f["labels"] for f in fits])
        self.projection_views_ = [f["out"].W for f in fits]
        self.views_ = [_view_summary(f) for f in fits]
        self.approximation_ = path
        self._fit_nystrom(X, n_threads, tiles, landmarks)
        self.n_iter_ = int(out.n_iter)
        self.converged_ = out.status == _core.core.SolverStatus.converged
        self.used_dense_ = bool(out.used_dense)
        self.history_ = history_arrays(out.history, _HISTORY_FIELDS)
        self.cycled_ = bool(out.outer_cycled)
        self.cycle_period_ = int(out.cycle_period)
        for view, f in enumerate(fits):
            self._warn(f["out"], view if len(fits) > 1 else None)
        return self

    def _distributed_tiles(self, X):
        """backend="dask": X centred and sent to the workers (HsicTiles); None for "local". The
        combinations the distributed alternation does not support are refused here."""
        if self.backend == "dask" and self.approximation in ("nystrom", "rff"):
            raise ValueError(
                f"approximation={self.approximation!r} runs in this process only; backend='dask' computes the "
                "exact sums (use approximation='auto' or 'exact' with it)"
            )
        if self.backend != "dask":
            for name in ("client", "block_size"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} is used by backend='dask' only, got {name}={getattr(self, name)!r}")
            return None
        bound = _core.kernels.MAX_COORDINATE  # the core's: squared distances must be finite
        if np.abs(X).max() > bound:
            raise ValueError(f"X's entries must be at most {bound:g} in magnitude (squared distances must be finite)")
        from ..distributed._cluster import Cluster
        from ..distributed._hsic import HsicTiles

        cluster = Cluster(self.client)
        # Centred as the core centres X: Phi and the kernel only see differences.
        return HsicTiles(np.ascontiguousarray(X - X.mean(axis=0)), cluster, self.block_size)

    def _landmarks(self, n, rng):
        """The low-rank paths' Nystrom landmarks: sorted row indices drawn uniformly without
        replacement."""
        m = int(self.n_landmarks)
        if m > n:
            raise ValueError(
                f"n_landmarks must be <= the number of samples ({n}) on the low-rank paths, got n_landmarks={m}"
            )
        return np.sort(rng.choice(n, m, replace=False))

    def _run(self, X, Y, q, sigma, lam, rng, n_threads, tiles, landmarks=None):
        """One KDAC alternation, in the core or on the cluster (tiles): q None = the eigengap of
        Phi_0 (spectral init only); landmarks: the low-rank path's (None: exact sums)."""
        random_init = self.init == "random"
        d = X.shape[1]
        if random_init and q is None:
            q = min(int(self.n_clusters), d)
        W0 = np.ascontiguousarray(np.linalg.qr(rng.standard_normal((d, q)))[0]) if random_init else None
        options = _core.methods.KdacOptions(
            n_clusters=int(self.n_clusters),
            q=None if random_init else q,
            sigma=float(sigma),
            lambda_=float(lam),
            lambda_relative=self.lambda_scale == "relative",
            max_iter=int(self.max_iter),
            ism_max_iter=int(self.ism_max_iter),
            anderson_depth=ANDERSON_DEPTH if self.ism_acceleration else 0,
            tol=float(self.tol),
            seed=int(rng.randint(np.iinfo(np.int64).max)),
        )
        if tiles is not None:
            options.dense_max_n = 0  # a distributed fit never forms an n x n matrix
        if landmarks is not None:
            options.landmarks = landmarks.tolist()
            if self.approximation == "rff":
                options.n_random_features = int(self.n_random_features)
        monitor = Monitor(
            "KDAC",
            self.verbose,
            self.callback,
            _RECORD_FIELDS,
            max_iter=int(self.max_iter),
            objective="cost",
            certificate=("dist_w", "dist_u"),
            first_iteration=1,
        )
        with monitor:
            # One loop for both backends: the tiles (HsicTiles) compute the kernel sums on the cluster.
            return _core.methods.kdac(
                X, Y, options=options, W0=W0, callback=monitor.core_callback(), sums=tiles, n_threads=n_threads
            )

    def _fit_view(self, X, Y, views, pairs, rng, n_threads, tiles, landmarks):
        """One alternative view: the (sigma, lambda) search if asked, the q rule, then k-means."""
        n, d = X.shape
        k = int(self.n_clusters)
        if self.n_components == "init-gap":
            q = None
        elif self.n_components == "residual":
            q = residual_dimension(X, Y)
        elif self.n_components == "auto":
            q = min(k, d)  # the paper starts from q = k (Section 4, "Hyperparameter tuning")
        else:
            q = int(self.n_components)
        fit = {"search_results": None, "search_best_params": None, "n_components_search": None}
        if pairs is None:
            sigma = _data_sigma(X, rng) if self.sigma == "median" else float(self.sigma)
            lam = float(self.lambda_)
            out = self._run(X, Y, q, sigma, lam, rng, n_threads, tiles, landmarks)
        else:
            sigma, lam, out, fit["search_results"] = self._search(X, Y, q, pairs, rng, n_threads, tiles, landmarks)
            fit["search_best_params"] = {"sigma": sigma, "lambda_": lam}
        if self.n_components == "auto":
            # The paper's q rule: tuned at q = k, and if inequality (10) fails there, q moves to the
            # largest gap (11) between consecutive eigenvalues of Phi(W*) and the fit is redone.
            eigenvalues = np.asarray(out.phi_eigenvalues)
            holds = _condition(out)["holds"]
            chosen = q if holds or d < 2 else int(np.argmax(np.diff(eigenvalues))) + 1
            fit["n_components_search"] = {
                "initial": q,
                "phi_eigenvalues": eigenvalues,
                "condition_held": holds,
                "chosen": chosen,
                "initial_n_iter": int(out.n_iter),
                "initial_converged": out.status == _core.core.SolverStatus.converged,
            }
            if chosen != q:
                out = self._run(X, Y, chosen, sigma, lam, rng, n_threads, tiles, landmarks)
        features = self._clustering_features(out.U)
        # scikit-learn's k-means runs on OpenMP threads. On an n x k embedding it is cheap, and
        # OpenMP's spin-waits cost more than they save, so it gets one thread (bench/results/kdac.md).
        with threadpool_limits(limits=1, user_api="openmp"):
            km = KMeans(k, n_init=10, random_state=rng.randint(np.iinfo(np.int32).max)).fit(features)
        fit.update(
            out=out,
            sigma=float(sigma),
            lambda_=float(lam),
            labels=km.labels_,
            centers=km.cluster_centers_,
            novelty=np.array([nmi(v, km.labels_) for v in views]),
        )
        return fit

    def _search(self, X, Y, q, pairs, rng, n_threads, tiles, landmarks):
        """The paper's (sigma, lambda) search (Section 4, "Hyperparameter tuning"): every pair of the
        grid is fitted at q; the pair with the highest CQ among those satisfying inequality (10) wins,
        and when none does, the pair closest to satisfying it (largest lhs / rhs; CQ breaks ties)."""
        rows = {
            name: []
            for name in (
                "sigma",
                "lambda_",
                "quality",
                "cost",
                "lhs",
                "rhs",
                "ratio",
                "holds",
                "converged",
                "n_components",
            )
        }
        outs = []
        with warnings.catch_warnings():
            # A candidate's non-convergence is recorded in the table; only the chosen fit warns.
            warnings.simplefilter("ignore", ConvergenceWarning)
            for sigma, lam in pairs:
                out = self._run(X, Y, q, sigma, lam, rng, n_threads, tiles, landmarks)
                cond = _condition(out)
                rows["sigma"].append(sigma)
                rows["lambda_"].append(lam)
                rows["quality"].append(float(out.quality))
                rows["cost"].append(float(out.cost))
                rows["lhs"].append(cond["lhs"])
                rows["rhs"].append(cond["rhs"])
                rows["ratio"].append(_ratio(cond))
                rows["holds"].append(cond["holds"])
                rows["converged"].append(out.status == _core.core.SolverStatus.converged)
                rows["n_components"].append(int(out.q))
                outs.append(out)
        results = {name: np.asarray(values) for name, values in rows.items()}
        holds = results["holds"]
        if holds.any():
            best = int(np.flatnonzero(holds)[np.argmax(results["quality"][holds])])
        else:
            ratio = np.nan_to_num(results["ratio"], nan=-np.inf)
            closest = np.flatnonzero(ratio == ratio.max())
            best = int(closest[np.argmax(results["quality"][closest])])
        results["chosen"] = np.arange(len(pairs)) == best
        return pairs[best][0], pairs[best][1], outs[best], results

    def _warn(self, out, view):
        """The ConvergenceWarnings of one returned fit (view: its index when there are several)."""
        where = "" if view is None else f" (view {view})"
        cycled_steps = int(sum(h.ism_cycled for h in out.history))
        if cycled_steps:
            warnings.warn(
                f"ISM fell into a period-2 cycle between two subspaces in {cycled_steps} W-step(s){where} that "
                "steps to its middle did not end; the end with the smaller cost (4a) was kept. Uniform-noise "
                "dimensions cause this; a larger sigma or a smaller n_components may help.",
                ConvergenceWarning,
                stacklevel=3,
            )
        if out.outer_cycled:
            warnings.warn(
                f"the W/D/U alternation{where} fell into a cycle of period {out.cycle_period} (W and U returned "
                f"to their values of {out.cycle_period} iterations before); the state with the largest cost (2a) "
                "was kept. D is held during the W-step, so the alternation is not an ascent method; another "
                "sigma or init usually avoids this.",
                ConvergenceWarning,
                stacklevel=3,
            )
        elif out.status == _core.core.SolverStatus.max_iter:
            last = out.history[-1]
            warnings.warn(
                f"KDAC{where} did not converge in max_iter={self.max_iter} iterations: the last subspace changes "
                f"were {last.dist_w:.2e} (W) and {last.dist_u:.2e} (U) > tol={self.tol}",
                ConvergenceWarning,
                stacklevel=3,
            )

    def fit_predict(self, X, y=None):
        """Fit and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_existing), or list of such
            The existing clustering(s), required (see :meth:`fit`).

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        return self.fit(X, y).labels_

    # ----------------------------------------------------------------------------------------
    # Out of sample: the Nystrom extension of U (rule and derivation: the class docstring)

    def _cross_kernel_blocks(self, Z, n_threads):
        """Yield (rows, K_block) for the Gaussian kernel between row blocks of Z (centred
        projections, m x q) and the training projections: at most _BLOCK_ROWS x n at a time."""
        kernel = _core.kernels.PairwiseKernel(kind=_core.kernels.PairwiseKind.rbf, gamma=0.5 / self.sigma_**2)
        for start in range(0, Z.shape[0], _BLOCK_ROWS):
            rows = slice(start, min(start + _BLOCK_ROWS, Z.shape[0]))
            block = np.ascontiguousarray(Z[rows])
            yield rows, _core.kernels.pairwise_kernel(block, self._fit_projected, kernel=kernel, n_threads=n_threads)

    def _normalized_kernel_times(self, Z, V, n_threads):
        """Ktilde(Z, X_train) V in row blocks: Ktilde(a, b) = K(a, b) / sqrt(d(a) d(b)), d(a) the
        degree of a over the training points, V already scaled by d(b)^-1/2 (n x k). After a
        low-rank fit K is its Nystrom kernel and V must be ``_nystrom_coef``."""
        if self._low_rank is not None:
            return self._low_rank.new_times(Z, n_threads)
        out = np.empty((Z.shape[0], V.shape[1]))
        for rows, K in self._cross_kernel_blocks(Z, n_threads):
            degree = K.sum(axis=1)
            # A point so far from the training set that its whole kernel row underflows has
            # Ktilde(x, .) = 0 (the limit: Ktilde(x, x_j) <= sqrt(K(x, x_j))).
            scale = np.zeros_like(degree)
            np.divide(1.0, np.sqrt(degree), out=scale, where=degree > 0)
            out[rows] = scale[:, None] * (K @ V)
        return out

    def _fit_nystrom(self, X, n_threads, tiles, landmarks):
        """The coefficients of the extension u(x) = d(x)^-1/2 K(x, X) C - b (class docstring);
        with tiles (backend="dask") the kernel products run on the cluster; after a low-rank fit
        (landmarks) K is the fit's Nystrom kernel, O(n M) here and O(M) per new point."""
        self._x_mean = X.mean(axis=0)
        self._fit_projected = np.ascontiguousarray((X - self._x_mean) @ self.projection_)
        U = self.embedding_
        V = U / np.sqrt(self.degree_)[:, None]  # D^-1/2 U
        self._low_rank = None
        if landmarks is not None:
            self._low_rank = _NystromExtension(self._fit_projected, landmarks, self.sigma_, n_threads)
            NU = self._low_rank.train_times(V) / np.sqrt(self.degree_)[:, None]
        elif tiles is None:
            NU = self._normalized_kernel_times(self._fit_projected, V, n_threads)  # D^-1/2 K D^-1/2 U
        else:
            # The training degrees are degree_ (the same kernel), so N U = D^-1/2 K V.
            NU = tiles.kernel_times(self.projection_, self.sigma_, V) / np.sqrt(self.degree_)[:, None]
        offset = NU.mean(axis=0)  # (1/n) 1'NU: H N U = NU - 1 offset = Q U
        QU = NU - offset
        M = U.T @ QU
        M = 0.5 * (M + M.T)
        self.embedding_eigenvalues_ = np.diag(M).copy()
        # M = Lambda when U holds eigenvectors; its pseudo-inverse guards a zero eigenvalue (Q = 0,
        # e.g. all projected points equal), whose coordinate is then 0 for every new point.
        M_inv = scipy.linalg.pinvh(M)
        self._nystrom_coef = V @ M_inv
        if self._low_rank is not None:
            self._low_rank.set_coefficients(M_inv)
        self._nystrom_offset = offset @ M_inv
        scale = max(float(np.abs(U).max()), np.finfo(float).tiny)
        self.nystrom_residual_ = float(np.abs(QU @ M_inv - U).max()) / scale

    @property
    def _n_features_out(self):
        """transform's columns: the q projected coordinates."""
        return int(self.projection_.shape[1])

    def _clustering_features(self, U):
        """The rows k-means clusters, in fit and in predict alike: U, unit-normalised when
        ``normalize_rows`` (a zero row stays zero)."""
        if not self.normalize_rows:
            return U
        norms = np.linalg.norm(U, axis=1, keepdims=True)
        return U / np.where(norms > 0, norms, 1.0)

    def _check_new(self, X):
        check_is_fitted(self)
        return validate_X(self, X, reset=False)

    def transform(self, X):
        """Project X onto the learned subspace: X W, W = ``projection_``.

        Parameters
        ----------
        X : array-like of shape (m, n_features)

        Returns
        -------
        X_projected : ndarray of shape (m, q)
            q = ``n_components_``.
        """
        X = self._check_new(X)
        return X @ self.projection_

    def extend_embedding(self, X):
        """The spectral embedding U extended to the rows of X, by the Nystrom formula of the
        class docstring: ``extend_embedding(X_train)`` reproduces ``embedding_`` (to the U-step's
        eigensolver accuracy, ``nystrom_residual_``).

        Parameters
        ----------
        X : array-like of shape (m, n_features)

        Returns
        -------
        U : ndarray of shape (m, n_clusters)
        """
        X = self._check_new(X)
        Z = (X - self._x_mean) @ self.projection_
        if not np.isfinite(Z).all():
            raise ValueError("X: its projection X W overflows (entries too large)")
        n_threads = resolve_n_threads(self.n_jobs)
        return self._normalized_kernel_times(Z, self._nystrom_coef, n_threads) - self._nystrom_offset

    def predict(self, X):
        """Alternative-cluster labels of new points: the Nystrom extension of U (class docstring),
        the row normalisation of fit (``normalize_rows``), then the nearest of the fitted k-means
        ``cluster_centers_``. ``predict(X_train)`` reproduces ``labels_``.

        Parameters
        ----------
        X : array-like of shape (m, n_features)

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        features = self._clustering_features(self.extend_embedding(X))
        centres = self.cluster_centers_
        distances = np.einsum("ij,ij->i", centres, centres)[None, :] - 2.0 * (features @ centres.T)
        return np.argmin(distances, axis=1).astype(self.labels_.dtype, copy=False)

    def __sklearn_is_fitted__(self):
        # lambda_ is a parameter whose name ends in "_", which check_is_fitted would take for a
        # fitted attribute.
        return hasattr(self, "labels_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
