"""Reproduce Tables 2-5 and Figure 2 of SimpleNPKL (Zhuang, Tsang & Hoi, "A Family of Simple
Non-Parametric Kernel Learning Algorithms", JMLR 12, 2011) with kernlearn.

    python bench/reproduce_simplenpkl.py [--sections table2 table3 table4 table5 fig2 fig2_defaults]
                                         [--datasets chessboard glass iris ...]
                                         [--repeats 20] [--graphs mutual symmetric]
                                         [--sensitivity-C 1] [--B-unit 5] [--out bench/results]

Each section prints a markdown table and writes it to ``<out>/simplenpkl_<section>.md``.

``--dask ADDRESS`` runs the accuracy repetitions (Table 2's tuning, repetitions, baselines and
fixed sets; Tables 4 and 5) as tasks on that Dask cluster (bench/repetitions.py); the timed
sections (Table 3, Figure 2) stay one fit after another in this process, because fits that share
a machine's cores would time each other.

Protocol (Section 7.1 of the paper; where it is silent, the choice made here):

* Features are raw, unscaled.
* Constraints: ``kernlearn.constraints.from_labels(y, component_ratio=0.7, random_state=seed)``,
  random pairs labelled by the truth until the must-link graph has at most ceil(0.7 n)
  connected components (the paper's r = 70% N). Repetition ``seed`` draws the same pairs for
  every method and graph mode.
* SimpleNPKL: k = 5 nearest neighbours, p = 2, the linear loss (+LL, closed form) and
  the squared hinge loss (+SHL, Algorithm 1), default solver settings (tol 1e-4 on the
  relative duality gap, at most 200 iterations, accelerated ascent).
* B: the paper's "B = 1" (Section 7.1) cannot be kernlearn's B = 1. At B = 1, tr K^2 <= 1 over
  ~150 points makes every |K_ij| tiny, every constraint is violated (t_ij K_ij < 1), the hinge
  kernel is the linear one (0 iterations) and the squared hinge stops after ~1 iteration at the
  linear kernel: the paper's 10-31 iterations and distinct LL / SHL columns cannot come from it.
  Table 4's section first scans B at the paper's C = 1 on iris (B = 1 up to where max_iter
  binds) and reads off the range whose accuracy and iteration counts match the paper's Table 4;
  the derived unit is s = B_UNIT * N (``--B-unit``, default 5: B = 5 N, 750 on iris), and the
  paper's B = b is run as B = b * s (Table 4), its B = 1 as B = s (Tables 2, 3, 5, Figure 2).
  B is given per point because the paper itself scales it with N elsewhere (B = N on adult,
  B = m N in Section 7.5). The linear loss does not depend on B at all (B only scales K, and
  kernel k-means is scale invariant). Both kNN graph modes: "mutual" (an edge when
  the points are among each other's k nearest neighbours, the paper's Section 5.1) and
  "symmetric" (either one).
* C: the paper only says "several constant values in the range (0, 1]". Here C is picked per
  data set, loss and graph mode from C_GRID by the mean accuracy over TUNING_SEEDS, which are
  disjoint from the evaluation seeds 0 .. repeats-1; ties go to the smaller C.
* Clustering: kernel k-means (``KernelKMeans``, n_clusters = number of classes, 10 starts) on
  the learned kernel's factor ``embedding_``. Baseline: scikit-learn's KMeans with the same
  number of starts on the raw features. Both are seeded with the repetition's seed. (The best of
  10 starts is nearly always the same partition, so the baseline's spread is far below the
  paper's, which looks like single starts.)
* Score: ``pairwise_cluster_accuracy``, the paper's "cluster accuracy" (the Rand index), in %,
  mean +- standard deviation over the repetitions.
* Time: ``SimpleNPKL.fit`` only (clustering excluded, as in the paper's Table 3), on one thread
  (n_jobs=1 and BLAS / OpenMP pools limited to one thread).

Data sets (the paper's Table 1; Heart and Protein have no copy here and are left out):

* chessboard: 100 points uniform in [0, 4]^2 (generation seed 0), labelled by the parity of
  floor(x) + floor(y), i.e. a 4 x 4 board of unit cells, about 6 points a cell. A 2 x 2 board
  (XOR, 25 points a cell) is much easier, ~90% with a tuned C; the paper's ~60% for every NPKL
  variant points to the 4 x 4 board.
* spiral: 100 points in 3-D (generation seed 0), two interleaved spiral arms of 50 points:
  t uniform in [pi/2, 7 pi/2] (1.5 turns), (t cos(t + c pi), t sin(t + c pi), t) for class
  c in {0, 1}, no noise. k-means splits it at chance level, as in the paper.
* soybean: the paper's 47-point "small soybean" (4 classes, 35 features) is not here; its four
  classes are taken from the large UCI soybean file (/work/shared/data/uci/soybean.arff):
  diaporthe-stem-canker, charcoal-rot, rhizoctonia-root-rot, phytophthora-rot. The rows with a
  missing value (68 of the 88 phytophthora-rot rows, none of the others) are dropped, leaving
  80 points, 20 a class. Each nominal attribute is ordinal-encoded by its position in the ARFF
  declaration, which is the integer coding of the UCI small soybean file; the attributes
  constant over these 80 rows are dropped (they change no distance).
* glass, iris, sonar, wine: kernlearn's loaders (wine has 13 features; the paper lists 12).
* ionosphere: not in the paper; reported for ours only.

Table 2 is run (a) with fresh pairs per repetition at B = s, C tuned as above, and (b) under
the hypothesis behind the paper's many "± 0.0": ONE constraint set drawn once (each of
FIXED_SETS in turn), only the clustering seed varying (FIXED_CLUSTER_SEEDS seeds), with C both
from (a) and the best of C_GRID for that set ("tuned per row", optimistic).

Table 3: SimpleNPKL.fit time per data set for the four losses (linear, squared hinge, hinge,
square) at B = s, C = 1, the mutual graph: median over pair sets 0-4 of the best of 3 fits. Beside
it, the same problem as an SDP in cvxpy (min tr(L K) + loss s.t. K psd, |K|_F <= sqrt(B), each
unordered constraint weighted as kernlearn weighs it, see kernlearn.npkl) solved by SCS (default
eps) on pair set 0 for the paper's data sets, and by CLARABEL (interior point, the paper's SDPT3
kind) where n <= CLARABEL_MAX_N: the relative objective gap (ours - SDP) / |SDP| at the two
solutions is the correctness check, the solver time ratio the speed-up (the paper's NPKL is
solved by SDPT3; its problem has no trace bound, so the paper's speed-up is across problems).

Tables 4 and 5 (iris, SimpleNPKL+SHL): accuracy and mean ``n_iter_`` over the repetitions for
B = b * s for b in B_GRID at p = 2, and for p in P_GRID at B = s and at B = s^(p/2) (the same
bound B^(1/p) on the p-norm of K's eigenvalues as p = 2 at B = s: at the paper's B = 1 the two
coincide), for each graph mode and each C of --sensitivity-C (default the paper's C = 1). p = 1
with the squared hinge loss is run if kernlearn accepts it, else n/a.

Figure 2 (the paper's Section 7.4 on A1a, not available here): digits (scikit-learn's
load_digits, n = 1,797, 64 features standardised), pairs by the protocol above (pair sets
FIG2_SETS), mutual graph, squared hinge, C = 1, B = s. For each number k of FIG2_ACTIVE points:
``SimpleNPKL(active_constraints=k)`` (Section 5.3: a pilot, then the constraints of the k points
with the smallest normalised margin), against the same number of constraints drawn uniformly at
random, against the fit on every constraint. Time: the whole ``fit`` (pilot included).
"""

