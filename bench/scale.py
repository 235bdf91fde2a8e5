"""Scale as a curve: fit time, peak memory and quality against n for each method's default fit and
the baselines a user would pick instead, each fit in a fresh process with a time limit.

    python bench/scale.py [--sizes 1000 3000 10000 30000 100000] [--timeout 150]
    python bench/scale.py --methods SimpleNPKL LabelSpreading --python /other/venv/bin/python
    python bench/scale.py --methods MinimumVolumeEmbedding --params '{"basis": null}'

Data: kernlearn.datasets._mixture.make_labelled_mixture(n): a 10-feature mixture of 5 Gaussian classes
(centres 3 N(0, I), unit noise), 10 % of the points labelled at random (-1 for the rest), the
issues' setting. Peak: VmHWM of the child above
its VmHWM with the data loaded. A fit that exceeds --timeout is killed and shown as such, and so is
one whose resident memory passes --max-memory GiB (16 by default, the issues' budget for the
10^6 rows; the parent reads the child's VmRSS twice a second).

Quality, on the unlabelled points (the labelled ones are what every method was given):
* clustering family (SimpleNPKL + KernelKMeans, SimpleNPKLCV + KernelKMeans, LabelSpreading,
  SpectralClustering, KMeans, COP-k-means): the adjusted Rand index of the clusters or of the
  predicted labels against the true classes;
* classifiers (IKLR, SVC, and scikit-learn's Nystroem(n_components=1000) followed by
  LogisticRegression or LinearSVC): every one of the n points labelled, and the accuracy on
  10,000 further points of the same mixture (the issues' IKLR setting);
* metric learners (S3ML; scikit-learn's NeighborhoodComponentsAnalysis on the standardised
  labelled points; standardised Euclidean): the accuracy of 1-NN classification of the
  unlabelled points from the labelled ones in the learned space (S3ML sees the unlabelled
  points through its kNN graph, NCA does not);
* embeddings (MinimumVolumeEmbedding, StructurePreservingEmbedding, ColoredMVU, Isomap,
  SpectralEmbedding, PCA; 2 components each): the accuracy of 5-NN classification of the
  unlabelled points from the labelled ones in the embedding, so ARI and accuracy columns are
  not comparable across the two families.
ColoredMVU and the constrained methods see the labels (SimpleNPKL and COP-k-means through
pairs from them); the other embeddings and KMeans / SpectralClustering do not.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    from sklearn.metrics import adjusted_rand_score
    from sklearn.neighbors import KNeighborsClassifier
    def peak_mb():
        with open("/proc/self/status") as status:
            return next(float(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024.0
    method, n, params = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    bench = sys.argv[4]
    from kernlearn.datasets._mixture import make_labelled_mixture
    supervised = method in ("IKLR", "SVC", "Nystroem+LogisticRegression", "Nystroem+LinearSVC")
    X, labels, y = make_labelled_mixture(n + 10000 if supervised else n)
    if supervised:  # every training point labelled; 10,000 more points to test on
        X, labels, X_test, labels_test = X[:n], labels[:n], X[n:], labels[n:]
        y = labels
    unlabelled = y < 0
    base = peak_mb()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    extra, predicted, embedding = {}, None, None
    if method in ("SimpleNPKL", "SimpleNPKLCV"):
        from kernlearn.cluster import KernelKMeans
        from kernlearn.npkl import SimpleNPKL
        from kernlearn.npkl_cv import SimpleNPKLCV
        model = SimpleNPKL(random_state=0, **params)
        if method == "SimpleNPKLCV":
            model = SimpleNPKLCV(model, random_state=0)
        model.fit(X, y)
        predicted = KernelKMeans(5, random_state=0).fit(model.embedding_).labels_
        inner = model.best_estimator_ if method == "SimpleNPKLCV" else model
        extra = {"iterations": int(inner.n_iter_), "rank": int(inner.eigenvalues_.size),
                 "solver": inner.eigen_solver_}
    elif method == "LabelSpreading":
        from sklearn.semi_supervised import LabelSpreading
        predicted = LabelSpreading(kernel="knn", **params).fit(X, y).transduction_
    elif method == "SpectralClustering":
        from sklearn.cluster import SpectralClustering
        predicted = SpectralClustering(5, affinity="nearest_neighbors", random_state=0, **params).fit_predict(X)
    elif method == "KMeans":
        from sklearn.cluster import KMeans
        predicted = KMeans(5, random_state=0, **params).fit_predict(X)
    elif method == "COP-k-means":
        sys.path.insert(0, bench)
        from cop_kmeans import cop_kmeans
        from kernlearn.constraints import from_labels
        pairs, pair_labels = from_labels(y, partners=5, random_state=0)
        predicted = cop_kmeans(X, 5, pairs, pair_labels, random_state=0, **params)
        extra = {"pairs": len(pair_labels)}
    elif method in ("MinimumVolumeEmbedding", "StructurePreservingEmbedding", "ColoredMVU"):
        from kernlearn import embedding as kernlearn_embedding
        model = getattr(kernlearn_embedding, method)(random_state=0, **params)
        model.fit(X, y) if method == "ColoredMVU" else model.fit(X)
        embedding = model.embedding_
        extra = {"basis": model.basis_, "converged": bool(model.converged_), "rank": int(model.eigenvalues_.size)}
    elif method in ("Isomap", "SpectralEmbedding"):
        from sklearn import manifold
        kw = {} if method == "Isomap" else {"random_state": 0}
        embedding = getattr(manifold, method)(n_components=2, **kw, **params).fit_transform(X)
    elif method == "IKLR":
        from kernlearn.indefinite import IndefiniteKernelLogisticRegression
        model = IndefiniteKernelLogisticRegression(random_state=0, **params).fit(X, y)
        extra = {"model": model.approximation_, "centres": model.n_centers_, "converged": bool(model.converged_.all())}
    elif method == "SVC":
        from sklearn.svm import SVC
        model = SVC(**params).fit(X, y)
    elif method in ("Nystroem+LogisticRegression", "Nystroem+LinearSVC"):
        from sklearn.kernel_approximation import Nystroem
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.svm import LinearSVC
        final = LogisticRegression(max_iter=1000) if method.endswith("LogisticRegression") else LinearSVC()
        model = make_pipeline(Nystroem(n_components=1000, random_state=0, **params), final).fit(X, y)
    elif method in ("S3ML", "NCA", "Euclidean"):
        from sklearn.neighbors import NeighborhoodComponentsAnalysis
        from sklearn.preprocessing import StandardScaler
        known = ~unlabelled
        if method == "S3ML":
            from kernlearn.metric import S3ML
            model = S3ML(random_state=0, **params).fit(X, y)
            metric_space = model.transform(X)
            extra = {"pairs": len(model.pairs_), "converged": bool(model.converged_)}
        elif method == "NCA":
            scaled = StandardScaler().fit_transform(X)
            model = NeighborhoodComponentsAnalysis(random_state=0, **params).fit(scaled[known], y[known])
            metric_space = model.transform(scaled)
        else:
            metric_space = StandardScaler().fit_transform(X)
        nearest = KNeighborsClassifier(1).fit(metric_space[known], y[known])
        metric_accuracy = nearest.score(metric_space[unlabelled], labels[unlabelled])
    elif method == "PCA":
        from sklearn.decomposition import PCA
        embedding = PCA(2, **params).fit_transform(X)
    else:
        raise SystemExit(f"unknown method {method}")
    seconds = time.perf_counter() - start
    if supervised:
        quality, kind = model.score(X_test, labels_test), "test accuracy"
    elif method in ("S3ML", "NCA", "Euclidean"):
        quality, kind = metric_accuracy, "1-NN accuracy"
    elif embedding is not None:
        quality = KNeighborsClassifier(5).fit(embedding[~unlabelled], y[~unlabelled]).score(
            embedding[unlabelled], labels[unlabelled])
        kind = "5-NN accuracy"
    else:
        quality, kind = adjusted_rand_score(labels[unlabelled], predicted[unlabelled]), "ARI"
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb() - base, "quality": quality, "kind": kind, **extra}))
    """
)

