"""Affinity propagation of S3ML (Liu et al., KDD 2010, Section 3.2 and Algorithm 2 step 2).

From the kNN transition matrix P (eq. 6: P_ij = 1/k when j is among the k nearest neighbours of
i, Euclidean) and the signed initial affinities W0 = I + C (C_ij = +1 must-link, -1 cannot-link,
symmetric), the propagated affinities are

    W* = (1 - a) (I - a P)^-1 W0                                       (eq. 9)
    W  = [(W* + W*') / 2] with entries of magnitude < theta set to 0   (eq. 10)

and the metric learner needs T = X' (D - W) X with D = diag(W 1) (Algorithm 2, written there as
X L X' for column-sample X).

Three ways to evaluate eq. (9)-(10), all returning the same CSR matrix:

``"series"`` (default; the scaling path). The Neumann series W* = (1 - a) sum_t (aP)^t W0,
evaluated column by column by local residual pushes in the core
(cpp/include/kernlearn/methods/affinity_propagation.hpp): with an estimate p and a residual r
(r = W0[:, j] at the start) and the invariant W*[:, j] = p + (1 - a)(I - aP)^-1 r, a push at a
position u moves (1 - a) r_u into p_u and a r_u P e_u into the residuals of u's in-neighbours,
until every |r_v| < eps. P is row-stochastic and non-negative, so (1 - a)(I - aP)^-1 has
infinity-norm 1 and every entry of p is within eps of W*'s; a column touches only the positions
its residual reaches with eps, not all n.

``tol`` asks for eps = tol * theta: kept entries (|W_ij| >= theta) are exact to tol relative,
and an entry whose exact magnitude is within tol * theta of theta may land on either side of
the threshold.

The symmetrisation needs W*_ji next to W*_ij, which is another column's entry. So the pushes run
twice: a cheap first pass at eps_1 = max(tol, 0.1) theta collects the candidates
|W*_ij| >= theta - eps - eps_1 (a kept entry has |S_ij| >= theta - eps, which needs
max(|W*_ij|, |W*_ji|) >= theta - eps), and the second pass evaluates W* at eps on the candidates
and their transposes. Each pass runs one column per thread at a time with O(n) workspace per
thread: memory O(n + nnz(W) + candidates), no n x n array. The cost grows with 1 / eps and with
the constraints per point (each constrained point seeds its partners' columns), which is why
S3ML pairs each labelled point with a fixed number of partners at scale and loosens ``tol``
there (kernlearn/metric/_s3ml.py, figures in bench/results/s3ml_scale.md).

``"splu"`` (exact, for moderate n). One sparse LU of I - aP (SuperLU), then per column block
W*[:, B] = solve((1 - a) W0[:, B]) and, for the symmetrisation, W*'[:, B] = W0 G'[:, B] with
G'[:, B] = solve_transposed((1 - a) E_B). Only the columns of C that are non-zero (the points in
constraints) would be needed for the constraint part, but the identity part of W0 contributes
G = (1 - a)(I - aP)^-1 itself, whose column j is non-zero at every point that can walk to j
(dense in a connected graph), and the threshold of eq. (10) applies to the sum
G W0 = G + G C, so G cannot be thresholded on its own: all n columns and n transposed columns
are solved, in blocks of dense n x b right-hand sides (O(n b) memory). Cost O(n nnz(LU)), which
grows too fast for large n (figures in ``bench/results/s3ml_table2.md``), so this path is a
reference, not the scaling path.

``"dense"``: numpy.linalg.solve on the dense n x n system (small n only; refuses n > 5,000).
"""

import contextlib

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .. import _core
from .._utils import _solver_choice
from .._utils._scaling import binary_exponent
from .._utils._validation import check_choice, check_data, check_int, check_real, check_square_sparse, resolve_n_threads
from ..constraints import check_pairs
from ..graph import knn

__all__ = ["propagate_affinities", "laplacian_quadratic_form", "transition_matrix", "initial_affinities"]

# Relative accuracy of the first (candidate-finding) pass: loose, because it only has to find a
# superset of the kept entries (its cut is lowered by its error), and its pushes cost 1 / eps.
CANDIDATE_TOL = 0.1
# The smallest push threshold the core accepts: tol * theta below it (a theta of 1e-300, say) is
# met as 1e-15 absolute, below the rounding of any entry the pushes add up (at most 1 in size).
_MIN_EPS = 1e-15


def transition_matrix(X, n_neighbors, *, n_jobs=None):
    """P of eq. (6): row i holds 1/k at the k nearest neighbours of x_i (Euclidean, the point
    itself excluded, ties to the lower index; :func:`kernlearn.graph.knn`). CSR, row-stochastic."""
    indices, _ = knn(X, n_neighbors, n_jobs=n_jobs)
    n, k = indices.shape
    data = np.full(n * k, 1.0 / k)
    return sp.csr_matrix((data, indices.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n))


