"""Plots of kernlearn's results. Needs matplotlib (``pip install "kernlearn[plot]"``).

Each function draws on ``ax`` when given, else on a new figure from the user's pyplot (whatever
backend is in force: kernlearn never selects one), and returns the Axes.
"""

import numpy as np
import scipy.sparse as sp

from ._utils._pyplot import pyplot

__all__ = ["plot_convergence", "plot_embedding", "plot_graph", "plot_metric"]


def _colors(labels, cmap):
    # A colormap without labels makes matplotlib warn; unlabelled points take the default colour.
    return {} if labels is None else {"c": labels, "cmap": cmap}


def plot_graph(graph, coords, labels=None, *, ax=None, title=None, edge_alpha=0.25):
    """Draw a graph's edges over 2-D node coordinates, nodes coloured by label.

    Parameters
    ----------
    graph : sparse matrix of shape (n, n)
        Only the pattern of its upper triangle is drawn.
    coords : array of shape (n, 2)
    labels : array of shape (n,), optional
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = pyplot()
    from matplotlib.collections import LineCollection

    coords = np.asarray(coords, dtype=float)
    if coords.ndim != 2 or coords.shape[1] != 2:
        raise ValueError(f"coords must have shape (n, 2), got {coords.shape}")
    upper = sp.triu(sp.csr_matrix(graph), k=1).tocoo()
    if upper.shape != (coords.shape[0],) * 2:
        raise ValueError(f"graph shape {upper.shape} does not match {coords.shape[0]} coordinates")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 5))
    segments = np.stack([coords[upper.row], coords[upper.col]], axis=1)
    ax.add_collection(LineCollection(segments, colors="0.5", linewidths=0.5, alpha=edge_alpha))
    ax.scatter(coords[:, 0], coords[:, 1], s=12, zorder=2, **_colors(labels, "tab10"))
    ax.autoscale_view()
    if title:
        ax.set_title(title)
    return ax


def plot_embedding(embedding, labels=None, *, ax=None, title=None):
    """Scatter the first two columns of an embedding, points coloured by label.

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = pyplot()
    embedding = np.asarray(embedding, dtype=float)
    if embedding.ndim != 2 or embedding.shape[1] < 2:
        raise ValueError(f"embedding must have shape (n, >= 2), got {embedding.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 5))
    ax.scatter(embedding[:, 0], embedding[:, 1], s=12, **_colors(labels, "tab20"))
    if title:
        ax.set_title(title)
    return ax


def plot_convergence(history, *, ax=None, title=None):
    """Dual objective J, primal objective P (left axis) and duality gap P - J (right axis, log
    scale) per iteration, from an estimator's ``history_``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = pyplot()
    for key in ("dual", "primal", "gap"):
        if key not in history:
            raise ValueError(f"history needs a {key!r} entry")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    steps = np.arange(len(history["dual"]))
    ax.plot(steps, history["dual"], label="dual J")
    ax.plot(steps, history["primal"], label="primal P")
    ax.set_xlabel("iteration")
    gap_ax = ax.twinx()
    gap_ax.semilogy(steps, np.maximum(np.asarray(history["gap"], dtype=float), 1e-300), color="tab:red", label="gap")
    gap_ax.set_ylabel("gap P - J")
    ax.legend(loc="center right")
    if title:
        ax.set_title(title)
    return ax


def plot_metric(M, feature_names=None, *, ax=None, title=None):
    """Heat map of a (sparse) Mahalanobis matrix: exact zeros white, signs on a diverging scale
    symmetric about 0, and the number of non-zeros in the title.

    Parameters
    ----------
    M : array of shape (m, m)
    feature_names : sequence of m str, optional
        Tick labels.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = pyplot()
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square matrix, got shape {M.shape}")
    m = M.shape[0]
    if feature_names is not None and len(feature_names) != m:
        raise ValueError(f"feature_names has {len(feature_names)} names for {m} features")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 5))
    scale = float(np.abs(M).max()) or 1.0
    # Masked zeros show the background: the support is read off at a glance.
    shown = np.ma.masked_where(M == 0, M)
    image = ax.imshow(shown, cmap="RdBu_r", vmin=-scale, vmax=scale, interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    if feature_names is not None:
        ax.set_xticks(range(m), labels=list(feature_names), rotation=90, fontsize=7)
        ax.set_yticks(range(m), labels=list(feature_names), fontsize=7)
    nnz = int(np.count_nonzero(M))
    ax.set_title(f"{title + ': ' if title else ''}{nnz} of {m * m} entries non-zero")
    return ax
