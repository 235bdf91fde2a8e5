"""Minimum volume and structure preserving embedding by kernlearn against the SDPs they replace
(the paper's Table 9), and MVE at scale.

    python bench/bench_embedding.py [--sections sdp scale] [--repeats 3] [--out FILE]

sdp    n = 100 points of wine: the two largest classes, drawn and standardised as
       reproduce_embedding.py does for its seed 0; k = 5, C = 1. MVE's B: |H X X' H|_F^2 (the
       documented default when this was written, passed explicitly) and, for the single step,
       also whatever kernlearn's B=None now takes (its fitted B_, random_state=0); SPE: B = n.
       Each cvxpy model is the one in kernlearn.embedding's docstring, on the same data
       (kNN pairs from kernlearn.graph.knn, Dbar, B, K0 or W rebuilt here as kernlearn/embedding/_base.py does):
       mve-step  one SDP of eq. 32 from init="pca", in units of Dbar:
                 min -tr(K0 K) + (C/2) sum_(i,j) (D_ij / Dbar - d_ij)^2
                 s.t. K psd, K 1 = 0, |K|_F^2 <= B / Dbar^2,  K0 = 2 V_d V_d' - I
                 (V_d: the top 2 left singular vectors of the centred X), against
                 MinimumVolumeEmbedding(n_outer=1, init="pca"), whose K is Dbar times the
                 model's.
       mve-loop  the whole MVE from init="pca", B = |H X X' H|_F^2: kernlearn's fit (other
                 parameters default)
                 against the same outer loop with each step solved by cvxpy + SCS (as many
                 steps as kernlearn took); F = sum of the top 2 eigenvalues - the rest - loss.
       spe       StructurePreservingEmbedding() (cutting planes) against the SPE SDP over every
                 triplet: min -tr(W K) + C xi s.t. d_ij >= d_ik - xi (k in N_i, j not in N_i,
                 j != i), xi >= 0, K psd, K 1 = 0, |K|_F^2 <= n, W the symmetric kNN graph;
                 at n = 100 that is about 65,000 triplet constraints (Clarabel: about a minute
                 and 1.8 GB).
       Solvers: SCS and Clarabel with cvxpy's default settings. Time: median of --repeats wall
       seconds (cvxpy's: a fresh cp.Problem and its solve, compilation included, so SCS is never
       warm-started; Clarabel once: it takes about a minute); "solver s" is the solver's own
       time. cvxpy_over_kernlearn: the wall-time ratio. Objectives are recomputed from each K
       (SPE: xi = the largest violation over every triplet, so every K is scored feasible).
       rel. diff = (objective - kernlearn's) / |kernlearn's|, negative: below kernlearn's.
       The whole section runs with one thread (n_jobs=1, BLAS pools limited to 1).
scale  MVE on n = 20,000 points of a swiss roll (sklearn's make_swiss_roll, 3-D) mapped into
       20 dimensions by a random orthogonal map, plus N(0, 0.01^2) noise in every coordinate;
       n_neighbors = 20, n_jobs = -1, other parameters default. Each fit runs in a fresh
       process: rank="auto" first with a 300 s limit, then rank=50 (200 s) when "auto" is over
       it; and, as an extra row when the estimator has it, basis=100 (150 s), the restricted
       problem K = U E U' (not the exact MVE). A run over its limit is killed and its last
       progress line reported. Peak RSS is that process's VmHWM, i.e. ru_maxrss without what
       Linux inherits from the parent across fork + exec (n^2 doubles: 3052 MB);
       "+MB" subtracts the RSS with the data made and the library loaded. spearman_t: the
       largest |Spearman correlation| between the roll's parameter t and an embedding
       coordinate (1: unrolled along that coordinate).
"""

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from kernlearn.embedding import MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.graph import knn, knn_graph
from reproduce_embedding import DATASETS, draw, provenance  # bench/reproduce_embedding.py
from tables import row, run_sections, timed  # bench/tables.py

K_NN, C, D_OUT = 5, 1.0, 2


