"""KDAC on a local Dask cluster (the two worker processes of test_distributed.py's fixture): Phi(W)
and the degree vector from tile-pair tasks equal the core's, KDAC(backend="dask") fits equal the
default backend's, a worker killed mid-Phi changes nothing, bad input names the argument, and
without Dask the fit says which extra to install."""

import sys

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask_cluster  # noqa: E402
from dask_cluster import result_with_a_worker_killed  # noqa: E402
from kernlearn import _core, kernels  # noqa: E402
from kernlearn.cluster import KDAC  # noqa: E402
from kernlearn.distributed._cluster import Cluster  # noqa: E402
from kernlearn.distributed._hsic import HsicTiles  # noqa: E402
from kernlearn.distributed._kdac import projection_distance  # noqa: E402

client = dask_cluster.client  # the module-scoped LocalCluster fixture (2 worker processes)


def phi_problem(n, d=5, q=2, m=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.linspace(0.5, 3.0, d) + 7.0  # off-centre on purpose
    W = np.linalg.qr(rng.standard_normal((d, q)))[0]
    A = rng.standard_normal((n, m))
    c = np.r_[np.ones(m - 2), -0.7, -0.7]
    return X, W, A, c


def assert_relative(actual, expected, rtol):
    assert np.abs(np.asarray(actual) - expected).max() <= rtol * np.abs(expected).max()


@pytest.mark.parametrize("block_size", [130, 700])  # 6 blocks, the last ragged; one block
def test_phi_and_degree_equal_the_core(client, block_size):
    X, W, A, c = phi_problem(700)
    before = X.copy()
    sigma = 1.7
    tiles = HsicTiles(np.ascontiguousarray(X - X.mean(axis=0)), Cluster(client), block_size)
    assert len(tiles.pairs) == len(tiles.blocks) * (len(tiles.blocks) + 1) // 2
    phi, trace, bound = tiles.phi(W, tiles.place(A), c, sigma, with_bound=True)
    expected_phi, expected_trace, expected_bound = _core.kernels.hsic_phi(
        X, np.ascontiguousarray(W), A, c, sigma=sigma, with_bound=True, n_threads=2
    )
    assert_relative(phi, expected_phi, 1e-12)
    np.testing.assert_array_equal(phi, phi.T)
    np.testing.assert_allclose(trace, expected_trace, rtol=1e-12)
    np.testing.assert_allclose(bound, expected_bound, rtol=1e-12)
    Z = np.ascontiguousarray((X - X.mean(axis=0)) @ W)
    assert_relative(tiles.degree(W, sigma), _core.kernels.gaussian_degree(Z, sigma=sigma, n_threads=2), 1e-12)
    V = np.random.default_rng(1).standard_normal((700, 3))
    K = kernels.rbf_kernel(Z, gamma=0.5 / sigma**2)
    assert_relative(tiles.kernel_times(W, sigma, V), K @ V, 1e-12)
    np.testing.assert_array_equal(X, before)


def two_groupings(n, seed=0):
    """Two independent two-group structures, one per feature, and a noise feature (KDAC's example)."""
    rng = np.random.RandomState(seed)
    a, b = rng.randint(0, 2, size=(2, n))
    X = np.c_[4.0 * a, 4.0 * b, np.zeros(n)] + rng.normal(scale=0.6, size=(n, 3))
    return X, a, b


# Data seeds whose fits converge (no cycle warning) in few outer iterations (5 and 6): each
# iteration is dozens of round trips to the cluster (one per Phi and per Lanczos product).
@pytest.mark.parametrize(("seed", "params"), [(26, {}), (29, {"init": "random"})])
def test_fit_equals_the_default_backend(client, seed, params):
    X, a, _ = two_groupings(100, seed)
    expected = KDAC(2, random_state=0, **params).fit(X, a)
    # One block: one task per round trip (the alternation makes hundreds); the pairs of several
    # blocks are checked by the tests of Phi, the degrees and the products.
    got = KDAC(2, random_state=0, backend="dask", client=client, **params).fit(X, a)
    np.testing.assert_array_equal(got.labels_, expected.labels_)
    np.testing.assert_array_equal(got.labels_views_, expected.labels_views_)
    assert got.n_components_ == expected.n_components_
    assert projection_distance(got.projection_, expected.projection_) <= 1e-6
    assert projection_distance(got.embedding_, expected.embedding_) <= 1e-6
    np.testing.assert_allclose(got.cost_, expected.cost_, rtol=1e-6)
    np.testing.assert_allclose(got.quality_, expected.quality_, rtol=1e-6)
    np.testing.assert_allclose(got.phi_eigenvalues_, expected.phi_eigenvalues_, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(got.degree_, expected.degree_, rtol=1e-6)
    assert got.converged_ == expected.converged_ and not got.used_dense_
    assert got.n_iter_ == expected.n_iter_
    assert set(got.history_) == set(expected.history_)
    np.testing.assert_array_equal(got.predict(X[:20]), expected.predict(X[:20]))


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"backend": "spark"}, ValueError, "backend"),
        ({"backend": "dask", "block_size": 0}, ValueError, "block_size"),
        ({"backend": "dask", "block_size": 2.5}, TypeError, "block_size"),
        ({"backend": "dask", "client": "tcp://127.0.0.1:8786"}, TypeError, "client"),
        ({"block_size": 100}, ValueError, "block_size is used by backend='dask' only"),
        ({"client": "anything"}, ValueError, "client is used by backend='dask' only"),
        ({"backend": "dask", "ism_acceleration": True}, ValueError, "ism_acceleration"),
        ({"backend": "dask", "n_clusters": 40}, ValueError, "n_clusters"),
        ({"backend": "dask", "sigma": 1.0, "X_scale": 1e200}, ValueError, "X's entries"),
    ],
)
def test_bad_input_names_the_argument(params, error, match):
    X, a, _ = two_groupings(40)
    params = dict(params)  # the parametrized dict is shared: not modified
    X = X * params.pop("X_scale", 1.0)
    with pytest.raises(error, match=match):
        KDAC(**params).fit(X, a)


def test_a_missing_extra_is_named(monkeypatch):
    X, a, _ = two_groupings(40)
    for name in ("dask", "dask.array", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    with pytest.raises(ImportError, match=r'pip install "kernlearn\[dask\]"'):
        KDAC(backend="dask").fit(X, a)


def test_a_worker_killed_mid_phi_changes_nothing(client):
    """Last in the file: the cluster comes back with a new worker process."""
    X, W, A, c = phi_problem(6000, d=8, m=5, seed=1)
    tiles = HsicTiles(np.ascontiguousarray(X - X.mean(axis=0)), Cluster(client), 500)  # 78 block pairs
    A_blocks = tiles.place(A)
    expected = tiles.phi(W, A_blocks, c, 2.0)
    got = result_with_a_worker_killed(client, lambda: tiles.phi(W, A_blocks, c, 2.0), "_phi_of_block_pair")
    # The same tasks and the same reduction tree: the same sums, bitwise.
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[1] == expected[1]
    reference = _core.kernels.hsic_phi(X, np.ascontiguousarray(W), A, c, sigma=2.0, n_threads=2)[0]
    assert_relative(got[0], reference, 1e-12)
