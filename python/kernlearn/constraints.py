"""Pairwise constraints and their sparse accumulation.

:class:`ConstraintAccumulator` re-values ``B + sum_p alpha_p y_p T_p`` every iteration of a
solver on a CSR pattern computed once, and evaluates ``tr(T_p K)`` for a low-rank
``K = V diag(lam) V'`` without forming K. ``T_p`` is an entry pair
``e_i e_j' + e_j e_i'`` (SimpleNPKL, eq. 7: each unordered constraint appears at (i, j) and
(j, i), i.e. the paper's sums over ordered pairs) or a distance pair ``(e_i - e_j)(e_i - e_j)'``
(the embeddings: ``tr(K T_p) = K_ii + K_jj - 2 K_ij``).
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from . import _core
from ._utils._labels import encode_labels
from ._utils._param_validation import validate_params
from ._utils._validation import (
    as_index_array,
    as_label_array,
    as_real_array,
    check_choice,
    check_int,
    check_random_state,
    check_square_sparse,
    naming,
    resolve_n_threads,
)

__all__ = ["ConstraintAccumulator", "check_pairs", "from_labels", "pair_folds", "pairs_for_fit"]

# from_labels's default for partially labelled y: every pair of labelled points up to this many
# (16 MiB of int64 pairs), a random sample of this many beyond.
ALL_PAIRS_LIMIT = 2**20


def core_csr(S):
    """A square scipy sparse matrix as the core's CSR input (int64 indices, float64 values)."""
    S = sp.csr_matrix(S)
    if not S.has_sorted_indices:
        S = S.sorted_indices()  # a copy: the caller's matrix is left as it is
    return _core.methods.Csr(
        n=S.shape[0],
        indptr=np.ascontiguousarray(S.indptr, dtype=np.int64),
        indices=np.ascontiguousarray(S.indices, dtype=np.int64),
        data=np.ascontiguousarray(S.data, dtype=np.float64),
    )


# from_labels(partners=k): at most this many partner draws (2 k per labelled point), 4 GiB of
# int64 pairs before they are merged.
MAX_PARTNER_DRAWS = 2**28


