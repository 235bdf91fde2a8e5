"""Plots of kernlearn's results. Needs matplotlib (``pip install "kernlearn[plot]"``).

Each function draws on ``ax`` when given, else on a new figure from the user's pyplot (whatever
backend is in force: kernlearn never selects one), and returns the Axes.
"""

import numpy as np
import scipy.sparse as sp

from ._utils._pyplot import pyplot
from ._utils._validation import as_real_array

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
        Node positions.
    labels : array of shape (n,), optional
        Node colours (the "tab10" colormap).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure from pyplot.
    title : str, optional
    edge_alpha : float, default 0.25
        Opacity of the edges.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on: a LineCollection of the edges, then the nodes' PathCollection.

    Examples
    --------
    The 5-nearest-neighbour graph of iris, drawn over the petal length and width on a
    figure made without pyplot:

    >>> from matplotlib.axes import Axes
    >>> from matplotlib.figure import Figure
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.graph import knn_graph
    >>> from kernlearn.plot import plot_graph
    >>> X, y = load_iris(return_X_y=True)
    >>> graph = knn_graph(X, 5)
    >>> ax = plot_graph(graph, X[:, 2:], y, ax=Figure().subplots(), title="5-NN graph of iris")
    >>> isinstance(ax, Axes), ax.get_title()
    (True, '5-NN graph of iris')
    >>> edges, points = ax.collections
    >>> len(edges.get_segments()) == graph.nnz // 2, points.get_offsets().shape
    (True, (150, 2))
    """
    coords = as_real_array(coords, "coords", finite=False, ensure_2d=False, allow_nd=True)
    if coords.ndim != 2 or coords.shape[1] != 2:
        raise ValueError(f"coords must have shape (n, 2), got {coords.shape}")
    upper = sp.triu(sp.csr_matrix(graph), k=1).tocoo()
    if upper.shape != (coords.shape[0],) * 2:
        raise ValueError(f"graph shape {upper.shape} does not match {coords.shape[0]} coordinates")
    ax = _axes(ax, (6, 5))
    from matplotlib.collections import LineCollection  # matplotlib is there: _axes checked

    segments = np.stack([coords[upper.row], coords[upper.col]], axis=1)
    ax.add_collection(LineCollection(segments, colors="0.5", linewidths=0.5, alpha=edge_alpha))
    ax.scatter(coords[:, 0], coords[:, 1], s=12, zorder=2, **_colors(labels, "tab10"))
    ax.autoscale_view()
    if title:
        ax.set_title(title)
    return ax


def plot_embedding(embedding, labels=None, *, ax=None, title=None):
    """Scatter the first two columns of an embedding, points coloured by label.

    Parameters
    ----------
    embedding : array of shape (n, d), d >= 2
        E.g. a learned kernel's ``embedding_`` or a ``transform`` output.
    labels : array of shape (n,), optional
        Point colours (the "tab20" colormap).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure from pyplot.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.

    Examples
    --------
    The kernel SimpleNPKL learns on iris from the labels of every fifth point (y = -1 marks
    the others), drawn on a figure made without pyplot and saved:

    >>> from matplotlib.figure import Figure
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.npkl import SimpleNPKL
    >>> from kernlearn.plot import plot_embedding
    >>> X, y = load_iris(return_X_y=True)
    >>> model = SimpleNPKL(random_state=0).fit(X, np.where(np.arange(len(y)) % 5 == 0, y, -1))
    >>> fig = Figure()
    >>> ax = plot_embedding(model.embedding_, y, ax=fig.subplots(), title="SimpleNPKL on iris")
    >>> len(ax.collections), ax.collections[0].get_offsets().shape
    (1, (150, 2))
    >>> fig.savefig("embedding.png")
    """
    embedding = as_real_array(embedding, "embedding", finite=False, ensure_2d=False, allow_nd=True)
    if embedding.ndim != 2 or embedding.shape[1] < 2:
        raise ValueError(f"embedding must have shape (n, >= 2), got {embedding.shape}")
    ax = _axes(ax, (6, 5))
    ax.scatter(embedding[:, 0], embedding[:, 1], s=12, **_colors(labels, "tab20"))
    if title:
        ax.set_title(title)
    return ax


def plot_convergence(history, *, ax=None, title=None):
    """Dual objective J, primal objective P (left axis) and duality gap P - J (right axis, log
    scale) per iteration, from an estimator's ``history_``.

    Parameters
    ----------
    history : dict of arrays
        With entries "dual", "primal" and "gap" (one value per iteration), as the
        ``history_`` of :class:`kernlearn.npkl.SimpleNPKL`.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure from pyplot. The gap goes on a twin Axes.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The Axes of the objectives.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.npkl import SimpleNPKL
    >>> from kernlearn.plot import plot_convergence
    >>> X, y = load_iris(return_X_y=True)
    >>> model = SimpleNPKL(random_state=0).fit(X, np.where(np.arange(len(y)) % 5 == 0, y, -1))
    >>> model.converged_, sorted(model.history_)
    (True, ['dual', 'gap', 'matvecs', 'primal', 'rank', 'step'])
    >>> ax = plot_convergence(model.history_, ax=Figure().subplots(), title="SimpleNPKL on iris")
    >>> [line.get_label() for line in ax.get_lines()], len(ax.figure.axes)
    (['dual J', 'primal P'], 2)
    """
    for key in ("dual", "primal", "gap"):
        if key not in history:
            raise ValueError(f"history needs a {key!r} entry")
    ax = _axes(ax, (6, 4))
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
        Where to draw; default a new figure from pyplot. A colorbar is added to its figure.
    title : str, optional
        Put before the count of non-zeros in the title.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes of the heat map.

    Examples
    --------
    The sparse metric S3ML learns on wine from the labels of 20 % of the points:

    >>> from matplotlib.figure import Figure
    >>> from kernlearn.datasets import load_wine
    >>> from kernlearn.metric import S3ML
    >>> from kernlearn.plot import plot_metric
    >>> data = load_wine()
    >>> labelled = np.random.default_rng(0).random(len(data.target)) < 0.2
    >>> model = S3ML(rho=0.1, random_state=0).fit(data.data, np.where(labelled, data.target, -1))
    >>> ax = plot_metric(model.metric_, data.feature_names, ax=Figure().subplots(), title="S3ML on wine")
    >>> ax.get_title()
    'S3ML on wine: 55 of 169 entries non-zero'
    >>> len(ax.figure.axes), len(ax.get_xticklabels())
    (2, 13)
    """
    M = as_real_array(M, "M", finite=False, ensure_2d=False, allow_nd=True)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square matrix, got shape {M.shape}")
    m = M.shape[0]
    if feature_names is not None and len(feature_names) != m:
        raise ValueError(f"feature_names has {len(feature_names)} names for {m} features")
    ax = _axes(ax, (6, 5))
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


def _axes(ax, figsize):
    """``ax``, or the Axes of a new figure from the user's pyplot, which is imported only then."""
    if ax is None:
        _, ax = pyplot().subplots(figsize=figsize)
    return ax