import argparse
import datetime
import functools
import platform
import re
import statistics
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sklearn
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

import kernlearn
from kernlearn import datasets
from kernlearn.cluster import KernelKMeans
from kernlearn.constraints import from_labels
from kernlearn.evaluation import pairwise_cluster_accuracy
from kernlearn.graph import knn_graph, laplacian
from kernlearn.npkl import SimpleNPKL
from repetitions import add_dask_option, dask_backend, repeat  # bench/repetitions.py

N_NEIGHBORS = 5
COMPONENT_RATIO = 0.7
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0)
TUNING_SEEDS = tuple(range(1000, 1005))
LOSSES = {"LL": "linear", "SHL": "squared_hinge"}
B_GRID = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
B_UNIT = 5.0  # derived: the paper's B = b is kernlearn's B = b * B_UNIT * N (see table4's scan)
B_SCAN = (
    None,
    0.1,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    15.0,
    20.0,
    30.0,
    50.0,
    100.0,
    150.0,
    300.0,
    1000.0,
)  # B / N; None: B = 1
HINGE_SCAN = (None, 1.0, 5.0, 20.0, 100.0)  # B / N where the hinge loss is run too
PAPER_BAND = ((93.8, 96.7), (10, 31))  # Table 4's accuracy range +- 1 point, and its iteration range
FIXED_SETS = (0, 1, 2)
FIXED_CLUSTER_SEEDS = 10
ALL_LOSSES = ("linear", "squared_hinge", "hinge", "square")
TIME_SETS = tuple(range(5))
SDP_DATASETS = ("chessboard", "glass", "iris", "sonar", "soybean", "spiral", "wine")
CLARABEL_MAX_N = 80
FIG2_SETS = (0,)
FIG2_ACTIVE = (225, 450, 900)  # n / 8, n / 4, n / 2 points of digits
P_GRID = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
SOYBEAN_ARFF = Path("/work/shared/data/uci/soybean.arff")
SOYBEAN_CLASSES = ("diaporthe-stem-canker", "charcoal-rot", "rhizoctonia-root-rot", "phytophthora-rot")

# Table 2 of the paper, in %: (mean, std) of k-means, SimpleNPKL+LL, SimpleNPKL+SHL.
PAPER_TABLE2 = {
    "chessboard": ((49.8, 0.2), (60.2, 0.0), (58.8, 0.8)),
    "glass": ((69.7, 1.9), (73.0, 2.5), (73.5, 2.9)),
    "iris": ((84.5, 6.5), (97.4, 0.0), (97.4, 0.0)),
    "sonar": ((50.2, 0.1), (70.2, 10.0), (78.0, 0.0)),
    "soybean": ((82.1, 6.1), (95.3, 5.1), (95.4, 4.9)),
    "spiral": ((50.1, 0.6), (92.2, 0.0), (94.1, 0.0)),
    "wine": ((71.2, 1.2), (83.7, 4.8), (85.0, 2.6)),
}
# Tables 4 and 5 of the paper, iris rows: value -> ((mean, std) accuracy in %, iterations).
PAPER_TABLE4 = {
    1.0: ((94.8, 0.0), 11),
    1.5: ((94.8, 0.0), 13),
    2.0: ((95.2, 0.4), 14),
    2.5: ((95.7, 0.0), 10),
    3.0: ((95.7, 0.0), 10),
    3.5: ((95.7, 0.0), 31),
    4.0: ((95.7, 0.0), 26),
}
# Table 3 of the paper, CPU seconds: NPKL+LL, NPKL+HL (SDPT3), SimpleNPKL+LL, SimpleNPKL+SHL.
PAPER_TABLE3 = {
    "chessboard": (1.38, 5.23, 0.05, 0.13),
    "glass": (1.85, 32.36, 0.11, 2.95),
    "iris": (1.36, 1.65, 0.04, 3.45),
    "sonar": (1.77, 30.38, 0.11, 3.91),
    "soybean": (1.51, 3.25, 0.01, 0.16),
    "spiral": (1.78, 6.23, 0.05, 1.95),
    "wine": (2.54, 30.91, 0.09, 1.53),
}
PAPER_TABLE5 = {
    1.0: ((61.6, 3.5), 51),
    1.5: ((58.6, 4.0), 6),
    2.0: ((94.8, 0.0), 11),
    2.5: ((94.8, 0.0), 9),
    3.0: ((95.1, 0.4), 19),
    3.5: ((94.8, 0.0), 10),
    4.0: ((95.6, 0.2), 9),
}


