"""Exact kNN against scikit-learn and a dense reference, across algorithms and thread counts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.neighbors import NearestNeighbors

from conftest import reference_knn
from kernlearn import _core
from kernlearn.graph import knn

ALGORITHMS = ["kd_tree", "brute", "auto"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("shape", [(300, 2), (500, 5), (400, 12), (300, 40)])
def test_matches_sklearn_on_continuous_data(rng, algorithm, shape):
    X = rng.standard_normal(shape) * 3.0 + 10.0  # off-centre: the GEMM screen must still be exact
    ind, dist = knn(X, 7, algorithm=algorithm)
    ref_dist, ref_ind = NearestNeighbors(n_neighbors=7, algorithm="brute").fit(X).kneighbors()
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-12, atol=1e-12)
    assert ind.dtype == np.int64 and dist.dtype == np.float64


def test_cosine_matches_sklearn(rng):
    X = rng.standard_normal((300, 10))
    X[5] = 0.0  # a zero row: cosine distance 1 to every other row, as in scikit-learn
    ind, dist = knn(X, 6, metric="cosine")
    ref_dist, ref_ind = NearestNeighbors(n_neighbors=6, algorithm="brute", metric="cosine").fit(X).kneighbors()
    np.testing.assert_allclose(dist, ref_dist, atol=1e-12)
    untied = np.arange(300) != 5  # row 5 sees every point at distance exactly 1: a full tie
    np.testing.assert_array_equal(ind[untied], ref_ind[untied])
    np.testing.assert_array_equal(ind[5], [0, 1, 2, 3, 4, 6])  # ties: lower indices, 5 excluded


@pytest.mark.parametrize(
    "algorithm, metric",
    [("kd_tree", "euclidean"), ("brute", "euclidean"), ("auto", "euclidean"), ("brute", "cosine")],
)
def test_ties_and_duplicates_follow_lower_index_rule(rng, algorithm, metric):
    # Small integers: many duplicate points and exact distance ties.
    X = rng.integers(0, 3, size=(400, 3)).astype(float)
    ind, dist = knn(X, 8, metric=metric, algorithm=algorithm)
    ref_ind, ref_dist = reference_knn(X, 8, metric)
    np.testing.assert_array_equal(ind, ref_ind)
    if metric == "euclidean":
        np.testing.assert_array_equal(dist, ref_dist)
    else:
        np.testing.assert_allclose(dist, ref_dist, atol=1e-14)


@pytest.mark.parametrize("k", [2, 3, 15, 16])
def test_seeded_brute_force_over_several_blocks_keeps_the_tie_rule(rng, k):
    """The brute force seeds each query's heap with the best screened candidate of 16 lanes (for
    3 <= k < 16, on blocks of 64 or more candidates; 2 and 16 are the unseeded neighbours): over
    three blocks of 256 points, with duplicates and ties everywhere, the neighbours must still be
    the reference's, on one thread and two."""
    X = rng.integers(0, 3, size=(600, 4)).astype(float)
    ref_ind, ref_dist = reference_knn(X, k)
    for n_jobs in (1, 2):
        ind, dist = knn(X, k, algorithm="brute", n_jobs=n_jobs)
        np.testing.assert_array_equal(ind, ref_ind)
        np.testing.assert_array_equal(dist, ref_dist)


def test_ties_agree_with_sklearn_up_to_tie_order(rng):
    """scikit-learn breaks ties arbitrarily: distances agree exactly, and so do the neighbours
    that are strictly closer than the k-th distance."""
    X = rng.integers(0, 4, size=(500, 2)).astype(float)
    k = 6
    ind, dist = knn(X, k)
    ref_dist, ref_ind = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X).kneighbors()
    np.testing.assert_array_equal(dist, ref_dist)
    for i in range(X.shape[0]):
        strict = dist[i] < dist[i, -1]
        assert set(ind[i, strict]) == set(ref_ind[i, ref_dist[i] < ref_dist[i, -1]])