def quiet(fn):
    """fn() with ConvergenceWarnings silenced (n_outer=1 never 'settles'; reported in the rows)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fn()


def wine100():
    X, y = DATASETS["wine"]()
    return draw(X, y, 0)[0]


# -- the MVE step (eq. 32) -----------------------------------------------------------------------


def linear_B(X):
    """|H X X' H|_F^2, the input's centred linear kernel's squared norm (input units)."""
    Xc = X - X.mean(axis=0)
    return np.linalg.norm(Xc.T @ Xc) ** 2


def default_B(X):
    """The B kernlearn's default (B=None) takes on X: the fitted B_ (random_state=0)."""
    model = quiet(lambda: MinimumVolumeEmbedding(n_outer=1, init="pca", n_jobs=1, random_state=0).fit(X))
    return getattr(model, "B_", linear_B(X))


def mve_data(X, B):
    """What kernlearn/embedding/_base.py's _setup builds: kNN pairs (i < j, each once), D / Dbar, B / Dbar^2, and
    K0 = 2 V_d V_d' - I from the input's principal components."""
    n = X.shape[0]
    indices, _ = knn(X, K_NN)
    rows = np.repeat(np.arange(n), K_NN)
    pairs = np.unique(np.sort(np.c_[rows, indices.ravel()], axis=1), axis=0)
    D = np.sum((X[pairs[:, 0]] - X[pairs[:, 1]]) ** 2, axis=1)
    Vd = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)[0][:, :D_OUT]
    return dict(pairs=pairs, target=D / D.mean(), Dbar=D.mean(), B=B / D.mean() ** 2, K0=2 * Vd @ Vd.T - np.eye(n))


def mve_loss(K, data):
    i, j = data["pairs"].T
    return C / 2 * np.sum((data["target"] - (K[i, i] + K[j, j] - 2 * K[i, j])) ** 2)


def mve_objective(K, data):
    return -np.sum(data["K0"] * K) + mve_loss(K, data)


def mve_sdp(data):
    import cvxpy as cp

    n = data["K0"].shape[0]
    i, j = data["pairs"].T
    K = cp.Variable((n, n), PSD=True)
    d = cp.diag(K)[i] + cp.diag(K)[j] - 2 * K[i, j]
    problem = cp.Problem(
        cp.Minimize(-cp.trace(data["K0"] @ K) + C / 2 * cp.sum_squares(data["target"] - d)),
        [K @ np.ones(n) == 0, cp.sum_squares(K) <= data["B"]],
    )
    return problem, K


def feasibility(K, B):
    """(|K|_F^2 / B - 1, smallest eigenvalue / largest): above 0, below 0 = infeasible."""
    lam = np.linalg.eigvalsh(K)
    return f"{np.linalg.norm(K) ** 2 / B - 1:+.1e}", f"{lam[0] / lam[-1]:+.1e}"


def solve_row(table, problem_name, solver, repeats, fn, objective, reference, t_ref, B, **extra):
    """Time fn() -> K (median of repeats) and append the comparison row."""
    seconds, (K, solver_seconds) = timed(fn, repeats)
    value = objective(K)
    norm, eig = feasibility(K, B)
    row(
        table,
        problem=problem_name,
        solver=solver,
        **extra,
        time_s=f"{seconds:.3f}",
        solver_s=f"{solver_seconds:.3f}" if solver_seconds is not None else "-",
        objective=f"{value:.6f}",
        rel_diff=f"{(value - reference) / abs(reference):+.1e}" if reference else "0",
        **{"‖K‖²/B-1": norm, "λmin/λmax": eig},
        cvxpy_over_kernlearn=f"{seconds / t_ref:.0f}x" if t_ref else "1x",
    )
    return seconds, value


def cvxpy_rows(table, problem_name, build, objective, data, reference, t_ours, repeats, extra):
    """SCS (median of `repeats`) and Clarabel (once) on the SDP that build(data) returns."""
    import cvxpy as cp

    for solver, count in (("SCS", repeats), ("CLARABEL", 1)):

        def solve():  # a fresh problem each time: cvxpy would warm-start SCS from the last solution
            solve.problem, K = build(data)
            solve.problem.solve(solver=getattr(cp, solver))
            return K.value, solve.problem.solver_stats.solve_time

        try:
            solve_row(table, problem_name, solver, count, solve, objective, reference, t_ours, data["B"], **extra)
        except cp.error.SolverError as error:
            row(table, problem=problem_name, solver=solver, **extra, time_s="failed", status=str(error).split(".")[0])
            continue
        table[-1].update(iterations=solve.problem.solver_stats.num_iters, status=solve.problem.status)