# -- data sets -----------------------------------------------------------------------------------


def make_chessboard(n=100, seed=0):
    """Uniform points in [0, 4]^2, class = parity of the unit cell (a 4 x 4 board)."""
    X = np.random.default_rng(seed).uniform(0.0, 4.0, size=(n, 2))
    return X, (np.floor(X).sum(axis=1) % 2).astype(np.int64)


def make_spiral(n=100, seed=0):
    """Two interleaved 3-D spiral arms of n / 2 points: (t cos(t + c pi), t sin(t + c pi), t)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    t = rng.uniform(0.5 * np.pi, 3.5 * np.pi, size=y.size)
    angle = t + np.pi * y
    return np.column_stack([t * np.cos(angle), t * np.sin(angle), t]), y


def load_soybean(path=SOYBEAN_ARFF, classes=SOYBEAN_CLASSES):
    """The small-soybean classes from the large soybean ARFF: complete rows, ordinal codes."""
    attributes, rows = [], []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        match = re.match(r"@attribute\s+(\S+)\s+\{(.*)\}", line, flags=re.IGNORECASE)
        if match:
            attributes.append([value.strip() for value in match.group(2).split(",")])
        elif not line.startswith("@"):
            rows.append([value.strip() for value in line.split(",")])
    rows = [row for row in rows if row[-1] in classes and "?" not in row]
    X = np.array([[values.index(v) for values, v in zip(attributes[:-1], row[:-1])] for row in rows], dtype=np.float64)
    y = np.array([classes.index(row[-1]) for row in rows], dtype=np.int64)
    return X[:, X.min(axis=0) < X.max(axis=0)], y


def bundled(loader):
    return lambda: loader(return_X_y=True)


DATASETS = {
    "chessboard": make_chessboard,
    "glass": bundled(datasets.load_glass),
    "iris": bundled(datasets.load_iris),
    "sonar": bundled(datasets.load_sonar),
    "soybean": load_soybean,
    "spiral": make_spiral,
    "wine": bundled(datasets.load_wine),
    "ionosphere": bundled(datasets.load_ionosphere),
}


# -- one repetition ------------------------------------------------------------------------------


@dataclass
class Run:
    accuracy: float
    seconds: float = 0.0
    n_iter: int = 0
    converged: bool = True
    violated: float = 0.0  # fraction of the constraints with t_ij K_ij < 1 at the learned kernel


def draw_constraints(y, seed):
    return from_labels(y, component_ratio=COMPONENT_RATIO, random_state=seed)


def fit_npkl(X, constraints, seed, **params):
    """A fitted SimpleNPKL and its fit time in seconds."""
    pairs, labels = constraints
    model = SimpleNPKL(n_neighbors=N_NEIGHBORS, random_state=seed, n_jobs=1, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted in the tables instead
        start = time.perf_counter()
        model.fit(X, pairs=pairs, pair_labels=labels)
        seconds = time.perf_counter() - start
    return model, seconds


def violated_fraction(model):
    E = model.embedding_
    i, j = model.pairs_.T
    return float(np.mean(model.pair_labels_ * np.einsum("ij,ij->i", E[i], E[j]) < 1.0))


def npkl_run(X, y, constraints, seed, **params):
    """Fit SimpleNPKL on the constraints, cluster its kernel, score against y."""
    model, seconds = fit_npkl(X, constraints, seed, **params)
    clusters = kernel_kmeans(model.embedding_, y, seed)
    return Run(
        pairwise_cluster_accuracy(y, clusters), seconds, model.n_iter_, model.converged_, violated_fraction(model)
    )


def kernel_kmeans(embedding, y, seed):
    """Kernel k-means on the factor; K = 0 (A has no positive eigenvalue, e.g. a tiny C on a
    connected graph) puts every point at one spot: one cluster."""
    if embedding.shape[1] == 0:
        return np.zeros(y.size, dtype=np.int64)
    return KernelKMeans(np.unique(y).size, random_state=seed).fit(embedding).labels_


def npkl_repetition(X, y, seed_and_constraints, **params):
    """npkl_run of one (seed, constraints) item of an evaluation dict."""
    seed, constraints = seed_and_constraints
    return npkl_run(X, y, constraints, seed, **params)


def kmeans_run(X, y, seed):
    clusters = KMeans(np.unique(y).size, n_init=10, random_state=seed).fit(X).labels_
    return Run(pairwise_cluster_accuracy(y, clusters))


def mean_accuracy(runs):
    return statistics.fmean(run.accuracy for run in runs)


def choose_C(X, y, tuning_constraints, **params):
    """The C of C_GRID with the best mean accuracy over the tuning draws (first on ties)."""
    scores = [
        mean_accuracy(repeat(functools.partial(npkl_repetition, X, y, C=C, **params), tuning_constraints.items()))
        for C in C_GRID
    ]
    return C_GRID[int(np.argmax(scores))]


# -- formatting ----------------------------------------------------------------------------------


def percent(runs):
    values = 100 * np.array([run.accuracy for run in runs])
    return f"{values.mean():.1f} ± {values.std():.1f}"


def paper_percent(entry):
    return f"{entry[0]:.1f} ± {entry[1]:.1f}"


def iterations(runs):
    text = f"{statistics.fmean(run.n_iter for run in runs):.1f}"
    stopped = sum(not run.converged for run in runs)
    return text + (f" ({stopped} not conv.)" if stopped else "")


def milliseconds(runs):
    return f"{1e3 * statistics.fmean(run.seconds for run in runs):.1f}"


def markdown_table(rows):
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(row[key]) for key in header) + " |" for row in rows]
    return "\n".join(lines)


def B_label(ratio, n):
    return "1" if ratio is None else f"{ratio * n:g} ({ratio:g} N)"


# -- Table 2 -------------------------------------------------------------------------------------


def table2(names, graphs, repeats, b_unit):
    """(a) k-means, SimpleNPKL+LL and +SHL per data set and graph mode at B = s, fresh pairs per
    repetition; (b) the same on a few fixed constraint sets, only the clustering seed varying."""
    fresh, fixed = [], []
    for name in names:
        X, y = DATASETS[name]()
        B = b_unit * X.shape[0]
        tuning = {seed: draw_constraints(y, seed) for seed in TUNING_SEEDS}
        evaluation = {seed: draw_constraints(y, seed) for seed in range(repeats)}
        baseline = percent(repeat(functools.partial(kmeans_run, X, y), evaluation))
        paper = PAPER_TABLE2.get(name)
        for graph in graphs:
            row = {
                "data set": name,
                "n x d": f"{X.shape[0]} x {X.shape[1]}",
                "pairs": f"{statistics.fmean(len(c[0]) for c in evaluation.values()):.0f}",
                "graph": graph,
                "k-means": baseline,
                "paper k-means": paper_percent(paper[0]) if paper else "-",
            }
            runs, tuned = {}, {}
            for column, loss in LOSSES.items():
                tuned[column] = choose_C(X, y, tuning, loss=loss, B=B, p=2.0, graph=graph)
                # bench/repetitions.py: the repetitions one after another here, or as tasks on a Dask cluster
                run = functools.partial(npkl_repetition, X, y, loss=loss, C=tuned[column], B=B, p=2.0, graph=graph)
                runs[column] = repeat(run, evaluation.items())
                row[f"C {column}"] = f"{tuned[column]:g}"
            C_one = choose_C(X, y, tuning, loss="squared_hinge", B=1.0, p=2.0, graph=graph)
            run = functools.partial(npkl_repetition, X, y, loss="squared_hinge", C=C_one, B=1.0, p=2.0, graph=graph)
            at_one = repeat(run, evaluation.items())
            for k, column in enumerate(LOSSES, start=1):
                row[column] = percent(runs[column])
                row[f"paper {column}"] = paper_percent(paper[k]) if paper else "-"
            row["SHL iter"] = iterations(runs["SHL"])
            row["SHL at B = 1 (C)"] = f"{percent(at_one)} ({C_one:g}), {iterations(at_one)} it"
            fresh.append(row)
            fixed.append(fixed_sets_row(X, y, name, graph, B, tuned))
    return [
        ("(a) Fresh pairs for every repetition, B = s", fresh),
        (
            f"(b) One fixed constraint set (pair seeds {', '.join(map(str, FIXED_SETS))}, one entry each: "
            f"mean ± std over clustering seeds 0-{FIXED_CLUSTER_SEEDS - 1}), B = s",
            fixed,
        ),
    ]


def fixed_set_scores(X, y, seed_and_C, *, loss, B, graph):
    """One fixed pair set fitted at one C: the accuracies of kernel k-means over the clustering seeds."""
    fixed_seed, C = seed_and_C
    model, _ = fit_npkl(X, draw_constraints(y, fixed_seed), 0, loss=loss, C=C, B=B, p=2.0, graph=graph)
    return np.array(
        [pairwise_cluster_accuracy(y, kernel_kmeans(model.embedding_, y, seed)) for seed in range(FIXED_CLUSTER_SEEDS)]
    )


def set_summary(accuracies):
    return " / ".join(f"{100 * a.mean():.1f} ± {100 * a.std():.1f}" for a in accuracies)


def fixed_sets_row(X, y, name, graph, B, tuned):
    """Each fixed pair set fitted once per C; kernel k-means over the clustering seeds."""
    paper = PAPER_TABLE2.get(name)
    row = {"data set": name, "graph": graph}
    for k, (column, loss) in enumerate(LOSSES.items(), start=1):
        items = [(fixed_seed, C) for fixed_seed in FIXED_SETS for C in C_GRID]
        run = functools.partial(fixed_set_scores, X, y, loss=loss, B=B, graph=graph)
        scores = dict(zip(items, repeat(run, items)))
        best_C = [C_GRID[int(np.argmax([scores[f, C].mean() for C in C_GRID]))] for f in FIXED_SETS]
        at_tuned = set_summary([scores[f, tuned[column]] for f in FIXED_SETS])
        at_best = set_summary([scores[f, C] for f, C in zip(FIXED_SETS, best_C)])
        row[f"{column}, C of (a)"] = f"{at_tuned} ({tuned[column]:g})"
        row[f"{column}, best C per set"] = f"{at_best} ({' / '.join(f'{C:g}' for C in best_C)})"
        row[f"paper {column}"] = paper_percent(paper[k]) if paper else "-"
    return row


# -- Table 3 -------------------------------------------------------------------------------------


def objective(L, pairs, labels, loss, C, K):
    """kernlearn's primal at a dense K (each unordered constraint read at (i, j) and (j, i))."""
    margin = labels * K[pairs[:, 0], pairs[:, 1]]
    loss_value = {
        "linear": -2.0 * np.sum(margin),
        "squared_hinge": np.sum(np.maximum(0.0, 1.0 - margin) ** 2),
        "hinge": 2.0 * np.sum(np.maximum(0.0, 1.0 - margin)),
        "square": np.sum((1.0 - margin) ** 2),
    }[loss]
    return float(np.sum(L * K) + C * loss_value)


