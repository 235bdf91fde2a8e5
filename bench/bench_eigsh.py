"""Eigensolvers on the matrices kernlearn's learners solve: kernlearn.linalg.eigsh (thick-restart
Lanczos) against ARPACK (scipy.sparse.linalg.eigsh), LOBPCG and dense LAPACK.

    python bench/bench_eigsh.py [--n 10000 100000] [--k 20 50] [--C 0.1 1] [--repeats 3]
                                [--sections top spectra sequence crossover threshold] [--out FILE]

The matrix is A = C*T - L, L the normalised Laplacian of the mutual 10-NN graph of Gaussian
points in 10 dimensions, T a symmetric +-1 matrix of n/2 random pairs (SimpleNPKL's A). All
solvers get the same relative tolerance; every residual is recomputed here as
max_i |A v_i - lambda_i v_i| / |A|_2-estimate. `top` includes eigsh(filter_level=0), the
Chebyshev-filtered Lanczos.
"""

import argparse
import datetime
import platform
import subprocess
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from threadpoolctl import threadpool_limits

import kernlearn
from kernlearn.graph import knn_graph, laplacian
from kernlearn.linalg import eigsh
from tables import row, run_sections, timed  # bench/tables.py

TOL = 1e-10


def make_problem(n, seed=0):
    """(L, pairs i, pairs j, labels) for A = (alpha o T) - L."""
    rng = np.random.default_rng(seed)
    L = laplacian(knn_graph(rng.standard_normal((n, 10)), 10, mode="mutual", n_jobs=-1))
    i, j = rng.integers(0, n, n // 2), rng.integers(0, n, n // 2)
    keep = i != j
    return L, i[keep], j[keep], rng.choice([-1.0, 1.0], keep.sum())


def assemble(L, i, j, values):
    n = L.shape[0]
    T = sp.coo_matrix((np.r_[values, values], (np.r_[i, j], np.r_[j, i])), shape=(n, n)).tocsr()
    return (T - L).tocsr()


def residual(A, values, vectors):
    norm = float(np.abs(values).max()) if len(values) else 1.0
    return float(np.max(np.linalg.norm(A @ vectors - vectors * values, axis=0)) / norm)


def counting(A):
    calls = [0]

    def matmat(X):
        calls[0] += 1 if X.ndim == 1 else X.shape[1]
        return A @ X

    op = spla.LinearOperator(A.shape, matvec=matmat, matmat=matmat, dtype=float)
    return op, calls


def arpack(A, k):
    return spla.eigsh(A, k=k, which="LA", tol=TOL)


def lobpcg(A, op, k, seed=0):
    """LOBPCG's tol is absolute on the residual norm: scale ours by |A|_1 >= |A|_2."""
    X = np.random.default_rng(seed).standard_normal((A.shape[0], k))
    return spla.lobpcg(op, X, largest=True, tol=TOL * spla.norm(A, 1), maxiter=2000)


def section_top(args, table):
    for n in args.n:
        L, i, j, t = make_problem(n)
        for C in args.C:
            A = assemble(L, i, j, C * t)
            x = np.ones(n)
            spmv_ms = 1e3 * timed(lambda: A @ x, 50)[0]
            for k in args.k:
                base = dict(n=n, C=C, k=k, spmv_ms=f"{spmv_ms:.3f}")
                t_ours, (w, V, info) = timed(
                    lambda: eigsh(A, k, tol=TOL, method="lanczos", n_jobs=-1, random_state=0), args.repeats
                )
                row(
                    table,
                    **base,
                    solver="kernlearn",
                    time_s=f"{t_ours:.3f}",
                    matvecs=info["n_matvec"],
                    residual=f"{residual(A, w, V):.1e}",
                    ratio="1.00",
                )
                # The Chebyshev filter damping A's spectrum below 0 (SimpleNPKL's own level).
                t_f, (w, V, info) = timed(
                    lambda: eigsh(A, k, tol=TOL, method="lanczos", filter_level=0.0, n_jobs=-1, random_state=0),
                    args.repeats,
                )
                row(
                    table,
                    **base,
                    solver="kernlearn-filter" + ("" if info["filtered"] else " (fell back)"),
                    time_s=f"{t_f:.3f}",
                    matvecs=info["n_matvec"],
                    residual=f"{residual(A, w, V):.1e}",
                    ratio=f"{t_f / t_ours:.2f}",
                )
                t1, (w, V, info) = timed(
                    lambda: eigsh(A, k, tol=TOL, method="lanczos", n_jobs=1, random_state=0), args.repeats
                )
                row(
                    table,
                    **base,
                    solver="kernlearn-j1",
                    time_s=f"{t1:.3f}",
                    matvecs=info["n_matvec"],
                    residual=f"{residual(A, w, V):.1e}",
                    ratio=f"{t1 / t_ours:.2f}",
                )
                op, calls = counting(A)
                arpack(op, k)
                t_a, (w, V) = timed(lambda: arpack(A, k), args.repeats)
                row(
                    table,
                    **base,
                    solver="arpack",
                    time_s=f"{t_a:.3f}",
                    matvecs=calls[0],
                    residual=f"{residual(A, w, V):.1e}",
                    ratio=f"{t_a / t_ours:.2f}",
                )
                with threadpool_limits(1):  # ARPACK's BLAS on one thread, against kernlearn-j1
                    t_a1, (w, V) = timed(lambda: arpack(A, k), args.repeats)
                row(
                    table,
                    **base,
                    solver="arpack-j1",
                    time_s=f"{t_a1:.3f}",
                    matvecs=calls[0],
                    residual=f"{residual(A, w, V):.1e}",
                    ratio=f"{t_a1 / t_ours:.2f}",
                )
                if n <= 20000 and k <= args.lobpcg_max_k:  # LOBPCG takes minutes beyond
                    op, calls = counting(A)
                    t_l, (w, V) = timed(lambda: lobpcg(A, op, k), 1)
                    row(
                        table,
                        **base,
                        solver="lobpcg",
                        time_s=f"{t_l:.3f}",
                        matvecs=calls[0],
                        residual=f"{residual(A, w, V):.1e}",
                        ratio=f"{t_l / t_ours:.2f}",
                    )
                if n <= args.dense_max_n:
                    D = A.toarray()
                    t_d, (w, V) = timed(lambda: scipy.linalg.eigh(D, subset_by_index=(n - k, n - 1)), 1)
                    row(
                        table,
                        **base,
                        solver="dense-eigh",
                        time_s=f"{t_d:.3f}",
                        matvecs=0,
                        residual=f"{residual(A, w, V):.1e}",
                        ratio=f"{t_d / t_ours:.2f}",
                    )


def spectra_binary():
    """Build bench/spectra_eigsh.cpp against Debian's libspectra-dev (once, into /tmp)."""
    binary = Path("/tmp/kernlearn_spectra_eigsh")
    source = Path(__file__).with_name("spectra_eigsh.cpp")
    if not binary.exists() or binary.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(
            ["g++", "-O3", "-march=native", "-std=c++17", "-I/usr/include/eigen3", str(source), "-o", str(binary)],
            check=True,
        )
    return binary


def section_spectra(args, table):
    """Spectra (C++, one thread: Eigen's sparse product is serial) against kernlearn on one and
    two threads; the same matrices and tolerance as the top section."""
    binary = spectra_binary()
    for n in args.n:
        L, i, j, t = make_problem(n)
        for C in args.C:
            A = assemble(L, i, j, C * t)
            path = Path(f"/tmp/kernlearn_bench_matrix_{n}.bin")
            with path.open("wb") as f:
                np.array([n, A.nnz], dtype=np.int64).tofile(f)
                A.indptr.astype(np.int64).tofile(f)
                A.indices.astype(np.int64).tofile(f)
                A.data.astype(np.float64).tofile(f)
            for k in args.k:
                out = subprocess.run(
                    [str(binary), str(path), str(k), str(TOL), str(args.repeats)],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.split()
                t_sp, mv_sp, res_sp = float(out[0]), int(out[1]), out[2]
                base = dict(n=n, C=C, k=k)
                for jobs, name in ((-1, "kernlearn"), (1, "kernlearn-j1")):
                    t_o, (w, V, info) = timed(
                        lambda: eigsh(A, k, tol=TOL, method="lanczos", n_jobs=jobs, random_state=0), args.repeats
                    )
                    row(
                        table,
                        **base,
                        solver=name,
                        time_s=f"{t_o:.3f}",
                        matvecs=info["n_matvec"],
                        residual=f"{residual(A, w, V):.1e}",
                        spectra_over_this=f"{t_sp / t_o:.2f}",
                    )
                row(
                    table,
                    **base,
                    solver="spectra",
                    time_s=f"{t_sp:.3f}",
                    matvecs=mv_sp,
                    residual=res_sp,
                    spectra_over_this="1.00",
                )
            path.unlink()


def section_sequence(args, table, steps=10, k=50, jitter=0.03):
    """A saddle-point solver's inner loop (issue 45's setting): 10 matrices (alpha_t o T) - L, every
    pair weight jittered by a uniform 3 % per step, the top 50 of each, one thread per solver
    (ARPACK's BLAS pinned by threadpoolctl, kernlearn's n_jobs=1). Warm: v0 = the previous
    matrix's eigenvectors (a block: its 50th Ritz value sets the Chebyshev filter's level).
    Totals are medians over --repeats; the per-step rows (the last repeat) give each warm solve
    against the cold solve of the same matrix."""
    for n in args.sequence_n:
        L, i, j, t = make_problem(n)
        rng = np.random.default_rng(1)
        alphas = [np.ones(t.size)]
        for _ in range(steps - 1):
            alphas.append(alphas[-1] * (1 + rng.uniform(-jitter, jitter, t.size)))
        mats = [assemble(L, i, j, a * t) for a in alphas]
        totals, steps_s = {}, {}
        with threadpool_limits(1):
            # ARPACK first: every row's ratio column divides by its total.
            for solver in ("arpack-cold", "kernlearn-cold", "kernlearn-warm"):
                totals[solver], (matvecs, answers, steps_s[solver]) = timed(
                    lambda: run_sequence(solver, mats, k), args.repeats
                )
                # Checked after the clock stops: the residuals cost 5-10 ms per step, on every solver.
                worst = max(residual(A, w, V) for A, (w, V) in zip(mats, answers))
                row(
                    table,
                    n=n,
                    k=k,
                    steps=steps,
                    solver=solver,
                    total_s=f"{totals[solver]:.2f}",
                    matvecs=matvecs,
                    worst_residual=f"{worst:.1e}",
                    arpack_cold_over_this=f"{totals.get('arpack-cold', float('nan')) / totals[solver]:.2f}",
                )
        for step in range(steps):
            row(
                table,
                n=n,
                k=k,
                steps=f"step {step}",
                solver="warm / cold, same matrix",
                total_s=f"{steps_s['kernlearn-warm'][step]:.3f} / {steps_s['kernlearn-cold'][step]:.3f}",
                arpack_cold_over_this=f"{steps_s['arpack-cold'][step] / steps_s['kernlearn-warm'][step]:.2f}",
                warm_over_cold=f"{steps_s['kernlearn-warm'][step] / steps_s['kernlearn-cold'][step]:.2f}",
            )
        later = [steps_s["kernlearn-warm"][s] / steps_s["kernlearn-cold"][s] for s in range(1, steps)]
        row(table, n=n, k=k, steps="median after step 0", warm_over_cold=f"{float(np.median(later)):.2f}")


def run_sequence(solver, mats, k):
    """(mat-vecs, [(values, vectors)] per matrix, seconds per matrix) of one solver."""
    matvecs, answers, seconds, V = 0, [], [], None
    for A in mats:
        start = time.perf_counter()
        if solver.startswith("kernlearn"):
            v0 = V if solver == "kernlearn-warm" else None
            w, V, info = eigsh(A, k, tol=TOL, method="lanczos", v0=v0, n_jobs=1, random_state=0)
            matvecs += info["n_matvec"]
        else:
            op, calls = counting(A)
            w, V = arpack(op, k)
            matvecs += calls[0]
        seconds.append(time.perf_counter() - start)
        answers.append((w, V))
    return matvecs, answers, seconds


def section_crossover(args, table):
    """Where dense LAPACK beats Lanczos: time both over (n, k)."""
    for n in (200, 500, 1000, 2000, 4000):
        L, i, j, t = make_problem(n)
        A = assemble(L, i, j, t)
        D = A.toarray()
        t_full = timed(lambda: scipy.linalg.eigh(D), 1)[0]
        for frac in (0.01, 0.05, 0.1, 0.2, 0.3):
            k = max(1, int(frac * n))
            t_l = timed(lambda: eigsh(A, k, tol=TOL, method="lanczos", n_jobs=-1, random_state=0), 1)[0]
            t_d = timed(lambda: scipy.linalg.eigh(D, subset_by_index=(n - k, n - 1)), 1)[0]
            row(
                table,
                n=n,
                k=k,
                lanczos_s=f"{t_l:.3f}",
                dense_subset_s=f"{t_d:.3f}",
                dense_full_s=f"{t_full:.3f}",
                winner="dense" if t_d < t_l else "lanczos",
            )


def section_threshold(args, table):
    """Threshold mode: every positive eigenpair (SimpleNPKL's A_+), rank unknown in advance;
    method="auto" estimates the rank first and picks Lanczos or dense."""
    for n in args.n:
        L, i, j, t = make_problem(n)
        for C in args.C:
            A = assemble(L, i, j, C * t)
            t_ours, (w, V, info) = timed(lambda: eigsh(A, threshold=0.0, tol=TOL, n_jobs=-1, random_state=0), 1)
            cells = dict(
                n=n,
                C=C,
                positive_rank=len(w),
                estimated=info.get("estimated_count"),
                chose=info["method"],
                kernlearn_auto_s=f"{t_ours:.2f}",
                matvecs=info["n_matvec"],
                residual=f"{residual(A, w, V):.1e}" if len(w) else "-",
            )
            if n <= args.dense_max_n:
                D = A.toarray()
                t_d, wd = timed(lambda: scipy.linalg.eigh(D, eigvals_only=True), 1)
                # Count what is positive beyond rounding (disconnected pieces give exact zeros).
                cells.update(dense_s=f"{t_d:.2f}", dense_rank=int((wd > TOL * np.abs(wd).max()).sum()))
            row(table, **cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--k", type=int, nargs="+", default=[20, 50])
    parser.add_argument("--C", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dense-max-n", type=int, default=5000, help="largest n given to dense LAPACK")
    parser.add_argument("--sequence-n", type=int, nargs="+", default=[50000])
    parser.add_argument("--lobpcg-max-k", type=int, default=20)
    parser.add_argument("--sections", nargs="+", default=["top", "spectra", "sequence", "crossover", "threshold"])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    header = (
        f"# eigensolver benchmark, {datetime.date.today()}, {platform.processor() or platform.machine()}, "
        f"kernlearn {kernlearn.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, tol {TOL}"
    )
    sections = {
        "top": section_top,
        "spectra": section_spectra,
        "sequence": section_sequence,
        "crossover": section_crossover,
        "threshold": section_threshold,
    }
    run_sections(args, header, sections)


if __name__ == "__main__":
    main()
