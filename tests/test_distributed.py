"""kernlearn.distributed on a local Dask cluster (two worker processes, started and stopped here):
each result equals the single-machine one, bad input fails with the argument's name, a worker
killed mid-search changes nothing, and without Dask a call says which extra to install."""

import subprocess
import sys

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import dask_cluster  # noqa: E402
from dask_cluster import result_with_a_worker_killed  # noqa: E402
from kernlearn import graph, kernels, linalg  # noqa: E402
from kernlearn.distributed import KernelOperator, knn, knn_graph  # noqa: E402

client = dask_cluster.client  # the module-scoped LocalCluster fixture (2 worker processes)

N = 2000


def data(kind, n=N, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "continuous":  # d = 3: the kd-tree on blocks of 256 rows or more, brute force below
        return rng.standard_normal((n, 3)) + 4.0
    if kind == "ties":  # small integers: duplicate points and exact distance ties everywhere
        return rng.integers(0, 3, size=(n, 4)).astype(float)
    if kind == "huge":  # d = 12 (brute force), searched scaled by a power of two
        return rng.standard_normal((n, 12)) * 1e250
    raise ValueError(kind)


def assert_same_csr(A, B):
    assert A.shape == B.shape
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    np.testing.assert_array_equal(A.data, B.data)


@pytest.mark.parametrize("kind", ["continuous", "ties", "huge"])
# 9 blocks below the kd-tree's 256 rows (every pair shares its tiles); 7 blocks, the last ragged;
# 2 blocks; one block
@pytest.mark.parametrize("block_size", [230, 300, 1000, 5000])
def test_knn_of_a_numpy_array_equals_the_single_machine_knn(client, kind, block_size):
    X = data(kind)
    before = X.copy()
    indices, distances = knn(X, 7, client=client, block_size=block_size)
    expected_indices, expected_distances = graph.knn(X, 7)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("block_size", [None, 450])
def test_knn_of_a_dask_array_equals_the_single_machine_knn(client, block_size):
    X = data("ties")
    chunked = da.from_array(X, chunks=((700, 700, 0, 600), (4,)))  # ragged, with an empty chunk
    indices, distances = knn(chunked, 5, client=client, block_size=block_size)
    expected_indices, expected_distances = graph.knn(X, 5)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)


def test_cosine_knn_equals_the_single_machine_knn(client):
    X = np.random.default_rng(1).standard_normal((N, 10))
    X[5] = 0.0  # at cosine distance 1 from every row: a full tie
    indices, distances = knn(X, 6, client=client, block_size=600, metric="cosine")
    expected_indices, expected_distances = graph.knn(X, 6, metric="cosine")
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)


@pytest.mark.parametrize(
    ("mode", "weight", "sigma"),
    [("symmetric", "binary", None), ("mutual", "heat", None), ("symmetric", "heat", 0.7), ("mutual", "distance", None)],
)
def test_knn_graph_equals_the_single_machine_graph(client, mode, weight, sigma):
    X = data("continuous")
    G = knn_graph(X, 8, mode=mode, weight=weight, sigma=sigma, client=client, block_size=700)
    assert_same_csr(G, graph.knn_graph(X, 8, mode=mode, weight=weight, sigma=sigma))
    chunked = knn_graph(da.from_array(X, chunks=(512, 3)), 8, mode=mode, weight=weight, sigma=sigma, client=client)
    assert_same_csr(chunked, G)


def test_the_default_client_is_used_when_none_is_given(client):
    X = data("continuous", n=500)
    assert distributed.default_client() is client
    assert_same_csr(knn_graph(X, 4, block_size=200), graph.knn_graph(X, 4))


def dense_kernel(X, kernel, gamma=None, tau=None):
    return kernels.rbf_kernel(X, gamma=gamma) if kernel == "rbf" else kernels.tl1_kernel(X, tau=tau)


def assert_relative(actual, expected, rtol):
    assert np.abs(actual - expected).max() <= rtol * np.abs(expected).max()


