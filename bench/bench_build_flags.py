"""The C++ hot paths under two or more builds of the extension: their run times, and whether every
build computes bit-identical results (issue 31: compile flags and explicit instantiation must not
change the numbers; bench/results/build_time.md).

Usage: python bench/bench_build_flags.py PKG_DIR [PKG_DIR ...] [--repeat N] [--only NAME ...]

Each PKG_DIR holds a ``kernlearn`` package with its compiled ``_core`` (e.g. a copy of
python/kernlearn with the extension from one CMake build tree dropped in). Each workload runs in
a fresh interpreter per build, builds alternating, N times; the table gives the fastest run per
build (single-threaded, n_jobs=1, so the other load on a shared machine disturbs it least) and
whether the SHA-256 of every output array agrees across builds.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a.toarray() if hasattr(a, "toarray") else a)
        h.update(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())
    return h.hexdigest()[:16]


def w_knn_brute():
    from kernlearn.graph import knn

    X = np.random.default_rng(0).standard_normal((8000, 64))
    t = time.perf_counter()
    out = knn(X, 10, algorithm="brute", n_jobs=1)
    return time.perf_counter() - t, digest(*out)


def w_knn_kdtree():
    from kernlearn.graph import knn

    X = np.random.default_rng(1).standard_normal((40000, 3))
    t = time.perf_counter()
    out = knn(X, 10, algorithm="kd_tree", n_jobs=1)
    return time.perf_counter() - t, digest(*out)


def w_kernels():
    from kernlearn.kernels import rbf_kernel, tl1_kernel

    X = np.random.default_rng(2).standard_normal((1500, 40))
    t = time.perf_counter()
    K1 = rbf_kernel(X, n_jobs=1)
    K2 = tl1_kernel(X, n_jobs=1)
    return time.perf_counter() - t, digest(K1, K2)


def w_affine_invariant():
    from kernlearn.kernels import affine_invariant_kernel

    rng = np.random.default_rng(3)
    A = rng.standard_normal((150, 9, 12))
    S = A @ A.transpose(0, 2, 1) / 12 + 1e-3 * np.eye(9)
    t = time.perf_counter()
    K = affine_invariant_kernel(S, n_jobs=1)
    return time.perf_counter() - t, digest(K)


def w_eigsh():
    import scipy.sparse as sp

    from kernlearn.graph import knn_graph, laplacian
    from kernlearn.linalg import eigsh

    X = np.random.default_rng(4).standard_normal((30000, 5))
    L = laplacian(knn_graph(X, 10, n_jobs=1))
    A = 2.0 * sp.identity(L.shape[0], format="csr") - L
    t = time.perf_counter()
    values, vectors, _ = eigsh(A, 12, method="lanczos", tol=1e-10, random_state=0)
    return time.perf_counter() - t, digest(values, vectors)


def w_npkl():
    from sklearn.preprocessing import StandardScaler

    from kernlearn.constraints import from_labels
    from kernlearn.datasets import load_sonar
    from kernlearn.npkl import SimpleNPKL

    X, y = load_sonar(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    pairs, labels = from_labels(y, component_ratio=0.7, random_state=0)
    t = time.perf_counter()
    models = [
        SimpleNPKL("squared_hinge", C=C, random_state=0, n_jobs=1).fit(X, pairs=pairs, pair_labels=labels)
        for C in (0.1, 0.3, 1.0, 3.0)
    ]
    return time.perf_counter() - t, digest(*(m.embedding_ for m in models))


def w_mve():
    from sklearn.preprocessing import StandardScaler

    from kernlearn.datasets import load_wine
    from kernlearn.embedding import MinimumVolumeEmbedding

    X = StandardScaler().fit_transform(load_wine().data)
    t = time.perf_counter()
    Z = MinimumVolumeEmbedding(n_components=2, n_neighbors=5, random_state=0, n_jobs=1).fit_transform(X)
    return time.perf_counter() - t, digest(Z)


def w_kdac():
    from kernlearn.cluster import KDAC
    from kernlearn.datasets import load_faces

    faces = load_faces()
    t = time.perf_counter()
    model = KDAC(4, random_state=0).fit(faces.data[:200], faces.target_pose[:200])
    return time.perf_counter() - t, digest(model.labels_, model.projection_, model.embedding_)


def w_sice():
    from kernlearn.metric import sparse_inverse_covariance

    rng = np.random.default_rng(5)
    X = rng.standard_normal((400, 300))
    S = np.cov(X, rowvar=False)
    t = time.perf_counter()
    outs = [sparse_inverse_covariance(S, rho) for rho in (0.2, 0.1, 0.05)]
    return time.perf_counter() - t, digest(*(out.precision for out in outs))


def w_iklr():
    from sklearn.preprocessing import StandardScaler

    from kernlearn.datasets import load_sonar
    from kernlearn.indefinite import IndefiniteKernelLogisticRegression

    X, y = load_sonar(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    t = time.perf_counter()
    clfs = [IndefiniteKernelLogisticRegression(kernel="tl1", alpha=a).fit(X, y) for a in (0.001, 0.01, 0.1, 1.0)]
    return time.perf_counter() - t, digest(*(clf.predict_proba(X) for clf in clfs))


def w_binding_calls():
    # The glue alone: 20000 calls into the bindings with numpy arguments, options and a result
    # object, on inputs too small for the C++ work to matter.
    import kernlearn._core as core

    nb = core.neighbors
    X = np.random.default_rng(6).standard_normal((12, 3))
    t = time.perf_counter()
    for _ in range(10000):
        r = nb.knn(X, 3, metric=nb.Metric.euclidean, algorithm=nb.KnnAlgorithm.brute)
        core.core.thread_cap()
    out = nb.knn(X, 3, metric=nb.Metric.euclidean, algorithm=nb.KnnAlgorithm.brute)
    return time.perf_counter() - t, digest(np.asarray(out.indices), np.asarray(out.distances), np.asarray(r.indices))


WORKLOADS = {name[2:]: f for name, f in globals().items() if name.startswith("w_")}


def run(pkg, name):
    env = dict(os.environ, PYTHONPATH=pkg, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, __file__, "--worker", name], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pkgs", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=list(WORKLOADS))
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        import kernlearn._core as core

        seconds, dig = WORKLOADS[args.worker]()
        print(json.dumps({"seconds": seconds, "digest": dig, "core": core.__file__}))
        return
    print("| workload | " + " | ".join(f"s, {p}" for p in args.pkgs) + " | same bits |")
    print("|---|" + "---:|" * len(args.pkgs) + "---|")
    for name in args.only:
        best, digests = [float("inf")] * len(args.pkgs), set()
        for _ in range(args.repeat):
            for i, pkg in enumerate(args.pkgs):
                r = run(pkg, name)
                best[i] = min(best[i], r["seconds"])
                digests.add(r["digest"])
        cells = " | ".join(f"{b:.3f}" for b in best)
        print(f"| {name} | {cells} | {'yes' if len(digests) == 1 else 'NO'} |", flush=True)
    print(f"\nload average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