CLUSTERING = ["SimpleNPKL", "SimpleNPKLCV", "LabelSpreading", "SpectralClustering", "KMeans", "COP-k-means"]
CLASSIFIERS = ["IKLR", "SVC", "Nystroem+LogisticRegression", "Nystroem+LinearSVC"]
METRICS = ["S3ML", "NCA", "Euclidean"]
EMBEDDINGS = [
    "MinimumVolumeEmbedding",
    "StructurePreservingEmbedding",
    "ColoredMVU",
    "Isomap",
    "SpectralEmbedding",
    "PCA",
]


def resident_gib(pid):
    """The process's VmRSS in GiB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def run(method, n, params, timeout, python, max_memory_gib):
    bench = os.path.dirname(os.path.abspath(__file__))
    child = subprocess.Popen(
        [python, "-c", CHILD, method, str(n), json.dumps(params), bench],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    start = time.monotonic()
    while True:
        try:
            stdout, stderr = child.communicate(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() - start > timeout:
                child.kill()
                child.communicate()
                return {"error": f"no answer in {timeout:.0f} s"}
            if resident_gib(child.pid) > max_memory_gib:
                child.kill()
                child.communicate()
                return {"error": f"stopped at more than {max_memory_gib:g} GiB resident"}
    if child.returncode != 0:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {child.returncode}"
        return {"error": last[:120]}
    return json.loads(stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000, 30000, 100000])
    parser.add_argument("--methods", nargs="+", default=CLUSTERING + EMBEDDINGS + CLASSIFIERS + METRICS)
    parser.add_argument("--params", default="{}", help="JSON keyword arguments for every method's estimator")
    parser.add_argument("--timeout", type=float, default=150.0)
    parser.add_argument("--max-memory", type=float, default=16.0, help="each fit's resident memory, GiB")
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose kernlearn runs the fits")
    args = parser.parse_args()
    params = json.loads(args.params)
    print(
        f"load average at the start: {os.getloadavg()[0]:.2f}; python: {args.python}; params: {params}; "
        f"resident memory per fit at most {args.max_memory:g} GiB\n"
    )
    print("| method | n | seconds | peak MB above data | quality (unlabelled) | notes |")
    print("|---|---|---|---|---|---|")
    for method in args.methods:
        for n in args.sizes:
            r = run(method, n, params, args.timeout, args.python, args.max_memory)
            if "error" in r:
                print(f"| {method} | {n:,} | - | - | - | {r['error']} |", flush=True)
                continue
            notes = ", ".join(
                f"{k} {v}" for k, v in r.items() if k not in ("seconds", "peak_mb", "quality", "kind") and v is not None
            )
            print(
                f"| {method} | {n:,} | {r['seconds']:.1f} | {r['peak_mb']:.0f} | {r['kind']} {r['quality']:.3f} | "
                f"{notes} |",
                flush=True,
            )
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
