"""One KDAC Phi(W): the core in one process (2 threads) against the tile-pair tasks of
``KDAC(backend="dask")`` on a LocalCluster of 2 worker processes with 1 thread each.

    python bench/bench_distributed_kdac.py [--n 50000] [--d 16] [--repeats 2]

Prints one line per side (best of the repeats, the two sides alternating, seconds) and their
ratio, for bench/results/distributed.md; ``measure_phi`` gives bench/bench_distributed.py its
Phi(W) rows. The Dask side is timed from the call to the gathered d x d result,
with X already on the workers (placed once per fit) and the gamma factor A placed per W-step (as
in a fit: once, then reused by the W-step's Phi evaluations).
"""

import argparse
import os
import time

import numpy as np


def _problem(n, d, k=2, k_y=2, q=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    W = np.linalg.qr(rng.standard_normal((d, q)))[0]
    A = rng.standard_normal((n, k + k_y)) / np.sqrt(n)
    c = np.r_[np.ones(k), np.full(k_y, -1.0)]
    return X, W, A, c


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def measure_phi(client, n, block_size, d=16, sigma=2.0):
    """One Phi(W) on the client's cluster, for bench/bench_distributed.py: (wall seconds, Dask's
    task-stream records). X is placed and a small Phi run first (the workers import kernlearn),
    then the timed Phi, as in a fit's W-step."""
    import distributed

    from kernlearn.distributed._cluster import Cluster
    from kernlearn.distributed._hsic import HsicTiles

    X, W, A, c = _problem(n, d)
    tiles = HsicTiles(np.ascontiguousarray(X - X.mean(axis=0)), Cluster(client), block_size)
    tiles.set_weights(A, c)
    distributed.wait(tiles.blocks + tiles._weights[0])
    tiles.phi(W, sigma)  # warm
    with distributed.get_task_stream(client) as stream:
        start = time.perf_counter()
        tiles.phi(W, sigma)
        wall = time.perf_counter() - start
    return wall, stream.data


def bench_phi(n=50000, d=16, repeats=2, block_size=None, sigma=2.0):
    """Time one Phi(W) both ways; returns (core seconds, dask seconds, relative difference)."""
    import distributed

    from kernlearn import _core
    from kernlearn.distributed._cluster import Cluster
    from kernlearn.distributed._hsic import HsicTiles

    X, W, A, c = _problem(n, d)
    Wc = np.ascontiguousarray(W)
    environ = dict(os.environ)  # the nanny leaks OMP_NUM_THREADS=1 into this process
    core_times, dask_times = [], []
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as client,
    ):
        os.environ.clear()
        os.environ.update(environ)
        small = HsicTiles(X[:600] - X[:600].mean(axis=0), Cluster(client), 300)
        small.set_weights(A[:600], c)
        small.phi(W, sigma)  # warm-up: kernlearn imported on the workers
        tiles = HsicTiles(np.ascontiguousarray(X - X.mean(axis=0)), Cluster(client), block_size)
        tiles.set_weights(A, c)
        distributed.wait(tiles.blocks + tiles._weights[0])  # the data on the workers before the clock starts
        # The two sides alternate, best of each: on a shared machine the load drifts between runs.
        for _ in range(repeats):
            seconds, expected = _timed(lambda: _core.kernels.hsic_phi(X, Wc, A, c, sigma=sigma, n_threads=2)[0])
            core_times.append(seconds)
            seconds, got = _timed(lambda: tiles.phi(W, sigma)[0])
            dask_times.append(seconds)
        n_blocks = len(tiles.blocks)
    core_time, dask_time = min(core_times), min(dask_times)
    difference = float(np.abs(got - expected).max() / np.abs(expected).max())
    print(f"Phi(W), n = {n}, d = {d}, q = {W.shape[1]}, m = {A.shape[1]}")
    print(f"  core, 1 process x 2 threads      {core_time:8.2f} s")
    print(f"  dask, 2 processes x 1 thread     {dask_time:8.2f} s   ({n_blocks} blocks, {len(tiles.pairs)} tasks)")
    print(
        f"  ratio dask / core                {dask_time / core_time:8.2f}   (max relative difference {difference:.1e})"
    )
    return core_time, dask_time, difference


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50000)
    parser.add_argument("--d", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--block-size", type=int, default=None)
    args = parser.parse_args()
    bench_phi(args.n, args.d, args.repeats, args.block_size)