def initial_affinities(n, pairs, pair_labels):
    """W0 of Algorithm 2: the identity plus +1 / -1 at both (i, j) and (j, i) of every pair.

    Pairs are validated by :func:`kernlearn.constraints.check_pairs` (in range, i != j, each
    unordered pair once), so no entry is summed twice. Returns a symmetric CSR matrix with
    n + 2 |pairs| non-zeros."""
    pairs, labels = check_pairs(pairs, n, pair_labels)
    if labels is None:
        raise ValueError("pair_labels is required (+1 must-link, -1 cannot-link)")
    rows = np.concatenate([np.arange(n), pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([np.arange(n), pairs[:, 1], pairs[:, 0]])
    vals = np.concatenate([np.ones(n), labels, labels])
    W0 = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    W0.sort_indices()
    return W0


def _csr_arrays(A):
    """(data, indices, indptr) of a CSR matrix with sorted indices, as the core takes them."""
    A = sp.csr_matrix(A, dtype=np.float64)
    A.sort_indices()
    return (
        np.ascontiguousarray(A.data, dtype=np.float64),
        np.ascontiguousarray(A.indices, dtype=np.int64),
        np.ascontiguousarray(A.indptr, dtype=np.int64),
    )


@contextlib.contextmanager
def _push_work(alpha, theta, tol):
    """The core's refusal of a column that needs too many pushes, in this function's terms: the
    work grows with 1 / (1 - alpha) and with 1 / (tol x theta), the core's eps."""
    try:
        yield
    except ValueError as err:
        if "pushes" not in str(err):
            raise
        message = str(err).replace("affinity_push", "propagate_affinities")
        raise ValueError(
            message.replace(
                "lower alpha or raise eps",
                f"lower alpha, or raise theta or tol (eps = max(tol, {CANDIDATE_TOL:g}) x theta in the candidate "
                f"pass, tol x theta in the final one; here tol = {tol:g}, theta = {theta:g})",
            )
        ) from None


def _propagate_series(P, W0, alpha, theta, tol, n_threads):
    """Eq. (9)-(10) by residual pushes in the core: a candidate pass at the loose accuracy, then
    W* at ``tol`` on the candidates and their transposes (the module docstring has the bounds)."""
    n = P.shape[0]
    eps = max(tol * theta, _MIN_EPS)
    eps_1 = max(max(tol, CANDIDATE_TOL) * theta, _MIN_EPS)
    cut = max(theta - eps - eps_1, 0.0)
    transposed = _csr_arrays(P.T)  # row u: the points v with u among their neighbours, P_vu
    initial = _csr_arrays(W0)
    with _push_work(alpha, theta, tol):
        rows, cols, _ = _core.methods.affinity_push(
            *transposed, *initial, alpha=alpha, eps=eps_1, cut=cut, n_threads=n_threads
        )
    # Candidate pattern K u K' (symmetric, so its row j lists column j's rows).
    pattern = sp.csr_matrix(
        (np.ones(2 * rows.size), (np.concatenate([rows, cols]), np.concatenate([cols, rows]))), shape=(n, n)
    )
    pattern.sum_duplicates()
    pattern.sort_indices()
    with _push_work(alpha, theta, tol):
        rows, cols, values = _core.methods.affinity_push(
            *transposed,
            *initial,
            alpha=alpha,
            eps=eps,
            cut=0.0,
            pattern_indices=np.ascontiguousarray(pattern.indices, dtype=np.int64),
            pattern_indptr=np.ascontiguousarray(pattern.indptr, dtype=np.int64),
            n_threads=n_threads,
        )
    Wstar = sp.csr_matrix((values, (rows, cols)), shape=(n, n))  # W* on K u K', each entry within eps
    return _symmetrize_threshold(Wstar, theta)


def _map_blocks(fn, blocks, n_threads):
    """fn over the splu path's column blocks, in threads when asked; results in block order, so
    the output does not depend on the thread count."""
    if n_threads == 1 or len(blocks) == 1:
        return [fn(b) for b in blocks]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(fn, blocks))


def _symmetrize_threshold(Wstar, theta):
    """Eq. (10) on a sparse W*: (W* + W*') / 2 with |entries| < theta removed."""
    S = ((Wstar + Wstar.T) * 0.5).tocsr()
    S.data[np.abs(S.data) < theta] = 0.0
    S.eliminate_zeros()
    S.sort_indices()
    return S


def _propagate_splu(P, W0, alpha, theta, n_threads):
    n = P.shape[0]
    # splu works on CSC; SuperLU's default COLAMD ordering keeps the fill moderate.
    lu = spla.splu(sp.csc_matrix(sp.identity(n, format="csc") - alpha * P))
    W0c = W0.tocsc()
    width = max(1, min(n, 2_000_000 // n))  # two dense n x b blocks alive per worker

    def block(cols):
        X = lu.solve((1.0 - alpha) * W0c[:, cols].toarray())  # W*[:, B]
        E = np.zeros((n, cols.size))
        E[cols, np.arange(cols.size)] = 1.0 - alpha
        Y = W0 @ lu.solve(E, trans="T")  # W*'[:, B] = W0 G'[:, B]
        S = 0.5 * (X + Y)
        r, c = np.nonzero(np.abs(S) >= theta)
        return r, cols[c], S[r, c]

    blocks = [np.arange(s, min(n, s + width)) for s in range(0, n, width)]
    got = _map_blocks(block, blocks, n_threads)
    r = np.concatenate([g[0] for g in got])
    c = np.concatenate([g[1] for g in got])
    v = np.concatenate([g[2] for g in got])
    S = sp.csr_matrix((v, (r, c)), shape=(n, n))
    # Entry (i, j) came from block j and (j, i) from block i; average the two so W is exactly
    # symmetric (they agree to the solver's rounding).
    return _symmetrize_threshold(S, theta)


def _propagate_dense(P, W0, alpha, theta):
    n = P.shape[0]
    if n > _solver_choice.AFFINITY_DENSE_MAX_N:
        raise ValueError(
            f"method='dense' forms n x n arrays ({8 * n * n / 2**30:.1f} GiB each for n = {n}); "
            f"it is limited to n <= {_solver_choice.AFFINITY_DENSE_MAX_N}: use method='series'"
        )
    Wstar = (1.0 - alpha) * np.linalg.solve(np.eye(n) - alpha * P.toarray(), W0.toarray())
    S = 0.5 * (Wstar + Wstar.T)
    S[np.abs(S) < theta] = 0.0
    out = sp.csr_matrix(S)
    out.sort_indices()
    return out


def propagate_affinities(
    X,
    pairs,
    pair_labels,
    *,
    n_neighbors=6,
    alpha=0.5,
    theta=0.01,
    method="series",
    tol="auto",
    n_jobs=None,
):
    """Propagated signed affinities W of S3ML (eq. 9-10), as a sparse symmetric matrix.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points; their Euclidean kNN graph carries the propagation.
    pairs : array-like of shape (n_pairs, 2)
        Constrained point pairs, each unordered pair at most once.
    pair_labels : array-like of shape (n_pairs,)
        +1 must-link (similar), -1 cannot-link (dissimilar).
    n_neighbors : int
        k of eq. (6), ``1 <= k < n_samples``.
    alpha : float in (0, 1)
        Propagation weight a of eq. (7)-(9).
    theta : float in (0, 1)
        Entries of (W* + W*') / 2 with magnitude below theta are dropped (eq. 10).
    method : {"series", "splu", "dense"}
        See the module docstring: "series" is the scaling path, "splu" an exact sparse-LU path
        for moderate n, "dense" the textbook formula (n <= 5,000).
    tol : float or "auto"
        "series" only: every entry of W* is computed to within ``tol * theta`` (the pushes'
        threshold), so the kept entries are exact to ``tol`` relative (module docstring).
        "auto" (default): S3ML's rule, 1e-12 up to 5,000 points and 1e-2 above, where the
        pushes' cost grows with 1 / tol (bench/results/fuzz.md: 7-47 s at n = 5,000-20,000 with
        tol = 1e-12, one thread; ``S3ML_EXACT_PROPAGATION_MAX_N`` in ``_utils/_solver_choice.py``, figures in
        bench/results/s3ml_scale.md).
    n_jobs : int, optional
        Threads for the kNN search and the columns of the propagation.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Exactly symmetric, sorted indices; the diagonal is kept (W_ii >= 1 - a), it does not
        change the Laplacian D - W.

    Examples
    --------
    All pairs among the labelled 10 % of iris, propagated over the kNN graph of all points:

    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.constraints import from_labels
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.metric import propagate_affinities
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_semi = np.where(np.random.default_rng(0).random(len(y)) < 0.1, y, -1)
    >>> pairs, pair_labels = from_labels(y_semi)
    >>> pairs.shape, int((pair_labels == 1).sum()), int((pair_labels == -1).sum())
    ((120, 2), 36, 84)
    >>> W = propagate_affinities(X, pairs, pair_labels, n_neighbors=6)
    >>> W.shape, W.format, abs(W - W.T).max()
    ((150, 150), 'csr', 0.0)

    A must-link pair keeps a positive affinity, a cannot-link pair a negative one, and the
    points outside the pairs get small affinities from their neighbours:

    >>> (i, j), (k, l) = pairs[pair_labels == 1][0], pairs[pair_labels == -1][0]
    >>> round(float(W[i, j]), 2), round(float(W[k, l]), 2)
    (0.6, -0.59)
    >>> linked = np.unique(pairs)
    >>> others = np.setdiff1d(np.arange(len(y)), linked)
    >>> round(float(abs(W[linked][:, linked]).mean()), 2), round(float(abs(W[others][:, others]).mean()), 3)
    (0.57, 0.007)
    """
    X = check_data(X, "X", min_samples=2)
    n = X.shape[0]
    check_real(alpha, "alpha")
    if not alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    check_real(theta, "theta")
    if not theta < 1:
        raise ValueError(f"theta must be in (0, 1), got {theta!r}")
    check_choice(method, "method", ("series", "splu", "dense"))
    if isinstance(tol, str) and tol == "auto":
        tol = _solver_choice.s3ml_propagation_tol(n)
    check_real(tol, "tol")
    check_int(n_neighbors, "n_neighbors", low=1)
    if n_neighbors >= n:
        raise ValueError(f"n_neighbors must be < n_samples = {n} (a point is not its own neighbour); got {n_neighbors}")
    n_threads = resolve_n_threads(n_jobs)
    W0 = initial_affinities(n, pairs, pair_labels)
    P = transition_matrix(X, n_neighbors, n_jobs=n_threads)
    if method == "dense":
        return _propagate_dense(P, W0, float(alpha), float(theta))
    if method == "splu":
        return _propagate_splu(P, W0, float(alpha), float(theta), n_threads)
    return _propagate_series(P, W0, float(alpha), float(theta), float(tol), n_threads)


def laplacian_quadratic_form(X, W):
    """T = X' (D - W) X with D = diag(W 1), for a symmetric (possibly signed) sparse W.

    This is Algorithm 2's X L X' for samples in rows, i.e. T = (1/2) sum_ij W_ij
    (x_i - x_j)(x_i - x_j)' (eq. 5). The diagonal of W cancels in D - W. Cost O(nnz(W) m + n m^2)
    for m features; only (n, m) and (m, m) arrays are formed.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    W : sparse or dense array of shape (n_samples, n_samples), symmetric

    Returns
    -------
    T : ndarray of shape (n_features, n_features), exactly symmetric

    Examples
    --------
    T of S3ML on iris: the cannot-link pairs make it indefinite.

    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.constraints import from_labels
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.metric import laplacian_quadratic_form, propagate_affinities
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_semi = np.where(np.random.default_rng(0).random(len(y)) < 0.1, y, -1)
    >>> W = propagate_affinities(X, *from_labels(y_semi))
    >>> T = laplacian_quadratic_form(X, W)
    >>> T.shape, bool(np.array_equal(T, T.T))
    ((4, 4), True)
    >>> w = np.linalg.eigvalsh(T)
    >>> int((w < 0).sum()), int((w > 0).sum())
    (3, 1)

    It is the pairwise form (1/2) sum_ij W_ij (x_i - x_j)(x_i - x_j)':

    >>> diff = X[:, None, :] - X[None, :, :]
    >>> bool(np.allclose(T, 0.5 * np.einsum("ij,ijk,ijl->kl", W.toarray(), diff, diff)))
    True
    """
    X = check_data(X, "X")
    n = X.shape[0]
    if sp.issparse(W) and W.shape != (n, n):
        raise ValueError(f"W must have shape ({n}, {n}) to match X, got {W.shape}")
    # A new canonical CSR: sp.csr_matrix(W) would share a float64 CSR's index arrays, and the
    # products below sort them in place (the caller's W was modified).
    W = check_square_sparse(W, "W")
    if W.shape != (n, n):
        raise ValueError(f"W must have shape ({n}, {n}) to match X, got {W.shape}")
    asym = abs(W - W.T)
    scale = abs(W).max() if W.nnz else 0.0
    if asym.nnz and asym.max() > 1e-12 * scale:
        raise ValueError(f"W must be symmetric: max |W - W'| = {asym.max():.3g}")
    degree = np.asarray(W.sum(axis=1)).ravel()
    L = sp.diags(degree) - W
    # On X / 2^e, scaled back by 4^e: overflow only where T itself does not fit a float64.
    exponent = binary_exponent(X)
    Xs = np.ldexp(X, -exponent)
    T = Xs.T @ (L @ Xs)
    T = 0.5 * (T + T.T)
    with np.errstate(over="ignore"):
        T = np.ldexp(T, 2 * exponent)
    if not np.all(np.isfinite(T)):
        raise ValueError("X' (D - W) X overflows float64 for this X and W: rescale X or W")
    return T
