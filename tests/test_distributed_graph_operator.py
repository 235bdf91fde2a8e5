"""kernlearn.distributed.knn_graph(output="operator"): the graph's row blocks built and kept on the
workers (a graph larger than one machine). Entries bitwise those of kernlearn.graph.knn_graph,
products and Laplacians against scipy, the blocks never gathered by a product, a worker killed
mid-assembly, bad input."""

import numpy as np
import pytest
import scipy.sparse as sp

distributed = pytest.importorskip("distributed")

import dask_cluster  # noqa: E402
from dask_cluster import result_with_a_worker_killed  # noqa: E402
from kernlearn import graph, linalg  # noqa: E402
from kernlearn.distributed import GraphOperator, knn_graph  # noqa: E402

client = dask_cluster.client  # the module-scoped LocalCluster fixture (2 worker processes)


def points(kind, n=900, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "ties":  # duplicate points: zero distances, explicit zero "distance" weights
        return rng.integers(0, 3, size=(n, 4)).astype(float)
    return rng.standard_normal((n, 3))


def assert_same_csr(A, B):
    assert A.shape == B.shape
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    np.testing.assert_array_equal(A.data, B.data)


@pytest.mark.parametrize("mode", ["symmetric", "mutual"])
@pytest.mark.parametrize("weight", ["binary", "heat", "distance"])
@pytest.mark.parametrize("kind", ["continuous", "ties"])
def test_operator_blocks_hold_the_single_machine_graph_bitwise(client, mode, weight, kind):
    X = points(kind)
    before = X.copy()
    # duplicate points: the median kNN distance is 0, so the heat width must be given
    sigma = 0.5 if weight == "heat" and kind == "ties" else None
    G = knn_graph(X, 6, mode=mode, weight=weight, sigma=sigma, client=client, block_size=250, output="operator")
    assert isinstance(G, GraphOperator) and G.n_blocks_ == 4  # the last block ragged (150 rows)
    expected = graph.knn_graph(X, 6, mode=mode, weight=weight, sigma=sigma)
    assert G.nnz == expected.nnz
    assert_same_csr(G.to_csr(), expected)
    np.testing.assert_array_equal(X, before)


def test_heat_width_given_and_one_block(client):
    X = points("continuous", n=300)
    G = knn_graph(X, 5, weight="heat", sigma=0.3, client=client, block_size=1000, output="operator")
    assert G.n_blocks_ == 1
    assert_same_csr(G.to_csr(), graph.knn_graph(X, 5, weight="heat", sigma=0.3))


def test_products_and_degrees_match_scipy_and_blocks_stay_on_the_workers(client):
    X = points("continuous")
    G = knn_graph(X, 8, weight="heat", client=client, block_size=200, output="operator")
    assert all(isinstance(block, distributed.Future) for block in G._blocks)
    reference = graph.knn_graph(X, 8, weight="heat")
    V = np.random.default_rng(1).standard_normal((X.shape[0], 3))
    np.testing.assert_allclose(G @ V, reference @ V, rtol=1e-12, atol=1e-12 * np.abs(reference @ V).max())
    np.testing.assert_allclose(G @ V[:, 0], reference @ V[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(G.degrees(), np.asarray(reference.sum(axis=1)).ravel(), rtol=1e-14)
    assert G.H is G  # symmetric


@pytest.mark.parametrize("kind", ["normalized", "unnormalized", "random_walk"])
@pytest.mark.parametrize("mode", ["symmetric", "mutual"])
def test_laplacian_operator_equals_graph_laplacian(client, kind, mode):
    X = points("continuous", seed=2)
    G = knn_graph(X, 4, mode=mode, weight="heat", client=client, block_size=256, output="operator")
    L = G.laplacian(kind)
    expected = graph.laplacian(graph.knn_graph(X, 4, mode=mode, weight="heat"), kind)
    got = L.to_csr()
    assert got.shape == expected.shape
    # the same pattern (off-diagonal of the graph plus the whole diagonal), entries to rounding
    assert (abs(got) > 0).astype(int).sum() == (abs(expected) > 0).astype(int).sum()
    np.testing.assert_allclose(got.toarray(), expected.toarray(), rtol=1e-13, atol=1e-15)
    if mode == "mutual":  # a mutual 4-NN graph of 900 points has isolated nodes: zero rows
        isolated = G.degrees() == 0
        assert isolated.any() and not got[np.flatnonzero(isolated)].count_nonzero()
    assert L.symmetric == (kind != "random_walk")


def test_eigsh_on_the_laplacian_operator_matches_lapack(client):
    X = points("continuous", n=600, seed=3)
    L = knn_graph(X, 10, client=client, block_size=150, output="operator").laplacian("normalized")
    values, vectors, _ = linalg.eigsh(L, 4, "LA", random_state=0)
    dense = np.linalg.eigvalsh(graph.laplacian(graph.knn_graph(X, 10), "normalized").toarray())
    np.testing.assert_allclose(np.sort(values), dense[-4:], rtol=1e-9)
    residual = L @ vectors - vectors * values
    assert np.linalg.norm(residual) <= 1e-8 * np.abs(values).max()


def test_a_worker_killed_mid_assembly_changes_nothing(client):
    X = points("continuous", n=4000, seed=4)
    expected = graph.knn_graph(X, 10)
    G = result_with_a_worker_killed(
        client,
        lambda: knn_graph(X, 10, client=client, block_size=500, output="operator"),
        "search_block_pair",
    )
    assert_same_csr(G.to_csr(), expected)


def test_local_scheduler_without_a_client(monkeypatch):
    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "default_client", no_client)  # as in a process without a client
    X = points("continuous", n=300)
    G = knn_graph(X, 5, block_size=100, output="operator")
    assert not any(isinstance(block, distributed.Future) for block in G._blocks)
    assert_same_csr(G.to_csr(), graph.knn_graph(X, 5))
    np.testing.assert_allclose(G @ np.ones(300), graph.knn_graph(X, 5) @ np.ones(300), rtol=1e-14)


def test_bad_input(client):
    X = points("continuous", n=200)
    with pytest.raises(ValueError, match="output"):
        knn_graph(X, 5, client=client, output="dense")
    with pytest.raises(ValueError, match="sigma"):
        knn_graph(X, 5, weight="heat", sigma=-1.0, client=client, output="operator")
    with pytest.raises(ValueError, match="median kNN distance, which is 0"):  # as kernlearn.graph.knn_graph
        knn_graph(points("ties"), 5, weight="heat", client=client, output="operator")
    G = knn_graph(X, 5, client=client, output="operator")
    with pytest.raises(ValueError, match="kind"):
        G.laplacian("signless")
    with pytest.raises(ValueError, match="symmetric"):
        G.laplacian("random_walk").laplacian()
    with pytest.raises(TypeError, match="real"):
        G @ np.ones(200, dtype=complex)
    with pytest.raises(ValueError, match="finite"):
        G @ np.full(200, np.nan)
    with pytest.raises(ValueError, match="dimension|shape"):
        G @ np.ones(199)
    assert isinstance(G.to_csr(), sp.csr_matrix)