def sdp_solve(L, pairs, labels, loss, C, B, solver):
    """The same problem as an SDP in cvxpy: (K, solver seconds, wall seconds with canonicalisation)."""
    import cvxpy as cp

    n = L.shape[0]
    K = cp.Variable((n, n), PSD=True)
    margin = cp.multiply(labels.astype(np.float64), K[pairs[:, 0], pairs[:, 1]])
    loss_term = {
        "linear": -2.0 * cp.sum(margin),
        "squared_hinge": cp.sum_squares(cp.pos(1.0 - margin)),
        "hinge": 2.0 * cp.sum(cp.pos(1.0 - margin)),
        "square": cp.sum_squares(1.0 - margin),
    }[loss]
    problem = cp.Problem(cp.Minimize(cp.trace(L @ K) + C * loss_term), [cp.norm(K, "fro") <= np.sqrt(B)])
    start = time.perf_counter()
    problem.solve(solver=solver)
    wall = time.perf_counter() - start
    return np.array(K.value), problem.solver_stats.solve_time or wall, wall


def table3(names, b_unit):
    """Fit time of the four losses (B = s, C = 1, mutual graph), and the SDP of the same problem."""
    times, sdp = [], []
    short = {"linear": "LL", "squared_hinge": "SHL", "hinge": "HL", "square": "SQ"}
    for name in names:
        X, y = DATASETS[name]()
        n = X.shape[0]
        B = b_unit * n
        sets = {seed: draw_constraints(y, seed) for seed in TIME_SETS}
        row = {"data set": name, "n": n, "pairs": f"{statistics.fmean(len(c[0]) for c in sets.values()):.0f}"}
        for loss in ALL_LOSSES:
            best, n_iter = [], []
            for seed, constraints in sets.items():
                fits = [fit_npkl(X, constraints, seed, loss=loss, C=1.0, B=B, p=2.0, graph="mutual") for _ in range(3)]
                best.append(min(seconds for _, seconds in fits))
                n_iter.append(fits[0][0].n_iter_)
            row[f"{short[loss]} [ms] (iter)"] = f"{1e3 * statistics.median(best):.1f} ({statistics.fmean(n_iter):.0f})"
        paper = PAPER_TABLE3.get(name)
        row["paper SimpleNPKL LL / SHL [s]"] = f"{paper[2]:g} / {paper[3]:g}" if paper else "-"
        row["paper NPKL LL / HL (SDPT3) [s]"] = f"{paper[0]:g} / {paper[1]:g}" if paper else "-"
        times.append(row)
        if name not in SDP_DATASETS:
            continue
        pairs, labels = sets[0]
        L = laplacian(knn_graph(X, N_NEIGHBORS, mode="mutual")).toarray()
        solvers = ["SCS"] + (["CLARABEL"] if n <= CLARABEL_MAX_N else [])
        for loss in ALL_LOSSES:
            model, _ = fit_npkl(X, sets[0], 0, loss=loss, C=1.0, B=B, p=2.0, graph="mutual")
            seconds = min(fit_npkl(X, sets[0], 0, loss=loss, C=1.0, B=B, p=2.0, graph="mutual")[1] for _ in range(3))
            ours = objective(L, pairs, labels, loss, 1.0, model.kernel(dense=True))
            history = model.history_
            certificate = (
                (history["primal"][-1] - history["dual"][-1]) / abs(history["primal"][-1])
                if len(history["gap"])
                else 0.0
            )
            row = {
                "data set": name,
                "loss": loss,
                "ours: objective": f"{ours:.6g}",
                "ours: certified gap": f"{certificate:.1e}",
                "ours [ms]": f"{1e3 * seconds:.1f}",
            }
            for solver in solvers:
                K, solve_seconds, wall = sdp_solve(L, pairs, labels, loss, 1.0, B, solver)
                value = objective(L, pairs, labels, loss, 1.0, K)
                excess = max(np.linalg.norm(K) / np.sqrt(B) - 1.0, -np.linalg.eigvalsh(K)[0] / np.sqrt(B), 0.0)
                row[f"{solver}: (ours - SDP) / abs(SDP)"] = f"{(ours - value) / abs(value):+.1e}"
                row[f"{solver}: infeasibility"] = f"{excess:.0e}"
                row[f"{solver} solve [s] (wall)"] = f"{solve_seconds:.2f} ({wall:.2f})"
                row[f"{solver} / ours"] = f"{solve_seconds / seconds:.0f}x"
            if len(solvers) < 2:
                row.update(
                    {
                        "CLARABEL: (ours - SDP) / abs(SDP)": "-",
                        "CLARABEL: infeasibility": "-",
                        "CLARABEL solve [s] (wall)": "-",
                        "CLARABEL / ours": "-",
                    }
                )
            sdp.append(row)
    return [
        ("Fit time (median over pair sets 0-4 of the best of 3), mean iterations in brackets", times),
        (
            "Against an SDP solver on pair set 0 (infeasibility: the SDP solution's relative excess over "
            "|K|_F <= sqrt(B) or below psd; gap < 0: the SDP point is better but that infeasible)",
            sdp,
        ),
    ]


