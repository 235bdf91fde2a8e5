"""Why MinimumVolumeEmbedding loses to PCA(2) on three held-back sets (issue 47): per set, the
1-NN accuracy of bench/suite_heldback.py's protocol (stratified 70 / 30, 5 seeds, standardised
features) in X itself, PCA(2), MVE(2), MVE's whole learned kernel (every eigenvector, scaled) and
Isomap(2) at the same n_neighbors; the share of MVE's trace in its top 2 eigenvalues (PCA's
explained variance for comparison), the kNN graph's connected components, and MVE at
n_neighbors 10 and 20 (seeds 0-1). Run after the held-back table was reported: it diagnoses, it
does not choose a default. Results: bench/results/suite_heldback.md, "MVE: why it loses".

    python bench/diagnose_mve_heldback.py urine mpg participation cats generated
"""

import sys
import warnings

import numpy as np
from scipy.sparse.csgraph import connected_components
from sklearn.decomposition import PCA
from sklearn.manifold import Isomap
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier, kneighbors_graph
from sklearn.preprocessing import StandardScaler

import heldback_data
from kernlearn.embedding import MinimumVolumeEmbedding


def one_nn(Z, y, train, test):
    return 100 * KNeighborsClassifier(1).fit(Z[train], y[train]).score(Z[test], y[test])


def mve(Xs, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MinimumVolumeEmbedding(2, **params).fit(Xs)


def diagnose(name, seeds=5):
    X, y = heldback_data.load_heldback(name)[:2]
    Xs = StandardScaler().fit_transform(X)
    pca = PCA(2).fit(Xs)
    model = mve(Xs)
    k = model.n_neighbors
    lam = np.clip(model.eigenvalues_, 0.0, None)
    order = np.argsort(lam)[::-1]
    whole = model.eigenvectors_[:, order] * np.sqrt(lam[order])
    graph = kneighbors_graph(Xs, k, include_self=False)
    pieces = connected_components(graph + graph.T, directed=False)[0]
    iso = Isomap(n_neighbors=k, n_components=2).fit_transform(Xs)
    rows = {key: [] for key in ("X", "PCA(2)", "MVE(2)", "MVE kernel", "Isomap(2)", "MVE k=10", "MVE k=20")}
    for seed in range(seeds):
        train, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=seed)
        rows["X"].append(one_nn(Xs, y, train, test))
        rows["PCA(2)"].append(one_nn(pca.transform(Xs), y, train, test))
        rows["MVE(2)"].append(one_nn(model.embedding_, y, train, test))
        rows["MVE kernel"].append(one_nn(whole, y, train, test))
        rows["Isomap(2)"].append(one_nn(iso, y, train, test))
        if seed < 2:
            for kk in (10, 20):
                rows[f"MVE k={kk}"].append(one_nn(mve(Xs, n_neighbors=kk).embedding_, y, train, test))
    means = " | ".join(f"{np.mean(v):.1f}" for v in rows.values())
    print(
        f"| {name} ({len(y)} x {X.shape[1]}) | {means} | {lam[order[:2]].sum() / lam.sum():.3f} "
        f"({pca.explained_variance_ratio_.sum():.3f}) | {pieces} |"
    )


def main(names):
    print(
        "| set | X | PCA(2) | MVE(2) | MVE kernel | Isomap(2) | MVE k=10 | MVE k=20 | MVE top-2 trace share "
        "(PCA's) | kNN graph components |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        diagnose(name)


if __name__ == "__main__":
    main(sys.argv[1:] or ["urine", "mpg", "participation", "cats", "generated"])
