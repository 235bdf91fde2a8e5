"""Eigenpairs of large symmetric matrices: thick-restart Lanczos in C++ with a dense fallback.

:func:`eigsh` is the spectral core every learner of kernlearn rests on: a few extreme eigenpairs,
or every eigenpair above a threshold (the positive part of an indefinite matrix, whose rank is not
known in advance), warm-started from an earlier solution when a solver re-solves a slowly
changing matrix.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.exceptions import ConvergenceWarning

from . import _core
from ._utils import _solver_choice
from ._utils._operators import as_core_operator
from ._utils._scaling import binary_exponent
from ._utils._signs import fix_signs
from ._utils._validation import (
    as_real_array,
    check_choice,
    check_data,
    check_finite,
    check_int,
    check_random_state,
    check_square_sparse,
    resolve_n_threads,
)

__all__ = ["eigsh", "estimate_count_beyond", "DENSE_MAX_N", "DENSE_FRACTION"]

# Re-exported for users who read them; the rule lives in _utils/_solver_choice.py.
DENSE_MAX_N = _solver_choice.DENSE_MAX_N
DENSE_FRACTION = _solver_choice.DENSE_FRACTION


_WHICH = {"LA": _core.linalg.LanczosWhich.largest, "SA": _core.linalg.LanczosWhich.smallest}

# The core's counts are 64-bit: a larger maxiter means "no cap" and is clipped to this.
_INDEX_MAX = 2**62
# The core's thread counts are C ints.
_INT_MAX = 2**31 - 1


def eigsh(
    A,
    k=None,
    which="LA",
    *,
    threshold=None,
    v0=None,
    tol=1e-10,
    maxiter=None,
    ncv=None,
    max_rank=None,
    method="auto",
    filter_level=None,
    random_state=None,
    check_symmetric=True,
    n_jobs=None,
):
    """Extreme eigenpairs of a real symmetric matrix.

    Parameters
    ----------
    A : sparse matrix, ndarray or scipy.sparse.linalg.LinearOperator of shape (n, n)
        Real symmetric. A LinearOperator is only ever multiplied (its ``matmat``), and its
        symmetry is the caller's promise.
    k : int, optional
        Number of eigenpairs, ``0 < k < n``. Required unless ``threshold`` is given (then it is
        the first guess of the count).
    which : {"LA", "SA"}
        Largest or smallest algebraic eigenvalues.
    threshold : float, optional
        Return every eigenpair with eigenvalue > threshold ("LA") or < threshold ("SA"); the
        count is found as the solver goes (possibly 0). Lanczos cannot tell eigenvalues within
        ``tol * ||A||`` of the threshold from it and leaves them out (the exact zeros of a
        graph's components would otherwise come back as rounding-level "positive" pairs).
    v0 : array of shape (n,) or (n, b), optional
        Start vector, or a block of vectors (e.g. the eigenvectors of the previous, similar
        problem: a warm start). A block costs b products for one Rayleigh-Ritz step on its span.
        When its k wanted Ritz pairs already meet ``tol``, those meeting 1%% of it are kept (if
        they are the whole answer, a short probe for missed copies of repeated eigenvalues is all
        that is left) and Lanczos starts from the sum of the others. A block of 2 <= b <= n / 2
        columns, at least k, from a matrix that has since moved (its wanted Ritz pairs miss
        ``tol`` but lie within a tenth of ``||A||`` of invariant), with n >= 64 and no
        ``filter_level`` or ``threshold`` given, goes further: its k-th Ritz value, which lies
        on the unwanted side of the k-th eigenvalue, becomes ``filter_level`` and the filtered
        run starts from the sum of the k wanted Ritz vectors. On a sequence of saddle-point
        matrices that takes 0.6 of a cold solve's time, where the block as a start saved nothing
        (``bench/results/eigsh.md``, "sequence"); ``info["filtered"]`` tells. Other blocks (a
        random one, a nearly dependent one, b > n / 2) take the plain warm start above, and an
        orthonormal block too far from invariant for any pair to meet ``tol`` (judged by one
        product) skips its Rayleigh-Ritz step and Lanczos starts from the sum of its columns.
        Default: a Gaussian vector drawn from ``random_state``.
    tol : float
        Converged when ``||A v - lambda v|| <= tol * ||A||`` (``||A||`` estimated by the largest
        Ritz value magnitude).
    maxiter : int, optional
        Maximum number of matrix-vector products (default 100 n).
    ncv : int, optional
        Lanczos basis size, ``k < ncv <= n`` (default ``k + max(20, 0.6 k)``).
    max_rank : int, optional
        Threshold mode: return at most this many eigenpairs (status "max_rank_reached" when more
        lie beyond the threshold).
    method : {"auto", "lanczos", "dense"}
        "auto" is dense when ``n <= DENSE_MAX_N`` or more than ``DENSE_FRACTION * n`` eigenpairs
        are wanted, Lanczos otherwise. Dense: LAPACK's Householder route (scipy's LAPACK) with
        only the wanted eigenvectors computed (MRRR when they are few) and transformed back.
    filter_level : float, optional
        With Lanczos: a level on the unwanted side of the wanted pairs (below them for "LA", above
        for "SA"; in threshold mode at or beyond the threshold, e.g. the threshold itself). Lanczos
        then runs on a degree-%(DEGREE)d Chebyshev polynomial of A that maps the spectrum between
        the level and A's far end into [-1, 1] and spreads the pairs beyond it apart: fewer Lanczos
        steps, hence less orthogonalisation and fewer restarts, at %(DEGREE)d products with A a
        step. It pays when the unwanted side of the spectrum is wide and the wanted pairs lie close
        together (SimpleNPKL's top 200 on the Adult-like problem; figures in
        ``bench/results/eigsh.md``). The
        pairs are checked against A (Rayleigh quotients). The polynomial's interval ends 5%% of the
        spectrum's width short of the level, so pairs just on its unwanted side still come in order
        when fewer than k lie beyond it. If a pair lies further in, misses ``tol``, or the filtered
        run does not converge within 12 k + 200 steps, plain Lanczos finishes from the pairs found,
        on the rest of the ``maxiter`` budget (none left: they are returned as found).
        ``info["filtered"]`` says whether the filtered pairs were returned (False also when nothing
        lies beyond the level on the unwanted side, for n < 64, and on the dense path, which needs
        no filter: "auto" may choose it). ``n_matvec`` counts products with A; ``maxiter`` is shared
        by the stages (the estimate of A's far end, the filtered run, the plain finish), each kept
        to within a Lanczos cycle.
    random_state : int, RandomState or Generator, optional
        Draws the default start vector (and fresh vectors after an invariant subspace).
    check_symmetric : bool
        Check that a sparse or dense A is symmetric (to 1e-10 relative); False skips the O(nnz)
        check.
    n_jobs : int, optional
        Threads for the sparse mat-vec (scikit-learn's convention; at most the usable cores).

    Returns
    -------
    eigenvalues : ndarray of shape (m,)
        Decreasing for "LA", increasing for "SA" (the most extreme first).
    eigenvectors : ndarray of shape (n, m)
        Orthonormal columns. Sign rule: each column's entry of largest magnitude is positive (the
        first such entry on a tie).
    info : dict
        ``method``, ``status`` ("converged", "not_converged", "max_rank_reached"),
        ``converged``, ``n_matvec``, ``n_restart``, ``residuals`` (``||A v - lambda v||`` per
        pair), ``norm_estimate``, ``filtered``.

    Warns
    -----
    ConvergenceWarning
        When a returned pair misses ``tol`` (Lanczos stopped at ``maxiter``, or a measured residual
        is above ``tol * ||A||``, e.g. a ``tol`` below the rounding level); the pairs are returned
        with their residuals.

    Notes
    -----
    The residuals are measured: ``||A v - lambda v||`` recomputed with one product with A per
    pair (counted in ``n_matvec``). A matrix whose norm lies outside about [1e-144, 1e144] is
    scaled by a power of two for the solve (as LAPACK's ``dsyevd`` does) and the eigenvalues and
    residuals scaled back, so any finite A gives its eigenpairs to working accuracy.

    Ctrl-C stops Lanczos within a second. The dense method runs one LAPACK reduction that cannot
    be interrupted: about a second at n = 2000 and 10 s at n = 5000 (it grows as n^3); so does
    ``method="auto"`` when it chooses dense (n <= DENSE_MAX_N, or many pairs wanted).

    Examples
    --------
    The smallest eigenpairs of a kNN graph's Laplacian, as in spectral clustering:

    >>> import numpy as np
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.graph import knn_graph, laplacian
    >>> from kernlearn.linalg import eigsh
    >>> L = laplacian(knn_graph(load_iris().data, 5))
    >>> values, vectors, info = eigsh(L, 3, "SA", method="lanczos", random_state=0)
    >>> vectors.shape, info["converged"]
    ((150, 3), True)
    >>> int(np.sum(values < 1e-8))  # one zero eigenvalue per connected component
    2
    >>> round(float(values[2]), 4)
    0.0099

    Every eigenpair beyond a threshold, their number found as the solver goes:

    >>> values, vectors, info = eigsh(L, which="SA", threshold=0.05, random_state=0)
    >>> values.size, vectors.shape, info["status"]
    (5, (150, 5), 'converged')
    """
    check_choice(which, "which", ("LA", "SA"))
    check_choice(method, "method", ("auto", "lanczos", "dense"))
    operator, n = _check_operator(A, check_symmetric)
    if threshold is None:
        if k is None:
            raise ValueError("k is required unless threshold is given")
        k = check_int(k, "k", low=1)
        if k >= n:
            raise ValueError(f"k must be < n = {n}, got {k} (use method='dense' for all eigenpairs)")
    else:
        threshold = check_finite(threshold, "threshold")
        k = 10 if k is None else check_int(k, "k", low=1)
        k = min(k, n)
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol must be a real number, got {tol!r}")
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a positive finite float, got {tol!r}")
    tol = float(tol)
    maxiter = 100 * n if maxiter is None else min(check_int(maxiter, "maxiter", low=1), _INDEX_MAX)
    max_rank = n if max_rank is None else min(check_int(max_rank, "max_rank", low=1), n)
    if not isinstance(check_symmetric, (bool, np.bool_)):
        raise TypeError(f"check_symmetric must be a bool, got {check_symmetric!r}")
    # Every method takes n_jobs (the dense one ignores it): checked on every path.
    n_threads = min(resolve_n_threads(n_jobs), _INT_MAX)
    if ncv is not None:
        ncv = check_int(ncv, "ncv", low=1)
        if not (min(k, n - 1) < ncv <= n):
            raise ValueError(f"ncv must satisfy k < ncv <= n = {n}, got ncv={ncv} with k={k}")
    if filter_level is not None:
        filter_level = check_finite(filter_level, "filter_level")
        if threshold is not None and (filter_level > threshold if which == "LA" else filter_level < threshold):
            raise ValueError(
                f"filter_level must lie on the unwanted side of threshold ({'<=' if which == 'LA' else '>='} "
                f"{threshold}), got {filter_level}"
            )
    rng = check_random_state(random_state)
    start = _check_v0(v0, n, rng)

    info_extra = {}
    if method == "auto":
        if n <= _solver_choice.DENSE_MAX_N:
            method = "dense"
        elif threshold is None:
            method = "dense" if k > _solver_choice.DENSE_FRACTION * n else "lanczos"
        else:
            # The count is unknown: estimate it cheaply, then choose (and size Lanczos by it).
            estimate = _estimate_count_beyond(operator, n, threshold, which, 100, 20, rng)
            info_extra["estimated_count"] = estimate
            method = "dense" if estimate > _solver_choice.DENSE_FRACTION * n else "lanczos"
            k = max(k, min(n - 1, int(1.1 * estimate) + 10))
    if method == "dense":
        values, vectors, info = _dense(operator, n, k, which, threshold, max_rank, tol)
    else:
        values, vectors, info = _lanczos(
            operator,
            n,
            k,
            which,
            threshold,
            start,
            tol,
            maxiter,
            ncv,
            max_rank,
            int(rng.randint(np.iinfo(np.int32).max)),
            n_threads,
            filter_level,
        )
    info.update(info_extra)
    if not (np.isfinite(values).all() and np.isfinite(vectors).all() and np.isfinite(info["residuals"]).all()):
        raise ValueError("eigsh: A's eigenpairs are not finite in double precision (A too large to represent them)")
    if info["status"] == "not_converged":
        worst = float(np.max(info["residuals"], initial=0.0))
        bound = tol * info["norm_estimate"]
        if worst > bound:
            missed = f"largest residual {worst:.3g} > tol * ||A|| = {bound:.3g}"
        elif threshold is not None:
            # Every pair returned meets tol (or none was found): what did not converge is the
            # search beyond them, typically eigenvalues clustered near the threshold.
            side = "above" if which == "LA" else "below"
            missed = (
                f"the {values.size} pair(s) returned meet tol * ||A|| = {bound:.3g}, but whether further "
                f"eigenvalues lie {side} threshold = {threshold:g} was not settled (eigenvalues clustered "
                "near it?); some may be missing"
            )
        else:
            missed = f"only {values.size} of the k = {k} pairs wanted met tol * ||A|| = {bound:.3g}"
        warnings.warn(
            f"eigsh ({info['method']}): stopped after {info['n_matvec']} mat-vecs before convergence: {missed}",
            ConvergenceWarning,
            stacklevel=2,
        )
    return values, fix_signs(vectors), info


if eigsh.__doc__:  # None under python -OO
    eigsh.__doc__ = eigsh.__doc__ % {"DEGREE": _core.linalg.FILTER_DEGREE}


def _check_operator(A, check_symmetric):
    """Validated operator: ('csr', matrix) | ('dense', array) | ('callback', LinearOperator)."""
    if isinstance(A, LinearOperator):
        if len(A.shape) != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be square, got shape {A.shape}")
        if A.shape[0] == 0:
            raise ValueError("A is empty")
        if np.dtype(A.dtype).kind not in "biuf":
            raise TypeError(f"A must be real, got dtype {A.dtype}")
        return ("callback", A), A.shape[0]
    if sp.issparse(A):
        S = check_square_sparse(A, "A")
        if check_symmetric:
            _require_symmetric(abs(S - S.T).max() if S.nnz else 0.0, abs(S).max() if S.nnz else 0.0)
        return ("csr", S), S.shape[0]
    D = check_data(A, "A")
    if D.shape[0] != D.shape[1]:
        raise ValueError(f"A must be square, got shape {D.shape}")
    if check_symmetric:
        _require_symmetric(np.abs(D - D.T).max(), np.abs(D).max())
    return ("dense", D), D.shape[0]


def _require_symmetric(asymmetry, scale):
    if asymmetry > 1e-10 * scale:
        raise ValueError(
            f"A must be symmetric: max |A - A.T| = {asymmetry:.3g} (relative "
            f"{asymmetry / scale:.3g}); pass check_symmetric=False to skip this check"
        )


def _check_v0(v0, n, rng):
    if v0 is None:
        return rng.standard_normal((n, 1))
    arr = as_real_array(v0, "v0", finite=False, ensure_2d=False)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != n or arr.shape[1] == 0:
        raise ValueError(f"v0 must have shape ({n},) or ({n}, b), got {np.shape(v0)}")
    arr = np.array(arr, dtype=np.float64, order="C")  # a copy: the caller's array is never touched
    if not np.isfinite(arr).all():
        raise ValueError("v0 contains NaN or infinity")
    if not np.any(arr.sum(axis=1)):
        raise ValueError("v0 must not be zero (nor have columns summing to zero)")
    return arr


def _lanczos(operator, n, k, which, threshold, start, tol, maxiter, ncv, max_rank, seed, n_threads, filter_level):
    _, A = operator
    linalg = _core.linalg
    # maxiter and max_rank are always passed: eigsh's documented defaults (100 n, n) also size the
    # filtered run's budget, where the core's "none" would mean no cap.
    options = linalg.LanczosOptions(
        k=k,
        which=_WHICH[which],
        threshold=threshold,
        max_rank=max_rank,
        ncv=ncv,
        tol=tol,
        max_matvec=maxiter,
        seed=seed,
        filter=None if filter_level is None else linalg.LanczosFilter(level=filter_level),
    )
    result = linalg.lanczos(as_core_operator(A, "A"), options=options, v0=start, n_threads=n_threads)
    converged = result.status == _core.core.SolverStatus.converged
    info = {
        "method": "lanczos",
        "status": ("max_rank_reached" if result.max_rank_reached else "converged") if converged else "not_converged",
        "converged": converged,
        "n_matvec": result.n_matvec,
        "n_restart": result.n_restart,
        "residuals": np.array(result.residuals),
        "norm_estimate": result.norm_estimate,
        "filtered": result.filtered,
    }
    return np.array(result.values), result.vectors, info


def _dense(operator, n, k, which, threshold, max_rank, tol):
    kind, A = operator
    if kind == "csr":
        M = A.toarray()
    elif kind == "dense":
        M = A
    else:
        M = np.asarray(A.matmat(np.eye(n)), dtype=np.float64)
    # The core's dense route computes and transforms back only the wanted pairs (MRRR for a few,
    # divide and conquer for many), where scipy's evd computes every pair and evr's subset path
    # is slower still (bench/results/eigsh.md).
    M = np.ascontiguousarray(M, dtype=np.float64)
    if threshold is None:
        values, vectors = _core.linalg.dense_eigenpairs(M, which=_WHICH[which], tol=tol, max_count=k)
    else:
        values, vectors = _core.linalg.dense_eigenpairs(M, which=_WHICH[which], threshold=float(threshold), tol=tol)
    status = "converged"
    if values.size > max_rank:
        values, vectors, status = values[:max_rank], vectors[:, :max_rank], "max_rank_reached"
    residuals, column_norm = _measured_residuals(M, values, vectors)
    # ||A|| lies between the largest column norm and sqrt(n) times it.
    norm_estimate = max(float(np.abs(values).max(initial=0.0)), column_norm)
    # LAPACK's pairs are accurate to rounding, about n eps ||A||: a tol below that is not met.
    converged = bool(np.all(residuals <= tol * norm_estimate))
    info = {
        "method": "dense",
        "status": status if converged else "not_converged",
        "converged": converged,
        "n_matvec": n if kind == "callback" else 0,
        "n_restart": 0,
        "residuals": residuals,
        "norm_estimate": norm_estimate,
        "filtered": False,
    }
    return np.ascontiguousarray(values), np.ascontiguousarray(vectors), info


def _measured_residuals(M, values, vectors):
    """||M v - lambda v|| per pair and M's largest column norm, computed on M scaled by a power of
    two so that neither the products nor the squares in the norms overflow or underflow."""
    s = float(np.ldexp(1.0, -binary_exponent(M)))
    S = s * M
    column_norm = float(np.sqrt(np.einsum("ij,ij->j", S, S).max())) / s
    if not values.size:
        return np.zeros(0), column_norm
    return np.linalg.norm(S @ vectors - vectors * (s * values), axis=0) / s, column_norm


def estimate_count_beyond(A, threshold, which="LA", *, degree=100, n_probes=20, random_state=None):
    """Estimate how many eigenvalues of a symmetric A lie above (LA) / below (SA) threshold.

    The kernel polynomial method (Weisse et al., Rev. Mod. Phys. 78, 2006; Di Napoli, Polizzi &
    Saad, 2016): a Jackson-damped Chebyshev expansion of the step function, traced by Hutchinson's
    estimator with ``n_probes`` Rademacher vectors. Costs ``degree`` block products with
    ``n_probes`` columns plus two rough extreme-eigenvalue solves; accurate to a few percent of
    n, which is all a choice between Lanczos and a dense solver needs.

    Parameters
    ----------
    A : sparse matrix, ndarray or LinearOperator of shape (n, n)
        Real symmetric (not checked).
    threshold : float
    which : {"LA", "SA"}
    degree : int
        Degree of the expansion, in [1, 100000].
    n_probes : int
        Probe vectors, in [1, 100000].
    random_state : int, RandomState or Generator, optional

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.graph import knn_graph, laplacian
    >>> from kernlearn.linalg import estimate_count_beyond
    >>> L = laplacian(knn_graph(load_iris().data, 5))
    >>> estimate_count_beyond(L, 0.5, random_state=0)  # eigenvalues above 0.5, estimated
    130
    >>> int(np.sum(np.linalg.eigvalsh(L.toarray()) > 0.5))  # the exact count, by a dense solve
    129
    """
    check_choice(which, "which", ("LA", "SA"))
    threshold = check_finite(threshold, "threshold")
    degree = check_int(degree, "degree", low=1, high=100_001)
    n_probes = check_int(n_probes, "n_probes", low=1, high=100_001)
    operator, n = _check_operator(A, check_symmetric=False)
    return _estimate_count_beyond(operator, n, threshold, which, degree, n_probes, check_random_state(random_state))


def _estimate_count_beyond(operator, n, threshold, which, degree, n_probes, rng):
    """estimate_count_beyond on a validated operator (_check_operator)."""
    kind, M = operator
    if n == 1:  # no Lanczos on one row: the eigenvalue is the entry
        value = float(np.asarray(M.matmat(np.ones((1, 1))) if kind == "callback" else M[0, 0]).ravel()[0])
        return int(value > threshold if which == "LA" else value < threshold)
    top = eigsh(M, 1, "LA", tol=1e-4, method="lanczos", random_state=rng, check_symmetric=False)[0][0]
    bottom = eigsh(M, 1, "SA", tol=1e-4, method="lanczos", random_state=rng, check_symmetric=False)[0][0]
    if which == "SA":
        if threshold <= bottom:
            return 0
        if threshold > top:
            return n
    else:
        if threshold >= top:
            return 0
        if threshold < bottom:
            return n
    # The expansion runs on s A, s a power of two that makes the spectrum's extent about 1, so that
    # neither it nor the products overflow (A near 1e308) or underflow (near 1e-308).
    s = float(np.ldexp(1.0, -binary_exponent(top, bottom)))
    top, bottom, threshold = s * top, s * bottom, s * threshold
    if kind == "callback":
        matmat = lambda X: s * np.asarray(M.matmat(X), dtype=np.float64)  # noqa: E731
    else:
        M = s * M
        matmat = lambda X: M @ X  # noqa: E731
    # Map the spectrum into [-1, 1] with a margin for the rough bounds.
    center, half = top / 2 + bottom / 2, 0.51 * (top - bottom) + 1e-12
    cut = np.clip((threshold - center) / half, -1.0, 1.0)
    theta = np.arccos(cut)
    j = np.arange(1, degree + 1)
    coeffs = np.r_[theta / np.pi, 2.0 * np.sin(j * theta) / (j * np.pi)]  # step 1{x > cut}
    alpha = np.pi / (degree + 2)  # Jackson damping against Gibbs oscillations
    q = np.arange(degree + 1)
    jackson = ((degree + 2 - q) * np.cos(q * alpha) + np.sin(q * alpha) / np.tan(alpha)) / (degree + 2)
    coeffs *= jackson
    Z = rng.choice([-1.0, 1.0], size=(n, n_probes))
    scaled = lambda X: (np.asarray(matmat(X)) - center * X) / half  # noqa: E731
    prev, cur = Z, scaled(Z)
    trace = coeffs[0] * np.sum(Z * prev) + coeffs[1] * np.sum(Z * cur)
    for c in coeffs[2:]:
        prev, cur = cur, 2.0 * scaled(cur) - prev
        trace += c * np.sum(Z * cur)
    if not np.isfinite(trace):
        raise ValueError("estimate_count_beyond: A's products are not finite (the operator overflows)")
    above = float(np.clip(trace / n_probes, 0.0, n))
    return int(round(above if which == "LA" else n - above))
