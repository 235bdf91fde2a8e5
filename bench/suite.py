"""The evaluation suite: each kernlearn method against the baselines a user would pick instead,
under the same tuning budget, on seven real data sets.

    python bench/suite.py                                   # clustering + embedding, about 40 minutes
    python bench/suite.py --sections similarity metric iklr kdac   # the other families' files
    python bench/suite.py --sections clustering --repeats 3 --datasets iris wine
    python bench/suite.py --out bench/results/suite.md

Data: iris, wine, sonar, ionosphere, glass (kernlearn's loaders), breast cancer (Wisconsin
diagnostic, scikit-learn's ``load_breast_cancer``) and digits (``load_digits``, a stratified
subsample of DIGITS_N = 600 points drawn once with seed 0, so that 3 x 12 tuning fits per
repetition stay in minutes). Features standardised on all points (no label is read).

Clustering section (SimpleNPKL, issue 29). k = the number of classes for every method. Two
protocols, each repeated ``--repeats`` times (seed r = 0, 1, ...):

* paper: pairs drawn from all labels until the must-link graph has at most 0.7 n components
  (``from_labels(y, component_ratio=0.7)``, SimpleNPKL Section 7.1); the score is over all
  points. This protocol touches nearly every point, so it flatters every constrained method.
* held-out: a random 30 % of the points keep their label, every pair among them is a
  constraint (``from_labels`` on y with -1 elsewhere); the score is over the 70 % in no pair,
  the points a learned kernel must generalise to.

Score: the adjusted Rand index (ARI) against the true classes, in %, mean +- std over the
repetitions.

Methods (each sees the same pairs; the unsupervised ones ignore them):

* KMeans (scikit-learn, n_init=10) on the features. Nothing to tune.
* SpectralClustering (scikit-learn, affinity="nearest_neighbors", n_init=10), n_neighbors
  tuned over SPECTRAL_GRID.
* COP-k-means (bench/cop_kmeans.py, Wagstaff et al. 2001) with the pairs: the paper's
  constrained k-means baseline. Nothing to tune.
* SimpleNPKL(loss) with its defaults, then ``KernelKMeans(k)`` on ``embedding_``, for each of
  the four losses.
* SimpleNPKLCV(SimpleNPKL()) with its default grid (4 C x 3 G, 12 points), then
  KernelKMeans, for the squared hinge (the default loss).

Tuning budget: the tuned methods (SpectralClustering, SimpleNPKLCV) choose from 12 grid points
on the same 3 folds of ``pair_folds(pairs, 3, random_state=r)``: each test pair touches a point
no training pair does. SimpleNPKLCV scores a fold by ``pair_distance_auc`` of the kernel on its
test pairs; SpectralClustering does not read pairs, so its fold score is the share of the
fold's test pairs its clustering satisfies (same cluster for a must-link, different for a
cannot-link). No method sees a label beyond its pairs.

Verdict column: the tuned SimpleNPKL against each baseline on paired repetitions: "win" when
the mean paired difference is above twice its standard error, "loss" below minus twice, "tie"
otherwise.

Embedding section (issue 29): rows from bench/suite_embedding.py, whose docstring gives the
protocol.

The other families have their own protocols and data, each in its own script and results file;
``--sections`` runs them from here with their default arguments (``--datasets`` and
``--repeats`` apply to the clustering and embedding sections only):

* similarity: ESKL / EMKL / REKL vs SVC on single and averaged similarities
  (bench/suite_similarity.py -> bench/results/suite_similarity.md);
* metric: S3ML / S2ML vs standardised Euclidean, NCA, LMNN, ITML
  (bench/suite_metric.py -> bench/results/suite_metric.md);
* iklr: IKLR vs SVC and logistic regression (bench/suite_iklr.py -> bench/results/suite_iklr.md);
* kdac: KDAC vs clustering the orthogonal residual (bench/suite_kdac.py ->
  bench/results/suite_kdac.md).

Held-back benchmark (issue 47; data and protocol: bench/heldback_data.py, harness:
bench/suite_heldback.py, whose docstring lists its options ``--families``, ``--datasets``,
``--repeats``, ``--jobs``, ``--smoke``):

    python bench/suite.py --development    # every family on the development sets -> results/suite_development.md
    python bench/suite.py --held-back      # run once, at the end -> results/suite_heldback.md
"""