def from_labels(y, n_pairs=None, component_ratio=None, random_state=None, *, partners=None):
    """Must-link / cannot-link pairs from class labels, as in the papers' experiments.

    Random unordered pairs of distinct labelled points are drawn without replacement and
    labelled by the truth (+1 same class, -1 different classes). Their number is either
    ``n_pairs``, or the number at which the must-link graph (points joined by the drawn
    must-links) first has at most ``ceil(component_ratio * n)`` connected components
    (Xing et al. 2003; Hoi et al. 2007; SimpleNPKL uses 0.7). Each constraint is stored once;
    the solvers read it at (i, j) and (j, i) (see :mod:`kernlearn.npkl`).

    With partially labelled ``y`` (-1 marks an unlabelled point, scikit-learn's semi-supervised
    convention) and neither count given, every pair among the labelled points is returned (the
    papers' semi-supervised protocol, where few points carry labels) — up to
    ``ALL_PAIRS_LIMIT`` (2**20) pairs. With more labelled points than that allows (about 1,450),
    a uniform random sample of ``ALL_PAIRS_LIMIT`` of their pairs is drawn instead, with a warning
    giving the count: a default must not grow quadratically with the data.

    With ``partners=k`` the pairs grow linearly instead: each labelled point is paired with k
    labelled points of its own class (must-links) and k of other classes (cannot-links), drawn
    uniformly with replacement and merged, so at most 2 k per labelled point and O(n k) time and
    memory whatever the number of labelled points (bench/results/scale.md has the figures that
    motivate it: all pairs outweigh the graph from a few hundred labelled points).

    Parameters
    ----------
    y : array of shape (n,)
        Class labels of any type (integers, strings, ...); the number -1 marks an unlabelled
        point. y holding -1 and one other class is refused: that is binary labels in {-1, +1}
        misread as one class plus unlabelled points (see ``kernlearn._utils._labels``).
    n_pairs : int, optional
    component_ratio : float in (0, 1], optional
        Default 0.7 when y is fully labelled and n_pairs is None.
    random_state : int, RandomState or None
    partners : int >= 1, optional
        Must-link and cannot-link partners drawn per labelled point (a class with one labelled
        point has no must-link partner; one labelled class, no cannot-link). Not with n_pairs or
        component_ratio.

    Returns
    -------
    pairs : int64 array of shape (m, 2), i < j
    pair_labels : int64 array of shape (m,), +1 / -1

    Examples
    --------
    Partially labelled y (-1: unlabelled): every pair of labelled points.

    >>> from kernlearn.constraints import from_labels
    >>> pairs, pair_labels = from_labels([0, 0, 1, 1, -1])
    >>> pairs.tolist()
    [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    >>> pair_labels.tolist()  # +1 must-link (same class), -1 cannot-link
    [1, -1, -1, -1, -1, 1]

    Fully labelled y: random pairs, until the must-links leave at most 0.7 n components (the
    papers' protocol), or a given number of them.

    >>> from kernlearn.datasets import load_iris
    >>> y = load_iris().target
    >>> pairs, pair_labels = from_labels(y, random_state=0)
    >>> len(pairs), int((pair_labels == 1).sum())
    (110, 45)
    >>> pairs, pair_labels = from_labels(y, n_pairs=100, random_state=0)
    >>> pairs.shape
    (100, 2)

    Linear in the labelled count: 3 must- and 3 cannot-link partners per flower, at most 900 pairs.

    >>> pairs, pair_labels = from_labels(y, partners=3, random_state=0)
    >>> len(pairs) <= 6 * len(y), set(pair_labels.tolist())
    (True, {1, -1})
    """
    validate_params({"random_state": ["random_state"]}, {"random_state": random_state}, "from_labels")
    try:
        shape = np.shape(y)
    except ValueError as error:  # a ragged sequence
        raise ValueError(f"y must be a 1-D array of labels: {error}") from None
    if len(shape) != 1 or shape[0] < 2:
        raise ValueError(f"y must be 1-D with at least 2 labels, got shape {shape}")
    _, y = encode_labels(y, shape[0], min_classes=1)  # class indices, -1 = unlabelled
    if n_pairs is not None and component_ratio is not None:
        raise ValueError("give n_pairs or component_ratio, not both")
    labelled = np.flatnonzero(y != -1)
    if partners is not None:
        if n_pairs is not None or component_ratio is not None:
            raise ValueError("give partners, or n_pairs / component_ratio, not both")
        partners = check_int(partners, "partners", low=1)
        if 2 * partners * max(labelled.size, 1) > MAX_PARTNER_DRAWS:
            raise ValueError(
                f"partners = {partners} asks for {2 * partners * labelled.size} draws for {labelled.size} labelled "
                f"points, over {MAX_PARTNER_DRAWS}"
            )
        return _partner_pairs(y, labelled, partners, check_random_state(random_state))
    n = y.size
    if n_pairs is None and component_ratio is None:
        if labelled.size < n:  # semi-supervised: every pair among the labelled points
            total = labelled.size * (labelled.size - 1) // 2
            if total <= ALL_PAIRS_LIMIT:
                i, j = np.triu_indices(labelled.size, k=1)
                pairs = np.column_stack([labelled[i], labelled[j]])
                return pairs, np.where(y[pairs[:, 0]] == y[pairs[:, 1]], 1, -1)
            warnings.warn(
                f"y has {labelled.size} labelled points and {n - labelled.size} unlabelled: all "
                f"{total} pairs of labelled points would be used; drawing {ALL_PAIRS_LIMIT} of them at "
                "random instead (give n_pairs or component_ratio to choose)",
                UserWarning,
                stacklevel=2,
            )
            return _draw_pairs(y, labelled, ALL_PAIRS_LIMIT, None, check_random_state(random_state))
        component_ratio = 0.7
    rng = check_random_state(random_state)
    total = labelled.size * (labelled.size - 1) // 2
    if n_pairs is not None:
        n_pairs = check_int(n_pairs, "n_pairs", low=1)
        if n_pairs > total:
            raise ValueError(f"n_pairs = {n_pairs} exceeds the {total} pairs of labelled points")
        target = None
    else:
        if not isinstance(component_ratio, numbers.Real) or not 0 < component_ratio <= 1:
            raise ValueError(f"component_ratio must be in (0, 1], got {component_ratio!r}")
        target = int(np.ceil(component_ratio * n))
        reachable = n - labelled.size + np.unique(y[labelled]).size
        if target < reachable:
            raise ValueError(
                f"component_ratio = {component_ratio} asks for {target} components, but must-links "
                f"within classes cannot go below {reachable}"
            )
    return _draw_pairs(y, labelled, n_pairs, target, rng)