# -- Tables 4 and 5 ------------------------------------------------------------------------------


def in_band(runs):
    (low, high), (fewest, most) = PAPER_BAND
    accuracy = 100 * mean_accuracy(runs)
    n_iter = statistics.fmean(run.n_iter for run in runs)
    return "yes" if low <= accuracy <= high and fewest <= n_iter <= most else ""


def b_scan(graphs, repeats):
    """SimpleNPKL on iris at the paper's C = 1 over B_SCAN: where do accuracy and iterations
    match the paper's Table 4?"""
    X, y = DATASETS["iris"]()
    n = X.shape[0]
    evaluation = {seed: draw_constraints(y, seed) for seed in range(repeats)}
    rows = []
    for graph in graphs:
        linear = percent(
            repeat(functools.partial(npkl_repetition, X, y, loss="linear", C=1.0, graph=graph), evaluation.items())
        )
        for ratio in B_SCAN:
            B = 1.0 if ratio is None else ratio * n
            run = functools.partial(npkl_repetition, X, y, loss="squared_hinge", C=1.0, B=B, graph=graph)
            runs = repeat(run, evaluation.items())
            row = {
                "graph": graph,
                "B": B_label(ratio, n),
                "SHL accuracy": percent(runs),
                "SHL iterations": iterations(runs),
                "matches Table 4": in_band(runs),
                "violated at SHL K [%]": f"{100 * statistics.fmean(run.violated for run in runs):.0f}",
                "LL accuracy (any B)": linear,
            }
            if ratio in HINGE_SCAN:
                run = functools.partial(npkl_repetition, X, y, loss="hinge", C=1.0, B=B, graph=graph)
                hinge = repeat(run, evaluation.items())
                row["HL accuracy"], row["HL iterations"] = percent(hinge), iterations(hinge)
            else:
                row["HL accuracy"] = row["HL iterations"] = ""
            rows.append(row)
    return rows


