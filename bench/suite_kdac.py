"""KDAC at its defaults against the baselines a user would pick for an alternative clustering.

    python bench/suite_kdac.py [--repeats 3] [--datasets Faces Moon MoonN LG Moon1000 LG1000]
                               [--out bench/results/suite_kdac.md]

Data (/work/shared/data/alt-clustering, preprocessing and k as in bench/reproduce_kdac.py, the
paper's Table 1): Faces (standardised; existing = pose, alternative = identity, k = 4), Moon
(moon_400x4, standardised), MoonN (moon_200x7, standardised, noise columns / 3), LG
(Four_gaussian_3D_200, raw), and two larger versions the paper did not run: Moon1000
(moon_1000x4, standardised) and LG1000 (Four_gaussian_3D_1000, raw, whose existing labels are an
XOR-type pairing of the four Gaussians).

Methods, each given k = the number of clusters of the alternative labelling, none tuned (the same
budget, zero, for every method; the paper's own search is reported in
bench/results/kdac_search.md):

* KDAC(k) with every default: sigma = 0.5 x the median distance, lambda = 10 relative to the two
  terms' scales at the start, q = "residual" (d minus the existing clusters' discriminant
  directions, one fit; before issue 47 lambda = 1 absolute and q = "init-gap", the largest gap
  of Phi_0: bench/results/kdac_defaults.md has both; before that q was "auto", the paper's
  refitting rule: bench/results/kdac_scale.md), spectral initialisation, exact sums
  (n <= 2,000).
* For reference only, outside the budget and without a verdict: KDAC at the (sigma, lambda, q)
  the paper's appendix gives for Table 1 (lambda on the paper's absolute scale; the 1000-point
  files reuse their small version's).
* KMeans(k, n_init=10) and SpectralClustering(k, affinity="nearest_neighbors") on X, ignoring the
  existing labels: what a user gets without an alternative-clustering method.
* Orthogonal projection (Cui, Fern & Dy, ICDM 2007): X projected onto the orthogonal complement
  of the span of the existing clusters' centred means, x -> (I - M'(MM')^+ M) x, then KMeans and
  SpectralClustering as above: the naive alternative on the residual.

Scores: NMI (geometric normalisation, as the paper) against the alternative labelling (higher is
better) and against the existing one ("novelty", lower is better), mean ± std over --repeats
seeds (the seed drives k-means, the spectral embedding's start and KDAC's Lanczos / k-means).
Verdict: KDAC's NMI against each baseline's on the paired seeds: "KDAC wins" when the mean
difference is above max(twice its standard error, 0.01), "KDAC loses" when below minus that,
"tie" otherwise.
"""

import argparse
import functools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).parent))
from kernlearn.cluster import KDAC  # noqa: E402
from kernlearn.evaluation import nmi  # noqa: E402
from repetitions import add_dask_option, dask_backend, repeat  # noqa: E402
from reproduce_kdac import DATA  # noqa: E402
from tables import paired_verdict, to_markdown, write_report  # noqa: E402

DATASETS = ("Faces", "Moon", "MoonN", "LG", "Moon1000", "LG1000")


def load(name):
    X = np.loadtxt(DATA / f"{name}.csv", delimiter=",")
    original = np.loadtxt(DATA / f"{name}_original_label.csv", delimiter=",")
    alternative = np.loadtxt(DATA / f"{name}_alt_label.csv", delimiter=",")
    return X, original.astype(int), alternative.astype(int)


def dataset(name):
    """(X, existing labels, alternative labels, k) with the Table 1 preprocessing."""
    if name == "Faces":
        X, identity, pose = load("face_624_20")
        return StandardScaler().fit_transform(X), pose, identity, 4
    if name in ("Moon", "Moon1000"):
        X, original, alternative = load("moon_400x4" if name == "Moon" else "moon_1000x4")
        return StandardScaler().fit_transform(X), original, alternative, 2
    if name == "MoonN":
        X, original, alternative = load("moon_200x7")
        X = StandardScaler().fit_transform(X)
        X[:, 4:] /= 3
        return X, original, alternative, 2
    X, original, alternative = load("Four_gaussian_3D_200" if name == "LG" else "Four_gaussian_3D_1000")
    return X, original, alternative, 2