def _partner_pairs(y, labelled, partners, rng):
    """from_labels(partners=k): k same-class and k other-class partners per labelled point, drawn
    with replacement, merged into unique (i < j) pairs labelled by the truth."""
    order = labelled[np.argsort(y[labelled], kind="stable")]  # labelled points grouped by class
    classes, starts, sizes = np.unique(y[order], return_index=True, return_counts=True)
    total = order.size
    chunks = []
    for start, size in zip(starts, sizes):
        members = order[start : start + size]
        if size > 1:  # same class, never the point itself: draw in [0, size - 1) and skip it
            draw = rng.randint(0, size - 1, size=(size, partners))
            draw += draw >= np.arange(size)[:, None]
            chunks.append(np.column_stack([np.repeat(members, partners), members[draw].ravel()]))
        if total > size:  # other classes: draw in [0, total - size) and step over this class
            draw = rng.randint(0, total - size, size=(size, partners))
            draw += np.where(draw >= start, size, 0)
            chunks.append(np.column_stack([np.repeat(members, partners), order[draw].ravel()]))
    pairs = np.sort(np.concatenate(chunks), axis=1)
    pairs = np.unique(pairs, axis=0).astype(np.int64)
    return pairs, np.where(y[pairs[:, 0]] == y[pairs[:, 1]], 1, -1).astype(np.int64)


def pairs_for_fit(n, y, pairs, pair_labels, random_state, *, partners=None):
    """The checked (pairs, pair_labels) of a pairwise learner's ``fit(X, y=None, *, pairs=None,
    pair_labels=None)`` on n points: the given pairs, or those :func:`from_labels` draws from
    class labels y (any labels; -1 marks an unlabelled point). Exactly one of y and pairs.
    partners: an int draws that many partners per labelled point when y is partially labelled
    (``from_labels(y, partners=...)``); None or "all" keeps from_labels' default.

    Examples
    --------
    >>> from kernlearn.constraints import pairs_for_fit
    >>> pairs, pair_labels = pairs_for_fit(4, None, [[0, 1], [2, 3]], [1, -1], None)
    >>> pairs.tolist(), pair_labels.tolist()
    ([[0, 1], [2, 3]], [1.0, -1.0])
    >>> pairs, pair_labels = pairs_for_fit(5, [0, 0, 1, 1, -1], None, None, 0)  # from labels y
    >>> len(pairs), pair_labels.tolist()
    (6, [1.0, -1.0, -1.0, -1.0, -1.0, 1.0])
    """
    if pairs is None:
        if y is None:
            raise ValueError("fit needs pairs (with pair_labels) or labels y")
        if as_label_array(y, "y").shape != (n,):
            raise ValueError(f"y must have shape ({n},) to match X, got {np.shape(y)}")
        if partners not in (None, "all") and np.any(encode_labels(y, n, min_classes=1)[1] == -1):
            pairs, pair_labels = from_labels(y, random_state=random_state, partners=partners)
        else:
            pairs, pair_labels = from_labels(y, random_state=random_state)
    elif y is not None:
        raise ValueError("give either y or pairs, not both")
    if pair_labels is None:
        raise ValueError("pair_labels is required with pairs (+1 must-link, -1 cannot-link)")
    return check_pairs(pairs, n, pair_labels)


