"""IKLR on Dask: one kernel mat-vec and one whole fit, single-process dense against the distributed
operator (kernlearn.distributed.KernelOperator) on a LocalCluster of worker processes.

    python bench/bench_distributed_iklr.py [--sizes 20000 50000] [--fit-n 5000] [--workers 2]

Data: X standard normal, d = 10, labels sign(x_1 + x_2^2 - 1 + 0.3 N(0, 1)); the RBF kernel with
gamma = "scale" (IKLR's default) plus IKLR's intercept constant.

matvec  Per n: the dense path builds K once (kernlearn.kernels.rbf_kernel, n_jobs=-1) and times
        K @ v (numpy, all cores) -- skipped with a note when K would not fit in half this machine's
        memory; the Dask operator times K @ v with cache off (every product rebuilds its tiles) and
        on (the row blocks built once, then only multiplied; the build time is shown apart), or
        notes that the cache was refused for memory. Median of --repeats products after one warm-up.
fit     IKLR(kernel="rbf") at --fit-n points, the default Newton solver, backend "local" against
        "dask" with cache off and on: seconds, Newton steps, products, converged_ and the largest
        difference of the decision values relative to the dense fit's.

Every figure is from one run; compare ratios within it (the machine is shared).
"""

import argparse
import os
import time

import numpy as np

from kernlearn.indefinite import IndefiniteKernelLogisticRegression
from kernlearn.kernels import rbf_kernel


def make_data(n, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + X[:, 1] ** 2 - 1.0 + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def _median_seconds(call, repeats):
    call()  # warm-up: caches, task-graph machinery, page faults
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def matvec_rows(client, sizes, repeats=3, d=10):
    """One row per (n, path): seconds for one K @ v (and the build of the kernel or cache)."""
    from kernlearn.distributed import KernelOperator

    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    rows = []
    for n in sizes:
        X, _ = make_data(n, d)
        v = np.random.default_rng(1).standard_normal(n)
        gamma = 1.0 / (d * X.var())
        if 8 * n * n <= memory / 2:
            start = time.perf_counter()
            K = rbf_kernel(X, gamma=gamma, n_jobs=-1)
            build = time.perf_counter() - start
            rows.append((n, "dense, 1 process", build, _median_seconds(lambda: K @ v, repeats), ""))
            del K
        else:
            rows.append((n, "dense, 1 process", np.nan, np.nan, f"K needs {8 * n * n / 2**30:.0f} GiB"))
        for cache in (False, True):
            start = time.perf_counter()
            try:
                op = KernelOperator(X, "rbf", gamma=gamma, client=client, cache=cache)
                if cache:
                    op.matvec(v)  # the first product waits for the cached blocks
            except ValueError as err:
                rows.append((n, f"dask, cache={cache}", np.nan, np.nan, str(err).split(":")[0]))
                continue
            build = time.perf_counter() - start
            rows.append((n, f"dask, cache={cache}", build, _median_seconds(lambda op=op: op.matvec(v), repeats), ""))
    return rows


def fit_rows(client, n, d=10):
    """One row per backend: a whole IKLR fit at n points."""
    X, y = make_data(n, d)
    rows = []
    reference = None
    for backend, cache in (("local", False), ("dask", False), ("dask", True)):
        options = {"backend": backend, "n_jobs": -1}
        if backend == "dask":
            options.update(client=client, cache=cache)
        model = IndefiniteKernelLogisticRegression("rbf", **options)
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        scores = model.decision_function(X[:2000])
        if reference is None:
            reference = scores
        difference = float(np.abs(scores - reference).max() / np.abs(reference).max())
        products = int(model.history_[0]["matvecs"].sum())
        label = backend if backend == "local" else f"dask, cache={cache}"
        rows.append((label, seconds, int(model.n_iter_[0]), products, bool(model.converged_[0]), difference))
    return rows


def report(client, sizes=(20_000, 50_000), fit_n=5_000, repeats=3):
    """Print the mat-vec and fit tables (Markdown) for a Dask client (e.g. a LocalCluster's)."""
    workers = len(client.nthreads())
    print(f"### One K @ v, RBF, d = 10 (Dask: {workers} worker processes)\n")
    print("| n | path | build (s) | K @ v (s) | note |\n|---|---|---|---|---|")
    for n, path, build, product, note in matvec_rows(client, sizes, repeats):
        print(f"| {n:,} | {path} | {build:.2f} | {product:.3f} | {note} |")
    print(f"\n### Whole fit, IKLR rbf Newton, n = {fit_n:,}\n")
    print("| backend | seconds | Newton steps | products | converged_ | max rel. diff. of scores |")
    print("|---|---|---|---|---|---|")
    for label, seconds, steps, products, converged, difference in fit_rows(client, fit_n):
        print(f"| {label} | {seconds:.2f} | {steps} | {products} | {converged} | {difference:.1e} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 50_000])
    parser.add_argument("--fit-n", type=int, default=5_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    environ = dict(os.environ)  # the nanny sets OMP_NUM_THREADS=1 here too: the dense path is put back
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=":0") as cluster:
        os.environ.clear()
        os.environ.update(environ)
        with Client(cluster) as client:
            report(client, args.sizes, args.fit_n, args.repeats)


if __name__ == "__main__":
    main()