def orthogonal_residual(X, existing):
    """X projected onto the orthogonal complement of the existing clusters' centred means."""
    Xc = X - X.mean(axis=0)
    means = np.vstack([Xc[existing == c].mean(axis=0) for c in np.unique(existing)])
    P = np.eye(X.shape[1]) - np.linalg.pinv(means) @ means
    return Xc @ P


# Reference only (tuned by the paper's authors, so outside the zero budget; no verdict): the
# appendix's (sigma, lambda, q) of Table 1; the larger files reuse their small version's.
TABLE1 = {
    "Faces": dict(sigma="median", lambda_=1.0, lambda_scale="absolute", n_components=17),
    "Moon": dict(sigma=0.1, lambda_=1.0, lambda_scale="absolute", n_components=3),
    "Moon1000": dict(sigma=0.1, lambda_=1.0, lambda_scale="absolute", n_components=3),
    "MoonN": dict(sigma=0.2, lambda_=0.1, lambda_scale="absolute", n_components=6),
    "LG": dict(sigma=5.0, lambda_=10.0, lambda_scale="absolute", n_components=3),
    "LG1000": dict(sigma=5.0, lambda_=10.0, lambda_scale="absolute", n_components=3),
}
REFERENCE = "KDAC (Table 1 settings; reference, tuned)"


def methods(name, k, seed):
    spectral = dict(affinity="nearest_neighbors", random_state=seed, n_init=10)
    return {
        "KDAC (defaults)": lambda X, y: KDAC(k, random_state=seed).fit(X, y).labels_,
        REFERENCE: lambda X, y: KDAC(k, random_state=seed, **TABLE1[name]).fit(X, y).labels_,
        "KMeans, y ignored": lambda X, y: KMeans(k, n_init=10, random_state=seed).fit(X).labels_,
        "SpectralClustering, y ignored": lambda X, y: SpectralClustering(k, **spectral).fit(X).labels_,
        "orthogonal projection + KMeans": lambda X, y: (
            KMeans(k, n_init=10, random_state=seed).fit(orthogonal_residual(X, y)).labels_
        ),
        "orthogonal projection + SpectralClustering": lambda X, y: (
            SpectralClustering(k, **spectral).fit(orthogonal_residual(X, y)).labels_
        ),
    }


# What the measured table shows (bench/results/suite_kdac.md); kept beside the code that produces it.
WHY = (
    "Where KDAC loses, and why. At its defaults KDAC beats every baseline that ignores the existing "
    "labels where those find the existing clustering again (novelty 1 on Moon, MoonN and LG), and ties or "
    "beats k-means on the orthogonal residual everywhere, but loses to spectral clustering (10-nearest-"
    "neighbour graph) on the orthogonal residual on Moon, Moon1000 and MoonN, and by 0.011 on Faces. The "
    "cause is our default sigma, 0.5 x the median distance (about 1.45 on the standardised moons): too "
    "wide for the two parabolas, which the neighbour graph separates. At the paper's sigma = 0.1 KDAC "
    "finds them exactly (the reference row), but that sigma was tuned by the paper's authors, and the "
    "paper's own search (search=inequality) does not recover it (bench/results/kdac_search.md). The "
    "orthogonal residual suffices on these data because each existing clustering is carried by its class "
    "means. On LG1000 (existing labels pairing the four Gaussians XOR-wise) plain k-means already finds "
    "the alternative. Spectral clustering's 0.346 rows are a neighbour graph that is not connected "
    '(scikit-learn warns; the warning column). With n_components="residual" (one fit; q = 17 on Faces, '
    "as the former default init-gap chose, and lambda relative since issue 47: "
    "bench/results/kdac_defaults.md) KDAC's NMI is the former default's on all six sets; the former "
    'default "auto" first fitted q = k = 4, which ran all 100 outer iterations without converging, '
    "before the refit at q = 17 (43 s; bench/results/kdac_scale.md)."
)


