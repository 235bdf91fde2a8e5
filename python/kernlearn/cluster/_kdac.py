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
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted
from threadpoolctl import threadpool_limits

from .. import _core
from .._utils._labels import encode_labels
from .._utils._monitor import Monitor, history_arrays
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._scaling import binary_exponent
from .._utils._validation import naming, resolve_n_threads, validate_X
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
    """
    validate_params(
        _MEDIAN_SIGMA_PARAMETERS,
        {"factor": factor, "max_points": max_points, "random_state": random_state},
        "median_sigma",
    )
    with naming("X"):
        X = check_array(X, dtype=np.float64, ensure_min_samples=2, input_name="X")
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
                f"y must be labels of shape (n_samples,), (n_samples, n_views) or a list of such; got shape {arr.shape}"
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
    n_components : int or "auto", default "auto"
        q, the dimension of the subspace. "auto" takes q at the largest gap between consecutive
        eigenvalues of the spectral-initialisation matrix Phi_0 (eq. 11 applied to eq. 12); with
        ``init="random"`` it means q = min(n_clusters, d), the paper's starting value.
    sigma : float or "median", default "median"
        Bandwidth of the Gaussian kernel exp(-|W'(x_i - x_j)|^2 / (2 sigma^2)). "median" is 0.5 x
        the median pairwise distance of X (see :func:`median_sigma`). sigma is absolute: the paper
        standardised faces and moons first (StandardScaler), so do the same to reproduce it.
    lambda_ : float, default 1.0
        Weight of the novelty term (>= 0).
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
        Convergence when the projection distance |WW' - W_oW_o'|_F / sqrt 2 (and the same for U)
        between iterations is <= tol. Subspaces, not raw eigenvector matrices, are compared: signs
        and the order within a degenerate eigenspace are arbitrary.
    normalize_rows : bool, default True
        Scale the rows of U to unit length before k-means (as the authors do; on the faces NMI
        drops without it: bench/results/kdac.md).
    random_state : int, RandomState or None
        Seeds the Lanczos start, random init, sigma's subsample and k-means.
    n_jobs : int or None
        Threads of the C++ core.
    verbose : int, default 0
        Print one line per outer iteration.
    callback : callable, optional
        Called after each outer iteration with a dict (iteration, cost, quality, hsic_y, dist_w,
        dist_u, ism_iter, ism_cycled, ism_damped); returning True stops.

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
        max |u(x_i) - U_i| / max |U| over the training points, u the out-of-sample extension: how
        exactly :meth:`extend_embedding` reproduces ``embedding_``: the U-step's eigensolver
        accuracy (measured: 1e-14 with the dense eigensolver, n <= 200; 3e-12 with Lanczos at
        n = 600; 3e-9 at n = 5000, where the U-step stores the kernel in float32).
    n_features_in_ : int, d
    feature_names_in_ : ndarray of str, when X was a DataFrame with string column names
    quality_ : float, HSIC(XW, U) = Tr(U'QU)
    cost_ : float
        The objective (2a) actually optimised at the returned (W, U): HSIC(XW, U) - lambda
        HSIC(XW, Y), Y the existing clustering(s) only. (The paper's Table 1 "Cost" was computed
        after k-means had appended the new labels to Y; it is not this number.)
    novelty_ : ndarray (n_existing,)
        NMI (geometric-mean normalisation, as in the paper) between ``labels_`` and each existing
        clustering: 0 is fully novel.
    sigma_ : float, the bandwidth used
    n_components_ : int, q
    eigengap_ : float
        Eq. (11) at the end: the (q+1)-th minus the q-th smallest eigenvalue of Phi(W*) (NaN if q = d).
    sigma_condition_ : dict
        Inequality (10) at the end: ``lhs`` = sigma^2 x eigengap, ``rhs`` = sum_ij |gamma_ij|
        K_ij |x_i - x_j|^4 / sigma^2, ``holds`` = lhs >= rhs (a sufficient condition for W* to
        satisfy the second-order necessary conditions; it rarely holds at practical sigma).
    fixed_point_residual_ : float
        |Phi(W)W - W W'Phi(W)W|_F / |Phi|_F with the final gamma (Lemma 2: 0 at a fixed point).
    phi_eigenvalues_ : ndarray (d,), ascending, of Phi(W*)
    init_projection_, init_eigenvalues_ : W_0, and the ascending eigenvalues of Phi_0 (eq. 12;
        empty for ``init="random"``)
    cycled_, cycle_period_ : whether the alternation ended on a cycle of period 2-4 (the state of
        the cycle with the largest cost is kept and a ConvergenceWarning emitted), and its period
    degree_ : ndarray (n,), the degrees D of the final kernel
    n_iter_, converged_, history_ : outer iterations, whether both subspaces converged, and a dict
        of per-iteration arrays (cost, quality, hsic_y, dist_w, dist_u, ism_iter, matvecs, ism_cycled,
        ism_damped: the W-step's steps to the middle of a period-2 cycle, see Notes).

    Notes
    -----
    Corrections and choices relative to the paper:

    * Appendix "Implementation details of the derivative": sum_ij Psi_ij A_ij equals
      2 X'(D_Psi - Psi)X, not X'(D_Psi - Psi)X; Phi here is eq. (8) exactly,
      (2 / sigma^2) X'(D_G - G)X with G = gamma o K, so the eigengap and (10) are on eq. (8)'s scale.
    * Eq. (12) at W = 0 has K = 11' and D = nI, so gamma = H(UU' - lambda YY')H / n has zero row
      sums and Phi_0 = -(2 / (n sigma^2)) X'H(UU' - lambda YY')HX: W_0 is its q smallest
      eigenvectors, the q largest of X'H(UU' - lambda YY')HX.
    * U_0 (Algorithm 1's "from the original clustering") is the spectral step on the kernel of the
      full space (W = I).
    * D is recomputed right after each W-step, so the U-step uses Q = H D^-1/2 K D^-1/2 H of the
      current W (Algorithm 1 pairs the new K with the previous D until the next iteration).
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
    * Several existing clusterings (a list for y) are stacked into one Y: the novelty term is
      lambda sum_m HSIC(XW, Y_m) (the iterative multi-view use of Niu et al.). Labels may be
      integers, strings or any sortable values (``kernlearn._utils._labels.encode_labels``).

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
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None)],
        "n_components": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None)],
        "sigma": [StrOptions({"median"}), Interval(numbers.Real, *_core.kernels.SIGMA_RANGE)],
        "lambda_": [Interval(numbers.Real, 0, None)],
        "init": [StrOptions({"spectral", "random"})],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "ism_max_iter": [Interval(numbers.Integral, 1, None)],
        "ism_acceleration": ["boolean"],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "normalize_rows": ["boolean"],
        "random_state": ["random_state"],
        "verbose": [Interval(numbers.Integral, 0, None), "boolean"],
        "callback": [None, "callable"],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        n_components="auto",
        sigma="median",
        lambda_=1.0,
        init="spectral",
        max_iter=100,
        ism_max_iter=30,
        ism_acceleration=False,
        tol=1e-6,
        normalize_rows=True,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.sigma = sigma
        self.lambda_ = lambda_
        self.init = init
        self.max_iter = max_iter
        self.ism_max_iter = ism_max_iter
        self.ism_acceleration = ism_acceleration
        self.tol = tol
        self.normalize_rows = normalize_rows
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y=None):
        """Find an alternative clustering of X, novel with respect to y.

        y : labels (n,), or several existing clusterings as a list of label arrays or an
        (n, n_views) array.
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        X = validate_X(self, X, reset=True, min_samples=2)
        n, d = X.shape
        views, Y = _existing_clusterings(y, n)
        k = int(self.n_clusters)
        if k > n:
            raise ValueError(f"n_clusters must be <= the number of samples ({n}), got {k}")
        random_init = self.init == "random"
        if self.n_components == "auto":
            q = min(k, d) if random_init else None  # None: the core's eigengap rule (11)
        else:
            q = int(self.n_components)
            if q > d:
                raise ValueError(f"n_components must be <= the number of features ({d}), got {q}")
        rng = check_random_state(self.random_state)
        sigma = median_sigma(X, random_state=rng) if self.sigma == "median" else float(self.sigma)
        W0 = np.ascontiguousarray(np.linalg.qr(rng.standard_normal((d, q)))[0]) if random_init else None
        seed = int(rng.randint(np.iinfo(np.int64).max))
        n_threads = resolve_n_threads(self.n_jobs)

        options = _core.methods.KdacOptions(
            n_clusters=k,
            q=None if random_init else q,
            sigma=sigma,
            lambda_=float(self.lambda_),
            max_iter=int(self.max_iter),
            ism_max_iter=int(self.ism_max_iter),
            anderson_depth=ANDERSON_DEPTH if self.ism_acceleration else 0,
            tol=float(self.tol),
            seed=seed,
        )
        monitor = Monitor("KDAC", self.verbose, self.callback, _RECORD_FIELDS, max_iter=options.max_iter)
        out = _core.methods.kdac(X, Y, options=options, W0=W0, callback=monitor.core_callback(), n_threads=n_threads)

        U = out.U
        features = self._clustering_features(U)
        # scikit-learn's k-means runs on OpenMP threads. On an n x k embedding it is cheap, and
        # OpenMP's spin-waits cost more than they save, so it gets one thread (bench/results/kdac.md).
        with threadpool_limits(limits=1, user_api="openmp"):
            km = KMeans(k, n_init=10, random_state=rng.randint(np.iinfo(np.int32).max)).fit(features)
        self.labels_ = km.labels_
        self.cluster_centers_ = km.cluster_centers_
        self.projection_ = out.W
        self.embedding_ = U
        self.sigma_ = sigma
        self.n_components_ = int(out.q)
        self.quality_ = float(out.quality)
        self.cost_ = float(out.cost)
        self.novelty_ = np.array([nmi(v, self.labels_) for v in views])
        self.eigengap_ = float(out.eigengap)
        self.sigma_condition_ = {
            "holds": bool(out.sigma_lhs >= out.sigma_rhs),
            "lhs": float(out.sigma_lhs),
            "rhs": float(out.sigma_rhs),
        }
        self.fixed_point_residual_ = float(out.fixed_point_residual)
        self.phi_eigenvalues_ = out.phi_eigenvalues
        self.init_eigenvalues_ = out.init_eigenvalues
        self.init_projection_ = out.W_init
        self.degree_ = out.degree
        self._fit_nystrom(X, n_threads)
        self.n_iter_ = int(out.n_iter)
        self.converged_ = out.status == _core.core.SolverStatus.converged
        self.used_dense_ = bool(out.used_dense)
        self.history_ = history_arrays(out.history, _HISTORY_FIELDS)
        if any(self.history_["ism_cycled"]):
            warnings.warn(
                "ISM fell into a period-2 cycle between two subspaces in "
                f"{int(np.sum(self.history_['ism_cycled']))} W-step(s) that steps to its middle did not "
                "end; the end with the smaller cost (4a) was kept. Uniform-noise dimensions cause this; "
                "a larger sigma or a smaller n_components may help.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.cycled_ = bool(out.outer_cycled)
        self.cycle_period_ = int(out.cycle_period)
        if self.cycled_:
            warnings.warn(
                f"the W/D/U alternation fell into a cycle of period {self.cycle_period_} (W and U returned to "
                f"their values of {self.cycle_period_} iterations before); the state with the largest cost (2a) "
                "was kept. D is held during the W-step, so the alternation is not an ascent method; another "
                "sigma or init usually avoids this.",
                ConvergenceWarning,
                stacklevel=2,
            )
        elif out.status == _core.core.SolverStatus.max_iter:
            warnings.warn(
                f"KDAC did not converge in max_iter={self.max_iter} iterations: the last subspace changes were "
                f"{self.history_['dist_w'][-1]:.2e} (W) and {self.history_['dist_u'][-1]:.2e} (U) > tol={self.tol}",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def fit_predict(self, X, y=None):
        """Fit and return ``labels_`` (y, the existing clustering, is required)."""
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
        degree of a over the training points, V already scaled by d(b)^-1/2 (n x k)."""
        out = np.empty((Z.shape[0], V.shape[1]))
        for rows, K in self._cross_kernel_blocks(Z, n_threads):
            degree = K.sum(axis=1)
            # A point so far from the training set that its whole kernel row underflows has
            # Ktilde(x, .) = 0 (the limit: Ktilde(x, x_j) <= sqrt(K(x, x_j))).
            scale = np.zeros_like(degree)
            np.divide(1.0, np.sqrt(degree), out=scale, where=degree > 0)
            out[rows] = scale[:, None] * (K @ V)
        return out

    def _fit_nystrom(self, X, n_threads):
        """The coefficients of the extension u(x) = d(x)^-1/2 K(x, X) C - b (class docstring)."""
        self._x_mean = X.mean(axis=0)
        self._fit_projected = np.ascontiguousarray((X - self._x_mean) @ self.projection_)
        U = self.embedding_
        V = U / np.sqrt(self.degree_)[:, None]  # D^-1/2 U
        NU = self._normalized_kernel_times(self._fit_projected, V, n_threads)  # D^-1/2 K D^-1/2 U
        offset = NU.mean(axis=0)  # (1/n) 1'NU: H N U = NU - 1 offset = Q U
        QU = NU - offset
        M = U.T @ QU
        M = 0.5 * (M + M.T)
        self.embedding_eigenvalues_ = np.diag(M).copy()
        # M = Lambda when U holds eigenvectors; its pseudo-inverse guards a zero eigenvalue (Q = 0,
        # e.g. all projected points equal), whose coordinate is then 0 for every new point.
        M_inv = scipy.linalg.pinvh(M)
        self._nystrom_coef = V @ M_inv
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
        """Project X onto the learned subspace: X W, shape (m, n_components_) (``projection_`` W)."""
        X = self._check_new(X)
        return X @ self.projection_

    def extend_embedding(self, X):
        """The spectral embedding U extended to the rows of X (m x n_clusters), by the Nystrom
        formula of the class docstring: ``extend_embedding(X_train)`` reproduces ``embedding_``
        (to the U-step's eigensolver accuracy, ``nystrom_residual_``)."""
        X = self._check_new(X)
        Z = (X - self._x_mean) @ self.projection_
        if not np.isfinite(Z).all():
            raise ValueError("X: its projection X W overflows (entries too large)")
        n_threads = resolve_n_threads(self.n_jobs)
        return self._normalized_kernel_times(Z, self._nystrom_coef, n_threads) - self._nystrom_offset

    def predict(self, X):
        """Alternative-cluster labels of new points: the Nystrom extension of U (class docstring),
        the row normalisation of fit (``normalize_rows``), then the nearest of the fitted k-means
        ``cluster_centers_``. ``predict(X_train)`` reproduces ``labels_``."""
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