def pair_folds(pairs, n_splits=3, random_state=None):
    """Cross-validation folds over pairwise constraints, split by point.

    The constrained points (those in any pair) are shuffled into ``n_splits`` groups. Fold f
    trains on the pairs with no end in group f and tests on the pairs with at least one end in
    it, so a test pair always involves a point that no training pair touches: the score measures
    how the side information reaches points outside the pairs, the case a learned kernel exists
    for. Splitting the pairs themselves would not: with every pair among a few labelled points,
    the training pairs already imply each held-out pair by transitivity.

    Parameters
    ----------
    pairs : int array of shape (m, 2)
    n_splits : int >= 2, default 3
    random_state : int, RandomState or None

    Returns
    -------
    list of (train, test) index arrays into ``pairs``

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.constraints import from_labels, pair_folds
    >>> from kernlearn.datasets import load_iris
    >>> y = load_iris().target
    >>> y_partial = np.where(np.random.RandomState(0).rand(150) < 0.2, y, -1)  # a fifth labelled
    >>> pairs, pair_labels = from_labels(y_partial)
    >>> len(pairs)
    378
    >>> folds = pair_folds(pairs, 3, random_state=0)
    >>> [(len(train), len(test)) for train, test in folds]
    [(153, 225), (171, 207), (171, 207)]
    >>> train, test = folds[0]
    >>> seen = np.unique(pairs[train])  # the points the training pairs touch
    >>> bool(np.all(~np.isin(pairs[test], seen).all(axis=1)))  # each test pair has an unseen end
    True
    """
    validate_params({"random_state": ["random_state"]}, {"random_state": random_state}, "pair_folds")
    pairs = as_index_array(pairs, "pairs")
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.shape[0] == 0:
        raise ValueError(f"pairs must have shape (m, 2) with m >= 1, got {pairs.shape}")
    if pairs.min() < 0:
        raise ValueError("pairs must hold non-negative point indices")
    points = np.unique(pairs)
    n_splits = check_int(n_splits, "n_splits", low=2, high=points.size)
    group = np.empty(int(points.max()) + 1, dtype=np.int64)
    group[check_random_state(random_state).permutation(points)] = np.arange(points.size) % n_splits
    ends = group[pairs]
    folds = []
    for f in range(n_splits):
        held_out = (ends == f).any(axis=1)
        folds.append((np.flatnonzero(~held_out), np.flatnonzero(held_out)))
    return folds


def _draw_pairs(y, labelled, n_pairs, target, rng):
    """Distinct random pairs of labelled points in draw order: the first n_pairs, or the shortest
    prefix whose must-link graph has at most target components. Pairs are drawn in growing
    batches; the prefix is found by bisection (the component count never grows with it)."""
    n, count = y.size, labelled.size
    total = count * (count - 1) // 2
    pairs, batch = np.empty((0, 2), dtype=np.int64), n_pairs or count
    while True:
        drawn = np.sort(labelled[rng.randint(count, size=(2 * batch, 2))], axis=1)
        pairs = np.vstack([pairs, drawn[drawn[:, 0] != drawn[:, 1]]])
        first = np.unique(pairs[:, 0] * n + pairs[:, 1], return_index=True)[1]
        pairs = pairs[np.sort(first)]  # each pair once, in the order it was first drawn
        if n_pairs is not None:
            if len(pairs) >= n_pairs:
                pairs = pairs[:n_pairs]
                break
        elif len(pairs) == total or _must_link_components(y, pairs) <= target:
            low, high = 1, len(pairs)
            while low < high:
                middle = (low + high) // 2
                if _must_link_components(y, pairs[:middle]) <= target:
                    high = middle
                else:
                    low = middle + 1
            pairs = pairs[:low]
            break
        batch *= 2
    return pairs, np.where(y[pairs[:, 0]] == y[pairs[:, 1]], 1, -1).astype(np.int64)


