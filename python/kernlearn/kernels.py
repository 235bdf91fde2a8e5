"""Kernel matrices, indefinite ones included, and the spectrum transforms that make them PSD.

The pairwise kernels (:func:`tl1_kernel`, :func:`rbf_kernel`) are built in C++ in row blocks on
threads; the kernels on symmetric positive definite matrices (:func:`log_euclidean_kernel`,
:func:`affine_invariant_kernel`) work on a stack of SPD matrices such as the region covariance
descriptors of :func:`covariance_descriptor`.

Spectrum transforms (Wu, Chang & Zhang 2005; the names the IKLR and multi-similarity papers use),
with K = V diag(mu) V':

========== ================================ ==========================================
method     eigenvalues become                 what it needs
========== ================================ ==========================================
"clip"     max(mu, 0)                         the negative eigenpairs
"denoise"  max(mu, 0) (the same as "clip")    the negative eigenpairs
"flip"     abs(mu)                            the negative eigenpairs
"shift"    mu - min(mu_min, 0)                the smallest eigenvalue only
========== ================================ ==========================================

None of them needs a full eigendecomposition: K_clip = K - V_- diag(mu_-) V_-' and K_flip =
K - 2 V_- diag(mu_-) V_-' use the eigenpairs below zero only, "shift" the smallest eigenvalue.
Up to ``_solver_choice.MAKE_PSD_DENSE_MAX_N`` points (3,000) LAPACK computes just those, faster
than a full ``scipy.linalg.eigh``; above it the threshold mode of :func:`kernlearn.linalg.eigsh`
finds them (switching to LAPACK by itself when they are a large share of the spectrum). Lanczos
lost to LAPACK from 500 points on in every measured case: a kernel's eigenvalues cluster near
zero, and there it must settle them one by one (figures: bench/results/make_psd.md).
"""

import numbers

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator

from . import _core
from ._utils import _solver_choice
from ._utils._operators import CoreLinearOperator
from ._utils._param_validation import Interval, validate_params
from ._utils._scaling import binary_exponent
from ._utils._validation import (
    SYMMETRY_RTOL,
    as_real_array,
    check_choice,
    check_data,
    check_finite,
    check_random_state,
    check_real,
    relative_asymmetry,
    resolve_n_threads,
)
from .linalg import eigsh

__all__ = [
    "tl1_kernel",
    "rbf_kernel",
    "log_euclidean_kernel",
    "affine_invariant_kernel",
    "covariance_descriptor",
    "make_psd",
    "spectrum_bounds",
    "negative_part",
    "kernel_operator",
    "KernelOperator",
    "extreme_eigenpairs",
]

_METHODS = ("clip", "denoise", "flip", "shift")


# The kernel functions' parameters: one table, checked by validate_params in each function.
_POSITIVE = [Interval(numbers.Real, 0, None, closed="neither")]
_parameter_constraints = {"tau": [None, *_POSITIVE], "gamma": [None, *_POSITIVE]}
_POSITIVE_GAMMA = {"gamma": _POSITIVE}  # the SPD kernels take no default gamma


def _check_pairwise_parameters(kernel, gamma, tau):
    """The kernel of an operator ("rbf" or "tl1") and its own parameter only, each valid."""
    check_choice(kernel, "kernel", ("rbf", "tl1"))
    if gamma is not None and kernel != "rbf":
        raise ValueError("gamma is used by kernel='rbf' only")
    if tau is not None and kernel != "tl1":
        raise ValueError("tau is used by kernel='tl1' only")
    validate_params(
        _parameter_constraints, {"tau": tau, "gamma": None if gamma == "scale" else gamma}, "KernelOperator"
    )


def _pairwise_parameters(kernel, gamma, tau, n_features, variance):
    """(gamma_, tau_) of a kernel operator, the unused one None: RBF gamma as given, 1 / d for None,
    1 / (d Var X) for "scale" (``variance()`` is called only then: on a cluster it is a pass over
    the data); TL1 tau as given or 0.7 d."""
    if kernel == "rbf":
        spread = n_features * variance() if gamma == "scale" else 0.0
        return (float(gamma) if isinstance(gamma, numbers.Real) else 1.0 / (spread or n_features)), None
    return None, 0.7 * n_features if tau is None else float(tau)