def section_sdp_mve(args, table, X, B, name):
    """One MVE step with the bound B (input units; None: kernlearn's default) against cvxpy."""

    data = mve_data(X, default_B(X) if B is None else B)
    extra = dict(n=len(X), bound=name, constraints=len(data["pairs"]))

    def ours():
        model = quiet(lambda: MinimumVolumeEmbedding(n_outer=1, init="pca", B=B, n_jobs=1, random_state=0).fit(X))
        ours.model = model
        return model.kernel(dense=True) / data["Dbar"], None

    ours()  # warm-up (first call loads the extension's lazies)
    t_ours, ref = solve_row(
        table,
        "mve-step",
        "kernlearn",
        args.repeats,
        ours,
        lambda K: mve_objective(K, data),
        None,
        None,
        data["B"],
        **extra,
    )
    table[-1]["iterations"] = ours.model.n_inner_iter_
    cvxpy_rows(table, "mve-step", mve_sdp, lambda K: mve_objective(K, data), data, ref, t_ours, args.repeats, extra)


def F_value(K, data):
    """MVE's outer objective: sum of the top d eigenvalues - the rest - loss (units of Dbar)."""
    lam = np.linalg.eigvalsh(K)[::-1]
    return lam[:D_OUT].sum() - lam[D_OUT:].sum() - mve_loss(K, data)


def section_sdp_mve_loop(args, table, X, B, name):
    import cvxpy as cp

    data = mve_data(X, B)
    fit = lambda: quiet(lambda: MinimumVolumeEmbedding(init="pca", B=B, n_jobs=1, random_state=0).fit(X))  # noqa: E731
    fit()  # warm-up
    t_ours, model = timed(fit, args.repeats)
    K_ours = model.kernel(dense=True) / data["Dbar"]
    F_ours = F_value(K_ours, data)
    row(
        table,
        problem="mve-loop",
        solver="kernlearn",
        n=len(X),
        bound=name,
        constraints=len(data["pairs"]),
        outer_steps=model.n_iter_,
        iterations=model.n_inner_iter_,
        time_s=f"{t_ours:.3f}",
        objective=f"{F_ours:.6f}",
        rel_diff="0",
        converged=model.converged_,
        cvxpy_over_kernlearn="1x",
    )
    start, solver_seconds, K, statuses = time.perf_counter(), 0.0, None, set()
    for _ in range(model.n_iter_):  # the same loop as kernlearn's: K0 from the previous K's eigenvectors
        problem, Kv = mve_sdp(data)
        problem.solve(solver=cp.SCS)
        solver_seconds += problem.solver_stats.solve_time
        statuses.add(problem.status)
        K = Kv.value
        V = np.linalg.eigh(K)[1][:, ::-1][:, :D_OUT]
        data["K0"] = 2 * V @ V.T - np.eye(len(X))
    seconds = time.perf_counter() - start
    F = F_value(K, data)
    row(
        table,
        problem="mve-loop",
        solver="SCS",
        n=len(X),
        bound=name,
        constraints=len(data["pairs"]),
        outer_steps=model.n_iter_,
        time_s=f"{seconds:.3f}",
        solver_s=f"{solver_seconds:.3f}",
        objective=f"{F:.6f}",
        rel_diff=f"{(F - F_ours) / abs(F_ours):+.1e}",
        cvxpy_over_kernlearn=f"{seconds / t_ours:.0f}x",
        status=" ".join(sorted(statuses)),
    )


# -- SPE over every triplet ----------------------------------------------------------------------


