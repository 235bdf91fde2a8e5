"""kernlearn's three embeddings against scikit-learn's, with one tuning budget and rule for all:
held-out 1-NN accuracy and trustworthiness of 2-D embeddings.

    python bench/suite_embedding.py [--repeats 3] [--seed 0] [--datasets iris wine ...]
                                    [--out bench/results/suite_embedding.md]

The shared evaluation suite (bench/suite.py) imports :func:`embedding_rows`.

Protocol

* Data: iris, wine, sonar, ionosphere, glass (kernlearn.datasets), breast cancer (scikit-learn's
  ``load_breast_cancer``, 569 x 30) and digits (``load_digits``, 1797 x 64). The last two are
  subsampled to SUBSAMPLE = 300 points stratified by class (``train_test_split(train_size=300,
  stratify=y, random_state=seed)``, once, the same for every repetition): an exact MVE or
  ColoredMVU fit on 569 points took 50-80 s (one thread, loaded machine), nine of them per
  repetition; on 300 points about an eighth of that. Features standardised
  (``StandardScaler``) on all points of the data set (no label used).
* Repetition r (0 .. n_repeats-1): a stratified 70 / 30 train / test split
  (``train_test_split(test_size=0.3, stratify=y, random_state=seed + r)``). Every method embeds
  all points transductively in ``n_components = 2`` dimensions, seeded with seed + r.
  Labels are used for scoring and tuning only, except by ColoredMVU, which takes side
  information: it gets the training labels only, as the label kernel Y = Phi Phi' with Phi the
  one-hot class indicator on training rows and 0 on test rows (``label_kernel="linear"``;
  a delta kernel on the training points, test points unlabelled).
* Methods: kernlearn ``MinimumVolumeEmbedding``, ``StructurePreservingEmbedding``,
  ``ColoredMVU`` (each with its defaults otherwise: C = 1, B = None, except MVE's inner
  ``max_iter`` = MVE_MAX_ITER = 100 instead of 500: on sonar at n_neighbors >= 10 the default
  geodesic bound is inactive, the inner solves crawl to max_iter at every outer step (3 MVE
  fits took 560 s) and the ConvergenceWarning says so; the cap bounds that cost and the
  "warned" column counts those fits); scikit-learn ``PCA``,
  ``KernelPCA(kernel="rbf")``, ``Isomap``, ``SpectralEmbedding(affinity="nearest_neighbors")``.
* Tuning, the same budget and rule for every method: one grid of 3 values, each fit once on all
  points; n_neighbors in N_GRID = (5, 10, 15) for the six graph-based methods, gamma in
  G_GRID = (0.5, 1, 2) x 1 / (median squared pairwise distance) for KernelPCA, nothing for PCA
  (1 fit). The value kept is the one whose embedding has the best leave-one-out 1-NN accuracy
  among the training points (training labels only; ties: the first grid value). Test points'
  labels are never seen by the tuning.
* Scores of the kept fit: (1) 1-NN accuracy of the test points against the training points in
  the embedding (``KNeighborsClassifier(1)`` fit on the training rows); (2) trustworthiness
  (``sklearn.manifold.trustworthiness(X, Z, n_neighbors=5)``) over all points: how far the
  embedding's 5 nearest neighbours are true neighbours of the input (1 = all are). Mean ± std
  over the repetitions (population std).
* Win / tie / loss, per kernlearn method and score, against the best baseline of that data set
  and score (the scikit-learn method with the highest mean): with d_r the paired difference
  (kernlearn - baseline) in repetition r, mean d and std s over the repetitions, "win" if
  d > s, "loss" if d < -s, else "tie" (within one std of the paired differences; with one
  repetition, s = 0 and only an exact tie is a tie).
* Time: mean seconds per fit (``fit_transform``), over the grid's fits and the repetitions, with
  ``n_jobs`` threads (BLAS pools limited to as many). ConvergenceWarnings are silenced and
  counted per method. ``n_processes`` > 1 runs data sets in parallel processes (same results;
  the times then include the contention).
"""