def test_all_points_identical():
    X = np.ones((50, 3))
    ind, dist = knn(X, 4)
    assert np.all(dist == 0)
    np.testing.assert_array_equal(ind[0], [1, 2, 3, 4])
    np.testing.assert_array_equal(ind[10], [0, 1, 2, 3])


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_threads_give_identical_results(rng, algorithm):
    X = rng.standard_normal((3000, 6))
    ind1, dist1 = knn(X, 10, algorithm=algorithm, n_jobs=1)
    for n_jobs in (2, 3, -1):
        ind, dist = knn(X, 10, algorithm=algorithm, n_jobs=n_jobs)
        np.testing.assert_array_equal(ind, ind1)
        np.testing.assert_array_equal(dist, dist1)


def test_algorithms_agree_bitwise(rng):
    X = rng.standard_normal((2000, 5))
    a = knn(X, 9, algorithm="kd_tree")
    b = knn(X, 9, algorithm="brute")
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_large_offset_is_screened_exactly(rng):
    # Coordinates near 1e6 with spacing 1e-3: the |x|^2 + |y|^2 - 2xy identity alone would
    # cancel catastrophically; the brute force confirms every candidate with the direct distance.
    X = 1e6 + rng.standard_normal((400, 20)) * 1e-3
    np.testing.assert_array_equal(knn(X, 5, algorithm="brute")[0], knn(X, 5, algorithm="kd_tree")[0])


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.int8, st.tuples(st.integers(2, 40), st.integers(1, 4)), elements=st.integers(-2, 2)),
    st.data(),
)
def test_property_all_searches_equal_reference(Xi, data):
    X = Xi.astype(float)
    k = data.draw(st.integers(1, X.shape[0] - 1))
    ref_ind, ref_dist = reference_knn(X, k)
    for algorithm in ("kd_tree", "brute"):
        ind, dist = knn(X, k, algorithm=algorithm, n_jobs=2)
        np.testing.assert_array_equal(ind, ref_ind)
        np.testing.assert_array_equal(dist, ref_dist)


@pytest.mark.parametrize("scale", [2.0**-500, 2.0**-70, 2.0**70, 2.0**500])  # exact scalings
def test_extreme_magnitudes_stay_exact(rng, scale):
    # The float32 screen must neither overflow nor lose candidates to underflow.
    X = rng.integers(0, 4, size=(300, 10)).astype(float) * scale
    ind, dist = knn(X, 5, algorithm="brute")
    ref_ind, _ = reference_knn(X / scale, 5)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_array_equal(ind, knn(X, 5, algorithm="kd_tree")[0])


def test_every_simd_kernel_gives_identical_neighbours(tmp_path):
    """KERNLEARN_SIMD caps the kernel family (AVX-512, AVX2, portable — what non-x86 machines
    run); every family must give the same neighbours bitwise. On a CPU without AVX-512 or AVX2
    the capped runs fall back and the comparison is trivially true for them."""
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np, sys\n"
        "from kernlearn.graph import knn\n"
        "X = np.random.default_rng(3).standard_normal((700, 19)) + 5\n"
        "X[10] = X[11]\n"
        "i1, d1 = knn(X, 6, algorithm='brute')\n"
        "i2, d2 = knn(X, 6, metric='cosine')\n"
        "np.savez(sys.argv[1], i1=i1, d1=d1, i2=i2, d2=d2)\n"
    )
    results = {}
    for simd in ("avx512", "avx2", "none"):
        env = dict(os.environ, KERNLEARN_SIMD=simd)
        out = tmp_path / f"{simd}.npz"
        subprocess.run([sys.executable, "-c", script, str(out)], env=env, check=True, timeout=120)
        results[simd] = np.load(out)
    for simd in ("avx2", "none"):
        for key in ("i1", "d1", "i2", "d2"):
            np.testing.assert_array_equal(results[simd][key], results["avx512"][key])


@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_inexact_scalings_agree_across_algorithms(rng, scale):
    X = rng.standard_normal((400, 12)) * scale
    for metric_args in ({"algorithm": "brute"}, {"algorithm": "kd_tree"}):
        ind, dist = knn(X, 5, **metric_args)
        ref_ind, ref_dist = knn(X, 5, algorithm="kd_tree")
        np.testing.assert_array_equal(ind, ref_ind)
        np.testing.assert_array_equal(dist, ref_dist)


# --- data of any finite magnitude (issue 27, defect 1) ---------------------------------------


