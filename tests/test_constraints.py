"""The constraint accumulator against dense sums of T_p."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernlearn.constraints import ConstraintAccumulator, check_pairs


def dense_T(n, i, j, pattern):
    T = np.zeros((n, n))
    if pattern == "entry":
        T[i, j] = T[j, i] = 1.0
    else:
        e = np.zeros(n)
        e[i], e[j] = 1.0, -1.0
        T = np.outer(e, e)
    return T


def random_pairs(rng, n, m):
    seen, out = set(), []
    while len(out) < m:
        i, j = rng.integers(0, n, 2)
        if i != j and (min(i, j), max(i, j)) not in seen:
            seen.add((min(i, j), max(i, j)))
            out.append((i, j))
    return np.array(out)


@pytest.mark.parametrize("pattern", ["entry", "distance"])
def test_assemble_and_inner_match_dense(rng, pattern):
    n, m = 40, 60
    pairs = random_pairs(rng, n, m)
    labels = rng.choice([-1, 1], m)
    B = sp.random(n, n, density=0.1, random_state=np.random.RandomState(0))
    B = (B + B.T).tocsr()
    acc = ConstraintAccumulator(pairs, n, pattern, base=B, pair_labels=labels)
    Ts = [dense_T(n, i, j, pattern) for i, j in pairs]
    for _ in range(3):
        alpha = rng.standard_normal(m)
        M = acc.assemble(alpha)
        expected = B.toarray() + sum(a * y * T for a, y, T in zip(alpha, labels, Ts))
        np.testing.assert_allclose(M.toarray(), expected, atol=1e-14)
    V = rng.standard_normal((n, 5))
    lam = rng.standard_normal(5)
    K = (V * lam) @ V.T
    np.testing.assert_allclose(acc.inner(V, lam), [np.trace(T @ K) for T in Ts], rtol=1e-12, atol=1e-12)


def test_assemble_reuses_its_storage(rng):
    pairs = random_pairs(rng, 30, 20)
    acc = ConstraintAccumulator(pairs, 30)
    first = acc.assemble(np.ones(20))
    data_ptr = first.data.ctypes.data
    second = acc.assemble(np.full(20, 2.0))
    assert second is first and second.data.ctypes.data == data_ptr
    assert second.max() == 2.0


@pytest.mark.parametrize(
    "pairs, labels, match",
    [
        ([[0, 1], [1, 0]], None, "duplicated pairs"),
        ([[0, 1], [1, 0]], [1, -1], "contradictory pairs"),
        ([[0, 0]], None, "pairs a point with itself"),
        ([[0, 10]], None, "out of range"),
        ([[-1, 2]], None, "out of range"),
        ([[0, 1, 2]], None, r"shape \(m, 2\)"),
        (np.zeros((0, 2), dtype=int), None, "pairs is empty"),
        ([[0, 1]], [2], r"\+1 \(must-link\) or -1"),
    ],
)
def test_bad_pairs(pairs, labels, match):
    with pytest.raises(ValueError, match=match):
        ConstraintAccumulator(pairs, 10, pair_labels=labels)


def test_bad_alpha_and_factors(rng):
    acc = ConstraintAccumulator(random_pairs(rng, 10, 5), 10, "distance")
    with pytest.raises(ValueError, match=r"alpha must have shape \(5,\)"):
        acc.assemble(np.ones(4))
    with pytest.raises(ValueError, match="alpha contains NaN"):
        acc.assemble(np.full(5, np.nan))
    with pytest.raises(ValueError, match="V must have shape"):
        acc.inner(np.ones((9, 2)), np.ones(2))
    with pytest.raises(ValueError, match="lam must have shape"):
        acc.inner(np.ones((10, 2)), np.ones(3))
    with pytest.raises(ValueError, match="pattern must be one of"):
        ConstraintAccumulator([[0, 1]], 10, "triplet")
    with pytest.raises(TypeError, match="pairs must be integers"):
        ConstraintAccumulator([[0.5, 1]], 10)


# -- from_labels -----------------------------------------------------------------------------

import scipy.sparse.csgraph as csgraph  # noqa: E402

from kernlearn.constraints import from_labels  # noqa: E402


def must_link_components(pairs, labels, n):
    keep = labels > 0
    G = sp.coo_matrix((np.ones(keep.sum()), (pairs[keep, 0], pairs[keep, 1])), shape=(n, n))
    return csgraph.connected_components(G, directed=False)[0]


@pytest.mark.parametrize("ratio", [0.9, 0.7, 0.5])
def test_from_labels_stops_at_the_component_ratio(ratio):
    y = np.repeat(np.arange(3), 50)
    pairs, labels = from_labels(y, component_ratio=ratio, random_state=0)
    target = int(np.ceil(ratio * y.size))
    assert must_link_components(pairs, labels, y.size) == target
    # one pair fewer and the must-link graph had more components: the count is the smallest
    assert must_link_components(pairs[:-1], labels[:-1], y.size) > target
    np.testing.assert_array_equal(labels, np.where(y[pairs[:, 0]] == y[pairs[:, 1]], 1, -1))
    assert np.all(pairs[:, 0] < pairs[:, 1]) and len({tuple(p) for p in pairs.tolist()}) == len(pairs)


def test_from_labels_counts_partial_labels_and_determinism():
    y = np.array([0, 1, -1, 0, 1, -1, 2])
    pairs, labels = from_labels(y)  # every pair among the 5 labelled points
    assert len(pairs) == 10 and not np.isin(pairs, [2, 5]).any()
    a = from_labels(np.repeat([0, 1], 20), n_pairs=30, random_state=3)
    b = from_labels(np.repeat([0, 1], 20), n_pairs=30, random_state=3)
    assert len(a[0]) == 30
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(y=[0, 0, 1], n_pairs=2, component_ratio=0.5), "not both"),
        (dict(y=[0, 1, 1], n_pairs=4), "exceeds"),
        (dict(y=[0, 1, 1, 0], component_ratio=0.2), "cannot go below"),
        (dict(y=[0, 1, 1], component_ratio=1.5), "component_ratio must be in"),
        (dict(y=[0, -1, -1]), "a single other class"),  # the {-1, +1} trap rule
        (dict(y=["a", "b", "a"], n_pairs=5), "n_pairs"),
        (dict(y=[[0, 1]]), "1-D"),
    ],
)
def test_from_labels_bad_input(kwargs, error):
    with pytest.raises(ValueError, match=error):
        from_labels(**kwargs)


@pytest.mark.parametrize("n", [np.uint64(10), 10, 10**10])
def test_check_pairs_finds_repeats_for_any_integer_n(n):
    """Repeats are found by one integer key per pair while n^2 fits in int64 (and a numpy
    unsigned n must not turn the key into inexact floats), by a lexsort beyond."""
    big = int(n) - 1
    with pytest.raises(ValueError, match=r"duplicated pairs: pairs\[0\] and pairs\[2\]"):
        check_pairs(np.array([[0, big], [1, 2], [big, 0]]), n)
    pairs, _ = check_pairs(np.array([[0, big], [1, big], [big, 2]]), n)
    assert pairs.shape == (3, 2)


def test_from_labels_partners_grow_linearly():
    """partners=k: at most 2 k pairs per labelled point (k must-links within its class, k
    cannot-links across), only labelled points, each pair once with i < j, reproducible."""
    rng = np.random.default_rng(0)
    y = np.full(5000, -1)
    labelled = rng.choice(5000, 500, replace=False)
    y[labelled] = rng.integers(0, 4, 500)
    pairs, labels = from_labels(y, partners=5, random_state=0)
    assert len(pairs) <= 2 * 5 * 500
    assert np.isin(pairs, labelled).all() and (pairs[:, 0] < pairs[:, 1]).all()
    assert len(np.unique(pairs, axis=0)) == len(pairs)
    np.testing.assert_array_equal(labels, np.where(y[pairs[:, 0]] == y[pairs[:, 1]], 1, -1))
    # each side drew its 5 partners per point (a pair drawn from both ends is counted once)
    assert (labels == 1).sum() >= 0.8 * 5 * 500 and (labels == -1).sum() >= 0.8 * 5 * 500
    degree = np.bincount(pairs.ravel(), minlength=5000)[labelled]
    assert degree.min() >= 5  # every labelled point has its own draws
    again = from_labels(y, partners=5, random_state=0)
    np.testing.assert_array_equal(again[0], pairs)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"partners": 0}, ValueError, "partners"),
        ({"partners": 2.5}, TypeError, "partners"),
        ({"partners": 2, "n_pairs": 10}, ValueError, "partners"),
        ({"partners": 2, "component_ratio": 0.7}, ValueError, "partners"),
    ],
)
def test_from_labels_partners_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        from_labels([0, 0, 1, 1, -1], **kwargs)


def test_from_labels_partners_with_one_point_per_class():
    """No must-link partner exists; the two points are each other's cannot-link partner."""
    pairs, labels = from_labels([0, 1, -1, -1], partners=3, random_state=0)
    np.testing.assert_array_equal(pairs, [[0, 1]])
    np.testing.assert_array_equal(labels, [-1])