def spe_data(X):
    """W (symmetric kNN graph, as StructurePreservingEmbedding builds it) and the sparse G with
    G vec(K) = d_ij - d_ik for every triplet (i, j, k), k in N_i, j not in N_i, j != i."""
    n = X.shape[0]
    W = knn_graph(X, K_NN, mode="symmetric").toarray()
    triplets = []
    for i in range(n):
        N = np.flatnonzero(W[i])
        j, k = np.meshgrid(np.setdiff1d(np.arange(n), np.r_[N, i]), N, indexing="ij")
        triplets.append(np.c_[np.full(j.size, i), j.ravel(), k.ravel()])
    i, j, k = np.vstack(triplets).T
    t = len(i)
    flat = lambda a, b: a * n + b  # noqa: E731  (row-major vec(K); K symmetric, both halves listed)
    cols = np.c_[flat(i, i), flat(j, j), flat(i, j), flat(j, i), flat(i, i), flat(k, k), flat(i, k), flat(k, i)]
    G = sp.csr_matrix(
        (np.tile([1, 1, -1, -1, -1, -1, 1, 1.0], t), (np.repeat(np.arange(t), 8), cols.ravel())), shape=(t, n * n)
    )
    return dict(W=W, G=G, B=float(n))


def spe_objective(K, data):
    """-tr(W K) + C xi with xi the largest violation d_ik - d_ij over every triplet (>= 0)."""
    xi = max(0.0, float(np.max(-(data["G"] @ K.ravel()))))
    return -np.sum(data["W"] * K) + C * xi


def spe_sdp(data):
    import cvxpy as cp

    n = data["W"].shape[0]
    K, xi = cp.Variable((n, n), PSD=True), cp.Variable(nonneg=True)
    problem = cp.Problem(
        cp.Minimize(-cp.trace(data["W"] @ K) + C * xi),
        [K @ np.ones(n) == 0, cp.sum_squares(K) <= data["B"], data["G"] @ cp.vec(K, order="C") + xi >= 0],
    )
    return problem, K


def section_sdp_spe(args, table, X):

    data = spe_data(X)
    extra = dict(n=len(X), bound="n", constraints=data["G"].shape[0])

    def ours():
        ours.model = quiet(lambda: StructurePreservingEmbedding(n_jobs=1).fit(X))
        return ours.model.kernel(dense=True), None

    ours()  # warm-up
    t_ours, ref = solve_row(
        table, "spe", "kernlearn", args.repeats, ours, lambda K: spe_objective(K, data), None, None, data["B"], **extra
    )
    table[-1].update(
        iterations=f"{ours.model.n_iter_} rounds, {len(ours.model.triplets_)} triplets", converged=ours.model.converged_
    )
    cvxpy_rows(table, "spe", spe_sdp, lambda K: spe_objective(K, data), data, ref, t_ours, args.repeats, extra)


def section_sdp(args, table):
    X = wine100()
    with threadpool_limits(1):
        section_sdp_mve(args, table, X, linear_B(X), "‖HXX'H‖²")
        section_sdp_mve(args, table, X, None, "default")
        section_sdp_mve_loop(args, table, X, linear_B(X), "‖HXX'H‖²")
        section_sdp_spe(args, table, X)


# -- MVE at n = 20,000 ---------------------------------------------------------------------------

SCALE_N, SCALE_D, SCALE_K = 20_000, 20, 20
# (parameters, time limit in s): rank="auto" first; rank=50 only when "auto" is over its limit;
# basis=100 (the restricted problem, K = U E U' on the Laplacian's smoothest eigenvectors) when
# the estimator has that parameter. Limits keep the script within ~15 minutes.
SCALE_RUNS = (({"rank": "auto"}, 300), ({"rank": 50}, 200), ({"basis": 100}, 150))


def swiss_roll_20d(n, seed=0):
    """A swiss roll (3-D, a 2-D manifold) rotated into 20-D plus small isotropic noise."""
    from sklearn.datasets import make_swiss_roll

    rng = np.random.default_rng(seed)
    X3, t = make_swiss_roll(n, noise=0.0, random_state=seed)
    Q = np.linalg.qr(rng.standard_normal((SCALE_D, SCALE_D)))[0]
    return np.c_[X3, np.zeros((n, SCALE_D - 3))] @ Q.T + 0.01 * rng.standard_normal((n, SCALE_D)), t