def _reference_scaled(X, k, e):
    """The dense reference on X 2^-e (exact: a power of two), distances scaled back by 2^e."""
    ind, dist = reference_knn(np.ldexp(X, -e), k)
    return ind, np.ldexp(dist, e)


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree", "auto"])
def test_huge_values_give_exact_neighbours(algorithm):
    # The screen's squared scale underflowed above about 1e161: NaN thresholds, no candidate
    # survived, and the output was memory never written (indices like 94266373615017).
    X = np.array([[0.0], [1e300], [-1e300], [2e300]])
    ind, dist = knn(X, 2, algorithm=algorithm)
    np.testing.assert_array_equal(ind, [[1, 2], [0, 3], [0, 1], [1, 0]])
    np.testing.assert_allclose(dist, [[1e300, 1e300], [1e300, 1e300], [1e300, 2e300], [1e300, 2e300]], rtol=1e-15)


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_one_huge_coordinate_keeps_the_others_exact(rng, algorithm):
    X = rng.standard_normal((30, 3))
    X[0, 0] = 1e170
    ind, dist = knn(X, 5, algorithm=algorithm)
    ref_ind, ref_dist = _reference_scaled(X, 5, 366)  # X 2^-366: every squared difference normal
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-14)
    assert np.isfinite(dist).all()


@pytest.mark.parametrize("e", [-1074, -1060, -1000, -700, 700, 970])
@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_integer_grid_at_any_exponent_is_exact(rng, e, algorithm):
    # Small integers times 2^e: subnormal (e = -1074) up to near the largest double. The exact
    # distances are sqrt(integer) 2^e, rounded once; ties go to the lower index.
    grid = rng.integers(-3, 4, size=(200, 3)).astype(float)
    ref_ind, ref_dist = reference_knn(grid, 6)
    ind, dist = knn(np.ldexp(grid, e), 6, algorithm=algorithm, n_jobs=2)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_array_equal(dist, np.ldexp(ref_dist, e))


@pytest.mark.parametrize("e", [-1074, -1000, 1000])
def test_cosine_is_scale_free_at_any_exponent(rng, e):
    X = rng.integers(-3, 4, size=(150, 4)).astype(float)
    X[7] = 0.0
    a = knn(X, 5, metric="cosine")
    b = knn(np.ldexp(X, e), 5, metric="cosine")
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_distances_beyond_float64_warn():
    X = np.array([[-1.5e308], [1.5e308], [1.0e308]])
    with pytest.warns(RuntimeWarning, match="exceed the largest float64"):
        ind, dist = knn(X, 2)
    np.testing.assert_array_equal(ind, [[2, 1], [2, 0], [1, 0]])  # ranked in the scaled domain
    assert np.isinf(dist[0]).all() and np.isfinite(dist[1:, 0]).all()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_x_is_rejected_naming_x(bad):
    X = np.random.default_rng(0).random((10, 2))
    X[3, 1] = bad
    with pytest.raises(ValueError, match="X"):
        knn(X, 2)


# --- the raw binding (issue 27, defect 8) ------------------------------------------------------


def _raw_knn(X, k, metric="euclidean", algorithm="brute", **kw):
    from kernlearn import _core

    nb = _core.neighbors
    return nb.knn(X, k, metric=nb.Metric.__members__[metric], algorithm=nb.KnnAlgorithm.__members__[algorithm], **kw)


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree", "auto"])
@pytest.mark.parametrize(
    "shape, k, match",
    [
        ((5, 0), 2, "column"),  # segfaulted
        ((0, 3), 1, "2 points"),
        ((1, 3), 1, "2 points"),
        ((5, 3), 0, "n_neighbors"),
        ((5, 3), -1, "n_neighbors"),
        ((5, 3), 5, "n_neighbors"),
        ((5, 3), 2**62, "n_neighbors"),
    ],
)
def test_raw_knn_rejects_malformed_input(algorithm, shape, k, match):
    with pytest.raises(ValueError, match=match):
        _raw_knn(np.zeros(shape), k, algorithm=algorithm)


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_raw_knn_rejects_non_finite_x(algorithm, bad):
    X = np.random.default_rng(0).random((40, 2))
    X[5, 0] = bad
    with pytest.raises(ValueError, match="X must be finite"):
        _raw_knn(X, 3, algorithm=algorithm)