def p1_supported():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            SimpleNPKL(loss="squared_hinge", p=1.0, B=1.0, max_iter=1).fit(
                np.eye(6), pairs=np.array([[0, 1], [0, 2]]), pair_labels=[1, -1]
            )
    except ValueError:
        return False
    return True


def sensitivity(parameter, grid, fixed, paper_table, graphs, repeats, C_values, B_of=None):
    """SimpleNPKL+SHL on iris over one parameter's grid (the paper's Tables 4, 5, at C = 1).
    ``B_of(value, n)`` gives B for the grid value (the parameter B or p)."""
    X, y = DATASETS["iris"]()
    n = X.shape[0]
    evaluation = {seed: draw_constraints(y, seed) for seed in range(repeats)}
    p1 = p1_supported()
    rows = []
    for graph in graphs:
        for C in C_values:
            for value in grid:
                params = {**fixed, parameter: value}
                if B_of is not None:
                    params["B"] = B_of(value, n)
                paper_accuracy, paper_iterations = paper_table[value]
                row = {"graph": graph, "C": f"{C:g}", parameter: f"{value:g}", "kernlearn B": f"{params['B']:.4g}"}
                if params["p"] == 1 and not p1:
                    row.update({"accuracy": "n/a", "iterations": "n/a"})
                else:
                    run = functools.partial(npkl_repetition, X, y, loss="squared_hinge", C=C, graph=graph, **params)
                    runs = repeat(run, evaluation.items())
                    row.update({"accuracy": percent(runs), "iterations": iterations(runs)})
                row.update(
                    {"paper accuracy (C = 1)": paper_percent(paper_accuracy), "paper iterations": paper_iterations}
                )
                rows.append(row)
    return rows


def table4(args):
    unit = args.B_unit
    return [
        (
            f"B-scale derivation: iris, p = 2, C = 1, B from 1 to where max_iter binds; matches Table 4: "
            f"accuracy in {PAPER_BAND[0][0]}-{PAPER_BAND[0][1]} % and iterations in "
            f"{PAPER_BAND[1][0]}-{PAPER_BAND[1][1]}",
            b_scan(args.graphs, args.repeats),
        ),
        (
            f"Table 4 at B = b * s, s = {unit:g} N = {unit * 150:g}",
            sensitivity(
                "B",
                B_GRID,
                {"p": 2.0},
                PAPER_TABLE4,
                args.graphs,
                args.repeats,
                args.sensitivity_C,
                B_of=lambda b, n: b * unit * n,
            ),
        ),
    ]


def table5(args):
    unit = args.B_unit
    return [
        (
            f"B = s = {unit:g} N = {unit * 150:g} for every p",
            sensitivity(
                "p",
                P_GRID,
                {},
                PAPER_TABLE5,
                args.graphs,
                args.repeats,
                args.sensitivity_C,
                B_of=lambda p, n: unit * n,
            ),
        ),
        (
            "B = s^(p/2): the bound on the p-norm of K's eigenvalues, B^(1/p) = sqrt(s), held at its p = 2 value",
            sensitivity(
                "p",
                P_GRID,
                {},
                PAPER_TABLE5,
                args.graphs,
                args.repeats,
                args.sensitivity_C,
                B_of=lambda p, n: (unit * n) ** (p / 2),
            ),
        ),
    ]


# -- Figure 2 ------------------------------------------------------------------------------------


def load_digits_standardised():
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def fig2(b_unit, defaults=False):
    """Time and accuracy against the number of actively selected constraints (Section 5.3),
    random selection of as many constraints, and every constraint: at the paper's setting, or
    (``defaults``) at SimpleNPKL's defaults (G = 1e-3, C = 0.3, symmetric graph)."""
    X, y = load_digits_standardised()
    n = X.shape[0]
    if defaults:
        params = dict(loss="squared_hinge")
    else:
        params = dict(loss="squared_hinge", C=1.0, B=b_unit * n, p=2.0, graph="mutual")
    rows, results = [], {}
    for pair_seed in FIG2_SETS:
        pairs, labels = draw_constraints(y, pair_seed)
        full = npkl_run(X, y, (pairs, labels), pair_seed, **params)
        results.setdefault(("all", None), []).append((full, len(pairs), len(pairs)))
        for k in FIG2_ACTIVE:
            model, seconds = fit_npkl(X, (pairs, labels), pair_seed, active_constraints=k, **params)
            accuracy = pairwise_cluster_accuracy(y, kernel_kmeans(model.embedding_, y, pair_seed))
            kept = len(model.pairs_)
            results.setdefault(("active", k), []).append(
                (Run(accuracy, seconds, model.n_iter_, model.converged_), kept, len(pairs))
            )
            chosen = np.sort(np.random.default_rng(pair_seed).choice(len(pairs), kept, replace=False))
            random_run = npkl_run(X, y, (pairs[chosen], labels[chosen]), pair_seed, **params)
            results.setdefault(("random", k), []).append((random_run, kept, len(pairs)))
    full_seconds = statistics.fmean(entry[0].seconds for entry in results["all", None])
    for (selection, k), entries in results.items():
        runs = [entry[0] for entry in entries]
        seconds = statistics.fmean(run.seconds for run in runs)
        rows.append(
            {
                "selection": selection,
                "points k": "-" if k is None else k,
                "constraints": f"{statistics.fmean(kept for _, kept, _ in entries):.0f} of "
                f"{statistics.fmean(total for _, _, total in entries):.0f}",
                "accuracy": percent(runs),
                "fit [s]": f"{seconds:.2f}",
                "time / all": f"{seconds / full_seconds:.2f}",
                "iterations": iterations(runs),
            }
        )
    baseline = [kmeans_run(X, y, seed) for seed in FIG2_SETS]
    rows.append(
        {
            "selection": "k-means on X (no kernel)",
            "points k": "-",
            "constraints": "-",
            "accuracy": percent(baseline),
            "fit [s]": "-",
            "time / all": "-",
            "iterations": "-",
        }
    )
    order = {"k-means on X (no kernel)": -1, "all": 0, "active": 1, "random": 2}
    rows.sort(key=lambda row: (order[row["selection"]], 0 if row["points k"] == "-" else row["points k"]))
    return rows


