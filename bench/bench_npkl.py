"""SimpleNPKL at scale and against the SDP it replaces.

    python bench/bench_npkl.py [--sections sdp adult large] [--repeats 3] [--out FILE]

sdp    NPKL with linear loss (p = 2, B = 1) on n = 100 and 200 points: kernlearn's closed form
       against cvxpy + SCS solving the SDP max tr(A K) s.t. K psd, |K|_F <= sqrt(B), and a plain
       numpy closed form (dense eigh); objective values side by side. Times: medians of
       --repeats runs, SCS's of at most 3 (a second each at n = 200); --repeats 21 steadies the
       millisecond ones.
adult  the paper's A5a setting on a synthetic stand-in (n = 6,414, d = 123 sparse binary
       features, two classes, mutual k = 50, 16,000 pairs, B = n, C = 1): linear and squared
       hinge loss with the exact positive rank and with rank = 200, with Lanczos mat-vecs per
       iteration.
large  n = 100,000 (d = 20, k = 10, 50,000 pairs, C = 0.1, rank = "auto"), linear loss, on the
       symmetric and the mutual graph.
"""

import argparse
import datetime
import platform
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.linalg
import scipy.sparse as sp

import kernlearn
from kernlearn.constraints import from_labels
from kernlearn.graph import knn_graph, laplacian
from kernlearn.linalg import estimate_count_beyond
from kernlearn.npkl import SimpleNPKL
from tables import row, run_sections, timed  # bench/tables.py


def blobs(n, d, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.standard_normal((n, d)) + 2.0 * np.eye(3, d)[y], y


def constraint_matrix(pairs, labels, n):
    T = np.zeros((n, n))
    T[pairs[:, 0], pairs[:, 1]] = T[pairs[:, 1], pairs[:, 0]] = labels
    return T


def section_sdp(args, table):
    import cvxpy as cp

    for n in (100, 200):
        X, y = blobs(n, 5)
        pairs, labels = from_labels(y, component_ratio=0.7, random_state=0)
        C = 0.1
        model = SimpleNPKL("linear", C=C, B=1.0, n_neighbors=5, graph="mutual")
        t_ours, model = timed(lambda: model.fit(X, pairs=pairs, pair_labels=labels), args.repeats)
        L = laplacian(knn_graph(X, 5, mode="mutual"), "normalized").toarray()
        A = C * constraint_matrix(pairs, labels, n) - L
        ours = float(np.sum(model.kernel(dense=True) * A))

        def numpy_closed_form():
            w, V = scipy.linalg.eigh(A)
            w = np.clip(w, 0, None)
            return (V * (w / np.linalg.norm(w))) @ V.T

        t_np, K_np = timed(numpy_closed_form, args.repeats)

        def scs():  # a fresh problem each time: cvxpy would warm-start SCS from the last solution
            K = cp.Variable((n, n), PSD=True)
            return cp.Problem(cp.Maximize(cp.trace(A @ K)), [cp.norm(K, "fro") <= 1.0]).solve(solver=cp.SCS)

        t_scs, value = timed(scs, min(args.repeats, 3))
        row(
            table,
            section="sdp",
            n=n,
            pairs=len(pairs),
            kernlearn_s=f"{t_ours:.5f}",
            numpy_eigh_s=f"{t_np:.5f}",
            scs_s=f"{t_scs:.2f}",
            speedup_vs_scs=f"{t_scs / t_ours:.0f}",
            objective_ours=f"{ours:.8f}",
            objective_numpy=f"{np.sum(K_np * A):.8f}",
            objective_scs=f"{value:.8f}",
        )


def adult_like(n=6414, d=123, seed=0):
    """Sparse binary features like Adult's one-hot encoding: about 14 ones per row, drawn with
    class-dependent probabilities."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.24).astype(int)
    base = rng.dirichlet(np.ones(d) * 0.5, size=2) * 14
    X = (rng.random((n, d)) < np.clip(base[y], 0, 1)).astype(float)
    return X, y


def section_adult(args, table):
    X, y = adult_like()
    n = X.shape[0]
    pairs, labels = from_labels(y, n_pairs=16000, random_state=0)
    runs = [(loss, rank, True) for loss in ("linear", "squared_hinge") for rank in ("auto", 200)]
    runs.append(("squared_hinge", 200, False))  # Lanczos mat-vecs per iteration without warm start
    for loss, rank, warm in runs:
        model = SimpleNPKL(
            loss,
            C=1.0,
            B=float(n),
            n_neighbors=50,
            graph="mutual",
            rank=rank,
            warm_start=warm,
            n_jobs=-1,
            random_state=0,
            max_iter=300,
        )
        t, model = timed(lambda: model.fit(X, pairs=pairs, pair_labels=labels), 1)
        mv = model.history_["matvecs"]
        row(
            table,
            section="adult",
            n=n,
            loss=loss,
            rank=rank,
            warm_start=warm,
            solver=model.eigen_solver_,
            time_s=f"{t:.2f}",
            iterations=model.n_iter_,
            final_rank=model.eigenvalues_.size,
            matvecs_first=int(mv[0]),
            matvecs_later_mean=f"{mv[1:].mean():.0f}" if mv.size > 1 else "-",
            rel_gap=f"{model.history_['gap'][-1] / model.history_['primal'][-1]:.1e}",
        )


def section_large(args, table):
    """Exact rank on the symmetric graph (positive rank about the number of components); on the
    mutual graph the positive rank is thousands, so it is estimated (kernel polynomial method)
    and the fit uses the paper's truncation, rank = 200."""
    n = 100_000
    X, y = blobs(n, 20)
    pairs, labels = from_labels(y, n_pairs=50_000, random_state=0)
    for graph, rank, C in (("symmetric", "auto", 0.1), ("mutual", 200, 0.1)):
        model = SimpleNPKL(
            "linear",
            C=C,
            B=1.0,
            n_neighbors=10,
            graph=graph,
            rank=rank,
            eigen_solver="lanczos",
            n_jobs=-1,
            random_state=0,
        )
        t, model = timed(lambda: model.fit(X, pairs=pairs, pair_labels=labels), 1)
        L = laplacian(knn_graph(X, 10, mode=graph, n_jobs=-1), "normalized")
        T = sp.coo_matrix(
            (C * np.r_[labels, labels], (np.r_[pairs[:, 0], pairs[:, 1]], np.r_[pairs[:, 1], pairs[:, 0]])),
            shape=(n, n),
        )
        start = time.perf_counter()
        estimate = estimate_count_beyond((T - L).tocsr(), 0.0, random_state=0)
        row(
            table,
            section="large",
            n=n,
            graph=graph,
            C=C,
            rank=rank,
            time_s=f"{t:.2f}",
            found_rank=model.eigenvalues_.size,
            estimated_positive_rank=int(estimate),
            estimate_s=f"{time.perf_counter() - start:.2f}",
            matvecs=int(model.history_["matvecs"][0]),
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", nargs="+", default=["sdp", "adult", "large"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    header = (
        f"# SimpleNPKL benchmark, {datetime.date.today()}, {platform.machine()}, kernlearn {kernlearn.__version__}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}"
    )
    run_sections(args, header, {"sdp": section_sdp, "adult": section_adult, "large": section_large})


if __name__ == "__main__":
    main()