def test_raw_knn_rejects_bad_threads_and_kd_tree_cosine():
    X = np.random.default_rng(0).random((40, 2))
    for n_threads in (0, -5):
        with pytest.raises(ValueError, match="n_threads"):
            _raw_knn(X, 3, n_threads=n_threads)
    with pytest.raises((TypeError, ValueError)):  # beyond a C int: pybind11 refuses the conversion
        _raw_knn(X, 3, n_threads=2**40)
    with pytest.raises(ValueError, match="kd_tree"):
        _raw_knn(X, 3, metric="cosine", algorithm="kd_tree")
    ind = _raw_knn(X, 3, n_threads=10**6).indices  # more threads than work: capped, not a failure
    np.testing.assert_array_equal(ind, _raw_knn(X, 3).indices)


@pytest.mark.parametrize("n_jobs", [2**31, 2**63, 2**64, -(2**64)])
def test_huge_n_jobs_never_reach_the_binding_unchecked(n_jobs):
    X = np.random.default_rng(0).random((40, 2))
    try:
        ind, _ = knn(X, 3, n_jobs=n_jobs)
    except ValueError as exc:
        assert "n_jobs" in str(exc)
    else:
        np.testing.assert_array_equal(ind, knn(X, 3)[0])


# The block search kernlearn.distributed runs per task (no Dask here): a query block among one data
# block, merges of the partial results, then keys to distances.
NB = _core.neighbors


def _knn_by_blocks(X, k, block, metric="euclidean"):
    n = X.shape[0]
    exponent = NB.knn_scale_exponent(float(np.abs(X).max())) if metric == "euclidean" else 0
    offsets = [*range(0, n, block), n]
    merged_blocks = []
    for q0, q1 in zip(offsets[:-1], offsets[1:]):
        merged = None
        for d0, d1 in zip(offsets[:-1], offsets[1:]):
            part = NB.knn_block(
                X[q0:q1],
                X[d0:d1],
                k,
                query_offset=q0,
                data_offset=d0,
                metric=NB.Metric.__members__[metric],
                scale_exponent=exponent,
            )
            merged = part if merged is None else NB.merge_neighbor_keys(*merged, *part)
        merged_blocks.append(merged)
    return NB.neighbors_from_keys(
        np.concatenate([m[0] for m in merged_blocks]),
        np.concatenate([m[1] for m in merged_blocks]),
        metric=NB.Metric.__members__[metric],
        scale_exponent=exponent,
    )


@pytest.mark.parametrize(
    ("shape", "k", "block", "metric", "scale"),
    [
        ((700, 3), 7, 300, "euclidean", 1.0),  # kd-tree blocks, a brute-force last block of 100
        ((700, 3), 7, 5, "euclidean", 1.0),  # blocks smaller than k: padding everywhere
        ((600, 12), 16, 256, "euclidean", 1e250),  # brute force, scaled by a power of two
        ((600, 12), 3, 1000, "euclidean", 1e-250),  # one diagonal block
        ((500, 10), 6, 128, "cosine", 1.0),
    ],
)
@pytest.mark.parametrize("ties", [False, True])
def test_block_search_and_merges_equal_knn_bitwise(rng, shape, k, block, metric, scale, ties):
    X = (rng.integers(0, 3, size=shape).astype(float) if ties else rng.standard_normal(shape)) * scale
    result = _knn_by_blocks(X, k, block, metric)
    indices, distances = knn(X, k, metric=metric)
    np.testing.assert_array_equal(result.indices, indices)
    np.testing.assert_array_equal(result.distances, distances)


