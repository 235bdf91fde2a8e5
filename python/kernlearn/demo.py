"""The demo: kernlearn's main job on the bundled real data sets (``python -m kernlearn demo``).

Each method issue adds its section here; a section prints a table and may save a plot.
"""

import time
from pathlib import Path

import numpy as np
from scipy.sparse.csgraph import connected_components
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler

from . import datasets
from .graph import knn, knn_graph

__all__ = ["run_demo"]

DATASETS = {
    "iris": datasets.load_iris,
    "wine": datasets.load_wine,
    "sonar": datasets.load_sonar,
    "ionosphere": datasets.load_ionosphere,
    "glass": datasets.load_glass,
    "faces": datasets.load_faces,
}


def _standardized(name):
    bunch = DATASETS[name]()
    # Constant columns (ionosphere's second feature) would divide by zero; StandardScaler keeps
    # them at 0.
    return StandardScaler().fit_transform(bunch.data), bunch.target


def knn_graph_section(n_neighbors=10, n_jobs=None):
    """kNN graphs of every bundled data set, checked against scikit-learn. Returns the rows."""
    rows = []
    for name in DATASETS:
        X, _ = _standardized(name)
        nn = NearestNeighbors(n_neighbors=n_neighbors, algorithm="brute").fit(X)
        ref_dist, _ = nn.kneighbors()
        reference = nn.kneighbors_graph(mode="connectivity")
        same_distances = np.allclose(knn(X, n_neighbors, n_jobs=n_jobs)[1], ref_dist, rtol=1e-12, atol=1e-12)
        for mode in ("symmetric", "mutual"):
            start = time.perf_counter()
            G = knn_graph(X, n_neighbors, mode=mode, n_jobs=n_jobs)
            elapsed = time.perf_counter() - start
            expected = reference.maximum(reference.T) if mode == "symmetric" else reference.minimum(reference.T)
            degree = np.diff(G.indptr)
            rows.append(
                {
                    "data set": name,
                    "n": X.shape[0],
                    "d": X.shape[1],
                    "mode": mode,
                    "edges": G.nnz // 2,
                    "isolated": int(np.sum(degree == 0)),
                    "components": connected_components(G, directed=False)[0],
                    "time [ms]": f"{1e3 * elapsed:.2f}",
                    "= sklearn": _agreement((G != expected).nnz == 0, same_distances),
                }
            )
    return rows


def _agreement(same_graph, same_distances):
    # scikit-learn breaks distance ties arbitrarily, kernlearn by lower index: with duplicate
    # points (iris has some) the graphs may differ while every kNN distance agrees.
    if same_graph and same_distances:
        return "yes"
    return "yes, up to ties" if same_distances else "NO"


def format_table(rows):
    """Plain-text table with right-aligned columns."""
    headers = list(rows[0])
    cells = [[str(r[h]) for h in headers] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(cell, widths)) for cell in cells]
    return "\n".join(lines)


def plot_section(out_dir, n_neighbors=10):
    """Save the wine kNN graph drawn on its first two principal components. Returns the path,
    or None when matplotlib is not installed."""
    try:
        from .plot import _pyplot, plot_graph

        plt = _pyplot()
    except ImportError:
        return None
    from sklearn.decomposition import PCA

    X, y = _standardized("wine")
    G = knn_graph(X, n_neighbors, mode="mutual")
    fig, ax = plt.subplots(figsize=(6, 5))
    plot_graph(G, PCA(n_components=2).fit_transform(X), y, ax=ax,
               title=f"wine: mutual {n_neighbors}-NN graph on PCA coordinates")
    path = Path(out_dir) / "kernlearn_demo_knn_graph.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def run_demo(out_dir=".", n_neighbors=10, n_jobs=None, plot=True, stream=print):
    """Run every demo section, printing as it goes."""
    stream(f"kNN graphs (k = {n_neighbors}) of the bundled data sets, standardized features")
    stream(format_table(knn_graph_section(n_neighbors, n_jobs)))
    if plot:
        path = plot_section(out_dir, n_neighbors)
        stream(f"\nplot saved to {path}" if path else '\n(matplotlib not installed: pip install "kernlearn[plot]" for the plot)')
