"""Affinity propagation of S3ML (Liu et al., KDD 2010, Section 3.2 and Algorithm 2 step 2).

From the kNN transition matrix P (eq. 6: P_ij = 1/k when j is among the k nearest neighbours of
i, Euclidean) and the signed initial affinities W0 = I + C (C_ij = +1 must-link, -1 cannot-link,
symmetric), the propagated affinities are

    W* = (1 - a) (I - a P)^-1 W0                                       (eq. 9)
    W  = [(W* + W*') / 2] with entries of magnitude < theta set to 0   (eq. 10)

and the metric learner needs T = X' (D - W) X with D = diag(W 1) (Algorithm 2, written there as
X L X' for column-sample X).

Three ways to evaluate eq. (9)-(10), all returning the same CSR matrix:

``"series"`` (default; the scaling path). With G = (1 - a)(I - aP)^-1 = (1 - a) sum_t (aP)^t,
every column block W*[:, B] is the sum of the iterates V_0 = (1 - a) W0[:, B],
V_{t+1} = drop(a P V_t), where drop() zeroes entries of magnitude below tau. P is row-stochastic
and non-negative, so ||P v||_max <= ||v||_max, and

* the iterates are bounded by (1 - a) a^t (W0's entries are 0 or +-1), so after
  T = ceil(log(tau / (1 - a)) / log a) steps everything is dropped and the loop ends by itself;
  there is no separate truncation tail;
* a vector E dropped at step s (|E| < tau entrywise) would have contributed sum_r (aP)^r E, of
  max-norm < tau / (1 - a). Summing over the T + 1 dropping steps, every entry of the computed
  W* is within delta = (T + 1) tau / (1 - a) of the exact one, and so is every entry of the
  symmetrised (W* + W*') / 2.

``tol`` asks for delta <= tol * theta: tau = tol * theta * (1 - a) / (T + 1), with T and tau solved
together (a short fixed point; for tol = 1e-12, theta = 0.01, a = 0.5 this is T = 53 steps and
tau ~ 1e-17). Kept entries (|W_ij| >= theta) are then exact to tol relative; an entry whose exact
magnitude is within tol * theta of theta may land on either side of the threshold.

The symmetrisation needs W*_ji next to W*_ij, and W*_ji lives in another column block. Column j
of W* does not depend on the block it is computed in (sparse products and drops act column by
column), so the series runs twice: a cheap first pass at tolerance 1e-3 (delta_1 = 1e-3 theta,
about 20 steps) collects the candidates |W*_ij| >= theta - delta - delta_1 (a kept entry has
|S_ij| >= theta - delta, which needs max(|W*_ij|, |W*_ji|) >= theta - delta), the second pass
evaluates W* at ``tol`` on the candidates and their transposes. Memory is O(block nnz + nnz(W));
no n x n array is formed. The iterates of
W0's identity columns spread only as far as walks of weight >= tau reach; the columns of the
points in constraints (C's non-zero columns) fill up to n entries, as W* itself does there.

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

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._utils import _solver_choice
from .._utils._scaling import binary_exponent
from .._utils._validation import check_choice, check_data, check_int, check_real, resolve_n_threads
from ..constraints import check_pairs
from ..graph import knn

__all__ = ["propagate_affinities", "laplacian_quadratic_form", "transition_matrix", "initial_affinities"]

# Target non-zeros of one column block's iterate in the series path (about 12 B each, and a
# few copies are alive during a sparse product): ~1e7 keeps a block under ~0.5 GB.
BLOCK_NNZ = 10_000_000
# Relative accuracy of the series' first (candidate-finding) pass.
CANDIDATE_TOL = 1e-3


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


def _series_steps(alpha, theta, tol):
    """(T, tau): the step count and drop tolerance with (T + 1) tau / (1 - a) <= tol * theta and
    (1 - a) a^T < tau (every entry dropped after T steps). See the module docstring."""
    steps = 1
    for _ in range(100):  # the fixed point T = f(T) moves by a step or two at most
        tau = tol * theta * (1.0 - alpha) / (steps + 1)
        needed = int(np.ceil(np.log(tau / (1.0 - alpha)) / np.log(alpha))) + 1
        if needed <= steps:
            return steps, tau
        steps = needed
    raise RuntimeError("series step count did not settle")  # unreachable for 0 < a < 1


def _series_block(aP, W0_block, alpha, tau):
    """W*[:, B] = sum_t V_t with V_0 = (1 - a) W0[:, B], V_{t+1} = drop(aP V_t) (CSR, n x b)."""
    V = (1.0 - alpha) * W0_block
    total = V.copy()
    while V.nnz:
        V = aP @ V
        small = np.abs(V.data) < tau
        if small.any():
            V.data[small] = 0.0
            V.eliminate_zeros()
        total = total + V
    return total


def _blocks(n):
    """Column blocks sized so that a block's iterate stays near BLOCK_NNZ non-zeros even when
    every column fills up to n entries (the columns of constrained points do)."""
    width = max(1, min(n, BLOCK_NNZ // max(n, 1)))
    return [np.arange(s, min(n, s + width)) for s in range(0, n, width)]


def _map_blocks(fn, blocks, n_threads):
    """fn over the column blocks, in threads when asked; results in block order, so the output
    does not depend on the thread count. The gain depends on scipy's sparse products running
    without the GIL; on the shared 2-core bench machine two threads gained nothing measurable."""
    if n_threads == 1 or len(blocks) == 1:
        return [fn(b) for b in blocks]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(fn, blocks))


def _propagate_series(P, W0, alpha, theta, tol, n_threads):
    n = P.shape[0]
    steps, tau = _series_steps(alpha, theta, tol)
    delta = (steps + 1) * tau / (1.0 - alpha)
    # The candidate pass only has to find a superset of the kept entries: a loose tolerance
    # (short walks, little fill) with the cut lowered by both passes' error bounds.
    loose = max(tol, CANDIDATE_TOL)
    steps_1, tau_1 = _series_steps(alpha, theta, loose)
    cut = theta - delta - (steps_1 + 1) * tau_1 / (1.0 - alpha)
    aP = (alpha * P).tocsr()
    W0c = W0.tocsc()
    blocks = _blocks(n)

    def candidates(cols):
        block = _series_block(aP, W0c[:, cols].tocsr(), alpha, tau_1).tocoo()
        keep = np.abs(block.data) >= cut
        return block.row[keep], cols[block.col[keep]]

    found = _map_blocks(candidates, blocks, n_threads)
    rows = np.concatenate([r for r, _ in found] + [c for _, c in found])
    cols = np.concatenate([c for _, c in found] + [r for r, _ in found])
    # Candidate pattern K u K' in CSC, so each column block reads its own slice.
    pattern = sp.csc_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    pattern.sum_duplicates()
    pattern.sort_indices()

    def values(cols):
        start, stop = pattern.indptr[cols[0]], pattern.indptr[cols[-1] + 1]
        r = pattern.indices[start:stop]
        c = np.repeat(cols, np.diff(pattern.indptr[cols[0] : cols[-1] + 2]))
        block = _series_block(aP, W0c[:, cols].tocsr(), alpha, tau).tocsc()
        return r, c, np.asarray(block[r, c - cols[0]]).ravel()

    got = _map_blocks(values, blocks, n_threads)
    r = np.concatenate([g[0] for g in got])
    c = np.concatenate([g[1] for g in got])
    v = np.concatenate([g[2] for g in got])
    Wstar = sp.csr_matrix((v, (r, c)), shape=(n, n))  # W* on K u K' (exactly, to delta)
    return _symmetrize_threshold(Wstar, theta)


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
    tol=1e-12,
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
    tol : float
        "series" only: the kept entries are exact to ``tol`` relative (absolute error
        <= tol * theta; see the module docstring for the drop tolerance this implies).
    n_jobs : int, optional
        Threads for the kNN search and over column blocks.

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
    if np.iscomplexobj(W.data if sp.issparse(W) else np.asarray(W)):
        raise TypeError("W must hold real numbers, got complex values")
    W = sp.csr_matrix(W, dtype=np.float64)
    if W.shape != (n, n):
        raise ValueError(f"W must have shape ({n}, {n}) to match X, got {W.shape}")
    if W.nnz and not np.all(np.isfinite(W.data)):
        raise ValueError("W contains NaN or infinity")
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