@pytest.mark.parametrize(
    ("shape", "split", "k", "metric", "scale"),
    [
        ((700, 12), 300, 7, "euclidean", 1.0),  # one pass over shared tiles, blocks not multiples of 256
        ((700, 12), 300, 7, "euclidean", 1e250),  # the same, scaled by a power of two
        ((520, 10), 260, 6, "cosine", 1.0),
        ((700, 3), 300, 7, "euclidean", 1.0),  # kd-tree blocks: two one-way searches
        ((300, 12), 4, 7, "euclidean", 1.0),  # a block with fewer than k rows: two one-way searches
    ],
)
@pytest.mark.parametrize("ties", [False, True])
def test_two_way_block_search_equals_two_one_way_searches(rng, shape, split, k, metric, scale, ties):
    X = (rng.integers(0, 3, size=shape).astype(float) if ties else rng.standard_normal(shape)) * scale
    first, second = X[:split], X[split:]
    before = X.copy()
    exponent = NB.knn_scale_exponent(float(np.abs(X).max())) if metric == "euclidean" else 0
    keywords = {"metric": NB.Metric.__members__[metric], "scale_exponent": exponent}
    of_first, of_second = NB.knn_block_pair(first, second, k, query_offset=1000, data_offset=5000, **keywords)
    expected_first = NB.knn_block(first, second, k, query_offset=1000, data_offset=5000, **keywords)
    expected_second = NB.knn_block(second, first, k, query_offset=5000, data_offset=1000, **keywords)
    for got, expected in zip((*of_first, *of_second), (*expected_first, *expected_second)):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(X, before)


def test_two_way_block_search_refuses_a_diagonal_block():
    with pytest.raises(ValueError, match="disjoint"):
        NB.knn_block_pair(GOOD, GOOD, 2, query_offset=3, data_offset=3, metric=NB.Metric.euclidean)
    with pytest.raises(ValueError, match="disjoint or equal"):
        NB.knn_block_pair(GOOD, GOOD, 2, query_offset=0, data_offset=4, metric=NB.Metric.euclidean)


def test_block_search_pads_queries_with_too_few_candidates():
    X = np.arange(6.0).reshape(3, 2)
    indices, keys = NB.knn_block(X, X, 4, query_offset=10, data_offset=10, metric=NB.Metric.euclidean)
    np.testing.assert_array_equal(indices, [[11, 12, -1, -1], [10, 12, -1, -1], [11, 10, -1, -1]])
    np.testing.assert_array_equal(keys[:, 2:], np.inf)
    with pytest.raises(ValueError, match="fewer than 4 neighbours"):
        NB.neighbors_from_keys(indices, keys, metric=NB.Metric.euclidean)


def _block(X, Y, k=2, q0=0, d0=10, **kw):
    kw = {"metric": NB.Metric.euclidean, **kw}
    return NB.knn_block(X, Y, k, query_offset=q0, data_offset=d0, **kw)


GOOD = np.random.default_rng(0).random((8, 3))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: _block(GOOD, GOOD, k=0), "n_neighbors"),
        (lambda: _block(GOOD, np.ascontiguousarray(GOOD[:, :2])), "columns"),
        (lambda: _block(GOOD, GOOD, q0=-1), "query_offset"),
        (lambda: _block(GOOD, GOOD, d0=2**63 - 4), "data_offset"),
        (lambda: _block(GOOD, GOOD, q0=0, d0=4), "disjoint or equal"),
        (lambda: _block(np.full((2, 3), np.nan), GOOD), "queries must be finite"),
        (lambda: _block(GOOD, GOOD * 1e300), "scale_exponent"),
        (lambda: _block(GOOD, GOOD, metric=NB.Metric.cosine, scale_exponent=3), "scale_exponent"),
        (lambda: _block(GOOD, GOOD, n_threads=0), "n_threads"),
        (lambda: NB.knn_scale_exponent(np.nan), "largest_magnitude"),
        (lambda: NB.merge_neighbor_keys(*_block(GOOD, GOOD), *_block(GOOD, GOOD, k=3)), "shape"),
        (lambda: NB.merge_neighbor_keys(*_block(GOOD, GOOD), *_block(GOOD, GOOD)), "overlap"),
        (
            lambda: NB.merge_neighbor_keys(*_block(GOOD, GOOD), *[a[:, ::-1].copy() for a in _block(GOOD, GOOD)]),
            "ascending",
        ),
        (
            lambda: NB.neighbors_from_keys(np.zeros((2, 1), np.int64), -np.ones((2, 1)), metric=NB.Metric.euclidean),
            "keys",
        ),
    ],
)
def test_raw_block_search_rejects_malformed_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
