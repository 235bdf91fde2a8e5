"""Every bad input gets a ValueError/TypeError naming the argument; inputs are never modified."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernlearn.graph import knn, knn_graph, laplacian

GOOD = np.random.default_rng(0).standard_normal((30, 3))


@pytest.mark.parametrize(
    "X, error, match",
    [
        (np.array([[np.nan, 1.0], [2.0, 3.0], [4.0, 5.0]]), ValueError, "X contains NaN"),
        (np.array([[np.inf, 1.0], [2.0, 3.0], [4.0, 5.0]]), ValueError, "X contains infinity"),
        (np.ones(5), ValueError, "X: Expected 2D array, got 1D array"),
        (np.ones((4, 2, 2)), ValueError, "X: Found array with dim 3"),
        (np.empty((0, 3)), ValueError, r"X: Found array with 0 sample\(s\) .* minimum of 2"),
        (np.ones((1, 5)), ValueError, r"X: Found array with 1 sample\(s\) .* minimum of 2"),
        (np.empty((5, 0)), ValueError, r"X: Found array with 0 feature\(s\)"),
        (np.ones((4, 2), dtype=complex), ValueError, "X: Complex data not supported"),
        (np.array([[1, None], [2, 3]], dtype=object), ValueError, "X contains NaN"),  # None -> NaN, as in sklearn
        (np.array([[1, {}], [2, 3]], dtype=object), TypeError, r"X: float\(\) argument must be"),
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "X must hold real numbers"),
        (sp.random(10, 3, density=0.5, format="csr"), TypeError, "X must be a dense array"),
        ([[1.0, 2.0], [3.0]], ValueError, "X: setting an array element with a sequence"),
    ],
)
def test_bad_X(X, error, match):
    with pytest.raises(error, match=match):
        knn(X, 1)
    with pytest.raises(error, match=match):
        knn_graph(X, 1)


@pytest.mark.parametrize(
    "k, error, match",
    [
        (0, ValueError, "n_neighbors must be >= 1"),
        (-3, ValueError, "n_neighbors must be >= 1"),
        (30, ValueError, "n_neighbors must be < n_samples = 30"),
        (31, ValueError, "n_neighbors must be < n_samples"),
        (2.0, TypeError, "n_neighbors must be an integer"),
        (True, TypeError, "n_neighbors must be an integer"),
        (None, TypeError, "n_neighbors must be an integer"),
    ],
)
def test_bad_n_neighbors(k, error, match):
    with pytest.raises(error, match=match):
        knn(GOOD, k)


def test_numpy_integer_n_neighbors_accepted():
    assert knn(GOOD, np.int32(3))[0].shape == (30, 3)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"metric": "manhattan"}, "metric must be one of"),
        ({"algorithm": "ball_tree"}, "algorithm must be one of"),
        ({"algorithm": "kd_tree", "metric": "cosine"}, "kd_tree' supports metric='euclidean' only"),
        ({"n_jobs": 0}, "n_jobs must be a non-zero integer"),
    ],
)
def test_bad_knn_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        knn(GOOD, 3, **kwargs)


def test_bad_n_jobs_type():
    with pytest.raises(TypeError, match="n_jobs must be an integer"):
        knn(GOOD, 3, n_jobs=1.5)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"mode": "either"}, ValueError, "mode must be one of"),
        ({"weight": "gaussian"}, ValueError, "weight must be one of"),
        ({"weight": "heat", "sigma": 0.0}, ValueError, "sigma must be positive"),
        ({"weight": "heat", "sigma": -1.0}, ValueError, "sigma must be positive"),
        ({"weight": "heat", "sigma": np.nan}, ValueError, "sigma must be positive"),
        ({"weight": "heat", "sigma": "wide"}, TypeError, "sigma must be a positive float"),
        ({"weight": "binary", "sigma": 1.0}, ValueError, "sigma is used by weight='heat' only"),
    ],
)
def test_bad_graph_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        knn_graph(GOOD, 3, **kwargs)


def test_heat_default_sigma_zero_is_explained():
    X = np.repeat(np.eye(3), 10, axis=0)  # every point has 9 exact duplicates
    with pytest.raises(ValueError, match="pass a positive sigma"):
        knn_graph(X, 5, weight="heat")


@pytest.mark.parametrize(
    "S, error, match",
    [
        (sp.csr_matrix(np.ones((3, 4))), ValueError, "S must be square"),
        (np.ones((3, 4)), ValueError, "S must be square"),
        (np.ones(4), ValueError, "S must be a 2-D square matrix"),
        (sp.csr_matrix(np.array([[0, 1.0], [2.0, 0]])), ValueError, "S must be symmetric"),
        (sp.csr_matrix(np.array([[0, -1.0], [-1.0, 0]])), ValueError, "S must be non-negative"),
        (sp.csr_matrix(np.array([[0, np.nan], [np.nan, 0]])), ValueError, "S contains NaN"),
        (np.array([[0, np.inf], [np.inf, 0]]), ValueError, "S contains NaN"),
        (sp.csr_matrix((0, 0)), ValueError, "S is empty"),
        (np.ones((2, 2), dtype=complex), ValueError, "S: Complex data not supported"),
        (
            sp.csr_matrix(np.ones((2, 2), dtype=complex)),
            ValueError,
            "S: Complex data not supported",
        ),
    ],
)
def test_bad_laplacian_input(S, error, match):
    with pytest.raises(error, match=match):
        laplacian(S)


def test_bad_laplacian_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        laplacian(np.eye(3), kind="sym")


@pytest.mark.parametrize(
    "convert",
    [
        lambda X: X.astype(np.float32),
        lambda X: np.asfortranarray(X),
        lambda X: np.vstack([X, X])[::2],  # non-contiguous slice
        lambda X: X.tolist(),
    ],
    ids=["float32", "fortran", "strided", "list"],
)
def test_converted_inputs_give_float64_results(convert):
    X = np.round(GOOD, 3)  # float32-exact-ish values: both paths see nearly the same numbers
    Xc = convert(X)
    ind, dist = knn(Xc, 4)
    ref_ind, ref_dist = knn(np.asarray(Xc, dtype=np.float64), 4)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_array_equal(dist, ref_dist)


def test_integer_and_bool_inputs():
    Xi = np.random.default_rng(1).integers(0, 5, size=(40, 2))
    np.testing.assert_array_equal(knn(Xi, 3)[1], knn(Xi.astype(float), 3)[1])
    Xb = Xi > 2
    np.testing.assert_array_equal(knn(Xb, 3)[0], knn(Xb.astype(float), 3)[0])


def test_single_feature_column():
    X = np.arange(10.0).reshape(-1, 1)
    ind, _ = knn(X, 2)
    np.testing.assert_array_equal(ind[0], [1, 2])
    np.testing.assert_array_equal(ind[5], [4, 6])


def test_inputs_never_modified_and_read_only_accepted():
    X = np.asfortranarray(GOOD * 5.0 + 100.0)
    X.setflags(write=False)
    before = X.copy()
    knn_graph(X, 4, weight="heat", mode="mutual")
    knn(X, 4, metric="cosine")
    np.testing.assert_array_equal(X, before)
    S = knn_graph(GOOD, 4).tolil()
    S[0, 0] = 3.0  # diagonal entry, unsorted after conversion
    S = S.tocsr()
    S_before = S.copy()
    laplacian(S)
    assert (S != S_before).nnz == 0 and S.has_sorted_indices == S_before.has_sorted_indices