def verdict(ours, theirs):
    """The paired verdict (bench/tables.py), NMI differences below 0.01 counted as ties."""
    return {"win": "KDAC wins", "loss": "KDAC loses", "tie": "tie"}[paired_verdict(ours, theirs, min_margin=0.01)]


def _kdac_repetition(name, X, existing, alternative, k, seed):
    """The NMI scores, novelty, seconds and warnings of one seed (lists of one value per method)."""
    scores, novelty, seconds, warned = {}, {}, {}, {}
    for method, run in methods(name, k, seed).items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            labels = run(X, existing)
            seconds.setdefault(method, []).append(time.perf_counter() - start)
        scores.setdefault(method, []).append(nmi(alternative, labels))
        novelty.setdefault(method, []).append(nmi(existing, labels))
        warned[method] = warned.get(method, 0) + int(len(caught) > 0)
    return scores, novelty, seconds, warned


def suite_rows(names, repeats):
    rows = []
    for name in names:
        X, existing, alternative, k = dataset(name)
        scores, novelty, seconds, warned = {}, {}, {}, {}
        # bench/repetitions.py: the repetitions one after another here, or as tasks on a Dask cluster
        one = functools.partial(_kdac_repetition, name, X, existing, alternative, k)
        for seed, (part_scores, part_novelty, part_seconds, part_warned) in enumerate(repeat(one, range(repeats))):
            for key, values in part_scores.items():
                scores.setdefault(key, []).extend(values)
            for key, values in part_novelty.items():
                novelty.setdefault(key, []).extend(values)
            for key, values in part_seconds.items():
                seconds.setdefault(key, []).extend(values)
            for key, count in part_warned.items():
                warned[key] = warned.get(key, 0) + count
            print(f"{name} seed {seed}: " + ", ".join(f"{m} {v[-1]:.3f}" for m, v in scores.items()), flush=True)
        ours = scores["KDAC (defaults)"]
        for method in scores:
            rows.append(
                {
                    "data set": f"{name} ({X.shape[0]} x {X.shape[1]}, k = {k})",
                    "method": method,
                    "NMI to alternative ↑": f"{np.mean(scores[method]):.3f} ± {np.std(scores[method]):.3f}",
                    "NMI to existing (novelty) ↓": f"{np.mean(novelty[method]):.3f}",
                    "time (s)": f"{np.median(seconds[method]):.2f}",
                    "fits with a warning": f"{warned[method]}/{repeats}",
                    "verdict": "" if method in ("KDAC (defaults)", REFERENCE) else verdict(ours, scores[method]),
                }
            )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "suite_kdac.md")
    add_dask_option(parser)
    args = parser.parse_args(argv)
    command_line = " ".join(sys.argv[1:] if argv is None else argv)
    start = time.perf_counter()
    with dask_backend(args.dask):
        rows = suite_rows(args.datasets, args.repeats)
    tally = {}
    for r in rows:
        if r["verdict"]:
            tally.setdefault(r["method"], []).append(r["verdict"])
    summary = "; ".join(
        f"{method}: {v.count('KDAC wins')} wins, {v.count('tie')} ties, {v.count('KDAC loses')} losses"
        for method, v in tally.items()
    )
    report = [
        "# KDAC at its defaults vs the baselines a user would pick (alternative clustering)\n",
        "Generated by `bench/suite_kdac.py` " + command_line + ". Protocol in the script's docstring: "
        f"{args.repeats} seeds, k = the alternative labelling's, no method tuned. NMI mean ± std over the seeds.\n",
        to_markdown(rows),
        f"\nVerdicts of KDAC (defaults) per baseline: {summary}.\n",
        WHY,
        f"\nTotal wall time: {time.perf_counter() - start:.0f} s (2 cores, shared).",
    ]
    write_report(args.out, report)


if __name__ == "__main__":
    main()