SECTIONS = {
    "table2": (
        "Table 2: clustering accuracy (%) with raw features, k = 5, B = s, p = 2",
        f"C tuned on seeds {TUNING_SEEDS[0]}-{TUNING_SEEDS[-1]} over {', '.join(f'{C:g}' for C in C_GRID)}",
        lambda args: table2(args.datasets, args.graphs, args.repeats, args.B_unit),
    ),
    "table3": (
        "Table 3: fit time (one thread) and the SDP of the same problem, B = s, C = 1, mutual graph",
        "SDP: cvxpy + SCS (default eps) and CLARABEL; paper: Windows PC, 3.4 GHz, SDPT3",
        lambda args: table3(args.datasets, args.B_unit),
    ),
    "table4": (
        "Table 4: iris, SimpleNPKL+SHL, p = 2, varying B",
        "iterations: mean n_iter_; violated: constraints with t_ij K_ij < 1",
        table4,
    ),
    "table5": (
        "Table 5: iris, SimpleNPKL+SHL, varying p at the derived B",
        "iterations: mean n_iter_",
        table5,
    ),
    "fig2": (
        "Figure 2: active constraint selection on digits (n = 1,797), SimpleNPKL+SHL, C = 1, B = s",
        f"pair sets {', '.join(map(str, FIG2_SETS))}; kernel k-means seeded by the pair set; time: whole fit",
        lambda args: fig2(args.B_unit),
    ),
    "fig2_defaults": (
        "Figure 2 at SimpleNPKL's defaults: active constraint selection on digits, SimpleNPKL+SHL, "
        "G = 1e-3, C = 0.3, symmetric graph",
        f"pair sets {', '.join(map(str, FIG2_SETS))}; kernel k-means seeded by the pair set; time: whole fit",
        lambda args: fig2(args.B_unit, defaults=True),
    ),
}