def _must_link_components(y, pairs):
    """Connected components of the graph on all points joined by the same-class pairs."""
    same = pairs[y[pairs[:, 0]] == y[pairs[:, 1]]]
    graph = sp.coo_matrix((np.ones(len(same)), (same[:, 0], same[:, 1])), shape=(y.size, y.size))
    return connected_components(graph, directed=False)[0]


# Largest n for which check_pairs's key low * n + high stays below 2^63.
_LARGEST_KEYED_N = 3_037_000_499


def check_pairs(pairs, n, pair_labels=None):
    """Validate pairs (m x 2 integers) and optional labels (+1/-1): in range, i != j, each
    unordered pair once. Returns (pairs as int64 C array, labels as float64 or None).

    Examples
    --------
    >>> from kernlearn.constraints import check_pairs
    >>> pairs, pair_labels = check_pairs([[0, 1], [3, 2]], 4, [1, -1])
    >>> pairs.tolist(), pair_labels.tolist()
    ([[0, 1], [3, 2]], [1.0, -1.0])
    >>> check_pairs([[0, 1], [1, 0]], 4, [1, -1])
    Traceback (most recent call last):
        ...
    ValueError: contradictory pairs: pairs[0] and pairs[1] are both [0, 1]
    """
    n = check_int(n, "n", low=2)
    arr = as_index_array(pairs, "pairs")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"pairs must have shape (m, 2), got {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError("pairs is empty")
    if arr.min() < 0 or arr.max() >= n:
        p = int(np.argmax(((arr < 0) | (arr >= n)).any(axis=1)))
        raise ValueError(f"pairs[{p}] = {arr[p].tolist()} is out of range for n = {n}")
    same = arr[:, 0] == arr[:, 1]
    if same.any():
        p = int(np.argmax(same))
        raise ValueError(f"pairs[{p}] = {arr[p].tolist()} pairs a point with itself")
    labels = None
    if pair_labels is not None:
        with naming("pair_labels"):
            labels = np.asarray(pair_labels)
        if labels.shape != (arr.shape[0],):
            raise ValueError(
                f"pair_labels must have shape ({arr.shape[0]},), one label per row of pairs, got {labels.shape}"
            )
        if labels.dtype.kind not in "biuf" or not ((labels == 1) | (labels == -1)).all():
            raise ValueError("pair_labels must be +1 (must-link) or -1 (cannot-link)")
        labels = labels.astype(np.float64)
    # One int64 per unordered pair while n^2 fits: one sort finds the repeats, cheaper than a
    # lexsort of the sorted rows (figures: bench/results/npkl.md).
    low, high = np.minimum(arr[:, 0], arr[:, 1]), np.maximum(arr[:, 0], arr[:, 1])
    if n <= _LARGEST_KEYED_N:
        key = low * int(n) + high  # a Python int keeps the product int64 (a numpy uint64 n made it float)
        order = np.argsort(key, kind="stable")
        repeat = key[order[1:]] == key[order[:-1]]
    else:
        order = np.lexsort((high, low))
        repeat = (low[order[1:]] == low[order[:-1]]) & (high[order[1:]] == high[order[:-1]])
    if repeat.any():
        p, q = order[np.argmax(repeat)], order[np.argmax(repeat) + 1]
        kind = "contradictory" if labels is not None and labels[p] != labels[q] else "duplicated"
        raise ValueError(
            f"{kind} pairs: pairs[{min(p, q)}] and pairs[{max(p, q)}] are both {[int(low[p]), int(high[p])]}"
        )
    return arr, labels