import argparse
import datetime
import functools
import importlib
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import sklearn
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import kernlearn
from kernlearn import datasets
from kernlearn.cluster import KernelKMeans
from kernlearn.constraints import from_labels, pair_folds
from kernlearn.npkl import SimpleNPKL
from kernlearn.npkl_cv import SimpleNPKLCV

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cop_kmeans import cop_kmeans  # noqa: E402
from repetitions import add_dask_option, dask_backend, repeat  # noqa: E402
from tables import paired_verdict as verdict  # noqa: E402

OWN_FILE_SECTIONS = ("similarity", "metric", "iklr", "kdac")
SECTIONS = ("clustering", "embedding", *OWN_FILE_SECTIONS)
DATASETS = ("iris", "wine", "sonar", "ionosphere", "glass", "breast_cancer", "digits")
DIGITS_N = 600
LABELLED = 0.3
COMPONENT_RATIO = 0.7
N_FOLDS = 3
SPECTRAL_GRID = (5, 7, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80)  # 12 points, as SimpleNPKLCV's grid
LOSSES = ("linear", "squared_hinge", "hinge", "square")
TUNED = "SimpleNPKLCV (squared_hinge)"
BASELINES = ("KMeans", "SpectralClustering", "COP-k-means")


def load(name):
    """Standardised features and labels of one suite data set."""
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    elif name == "digits":
        X, y = load_digits(return_X_y=True)
        X, _, y, _ = train_test_split(X, y, train_size=DIGITS_N, stratify=y, random_state=0)
    else:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return StandardScaler().fit_transform(X), np.unique(y, return_inverse=True)[1]


def protocol_pairs(y, protocol, seed):
    """(pairs, pair_labels, scored points mask) of one repetition of a protocol."""
    rng = np.random.RandomState(seed)
    if protocol == "paper":
        pairs, labels = from_labels(y, component_ratio=COMPONENT_RATIO, random_state=rng)
        return pairs, labels, np.ones(y.size, dtype=bool)
    labelled = rng.rand(y.size) < LABELLED
    pairs, labels = from_labels(np.where(labelled, y, -1), random_state=rng)
    scored = np.ones(y.size, dtype=bool)
    scored[np.unique(pairs)] = False
    return pairs, labels, scored


def pair_agreement(assignment, pairs, labels):
    """Share of pairs a clustering satisfies."""
    same = assignment[pairs[:, 0]] == assignment[pairs[:, 1]]
    return float(np.mean(same == (labels > 0)))


def spectral_tuned(X, k, pairs, labels, folds, seed):
    """SpectralClustering with n_neighbors chosen on the folds' test pairs."""
    best = None
    for n_neighbors in SPECTRAL_GRID:
        model = SpectralClustering(k, affinity="nearest_neighbors", n_neighbors=n_neighbors, random_state=seed)
        assignment = model.fit_predict(X)
        score = np.mean([pair_agreement(assignment, pairs[test], labels[test]) for _, test in folds])
        if best is None or score > best[0]:
            best = (score, assignment, n_neighbors)
    return best[1], {"n_neighbors": best[2]}


def kernel_kmeans(F, k, seed):
    """KernelKMeans labels on a factor; a zero kernel (no column) is one cluster, scored as such."""
    if F.shape[1] == 0:
        return np.zeros(F.shape[0], dtype=int)
    return KernelKMeans(k, random_state=seed).fit_predict(F)


def clustering_repetition(X, y, k, protocol, seed):
    """{method: (ARI on the scored points, extra info)} for one repetition."""
    pairs, labels, scored = protocol_pairs(y, protocol, seed)
    folds = pair_folds(pairs, N_FOLDS, random_state=seed)
    out = {}

    def score(assignment):
        return 100 * adjusted_rand_score(y[scored], assignment[scored])

    out["KMeans"] = (score(KMeans(k, n_init=10, random_state=seed).fit_predict(X)), {})
    assignment, info = spectral_tuned(X, k, pairs, labels, folds, seed)
    out["SpectralClustering"] = (score(assignment), info)
    out["COP-k-means"] = (score(cop_kmeans(X, k, pairs, labels, random_state=seed)), {})
    for loss in LOSSES:
        start = time.perf_counter()
        model = SimpleNPKL(loss, random_state=seed).fit(X, pairs=pairs, pair_labels=labels)
        elapsed = time.perf_counter() - start
        out[f"SimpleNPKL ({loss})"] = (
            score(kernel_kmeans(model.embedding_, k, seed)),
            {"n_iter": model.n_iter_, "time": elapsed},
        )
    start = time.perf_counter()
    cv = SimpleNPKLCV(SimpleNPKL(random_state=seed), random_state=seed)
    cv.fit(X, pairs=pairs, pair_labels=labels)
    elapsed = time.perf_counter() - start
    out[TUNED] = (score(kernel_kmeans(cv.embedding_, k, seed)), {**cv.best_params_, "time": elapsed})
    return out


