"""The same estimator on its three operators: a stored (dense) kernel, the on-the-fly
kernlearn.kernels.KernelOperator, and Dask's operators through the callback operator
(backend="dask" on a LocalCluster of 2 worker processes). One C++ solver runs in each case; the
table gives how far the outputs are apart.

    python bench/bench_operator_paths.py [--no-dask]

IKLR (RBF, Newton-CG, the default tol = 1e-8, 1e-10 and 1e-12): decision values, max relative
difference. KDAC (q = 2, two planted 2-group structures, n = 200): labels equal, projection
distance of W and cost. ESKL with rank = 10 (an RBF and a TL1 similarity, n = 120, libsvm to 1e-12): decision
values and objective. KernelKMeans (3 blobs, n = 180): adjusted Rand index and inertia. eigsh:
the 4 largest eigenvalues of an RBF kernel (n = 400).
"""

import argparse
import os
import warnings

import numpy as np
from sklearn.metrics import adjusted_rand_score


def relative(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.abs(a - b).max() / max(np.abs(a).max(), 1e-300))


def iklr_rows(client):
    from kernlearn.indefinite import IndefiniteKernelLogisticRegression as IKLR

    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4))
    y = (X[:, 0] + 0.3 * rng.standard_normal(300) > 0).astype(int)
    rows = []
    for tol in (1e-8, 1e-10, 1e-12):
        dense = IKLR(tol=tol, kernel_storage="dense").fit(X, y)
        fly = IKLR(tol=tol, kernel_storage="operator").fit(X, y)
        scores = dense.decision_function(X)
        rows.append((f"IKLR, tol = {tol:g}", "decision values", relative(scores, fly.decision_function(X)), None))
        if client is not None:
            dask = IKLR(tol=tol, backend="dask", client=client, block_size=300).fit(X, y)
            rows[-1] = rows[-1][:3] + (relative(scores, dask.decision_function(X)),)
    return rows


def kdac_rows(client):
    from kernlearn.cluster import KDAC

    rng = np.random.default_rng(26)
    n = 200
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = rng.standard_normal((n, 4)) + np.c_[3 * a, 3 * b, np.zeros((n, 2))]
    local = KDAC(2, random_state=0).fit(X, a)
    rows = [("KDAC, labels", "labels equal", None, None)]
    if client is not None:
        dask = KDAC(2, random_state=0, backend="dask", client=client).fit(X, a)
        W1, W2 = local.projection_, dask.projection_
        distance = float(np.linalg.norm(W2 - W1 @ (W1.T @ W2)))  # the part of span W2 outside span W1
        rows = [
            ("KDAC", "labels equal", None, bool(np.array_equal(local.labels_, dask.labels_))),
            ("KDAC", "projection distance of W", None, distance),
            ("KDAC", "cost", None, relative(local.cost_, dask.cost_)),
        ]
    return rows


def eskl_rows(client):
    from kernlearn import kernels
    from kernlearn.kernels import KernelOperator
    from kernlearn.similarity import ESKL

    rng = np.random.default_rng(0)
    n = 120
    labels = rng.integers(0, 2, n)
    X = rng.standard_normal((n, 4)) + 1.2 * labels[:, None]
    y = np.where(np.arange(n) < 40, labels, -1)
    S = [kernels.rbf_kernel(X, gamma=0.25), kernels.tl1_kernel(X, tau=2.0)]
    params = {"rank": 10, "init": "identity", "max_iter": 30, "svm_tol": 1e-12, "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = ESKL(**params).fit(S, y)
        fly = ESKL(**params).fit([KernelOperator(X, gamma=0.25), KernelOperator(X, "tl1", tau=2.0)], y)
        dask = None
        if client is not None:
            from kernlearn.distributed import KernelOperator as DaskKernelOperator

            operators = [
                DaskKernelOperator(X, "rbf", gamma=0.25, client=client),
                DaskKernelOperator(X, "tl1", tau=2.0, client=client),
            ]
            dask = ESKL(**params).fit(operators, y)
    scores = dense.decision_transductive_
    return [
        (
            "ESKL, rank 10",
            "decision values",
            relative(scores, fly.decision_transductive_),
            None if dask is None else relative(scores, dask.decision_transductive_),
        ),
        (
            "ESKL, rank 10",
            "objective",
            relative(dense.objective_, fly.objective_),
            None if dask is None else relative(dense.objective_, dask.objective_),
        ),
    ]


def kmeans_rows():
    from kernlearn.cluster import KernelKMeans
    from kernlearn.kernels import KernelOperator, rbf_kernel

    rng = np.random.default_rng(3)
    X = np.concatenate([rng.standard_normal((60, 2)) + s for s in ([0, 0], [5, 0], [0, 5])])
    dense = KernelKMeans(3, kernel="precomputed", random_state=0).fit(rbf_kernel(X, gamma=0.1))
    fly = KernelKMeans(3, kernel="precomputed", random_state=0).fit(KernelOperator(X, gamma=0.1))
    return [
        ("KernelKMeans", "adjusted Rand index", adjusted_rand_score(dense.labels_, fly.labels_), None),
        ("KernelKMeans", "inertia", relative(dense.inertia_, fly.inertia_), None),
    ]


def eigsh_rows():
    from kernlearn.kernels import KernelOperator, rbf_kernel
    from kernlearn.linalg import eigsh

    X = np.random.default_rng(10).standard_normal((400, 3))
    dense, _, _ = eigsh(rbf_kernel(X, gamma=1.0), 4, "LA", method="lanczos", random_state=0)
    fly, _, _ = eigsh(KernelOperator(X, gamma=1.0), 4, "LA", method="lanczos", random_state=0)
    return [("eigsh (Lanczos), 4 largest", "eigenvalues", relative(dense, fly), None)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    client = cluster = None
    if not args.no_dask:
        from distributed import Client, LocalCluster

        environ = dict(os.environ)
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0")
        os.environ.clear()
        os.environ.update(environ)
        client = Client(cluster)
    rows = iklr_rows(client) + kdac_rows(client) + eskl_rows(client) + kmeans_rows() + eigsh_rows()
    print("| estimator | output | on the fly vs dense | Dask vs dense |")
    print("|---|---|---|---|")
    for estimator, output, fly, dask in rows:

        def cell(v):
            if v is None:
                return "-"
            if isinstance(v, bool):
                return str(v)
            return f"{v:.1e}" if v < 0.99 else f"{v:.3f}"

        print(f"| {estimator} | {output} | {cell(fly)} | {cell(dask)} |")
    if client is not None:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