import argparse
import datetime
import functools
import platform
import statistics
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import sklearn
from scipy.spatial.distance import pdist
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.decomposition import PCA, KernelPCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.manifold import Isomap, SpectralEmbedding, trustworthiness
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

import kernlearn
from kernlearn import datasets as kl_datasets
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from repetitions import add_dask_option, dask_backend, repeat
from tables import one_std_verdict as _verdict

N_COMPONENTS = 2
N_GRID = (5, 10, 15)
G_GRID = (0.5, 1.0, 2.0)
SUBSAMPLE = 300  # breast cancer and digits: see the module docstring
MVE_MAX_ITER = 100  # see the module docstring
TRUST_NEIGHBORS = 5

KERNLEARN = ("MVE", "SPE", "ColoredMVU")
BASELINES = ("PCA", "KernelPCA", "Isomap", "SpectralEmbedding")


def _subsampled(loader):
    def load(seed):
        X, y = loader(return_X_y=True)
        keep, _ = train_test_split(np.arange(len(y)), train_size=SUBSAMPLE, stratify=y, random_state=seed)
        return X[keep], y[keep]

    return load


LOADERS = {
    "iris": lambda seed: kl_datasets.load_iris(return_X_y=True),
    "wine": lambda seed: kl_datasets.load_wine(return_X_y=True),
    "sonar": lambda seed: kl_datasets.load_sonar(return_X_y=True),
    "ionosphere": lambda seed: kl_datasets.load_ionosphere(return_X_y=True),
    "glass": lambda seed: kl_datasets.load_glass(return_X_y=True),
    "breast cancer": _subsampled(load_breast_cancer),
    "digits": _subsampled(load_digits),
}
DATASETS = tuple(LOADERS)


def _grid(method, X):
    """The method's tuning grid: (label of the value, factory(seed, n_jobs, y_side) -> estimator)."""
    if method == "PCA":
        return [("-", lambda seed, n_jobs, y_side: PCA(N_COMPONENTS))]
    if method == "KernelPCA":
        base = 1.0 / np.median(pdist(X, "sqeuclidean"))
        return [
            (
                f"gamma={g:g}/med",
                lambda seed, n_jobs, y_side, g=g: KernelPCA(N_COMPONENTS, kernel="rbf", gamma=g * base),
            )
            for g in G_GRID
        ]
    make = {
        "MVE": lambda k, seed, n_jobs: MinimumVolumeEmbedding(
            N_COMPONENTS, n_neighbors=k, max_iter=MVE_MAX_ITER, random_state=seed, n_jobs=n_jobs
        ),
        "SPE": lambda k, seed, n_jobs: StructurePreservingEmbedding(
            N_COMPONENTS, n_neighbors=k, random_state=seed, n_jobs=n_jobs
        ),
        "ColoredMVU": lambda k, seed, n_jobs: ColoredMVU(
            N_COMPONENTS, n_neighbors=k, label_kernel="linear", random_state=seed, n_jobs=n_jobs
        ),
        "Isomap": lambda k, seed, n_jobs: Isomap(n_neighbors=k, n_components=N_COMPONENTS, n_jobs=n_jobs),
        "SpectralEmbedding": lambda k, seed, n_jobs: SpectralEmbedding(
            N_COMPONENTS, affinity="nearest_neighbors", n_neighbors=k, random_state=seed, n_jobs=n_jobs
        ),
    }[method]
    return [(f"k={k}", lambda seed, n_jobs, y_side, k=k: make(k, seed, n_jobs)) for k in N_GRID]


def _loo_1nn(Z, y):
    """Leave-one-out 1-NN accuracy of the points Z (labels y)."""
    D = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    return float(np.mean(y[np.argmin(D, axis=1)] == y))