class ConstraintAccumulator:
    """``B + sum_p alpha_p y_p T_p`` on a fixed CSR pattern, and ``tr(T_p K)`` for low-rank K.

    Parameters
    ----------
    pairs : array of shape (m, 2)
        Unordered pairs (i, j), i != j, each at most once.
    n : int
        Matrix size.
    pattern : {"entry", "distance"}
    base : sparse or dense (n, n) symmetric matrix, optional
        B (e.g. ``-L``); zero by default.
    pair_labels : array of shape (m,), optional
        y_p in {+1, -1}; all +1 by default.
    n_jobs : int, optional
        Threads for :meth:`inner`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.constraints import ConstraintAccumulator
    >>> acc = ConstraintAccumulator([[0, 1], [1, 2]], 3, pair_labels=[1, -1])
    >>> acc.assemble([0.5, 2.0]).toarray()  # alpha_p y_p at (i, j) and (j, i)
    array([[ 0. ,  0.5,  0. ],
           [ 0.5,  0. , -2. ],
           [ 0. , -2. ,  0. ]])
    >>> V, lam = np.array([[1.0], [1.0], [-1.0]]) / np.sqrt(3), np.array([3.0])  # K = V diag(lam) V'
    >>> acc.inner(V, lam).round(3)  # tr(T_p K) = 2 K_ij
    array([ 2., -2.])

    Distance pairs, as the embeddings use them: ``tr(T_p K) = K_ii + K_jj - 2 K_ij``.

    >>> acc = ConstraintAccumulator([[0, 1], [1, 2]], 3, pattern="distance")
    >>> acc.inner(V, lam).round(3)
    array([0., 4.])
    """

    def __init__(self, pairs, n, pattern="entry", base=None, pair_labels=None, n_jobs=None):
        check_choice(pattern, "pattern", ("entry", "distance"))
        # The pattern holds n + 1 row pointers: 2^31 points (16 GiB of them) is an allocation that
        # fails, not a problem this accumulator solves.
        check_int(n, "n", high=2**31)
        self.pairs, self.pair_labels = check_pairs(pairs, n, pair_labels)
        self.n, self.pattern = n, pattern
        if base is None:
            base = sp.csr_matrix((n, n))
        B = check_square_sparse(base, "base")
        if B.shape[0] != n:
            raise ValueError(f"base must have shape ({n}, {n}), got {B.shape}")
        if B.nnz and abs(B - B.T).max() > 1e-12 * abs(B).max():
            raise ValueError("base must be symmetric")
        self._core = _core.methods.ConstraintAccumulator(
            self.pairs, _core.methods.PairPattern.__members__[pattern], core_csr(B)
        )
        self._data = np.zeros(len(self._core.indices))
        # One matrix object, re-valued in place by every assemble() call.
        self._matrix = sp.csr_matrix((self._data, self._core.indices, self._core.indptr), shape=(n, n))
        self._n_threads = resolve_n_threads(n_jobs)

    @property
    def n_pairs(self):
        return self.pairs.shape[0]

    def assemble(self, alpha):
        """``B + sum_p alpha_p y_p T_p`` as a CSR matrix, in O(nnz) with no allocation.

        The returned matrix is the same object on every call and is overwritten by the next
        call: ``.copy()`` it to keep a value.
        """
        alpha = self._check_alpha(alpha)
        if self.pair_labels is not None:
            alpha = alpha * self.pair_labels
        self._core.assemble_into(alpha, self._data)
        return self._matrix

    def inner(self, V, lam):
        """``tr(T_p K)`` for every pair with ``K = V diag(lam) V'``, in O(m r), K never formed."""
        V = as_real_array(V, "V", finite=False, ensure_2d=False, allow_nd=True)
        lam = as_real_array(lam, "lam", finite=False, ensure_2d=False, allow_nd=True)
        if V.ndim != 2 or V.shape[0] != self.n:
            raise ValueError(f"V must have shape ({self.n}, r), got {V.shape}")
        if lam.shape != (V.shape[1],):
            raise ValueError(f"lam must have shape ({V.shape[1]},), got {lam.shape}")
        if not (np.isfinite(V).all() and np.isfinite(lam).all()):
            raise ValueError("V and lam must be finite")
        return self._core.inner(V, lam, n_threads=self._n_threads)

    def _check_alpha(self, alpha):
        alpha = as_real_array(alpha, "alpha", finite=False, ensure_2d=False, allow_nd=True)
        if alpha.shape != (self.n_pairs,):
            raise ValueError(f"alpha must have shape ({self.n_pairs},), got {alpha.shape}")
        if not np.isfinite(alpha).all():
            raise ValueError("alpha contains NaN or infinity")
        return alpha