def _pair(X, Y):
    X = check_data(X, "X")
    if Y is None:
        return X, X
    Y = check_data(Y, "Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(f"Y has {Y.shape[1]} features but X has {X.shape[1]}")
    return X, Y


def _check_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    return dtype


def tl1_kernel(X, Y=None, tau=None, *, dtype=np.float64, n_jobs=None):
    """Truncated l1-distance kernel max(tau - ||x - y||_1, 0) (Huang, Suykens et al., TNNLS 2018).

    Indefinite in general. Built in C++ in row blocks on ``n_jobs`` threads.

    Parameters
    ----------
    X : array of shape (n, d)
    Y : array of shape (m, d), optional (default X)
    tau : float, optional
        Truncation, > 0; default ``0.7 * d`` as in the TL1 and IKLR papers (for features scaled
        to [0, 1]).
    dtype : float32 or float64
        Storage of the result (float32 halves the memory; values are computed in double).

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.kernels import tl1_kernel
    >>> X = np.array([[0.0, 0.0], [0.5, 0.25], [1.0, 1.0]])
    >>> tl1_kernel(X, tau=1.4).round(3)  # max(1.4 - l1 distance, 0)
    array([[1.4 , 0.65, 0.  ],
           [0.65, 1.4 , 0.15],
           [0.  , 0.15, 1.4 ]])

    On features scaled to [0, 1] with the default tau (0.7 x 4 here) it is indefinite:

    >>> from sklearn.preprocessing import minmax_scale
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.kernels import spectrum_bounds
    >>> K = tl1_kernel(minmax_scale(load_iris().data))
    >>> K.shape
    (150, 150)
    >>> round(spectrum_bounds(K)[0], 3)  # the smallest eigenvalue
    -0.272
    """
    X, Y = _pair(X, Y)
    validate_params(_parameter_constraints, {"tau": tau}, "tl1_kernel")
    tau = 0.7 * X.shape[1] if tau is None else float(tau)
    kernel = _core.kernels.PairwiseKernel(kind=_core.kernels.PairwiseKind.tl1, tau=tau)
    return _core.kernels.pairwise_kernel(
        X, Y, kernel=kernel, single=_check_dtype(dtype) == np.float32, n_threads=resolve_n_threads(n_jobs)
    )


def rbf_kernel(X, Y=None, gamma=None, *, dtype=np.float64, n_jobs=None):
    """Gaussian kernel exp(-gamma ||x - y||^2) (the IKLR paper's exp(-d^2 / sigma^2): gamma =
    1 / sigma^2). Default gamma = 1 / d, as scikit-learn's ``rbf_kernel``.

    Parameters
    ----------
    X : array of shape (n, d)
    Y : array of shape (m, d), optional (default X)
    gamma : float > 0, optional
        Default ``1 / d``.
    dtype : float32 or float64
        Storage of the result (values are computed in double).
    n_jobs : int, optional
        Threads of the row blocks.

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.kernels import rbf_kernel
    >>> X = np.array([[0.0, 0.0], [0.5, 0.25], [1.0, 1.0]])
    >>> rbf_kernel(X, gamma=1.0).round(3)
    array([[1.   , 0.732, 0.135],
           [0.732, 1.   , 0.444],
           [0.135, 0.444, 1.   ]])
    >>> K = rbf_kernel(X, X[:2], dtype=np.float32)  # cross-kernel, stored in single precision
    >>> K.shape, K.dtype
    ((3, 2), dtype('float32'))
    """
    X, Y = _pair(X, Y)
    validate_params(_parameter_constraints, {"gamma": gamma}, "rbf_kernel")
    gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
    kernel = _core.kernels.PairwiseKernel(kind=_core.kernels.PairwiseKind.rbf, gamma=gamma)
    return _core.kernels.pairwise_kernel(
        X, Y, kernel=kernel, single=_check_dtype(dtype) == np.float32, n_threads=resolve_n_threads(n_jobs)
    )


class KernelOperator(CoreLinearOperator):
    """The kernel matrix K = k(X, X) of a data set as a LinearOperator that is never formed.

    Every product ``K @ V`` recomputes the entries tile by tile in C++ on ``n_jobs`` threads (the
    GIL released), in O(n (b + d)) memory for a V with b columns: at n = 10^5 the matrix would take
    75 GiB, the operator a few MiB. Each 256 x 256 tile of the upper triangle is computed once and
    used for both of its products, in an order that makes the result the same on any number of
    threads; the entries are bitwise those of :func:`rbf_kernel` / :func:`tl1_kernel` in float64,
    so a product differs from the dense one only in the order of its sums (figures against the
    dense product: ``bench/results/kernel_operator.md``).

    The solvers of kernlearn take it wherever they take a precomputed kernel or similarity
    (:class:`~kernlearn.indefinite.IndefiniteKernelLogisticRegression` with ``kernel="precomputed"``,
    :class:`~kernlearn.similarity.ESKL` / ``EMKL`` / ``REKL`` with ``rank``,
    :class:`~kernlearn.cluster.KernelKMeans`, :func:`kernlearn.linalg.eigsh`) and run on its C++
    products directly, with no Python in their loops. :class:`kernlearn.distributed.KernelOperator`
    is the same kernel multiplied on a Dask cluster.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite real data (copied once).
    kernel : {"rbf", "tl1"}
        ``exp(-gamma ||x - y||^2)`` or ``max(tau - ||x - y||_1, 0)``.
    gamma : float, "scale" or None
        RBF width: None is ``1 / n_features`` (as :func:`rbf_kernel`), "scale" is
        ``1 / (n_features Var X)`` (SVC's).
    tau : float or None
        TL1 truncation, default ``0.7 n_features``.
    constant : float, default 0
        Added to every entry: the operator is K + constant 11' (an intercept's constant feature).
    dtype : {float64, float32}
        Precision of the tiles. float32 computes the differences and exp in single precision (from
        X centred) and accumulates the products in double: about 1e-7 relative, and up to twice as
        fast. The products are float64 either way (the operator's ``dtype``).
    n_jobs : int, optional
        Threads of each product (scikit-learn's convention).

    Attributes
    ----------
    gamma_ : float or None
        The RBF gamma used (None for TL1).
    tau_ : float or None
        The TL1 truncation used (None for RBF).
    kernel_dtype_ : numpy.dtype
        The tiles' precision.
    core_operator : kernlearn._core.linalg.Operator
        What the core's solvers use.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.kernels import KernelOperator, rbf_kernel
    >>> X = np.random.default_rng(0).standard_normal((500, 4))
    >>> K = KernelOperator(X, "rbf", gamma=0.5)
    >>> V = np.ones((500, 2))
    >>> bool(np.allclose(K @ V, rbf_kernel(X, gamma=0.5) @ V, rtol=1e-13))
    True
    >>> bool(np.array_equal(K.column(3), rbf_kernel(X, gamma=0.5)[:, 3]))  # the same entries, bitwise
    True
    """

    _operand_rows = "one per row of X"

    def __init__(self, X, kernel="rbf", *, gamma=None, tau=None, constant=0.0, dtype=np.float64, n_jobs=None):
        _check_pairwise_parameters(kernel, gamma, tau)
        constant = check_finite(constant, "constant")
        self.kernel_dtype_ = _check_dtype(dtype)
        n_threads = resolve_n_threads(n_jobs)
        X = check_data(X, "X")
        self.gamma_, self.tau_ = _pairwise_parameters(kernel, gamma, tau, X.shape[1], X.var)
        kinds = _core.kernels.PairwiseKind
        if kernel == "rbf":
            spec = _core.kernels.PairwiseKernel(kind=kinds.rbf, gamma=self.gamma_)
        else:
            spec = _core.kernels.PairwiseKernel(kind=kinds.tl1, tau=self.tau_)
        self.kernel = kernel
        self.constant = float(constant)
        operator = _core.kernels.kernel_operator(
            X, kernel=spec, constant=self.constant, single=self.kernel_dtype_ == np.float32
        )
        super().__init__(operator, n_threads)


def _check_spd_stack(S, name):
    arr = as_real_array(S, name, finite=False, ensure_2d=False, allow_nd=True)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a stack of square matrices, shape (n, d, d); got {arr.shape}")
    arr = np.asarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    if np.abs(arr - arr.transpose(0, 2, 1)).max() > 1e-10 * max(np.abs(arr).max(), 1e-300):
        raise ValueError(f"{name} must hold symmetric matrices")
    return (arr + arr.transpose(0, 2, 1)) / 2


def _common_scale(*stacks):
    """The power of two that brings the largest entry of the stacks near 1: both kernels below
    depend on S and T only through log S - log T or S^-1/2 T S^-1/2, which a common factor leaves
    unchanged, while matrices near the ends of the float64 range overflow in the products."""
    return float(np.ldexp(1.0, -binary_exponent(*stacks)))


def _spd_eigh(S, name):
    values, vectors = np.linalg.eigh(S)
    if (values <= 0).any():
        bad = int(np.argmax((values <= 0).any(axis=1)))
        raise ValueError(f"{name}[{bad}] is not positive definite (smallest eigenvalue {values[bad, 0]:.3g})")
    return values, vectors


def _spd_function(values, vectors, fn):
    return np.einsum("nij,nj,nkj->nik", vectors, fn(values), vectors)


def log_euclidean_kernel(S, T=None, gamma=1.0, *, n_jobs=None):
    """Gaussian kernel of the log-Euclidean distance ||log S_1 - log S_2||_F between SPD matrices.

    Positive definite (the log-Euclidean geometry is flat; Jayasumana et al., CVPR 2013).
    ``S`` and ``T`` are stacks of shape (n, d, d) and (m, d, d); the kernel is exp(-gamma d^2).

    Examples
    --------
    On the region covariances of 100 digit images:

    >>> from sklearn.datasets import load_digits
    >>> from kernlearn.kernels import covariance_descriptor, log_euclidean_kernel, spectrum_bounds
    >>> S = covariance_descriptor(load_digits().images[:100])
    >>> K = log_euclidean_kernel(S, gamma=0.01)
    >>> K.shape
    (100, 100)
    >>> spectrum_bounds(K)[0] > 0  # positive definite
    True
    >>> log_euclidean_kernel(S[:5], S[5:], gamma=0.01).shape  # between two stacks
    (5, 95)
    """
    S = _check_spd_stack(S, "S")
    T = S if T is None else _check_spd_stack(T, "T")
    if T.shape[1:] != S.shape[1:]:
        raise ValueError(f"T holds {T.shape[1]} x {T.shape[2]} matrices but S holds {S.shape[1]} x {S.shape[2]}")
    validate_params(_POSITIVE_GAMMA, {"gamma": gamma}, "log_euclidean_kernel")
    gamma = float(gamma)
    scale = _common_scale(S, T)
    S, T = S * scale, T * scale
    logs = [_spd_function(*_spd_eigh(A, name), np.log).reshape(len(A), -1) for A, name in ((S, "S"), (T, "T"))]
    # ||log S1 - log S2||_F^2 is the squared Euclidean distance of the flattened logarithms.
    kernel = _core.kernels.PairwiseKernel(kind=_core.kernels.PairwiseKind.rbf, gamma=gamma)
    return _core.kernels.pairwise_kernel(
        np.ascontiguousarray(logs[0]), np.ascontiguousarray(logs[1]), kernel=kernel, n_threads=resolve_n_threads(n_jobs)
    )


def affine_invariant_kernel(S, T=None, gamma=1.0, *, n_jobs=None):
    """Gaussian kernel of the affine-invariant distance ||log(S_1^-1/2 S_2 S_1^-1/2)||_F.

    Indefinite in general (the affine-invariant manifold is curved; Feragen et al., CVPR 2015;
    on digits' covariance descriptors it is indefinite at small gamma: bench/results/iklr.md).
    The distance is sqrt(sum_k log^2 lambda_k) over the eigenvalues of W_1 S_2 W_1 with
    W_1 = S_1^-1/2 (the generalised eigenvalues of (S_2, S_1)); the pairs run in C++ on threads,
    each d x d eigenproblem by Eigen, only j >= i when T is S.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from kernlearn.kernels import affine_invariant_kernel, covariance_descriptor, spectrum_bounds
    >>> S = covariance_descriptor(load_digits().images[:100])
    >>> K = affine_invariant_kernel(S, gamma=0.01)
    >>> K.shape
    (100, 100)
    >>> spectrum_bounds(K)[0] < 0  # indefinite, unlike the log-Euclidean kernel
    True
    >>> affine_invariant_kernel(S[:5], S[5:], gamma=0.01).shape
    (5, 95)
    """
    S = _check_spd_stack(S, "S")
    same = T is None
    T = S if same else _check_spd_stack(T, "T")
    if T.shape[1:] != S.shape[1:]:
        raise ValueError(f"T holds {T.shape[1]} x {T.shape[2]} matrices but S holds {S.shape[1]} x {S.shape[2]}")
    validate_params(_POSITIVE_GAMMA, {"gamma": gamma}, "affine_invariant_kernel")
    gamma = float(gamma)
    scale = _common_scale(S, T)
    S, T = S * scale, (S * scale if same else T * scale)
    W = np.ascontiguousarray(_spd_function(*_spd_eigh(S, "S"), lambda v: v**-0.5))
    _spd_eigh(T, "T")
    K = _core.kernels.affine_invariant_kernel(
        W, np.ascontiguousarray(T, dtype=np.float64), gamma=gamma, same=same, n_threads=resolve_n_threads(n_jobs)
    )
    if same:  # d(S_i, S_i) = 0 exactly; its rounding times a large gamma would not give exp(0)
        np.fill_diagonal(K, 1.0)
    return K


def covariance_descriptor(image, *, regularization=1e-6):
    """Region covariance of an image (Tuzel, Porikli & Meer, ECCV 2006), as in Section V-C of the
    IKLR paper: the 9 x 9 covariance over pixels of::

        [x, y, I, |I_x|, |I_y|, sqrt(I_x^2 + I_y^2), |I_xx|, |I_yy|, arctan(|I_x| / |I_y|)]

    with central-difference derivatives (``numpy.gradient``) and arctan2 for the angle (pi/2
    where I_y = 0). ``regularization * (trace / 9)`` is added to the diagonal so that flat images
    (constant regions make features collinear) still give SPD matrices.

    Parameters
    ----------
    image : array of shape (h, w) or (n, h, w)

    Returns
    -------
    ndarray of shape (9, 9) or (n, 9, 9)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_digits
    >>> from kernlearn.kernels import covariance_descriptor
    >>> images = load_digits().images[:100]  # 8 x 8 grey levels
    >>> S = covariance_descriptor(images)
    >>> S.shape
    (100, 9, 9)
    >>> bool(np.all(np.linalg.eigvalsh(S) > 0))  # symmetric positive definite
    True
    >>> covariance_descriptor(images[0]).shape
    (9, 9)
    """
    arr = as_real_array(image, "image", finite=False, ensure_2d=False, allow_nd=True)
    single = arr.ndim == 2
    if single:
        arr = arr[None]
    if arr.ndim != 3 or min(arr.shape[1:]) < 3:
        raise ValueError(f"image must have shape (h, w) or (n, h, w) with h, w >= 3; got {np.shape(image)}")
    arr = np.asarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise ValueError("image contains NaN or infinity")
    check_real(regularization, "regularization", low=0.0)
    n, h, w = arr.shape
    # Each image is scaled by a power of two (exact) so that its derivatives and products cannot
    # overflow; the intensity rows and columns of C are scaled back at the end.
    peak = np.abs(arr).max(axis=(1, 2))
    exponent = np.where(peak > 0, np.frexp(peak)[1], 0)
    arr = np.ldexp(arr, -exponent[:, None, None])
    gy, gx = np.gradient(arr, axis=(1, 2))
    gyy = np.gradient(gy, axis=1)
    gxx = np.gradient(gx, axis=2)
    rows, cols = np.meshgrid(np.arange(h, dtype=float), np.arange(w, dtype=float), indexing="ij")
    features = np.stack(
        [
            np.broadcast_to(cols, arr.shape),
            np.broadcast_to(rows, arr.shape),
            arr,
            np.abs(gx),
            np.abs(gy),
            np.hypot(gx, gy),
            np.abs(gxx),
            np.abs(gyy),
            np.arctan2(np.abs(gx), np.abs(gy)),
        ],
        axis=-1,
    ).reshape(n, h * w, 9)
    centred = features - features.mean(axis=1, keepdims=True)
    C = np.einsum("npi,npj->nij", centred, centred) / (h * w - 1)
    # Features 2..7 scale with the intensity, the pixel coordinates and the angle do not.
    power = np.zeros((n, 9), dtype=np.int64)
    power[:, 2:8] = exponent[:, None]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below
        C = np.ldexp(C, power[:, :, None] + power[:, None, :])
        C += (regularization * np.trace(C, axis1=1, axis2=2) / 9)[:, None, None] * np.eye(9)
    if not np.isfinite(C).all():
        bad = int(np.argmax(~np.isfinite(C).all(axis=(1, 2))))
        raise ValueError(
            f"the covariance of image{'' if single else f'[{bad}]'} exceeds the float64 range (intensities up "
            f"to {float(peak[bad]):.3g}; their squares must stay below about 1e308): rescale the image"
        )
    return C[0] if single else C


def kernel_operator(K, n_jobs=None):
    """K (symmetric, finite) as a LinearOperator whose products run in the core, so Lanczos can
    work on a float32 kernel without a float64 copy. A C-contiguous float32 or float64 K is used
    as it is; any other K is copied once into C-contiguous float64.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import minmax_scale
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.kernels import tl1_kernel
    >>> K = tl1_kernel(minmax_scale(load_iris().data))  # indefinite
    >>> from kernlearn.kernels import kernel_operator
    >>> from kernlearn.linalg import eigsh
    >>> op = kernel_operator(K.astype(np.float32))  # no float64 copy of the kernel
    >>> op.shape
    (150, 150)
    >>> values, vectors, info = eigsh(op, 2, random_state=0)
    >>> np.round(values, 1)
    array([251.1,  90.6])
    """
    n_threads = resolve_n_threads(n_jobs)
    K = as_real_array(K, "K", dtype=(np.float64, np.float32))
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    _require_symmetric(K, "K")
    return CoreLinearOperator(_core.linalg.dense_operator(K, symmetric=True, name="K"), n_threads)


def extreme_eigenpairs(op, tol=1e-8, random_state=None):
    """Smallest eigenpair and largest eigenvalue of a symmetric operator (a kernel), by Lanczos
    on K with its top eigenpairs deflated.

    A kernel's spectrum is a few large eigenvalues and a cluster near zero: Lanczos for the
    smallest one needs about 1/sqrt(gap / width) steps. Removing the top eigenpairs first (they
    converge fast) shrinks the width, and with it the total (bench/results/iklr.md). The Ritz value
    is then recomputed as a Rayleigh quotient of K itself (one mat-vec).

    Returns (mu_min, v_min, mu_max, deflated operator, mat-vecs used).

    Examples
    --------
    >>> from sklearn.preprocessing import minmax_scale
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.kernels import tl1_kernel
    >>> K = tl1_kernel(minmax_scale(load_iris().data))  # indefinite
    >>> from kernlearn.kernels import extreme_eigenpairs, kernel_operator
    >>> mu_min, v_min, mu_max, deflated, n_matvec = extreme_eigenpairs(kernel_operator(K), random_state=0)
    >>> round(mu_min, 3), round(mu_max, 1), v_min.shape
    (-0.272, 251.1, (150,))
    """
    validate_params(_TOL_PARAMETERS, {"tol": tol, "random_state": random_state}, "extreme_eigenpairs")
    rng = check_random_state(random_state)
    n = op.shape[0]
    if n <= _solver_choice.DENSE_MAX_N:  # LAPACK on the explicit matrix
        values, vectors = scipy.linalg.eigh(np.asarray(op.matmat(np.eye(n)), dtype=np.float64))
        return float(values[0]), vectors[:, 0], float(values[-1]), op, n
    return _lanczos_extreme_eigenpairs(op, tol, rng)


def _lanczos_extreme_eigenpairs(op, tol, rng):
    """extreme_eigenpairs by Lanczos whatever n: only products with op, never its matrix (the
    distributed operators' path). rng is a RandomState."""
    n = op.shape[0]
    k_top = min(30, max(1, n // 50))
    top, U, info_top = eigsh(op, k_top, "LA", tol=tol, method="lanczos", random_state=rng)

    # The deflated directions are moved down to top[-1], the k_top-th eigenvalue (an upper bound
    # of the rest of the spectrum), not to 0: a PD kernel's smallest eigenvalue would otherwise
    # be one of them.
    lift = top - top[-1]

    def deflated_matmat(Z):
        return op.matmat(Z) - U @ (lift[:, None] * (U.T @ Z))

    deflated = LinearOperator(
        (n, n), matvec=lambda z: deflated_matmat(z.reshape(-1, 1))[:, 0], matmat=deflated_matmat, dtype=np.float64
    )
    low, v, info_low = eigsh(deflated, 1, "SA", tol=tol, method="lanczos", random_state=rng)
    v = v[:, 0]
    theta = float(v @ op.matvec(v))
    return theta, v, float(top[0]), deflated, info_top["n_matvec"] + info_low["n_matvec"] + 1


def _check_kernel(K, name="K"):
    """A finite float64 square symmetric matrix (a copy only when the dtype must change)."""
    K = check_data(K, name)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be square, got shape {K.shape}")
    _require_symmetric(K, name)
    return K


def _require_symmetric(K, name):
    """A ValueError naming K unless it is symmetric to SYMMETRY_RTOL (no copy of K)."""
    asymmetry = relative_asymmetry(K)
    if asymmetry > SYMMETRY_RTOL:
        raise ValueError(
            f"{name} must be symmetric: relative max |{name} - {name}.T| = {asymmetry:.3g}; symmetrise it "
            f"first, e.g. ({name} + {name}.T) / 2"
        )


_TOL_PARAMETERS = {"tol": [Interval(numbers.Real, 0, 1, closed="neither")], "random_state": ["random_state"]}


def spectrum_bounds(K, *, tol=1e-8, random_state=None, n_jobs=None):
    """The smallest and largest eigenvalues of a symmetric kernel matrix, by Lanczos.

    Returns
    -------
    (mu_min, mu_max) : tuple of float
        Each to ``tol * max|mu|``: Lanczos for the top eigenpairs, then for the smallest with those
        deflated (:func:`extreme_eigenpairs`); LAPACK up to :data:`kernlearn.linalg.DENSE_MAX_N`.

    Examples
    --------
    >>> from sklearn.preprocessing import minmax_scale
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.kernels import tl1_kernel
    >>> K = tl1_kernel(minmax_scale(load_iris().data))  # indefinite
    >>> from kernlearn.kernels import spectrum_bounds
    >>> mu_min, mu_max = spectrum_bounds(K, random_state=0)
    >>> round(mu_min, 3), round(mu_max, 1)
    (-0.272, 251.1)
    """
    validate_params(_TOL_PARAMETERS, {"tol": tol, "random_state": random_state}, "spectrum_bounds")
    resolve_n_threads(n_jobs)  # checks n_jobs, which small K never passes on
    K = _check_kernel(K)
    if K.shape[0] <= _solver_choice.DENSE_MAX_N:
        values = scipy.linalg.eigvalsh(K)
        return float(values[0]), float(values[-1])
    mu_min, _, mu_max, _, _ = extreme_eigenpairs(kernel_operator(K, n_jobs), tol, random_state)
    return mu_min, mu_max


def negative_part(K, *, tol=1e-10, random_state=None, n_jobs=None):
    """Every eigenpair of K with a negative eigenvalue: ``(mu_-, V_-)``, most negative first.

    Eigenvalues within ``tol * ||K||`` of zero count as zero (Lanczos cannot tell them from it).
    LAPACK up to ``_solver_choice.MAKE_PSD_DENSE_MAX_N`` points, threshold-mode Lanczos above
    (module docstring).

    Examples
    --------
    >>> from sklearn.preprocessing import minmax_scale
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.kernels import tl1_kernel
    >>> K = tl1_kernel(minmax_scale(load_iris().data))  # indefinite
    >>> from kernlearn.kernels import negative_part
    >>> mu, V = negative_part(K, random_state=0)
    >>> mu.round(3)
    array([-0.272, -0.222, -0.054, -0.012, -0.008])
    >>> V.shape
    (150, 5)
    """
    validate_params(_TOL_PARAMETERS, {"tol": tol, "random_state": random_state}, "negative_part")
    resolve_n_threads(n_jobs)  # checks n_jobs, which small K never passes on
    K = _check_kernel(K)
    if K.shape[0] == 1:
        neg = K[0, 0] < 0
        return (K[0].copy() if neg else np.empty(0)), (np.ones((1, 1)) if neg else np.empty((1, 0)))
    # LAPACK up to MAKE_PSD_DENSE_MAX_N: a kernel's eigenvalues cluster near zero, where Lanczos
    # has to resolve them one by one (figures: bench/results/make_psd.md).
    method = "dense" if K.shape[0] <= _solver_choice.MAKE_PSD_DENSE_MAX_N else "auto"
    values, vectors, _ = eigsh(
        K,
        which="SA",
        threshold=0.0,
        tol=tol,
        method=method,
        random_state=random_state,
        check_symmetric=False,
        n_jobs=n_jobs,
    )
    return values, vectors


def make_psd(K, method="clip", *, random_state=None, n_jobs=None):
    """A positive semidefinite version of a symmetric (indefinite) kernel matrix.

    Parameters
    ----------
    K : array of shape (n, n)
        Real symmetric (to 1e-10 relative; otherwise a ValueError asks to symmetrise).
    method : {"clip", "denoise", "flip", "shift"}
        See the module docstring; "denoise" is another name for "clip".
    random_state : int, RandomState or Generator, optional
        Start vector of the Lanczos runs.
    n_jobs : int, optional
        Threads for the mat-vecs.

    Returns
    -------
    K_psd : ndarray of shape (n, n)
        A new array; K is not modified.

    Notes
    -----
    Up to ``_solver_choice.MAKE_PSD_DENSE_MAX_N`` points the negative eigenpairs (or, for
    "shift", the smallest eigenvalue) come from LAPACK, which takes 0.2-0.9 of the time of a full
    ``scipy.linalg.eigh``; above it from threshold-mode Lanczos (module docstring; figures:
    bench/results/make_psd.md).

    Examples
    --------
    >>> from sklearn.preprocessing import minmax_scale
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.kernels import tl1_kernel
    >>> K = tl1_kernel(minmax_scale(load_iris().data))  # indefinite
    >>> from kernlearn.kernels import make_psd, spectrum_bounds
    >>> K_clip = make_psd(K, random_state=0)  # the negative eigenvalues set to 0
    >>> spectrum_bounds(K_clip)[0] > -1e-10
    True
    >>> K_shift = make_psd(K, "shift")  # the smallest eigenvalue added to the diagonal
    >>> round(float(K_shift[0, 0] - K[0, 0]), 3)
    0.272
    """
    check_choice(method, "method", _METHODS)
    # Checked here: the dense routes below pass neither on.
    validate_params({"random_state": ["random_state"]}, {"random_state": random_state}, "make_psd")
    resolve_n_threads(n_jobs)
    K = _check_kernel(K)
    if method == "shift":
        if K.shape[0] <= _solver_choice.MAKE_PSD_DENSE_MAX_N:  # the smallest eigenvalue only
            mu_min = float(scipy.linalg.eigvalsh(K, subset_by_index=[0, 0], check_finite=False)[0])
        else:
            mu_min, _ = spectrum_bounds(K, random_state=random_state, n_jobs=n_jobs)
        out = K.copy()
        if mu_min < 0:
            out[np.diag_indices_from(out)] -= mu_min
        return out
    mu, V = negative_part(K, random_state=random_state, n_jobs=n_jobs)
    factor = 1.0 if method in ("clip", "denoise") else 2.0
    out = K - (V * (factor * mu)) @ V.T
    return (out + out.T) / 2.0  # exact symmetry, lost to rounding in the product