def _fit(model, X, y_side):
    """(embedding, seconds, warned): ColoredMVU gets y_side, the others nothing."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        Z = model.fit_transform(X, y_side) if isinstance(model, ColoredMVU) else model.fit_transform(X)
        seconds = time.perf_counter() - start
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return np.asarray(Z, dtype=np.float64), seconds, warned


def _one_method(method, X, y, train, test, seed, n_jobs):
    """Tune on the training part (LOO 1-NN), then score the kept fit. Returns a dict."""
    y_side = np.zeros((len(y), len(np.unique(y))))  # one-hot on training rows, 0 on test rows
    y_side[train, np.searchsorted(np.unique(y), y[train])] = 1.0
    best, seconds, warned = None, [], 0
    for label, factory in _grid(method, X):
        Z, sec, w = _fit(factory(seed, n_jobs, y_side), X, y_side)
        seconds.append(sec)
        warned += w
        score = _loo_1nn(Z[train], y[train])
        if best is None or score > best[0]:
            best = (score, label, Z)
    _, label, Z = best
    accuracy = KNeighborsClassifier(1).fit(Z[train], y[train]).score(Z[test], y[test])
    trust = trustworthiness(X, Z, n_neighbors=TRUST_NEIGHBORS)
    return dict(accuracy=accuracy, trust=trust, chosen=label, seconds=seconds, warned=warned, fits=len(seconds))


def _pm(values, scale=1.0, digits=1):
    values = scale * np.asarray(values)
    return f"{values.mean():.{digits}f} ± {values.std():.{digits}f}"


def embedding_rows(datasets=DATASETS, n_repeats=3, seed=0, *, n_jobs=1, n_processes=1, progress=False):
    """Run the protocol of the module docstring; return ``(rows, notes)``.

    Parameters
    ----------
    datasets : iterable of str
        Names from ``DATASETS`` (iris, wine, sonar, ionosphere, glass, breast cancer, digits).
    n_repeats : int
        Repetitions (70 / 30 splits with random_state seed, seed + 1, ...).
    seed : int
        Base seed of the splits, the methods' random_state and the subsamples.
    n_jobs : int
        Threads per fit (kernlearn's n_jobs, Isomap's and SpectralEmbedding's, BLAS pools).
    n_processes : int
        Data sets run in this many parallel processes (results identical; times contended).
    progress : bool
        Print each finished (data set, method).

    Returns
    -------
    rows : list of dict, one per (data set, method), in the order data set, then the kernlearn
        methods, then the baselines. Keys: "data set", "n x d", "method", "1-NN acc (%)" and
        "trust (k=5)" (mean ± std strings), "vs best baseline (acc / trust)" ("win / tie", ...;
        kernlearn methods only, "" for baselines), "chosen" (the kept grid value per
        repetition), "fit [s]" (mean seconds per fit), "warned" (fits with a
        ConvergenceWarning / fits), and the raw numbers under "_acc" and "_trust" (lists, one per
        repetition; drop keys starting with "_" before printing).
    notes : list of str, one per (data set, kernlearn method, score) that is a "loss": the best
        baseline, the margin, the method's chosen grid values and its convergence warnings.
    """
    args = [(name, n_repeats, seed, n_jobs, progress) for name in datasets]
    if n_processes > 1:
        with ProcessPoolExecutor(n_processes) as pool:
            parts = list(pool.map(_dataset_rows, *zip(*args)))
    else:
        parts = [_dataset_rows(*a) for a in args]
    return [r for rows, _ in parts for r in rows], [n for _, notes in parts for n in notes]


def _dataset_rows(name, n_repeats, seed, n_jobs, progress):
    """embedding_rows for one data set."""
    with threadpool_limits(n_jobs):
        return _dataset_rows_limited(name, n_repeats, seed, n_jobs, progress)


def _dataset_rows_limited(name, n_repeats, seed, n_jobs, progress):
    rows, notes = [], []
    X, y = LOADERS[name](seed)
    X = StandardScaler().fit_transform(np.asarray(X, dtype=np.float64))
    y = np.asarray(y)
    results = {m: [] for m in KERNLEARN + BASELINES}
    one = functools.partial(_repetition, name, X, y, seed, n_jobs, progress)
    for outcome in repeat(one, range(n_repeats)):  # bench/repetitions.py: here, or on a Dask cluster
        for method, res in outcome.items():
            results[method].append(res)
    acc = {m: [res["accuracy"] for res in results[m]] for m in results}
    trust = {m: [res["trust"] for res in results[m]] for m in results}
    best_acc = max(BASELINES, key=lambda m: np.mean(acc[m]))
    best_trust = max(BASELINES, key=lambda m: np.mean(trust[m]))
    for method in results:
        res = results[method]
        row = {
            "data set": name,
            "n x d": f"{X.shape[0]} x {X.shape[1]}",
            "method": method,
            "1-NN acc (%)": _pm(acc[method], 100.0),
            "trust (k=5)": _pm(trust[method], 1.0, 3),
            "vs best baseline (acc / trust)": "",
            "chosen": ", ".join(x["chosen"] for x in res),
            "fit [s]": f"{statistics.fmean(s for x in res for s in x['seconds']):.2f}",
            "warned": f"{sum(x['warned'] for x in res)}/{sum(x['fits'] for x in res)}",
            "_acc": acc[method],
            "_trust": trust[method],
        }
        if method in KERNLEARN:
            v_acc = _verdict(acc[method], acc[best_acc])
            v_trust = _verdict(trust[method], trust[best_trust])
            row["vs best baseline (acc / trust)"] = f"{v_acc} / {v_trust} ({best_acc} / {best_trust})"
            for score, verdict, best, ours, theirs, fmt in (
                ("1-NN accuracy", v_acc, best_acc, acc, acc, 100.0),
                ("trustworthiness", v_trust, best_trust, trust, trust, 1.0),
            ):
                if verdict == "loss":
                    margin = fmt * (np.mean(theirs[best]) - np.mean(ours[method]))
                    notes.append(
                        f"{name} / {method}: loses on {score} to {best} by {margin:.3g} "
                        f"({'points' if fmt == 100.0 else 'absolute'}); chosen {row['chosen']}; "
                        f"ConvergenceWarnings {row['warned']}"
                    )
        rows.append(row)
    return rows, notes


def _repetition(name, X, y, seed, n_jobs, progress, r):
    """{method: result} of repetition r (split seed + r)."""
    train, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=seed + r)
    outcome = {}
    for method in KERNLEARN + BASELINES:
        res = outcome[method] = _one_method(method, X, y, train, test, seed + r, n_jobs)
        if progress:
            print(
                f"{name} r={r} {method}: acc {res['accuracy']:.3f} trust {res['trust']:.3f} "
                f"{res['chosen']} {sum(res['seconds']):.1f}s",
                flush=True,
            )
    return outcome


def to_markdown(rows):
    """The rows as a markdown table, without the raw "_" keys."""
    keys = [k for k in rows[0] if not k.startswith("_")]
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1, help="data sets in parallel processes")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "suite_embedding.md")
    add_dask_option(parser)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    with dask_backend(args.dask):
        rows, notes = embedding_rows(
            args.datasets, args.repeats, args.seed, n_jobs=args.n_jobs, n_processes=args.processes, progress=True
        )
    text = (
        f"## Embeddings: held-out 1-NN accuracy and trustworthiness of 2-D embeddings, kernlearn vs "
        f"scikit-learn, one tuning rule\n\n"
        f"kernlearn {kernlearn.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}, n_jobs={args.n_jobs}, "
        f"{datetime.date.today()}; {args.repeats} repetitions (70/30 stratified splits, seeds "
        f"{args.seed}-{args.seed + args.repeats - 1}); standardised features; n_components = {N_COMPONENTS}; "
        f"breast cancer and digits: {SUBSAMPLE}-point stratified subsamples. Tuning (every method): n_neighbors in "
        f"{N_GRID} (KernelPCA: gamma in {G_GRID} x 1/median squared distance; PCA: none) by leave-one-out "
        f"1-NN accuracy on the training part. ColoredMVU gets the training labels only. "
        f"win / tie / loss: paired difference to the best baseline (in brackets) beyond one std of the "
        f"paired differences. Protocol: bench/suite_embedding.py's docstring. Run time "
        f"{time.perf_counter() - start:.0f} s.\n\n"
        f"{to_markdown(rows)}\n\n"
        f"Losses:\n\n" + ("\n".join(f"* {n}" for n in notes) or "* none") + "\n"
    )
    print("\n" + text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