@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("kernel", ["rbf", "tl1"])
@pytest.mark.parametrize("block_size", [128, 1000])  # 8 blocks, the last ragged; one block
def test_operator_products_equal_the_dense_kernels(client, kernel, cache, block_size):
    rng = np.random.default_rng(2)
    X = rng.random((1000, 5))
    K = KernelOperator(X, kernel, client=client, block_size=block_size, cache=cache)
    assert K.shape == (1000, 1000) and K.n_blocks_ == -(-1000 // block_size)
    dense = dense_kernel(X, kernel, K.gamma_, K.tau_)
    V = rng.standard_normal((1000, 3))
    assert_relative(K @ V, dense @ V, 1e-12)
    v = V[:, 0]
    product = K.matvec(v)
    assert product.shape == (1000,)
    assert_relative(product, dense @ v, 1e-12)
    assert_relative(K.rmatvec(v), dense @ v, 1e-12)


@pytest.mark.parametrize("cache", [False, True])
def test_an_operator_column_equals_its_product_with_a_unit_vector(client, cache):
    X = np.random.default_rng(6).random((700, 3))
    K = KernelOperator(X, "tl1", client=client, block_size=128, cache=cache)
    for i in (0, 127, 128, 699):  # first and last rows of blocks
        unit = np.zeros(700)
        unit[i] = 1.0
        np.testing.assert_array_equal(K.column(i), K @ unit)


def test_operator_of_a_dask_array_with_scale_gamma_equals_the_dense_kernel(client):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((900, 4)) * 3.0
    K = KernelOperator(da.from_array(X, chunks=(250, 4)), "rbf", gamma="scale", client=client)
    assert K.n_blocks_ == 4
    np.testing.assert_allclose(K.gamma_, 1.0 / (4 * X.var()), rtol=1e-12)  # IKLR's "scale"
    V = rng.standard_normal((900, 2))
    assert_relative(K @ V, kernels.rbf_kernel(X, gamma=K.gamma_) @ V, 1e-12)


def test_eigsh_of_the_operator_equals_eigsh_of_the_dense_kernel(client):
    X = np.random.default_rng(4).random((800, 3))
    K = KernelOperator(X, "tl1", client=client, block_size=300, cache=True)
    values, vectors, info = linalg.eigsh(K, 4, tol=1e-12, random_state=0)
    dense_values, dense_vectors, _ = linalg.eigsh(kernels.tl1_kernel(X), 4, tol=1e-12, random_state=0)
    assert info["status"] == "converged"
    np.testing.assert_allclose(values, dense_values, rtol=1e-10)
    np.testing.assert_allclose(vectors, dense_vectors, atol=1e-8)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda c: knn(data("continuous", 50), 50, client=c), ValueError, "n_neighbors"),
        (lambda c: knn(data("continuous", 50), 2.5, client=c), TypeError, "n_neighbors"),
        (lambda c: knn(np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]]), 1, client=c), ValueError, "X"),
        (lambda c: knn(da.from_array(np.array([[0.0], [np.inf], [1.0]])), 1, client=c), ValueError, "X must be finite"),
        (lambda c: knn(data("continuous", 50), 3, client=c, block_size=0), ValueError, "block_size"),
        (lambda c: knn(data("continuous", 50), 3, client=c, block_size=2.5), TypeError, "block_size"),
        (lambda c: knn(da.ones((50, 4), chunks=(25, 2)), 3, client=c), ValueError, "X must be partitioned by rows"),
        (lambda c: knn(da.ones((50, 4), dtype=complex), 3, client=c), TypeError, "X must hold real numbers"),
        (lambda c: knn(data("continuous", 50), 3, client=c, metric="cityblock"), ValueError, "metric"),
        (lambda c: knn(data("continuous", 50), 3, client="tcp://127.0.0.1:8786"), TypeError, "client"),
        (lambda c: knn_graph(data("continuous", 50), 3, client=c, weight="cosine"), ValueError, "weight"),
        (lambda c: KernelOperator(data("continuous", 50), "poly", client=c), ValueError, "kernel"),
        (lambda c: KernelOperator(data("continuous", 50), "tl1", gamma=1.0, client=c), ValueError, "gamma"),
        (lambda c: KernelOperator(data("continuous", 50), "rbf", gamma=-1.0, client=c), ValueError, "gamma"),
        (lambda c: KernelOperator(data("continuous", 50), cache="yes", client=c), TypeError, "cache"),
        (lambda c: KernelOperator(data("continuous", 50), client=c, block_size=-3), ValueError, "block_size"),
        (lambda c: KernelOperator(data("continuous", 50), client=c).matvec(np.full(50, np.nan)), ValueError, "V"),
        (lambda c: KernelOperator(data("continuous", 50), client=c).matmat(np.ones((50, 2), complex)), TypeError, "V"),
    ],
)
def test_bad_input_names_the_argument(client, call, error, match):
    with pytest.raises(error, match=match):
        call(client)


def test_cache_that_cannot_fit_is_refused(client, monkeypatch):
    from kernlearn.distributed import _kernel_operator

    monkeypatch.setattr(_kernel_operator, "_CACHE_MEMORY_FRACTION", 1e-9)
    with pytest.raises(ValueError, match="cache=True needs"):
        KernelOperator(data("continuous", 500), client=client, cache=True)


def test_importing_the_module_imports_no_dask():
    code = (
        "import sys, kernlearn, kernlearn.distributed\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "call", [lambda: knn(np.eye(3), 1), lambda: knn_graph(np.eye(3), 1), lambda: KernelOperator(np.eye(3))]
)
def test_a_missing_extra_is_named(monkeypatch, call):
    for name in ("dask", "dask.array", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    with pytest.raises(ImportError, match=r'pip install "kernlearn\[dask\]"'):
        call()


def test_a_worker_killed_mid_search_changes_nothing(client):
    """Last in the file: the cluster comes back with a new worker process."""
    X = np.random.default_rng(5).standard_normal((3000, 4))
    expected = graph.knn_graph(X, 10)
    got = result_with_a_worker_killed(
        client, lambda: knn_graph(X, 10, client=client, block_size=150), "_search_block_pair"
    )  # 210 searches, 160 merges
    assert_same_csr(got, expected)