def peak_mb():
    """This process's peak RSS in MB: VmHWM (Linux). ru_maxrss would do, but across fork + exec
    Linux carries the parent's peak into it (here the parent's 1.8 GB of Clarabel)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def scale_child(n, params):
    """One fit in this (fresh) process. Prints progress lines (so a timeout still tells how far
    it got) and a final JSON line for the parent."""
    from scipy.stats import spearmanr

    params = json.loads(params)
    X, t = swiss_roll_20d(int(n))
    base = peak_mb()
    start, seen = time.perf_counter(), {"outer": 0, "inner": 0}

    def progress(info):
        seen["outer"] += info["iteration"] == 0
        seen["inner"] += 1
        print(
            f"progress: last at {time.perf_counter() - start:.0f} s, outer step {seen['outer']}, inner iteration "
            f"{info['iteration']} ({seen['inner']} in all), relative gap "
            f"{info['gap'] / max(abs(info['primal']), 1e-300):.1e}, rank {info['rank']}, peak RSS "
            f"{peak_mb():.0f} MB",
            flush=True,
        )
        return False

    model = MinimumVolumeEmbedding(n_neighbors=SCALE_K, n_jobs=-1, random_state=0, callback=progress, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(X)
        seconds = time.perf_counter() - start
    peak = peak_mb()
    rho = max(abs(spearmanr(t, model.embedding_[:, c])[0]) for c in range(model.embedding_.shape[1]))
    h = model.history_
    print(
        json.dumps(
            dict(
                seconds=seconds,
                outer=model.n_iter_,
                inner=model.n_inner_iter_,
                inner_per_outer=h["inner_iterations"].tolist(),
                converged=bool(model.converged_),
                warnings=[str(w.message) for w in caught],
                rank=int(model.eigenvalues_.size),
                energy_outside=float(h["energy_outside"][-1]),
                rho=float(rho),
                peak_mb=peak,
                base_mb=base,
                pairs=len(model.pairs_),
            )
        )
    )


def last_progress(output):
    text = output.decode() if isinstance(output, bytes) else (output or "")
    lines = [line for line in text.splitlines() if line.startswith("progress:")]
    return lines[-1][len("progress: ") :] if lines else "no inner iteration finished"


def section_scale(args, table):
    dense_mb = args.scale_n**2 * 8 / 2**20
    params_of_model = MinimumVolumeEmbedding().get_params()
    auto_finished = False
    for params, limit in SCALE_RUNS:
        if not set(params) <= set(params_of_model):
            continue
        if params.get("rank", "auto") != "auto" and auto_finished:
            continue  # rank="auto" finished within its limit: no fallback needed
        cells = dict(
            n=args.scale_n, d=SCALE_D, n_neighbors=SCALE_K, params=", ".join(f"{k}={v}" for k, v in params.items())
        )
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--scale-child", str(args.scale_n), json.dumps(params)],
                capture_output=True,
                text=True,
                timeout=limit,
                check=True,
            )
        except subprocess.TimeoutExpired as error:
            row(table, **cells, time_s=f"timeout (> {limit} s)", at_timeout=last_progress(error.stdout))
            continue
        except subprocess.CalledProcessError as error:
            row(table, **cells, time_s=f"failed (exit {error.returncode})", at_timeout=error.stderr.strip()[-300:])
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        auto_finished |= params.get("rank") == "auto"
        row(
            table,
            **cells,
            pairs=r["pairs"],
            time_s=f"{r['seconds']:.1f}",
            outer_steps=r["outer"],
            converged=r["converged"],
            inner_iterations=r["inner"],
            inner_per_outer=" ".join(map(str, r["inner_per_outer"])),
            final_rank=r["rank"],
            energy_outside=f"{r['energy_outside']:.2e}",
            spearman_t=f"{r['rho']:.3f}",
            peak_rss_MB=f"{r['peak_mb']:.0f}",
            plus_MB=f"{r['peak_mb'] - r['base_mb']:.0f}",
            peak_over_n2_doubles=f"{r['peak_mb'] / dense_mb:.3f}",
            warnings="; ".join(r["warnings"]) or "-",
        )


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--scale-child":
        return scale_child(sys.argv[2], sys.argv[3])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", nargs="+", default=["sdp", "scale"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale-n", type=int, default=SCALE_N, help="points of the scale section")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "embedding.md")
    args = parser.parse_args()
    import cvxpy

    header = (
        f"# Embedding benchmark, {datetime.date.today()}, {platform.machine()}, {os.cpu_count()} "
        f"cores, {provenance()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"cvxpy {cvxpy.__version__}; load average at start {os.getloadavg()[0]:.1f}"
    )
    run_sections(args, header, {"sdp": section_sdp, "scale": section_scale})


if __name__ == "__main__":
    main()