# The verdict line written under each title: it describes the recorded run (default arguments).
VERDICTS = {
    "fig2_defaults": (
        "Verdict: reproduced at SimpleNPKL's defaults (not at the paper's C = 1, B = 5 N: see "
        "simplenpkl_fig2.md): the constraints of 450 actively selected points (2,093 of 5,696) give 99.1 % in"
        " 4.8 s against 99.3 % in 103.8 s for every constraint, 21x less time at equal accuracy (under load; "
        "the ratio is the figure). The saving comes mostly from the solver: the full fit's positive rank "
        "sends it to the dense eigensolver at n = 1,797, the reduced one stays in Lanczos. The paper's second"
        " claim, active beats random at equal count, holds at k = 450 (99.1 vs 98.4 %) and 900 (99.4 vs 99.3 "
        "%) but not at 225 (93.5 vs 99.0 %); random selection is cheaper still (no pilot)."
    ),
    "table3": (
        "Verdict: reproduced as a correctness and speed check (times taken under heavy load, 8-12 runnable "
        "jobs on 2 cores, so absolute times are inflated about 2-4x). Ours reaches the optimum of the same "
        "problem solved as an SDP: (ours - SDP) / |SDP| from -7e-6 to +9e-5 for all four losses on the seven "
        "data sets (SCS), of the order of our certified duality gap (tol 1e-4), and +2e-5 to +8e-5 against "
        "CLARABEL on soybean (SDP infeasibility <= 5e-12). Speed-up over SCS: linear 24-232x, squared hinge "
        "9-23x, hinge 8-37x, square 13-32x (CLARABEL, the interior-point kind the paper's SDPT3 is: 940-3030x "
        "on soybean), in line with the paper's 5-10x for SHL and up to 100x+ for LL, although the paper's "
        "NPKL is another problem (no trace bound). Our fits: LL 13-70 ms, SHL 92-793 ms (paper 0.01-0.11 s "
        "and 0.13-3.95 s)."
    ),
    "fig2": (
        "Verdict: not reproduced: active selection (with the linear-loss pilot) is not 2x faster at equal "
        "accuracy on digits. Full fit (5,696 pairs): 92.9 s, 57.2 %; active k = 225 / 450 / 900 points (625 / "
        "1,485 / 3,336 constraints): 113.9 / 146.3 / 85.5 s (1.23 / 1.57 / 0.92x the full fit) at 46.4 / 41.7 "
        "/ 58.0 %; the same numbers of random constraints: 58.4 / 52.9 / 65.8 %, so active selection also "
        "loses to random at every size. Fewer constraints do not cheapen the dense eigensolves (n = 1,797) "
        "and take more iterations (13 / 8 / 7 against 6). Caveats: one pair set and one clustering per fit, "
        "timed under heavy load (8-12 runnable jobs on 2 cores; the same full fit took 25 s unloaded), and at "
        "C = 1 the learned kernel (57 %) is worse than k-means on the features (89 %)."
    ),
    "table2": (
        "Verdict: partly reproduced; at B = s = 5 N the squared hinge separates from the linear loss (6-17 "
        "iterations against 0-2 at B = 1) and SHL matches or beats the paper on glass, iris, soybean and "
        "spiral (chessboard mutual: 71.5 vs 58.8). Per data set: sonar SHL is explained: it rises from 66.5 % "
        "(B = 1) to 73.9 ± 7.8 % (symmetric), and with one fixed constraint set (the hypothesis behind the "
        "paper's ± 0.0) one set gives exactly the paper's 78.0 ± 0.0 (mutual, set 1) while the three sets "
        "span 63-82 %: the paper's figure is one draw of a quantity that varies by ±10 points between draws. "
        "The fixed-set hypothesis also reproduces the paper's exact values 92.2 ± 0.0 / 94.1 ± 0.0 (spiral, "
        "symmetric, LL / SHL) and 97.4 ± 0.0 (iris, symmetric, set 0), with stds of 0.0-2 over the clustering "
        "seeds on a fixed set. Chessboard: fixed sets span 50-75 %, covering the paper's 60.2 / 58.8. Wine is "
        "not explained: 67-76 % on every set, C and graph (paper 83.7 / 85.0), within 4 points of k-means "
        "(71.9); untested: the paper's 12-feature wine (ours has 13, and raw proline dominates the kNN "
        "graph)."
    ),
    "table4": (
        "Verdict: reproduced at B = b * s with s = 5 N (B = 750 on iris) on the mutual graph (the paper's "
        "literal graph), not at the paper's literal B. The paper's B = 1 cannot produce its 10-31 iterations "
        "and separate LL/SHL results: at B = 1 every constraint is violated (100 % with t_ij K_ij < 1), the "
        "hinge loss stops after 0 iterations at the linear kernel (46.4 %, = LL) and the squared hinge after "
        "1 iteration at 45.9 % (mutual; symmetric 63.2 % vs LL 61.5 %). The B scan at the paper's C = 1 "
        "matches Table 4 (accuracy within 1 point of 94.8-95.7 % and 10-31 iterations) for B = 7.5 N-30 N on "
        "the mutual graph (94.2-95.1 %, 13-30 iterations), a factor 4 like the paper's grid 1-4, and s = 5 N "
        "puts the paper's b = 1, 1.5 at 11.3 and 13.2 iterations (paper 11, 13). At B = b s, b = 1-4: mutual "
        "93.8-95.0 % in 11-24 iterations (paper 94.8-95.7 %, 10-31), accuracy flat within about 1 point as in "
        "the paper; our iterations grow steadily with B where the paper's jump about (10 at b = 3, 31 at "
        "3.5). The symmetric graph sits 2 points above the paper (97.5-97.7 %, 9-15 iterations). Past B = 100 "
        "N the iterations climb to max_iter (mutual: 199 at 300 N; both graphs 200 at 1000 N)."
    ),
    "table5": (
        "Verdict: partly reproduced: p = 2 matches (93.8 %, 11.3 iterations vs the paper's 94.8 %, 11), but "
        "not the paper's pattern in p. At a fixed B = s = 5 N, p >= 2.5 collapses (mutual 76 -> 50 %, "
        "symmetric 89 -> 67 % from p = 3), because tr K^p <= B bounds K's eigenvalues by B^(1/p) (27 at p = "
        "2, 5.2 at p = 4): only B = 1 keeps that bound the same for every p, so a fixed B = s is not the "
        "paper's experiment. With the bound held (B = s^(p/2)), p = 2-4 give 87-94 % (mutual) and 97.5-97.6 % "
        "(symmetric) in 9-28 iterations, near the paper's flat 94.8-95.6 %; p = 1.5 stays at 93.5 % / 97.7 % "
        'where the paper drops to 58.6 %, so its "p < 2 drops significantly" is not reproduced. p = 1 with '
        "the squared hinge (Frank-Wolfe, certified): 92.1 % (mutual, 116 iterations, 3 of 20 unconverged) "
        "and 97.7 % (symmetric) at B = s, 85-92 % at B = s^(1/2), against the paper's 61.6 % in 51 "
        "iterations; at the literal B = 1 it gives 53.0 % in 1-2 iterations, so the paper's p = 1 row fits "
        "the B = 1 collapse."
    ),
}


def environment(repeats):
    return (
        f"kernlearn {kernlearn.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.processor() or platform.machine()}, one thread, "
        f"{datetime.date.today().isoformat()}; {repeats} repetitions (seeds 0-{repeats - 1})"
    )


def render(result):
    """A section's result: one list of rows, or a list of (heading, rows) blocks."""
    if result and isinstance(result[0], dict):
        return markdown_table(result)
    return "\n\n".join(f"### {heading}\n\n{markdown_table(rows)}" for heading, rows in result)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", nargs="+", choices=list(SECTIONS), default=["table2"])
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--graphs", nargs="+", choices=["mutual", "symmetric"], default=["mutual", "symmetric"])
    parser.add_argument(
        "--sensitivity-C", type=float, nargs="+", default=[1.0], help="C values of tables 4 and 5 (the paper's is 1)"
    )
    parser.add_argument(
        "--B-unit", type=float, default=B_UNIT, help="s / N: the paper's B = b is run as B = b * s (default 5)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results", help="folder for simplenpkl_<section>.md"
    )
    add_dask_option(parser)
    args = parser.parse_args(argv)
    with dask_backend(args.dask):
        return run_script(args)


def run_script(args):
    """The script's work for parsed arguments (main, inside dask_backend)."""
    args.out.mkdir(parents=True, exist_ok=True)
    with threadpool_limits(1):
        for section in args.sections:
            title, note, run = SECTIONS[section]
            start = time.perf_counter()
            result = run(args)
            elapsed = time.perf_counter() - start
            verdict = f"{VERDICTS[section]}\n\n" if section in VERDICTS else ""
            text = (
                f"## {title}\n\n{verdict}{environment(args.repeats)}; {note}; B unit s = {args.B_unit:g} N; "
                f"run time {elapsed:.0f} s.\n\n{render(result)}\n"
            )
            print(text, flush=True)
            (args.out / f"simplenpkl_{section}.md").write_text(text)


if __name__ == "__main__":
    main()