def clustering_section(names, repeats):
    lines = []
    for protocol in ("held-out", "paper"):
        lines += [
            f"### Clustering, {protocol} protocol: ARI (%) over {repeats} repetitions",
            "",
            "| data set | n | pairs | "
            + " | ".join(BASELINES)
            + " | "
            + " | ".join(f"SimpleNPKL {loss}" for loss in LOSSES)
            + " | tuned (SHL) | tuned C, G per repetition | tuned vs "
            + " / ".join(BASELINES)
            + " |",
            "|" + "---|" * (3 + len(BASELINES) + len(LOSSES) + 3),
        ]
        for name in names:
            X, y = load(name)
            k = np.unique(y).size
            runs = repeat(functools.partial(clustering_repetition, X, y, k, protocol), range(repeats))
            n_pairs = len(protocol_pairs(y, protocol, 0)[0])

            def cell(method):
                v = np.array([run[method][0] for run in runs])
                return f"{v.mean():.1f} ± {v.std():.1f}"

            tuned = [run[TUNED][0] for run in runs]
            params = [run[TUNED][1] for run in runs]
            chosen = "; ".join(f"{p['C']:g}, {p['G']:g}" for p in params)
            verdicts = " / ".join(verdict(tuned, [run[b][0] for run in runs]) for b in BASELINES)
            row = [name, str(X.shape[0]), str(n_pairs)]
            row += [cell(b) for b in BASELINES]
            row += [cell(f"SimpleNPKL ({loss})") for loss in LOSSES]
            row += [cell(TUNED), chosen, verdicts]
            lines.append("| " + " | ".join(row) + " |")
            print(lines[-1], flush=True)
            iters = {loss: np.mean([run[f"SimpleNPKL ({loss})"][1]["n_iter"] for run in runs]) for loss in LOSSES}
            print(
                f"    {name} {protocol}: mean n_iter_ " + ", ".join(f"{k_}: {v:.1f}" for k_, v in iters.items()),
                flush=True,
            )
        lines.append("")
    return lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if {"--held-back", "--development"} & set(argv):  # the held-back harness (issue 47), its own options
        from suite_heldback import main as heldback_main  # noqa: PLC0415 (imports every family)

        heldback_main(argv)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", nargs="+", default=["clustering", "embedding"], choices=SECTIONS)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "suite.md")
    add_dask_option(parser)
    args = parser.parse_args(argv)
    for section in args.sections:
        if section in OWN_FILE_SECTIONS:  # protocol, data and results file of their own
            importlib.import_module(f"suite_{section}").main([] if args.dask is None else ["--dask", args.dask])
    if not set(args.sections) & {"clustering", "embedding"}:
        return
    with dask_backend(args.dask):
        lines = suite_tables(args)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


def suite_tables(args):
    """The lines of the clustering and embedding sections' results file."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    warnings.filterwarnings("ignore", message="the learned kernel is zero", category=UserWarning)
    warnings.filterwarnings("ignore", message="Graph is not fully connected", category=UserWarning)
    start = time.perf_counter()
    lines = ["# Evaluation suite: kernlearn against the baselines a user would pick", ""]
    if "clustering" in args.sections:
        lines += clustering_section(args.datasets, args.repeats)
    if "embedding" in args.sections:
        from suite_embedding import embedding_rows, to_markdown  # noqa: PLC0415 (the section is optional)

        rows, notes = embedding_rows([name.replace("_", " ") for name in args.datasets], args.repeats)
        lines += [f"### Embeddings (protocol: bench/suite_embedding.py), {args.repeats} repetitions", ""]
        lines += [to_markdown(rows), ""] + [f"- {note}" for note in notes] + [""]
    lines.insert(
        2,
        f"kernlearn {kernlearn.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}, {datetime.date.today()}; "
        f"run time {time.perf_counter() - start:.0f} s. Protocol: bench/suite.py's docstring.\n",
    )
    return lines


if __name__ == "__main__":
    main()
