"""Plots of kernlearn's results. Needs matplotlib (``pip install "kernlearn[plot]"``).

Each function draws on ``ax`` when given, else on a new figure from the user's pyplot (whatever
backend is in force: kernlearn never selects one), and returns the Axes. Every figure reads on its
own: both axes are labelled, colours that mean something get a legend (a few classes) or a colour
bar (a continuous quantity), and ``title`` is where the caller names the data and the method.
"""

import numpy as np
import scipy.sparse as sp

from ._utils._pyplot import pyplot
from ._utils._validation import as_real_array

__all__ = ["plot_convergence", "plot_embedding", "plot_graph", "plot_metric"]


# Up to this many distinct labels are classes, each with its colour in the legend; more (or
# non-integer values) are a continuous quantity on a colour bar.
_MAX_CLASSES = 20


def _scatter(ax, coords, labels, label_name, **kwargs):
    """Scatter ``coords`` coloured by ``labels``, with the legend or colour bar that says what the
    colours mean. Unlabelled (labels None) points take the default colour and need no key."""
    if labels is None:
        return ax.scatter(coords[:, 0], coords[:, 1], **kwargs)
    labels = np.asarray(labels)
    if labels.shape != (coords.shape[0],):
        raise ValueError(f"labels must have shape ({coords.shape[0]},), got {labels.shape}")
    values, codes = np.unique(labels, return_inverse=True)
    integral = labels.dtype.kind in "biuOSU" or bool(np.all(np.mod(values, 1) == 0))
    if integral and values.size <= _MAX_CLASSES:
        from matplotlib import colormaps
        from matplotlib.lines import Line2D

        palette = colormaps["tab10" if values.size <= 10 else "tab20"].colors
        points = ax.scatter(coords[:, 0], coords[:, 1], c=np.asarray(palette)[codes], **kwargs)
        handles = [
            Line2D([], [], linestyle="", marker="o", color=palette[i], label=str(value))
            for i, value in enumerate(values)
        ]
        ax.legend(handles=handles, title=label_name, fontsize="small", loc="best")
        return points
    points = ax.scatter(coords[:, 0], coords[:, 1], c=labels.astype(float), cmap="viridis", **kwargs)
    ax.figure.colorbar(points, ax=ax, label=label_name)
    return points


def _label_axes(ax, axis_labels, title):
    if len(axis_labels) != 2:
        raise ValueError(f"axis_labels must be two strings (x, y), got {axis_labels!r}")
    ax.set_xlabel(axis_labels[0])
    ax.set_ylabel(axis_labels[1])
    if title:
        ax.set_title(title)


def plot_graph(
    graph,
    coords,
    labels=None,
    *,
    ax=None,
    title=None,
    edge_alpha=0.25,
    axis_labels=("coordinate 1", "coordinate 2"),
    label_name="label",
):
    """Draw a graph's edges over 2-D node coordinates, nodes coloured by label.

    Parameters
    ----------
    graph : sparse matrix of shape (n, n)
        Only the pattern of its upper triangle is drawn.
    coords : array of shape (n, 2)
        Node positions.
    labels : array of shape (n,), optional
        Node colours: up to 20 distinct integer (or string) labels are classes, one colour each
        and a legend; otherwise a continuous colour scale with a colour bar.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure from pyplot.
    title : str, optional
        Name the data and the graph here.
    edge_alpha : float, default 0.25
        Opacity of the edges.
    axis_labels : (str, str), default ("coordinate 1", "coordinate 2")
        What the node coordinates are (e.g. ``("PC 1", "PC 2")``).
    label_name : str, default "label"
        Title of the legend (or label of the colour bar) of ``labels``.

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
    >>> ax = plot_graph(
    ...     graph, X[:, 2:], y, ax=Figure().subplots(), title="5-NN graph of iris",
    ...     axis_labels=("petal length (cm)", "petal width (cm)"), label_name="species",
    ... )
    >>> isinstance(ax, Axes), ax.get_title(), ax.get_xlabel()
    (True, '5-NN graph of iris', 'petal length (cm)')
    >>> edges, points = ax.collections
    >>> len(edges.get_segments()) == graph.nnz // 2, points.get_offsets().shape
    (True, (150, 2))
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['0', '1', '2']
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
    _scatter(ax, coords, labels, label_name, s=12, zorder=2)
    ax.autoscale_view()
    _label_axes(ax, axis_labels, title)
    return ax


def plot_embedding(
    embedding, labels=None, *, ax=None, title=None, axis_labels=("dimension 1", "dimension 2"), label_name="label"
):
    """Scatter the first two columns of an embedding, points coloured by label.

    Parameters
    ----------
    embedding : array of shape (n, d), d >= 2
        E.g. a learned kernel's ``embedding_`` or a ``transform`` output.
    labels : array of shape (n,), optional
        Point colours: up to 20 distinct integer (or string) labels are classes, one colour each
        and a legend; otherwise a continuous colour scale with a colour bar.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure from pyplot.
    title : str, optional
        Name the data and the method here.
    axis_labels : (str, str), default ("dimension 1", "dimension 2")
        What the two columns are.
    label_name : str, default "label"
        Title of the legend (or label of the colour bar) of ``labels``.

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
    >>> ax = plot_embedding(model.embedding_, y, ax=fig.subplots(), title="SimpleNPKL on iris", label_name="species")
    >>> len(ax.collections), ax.collections[0].get_offsets().shape
    (1, (150, 2))
    >>> ax.get_xlabel(), ax.get_ylabel(), ax.get_legend().get_title().get_text()
    ('dimension 1', 'dimension 2', 'species')
    >>> fig.savefig("embedding.png")
    """
    embedding = as_real_array(embedding, "embedding", finite=False, ensure_2d=False, allow_nd=True)
    if embedding.ndim != 2 or embedding.shape[1] < 2:
        raise ValueError(f"embedding must have shape (n, >= 2), got {embedding.shape}")
    ax = _axes(ax, (6, 5))
    _scatter(ax, embedding, labels, label_name, s=12)
    _label_axes(ax, axis_labels, title)
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
    >>> ax.get_ylabel(), [text.get_text() for text in ax.get_legend().get_texts()]
    ('objective', ['dual J', 'primal P', 'gap P - J'])
    """
    for key in ("dual", "primal", "gap"):
        if key not in history:
            raise ValueError(f"history needs a {key!r} entry")
    ax = _axes(ax, (6, 4))
    steps = np.arange(len(history["dual"]))
    ax.plot(steps, history["dual"], label="dual J")
    ax.plot(steps, history["primal"], label="primal P")
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective")
    gap_ax = ax.twinx()
    (gap,) = gap_ax.semilogy(
        steps, np.maximum(np.asarray(history["gap"], dtype=float), 1e-300), color="tab:red", label="gap P - J"
    )
    gap_ax.set_ylabel("gap P - J (log scale)")
    # One legend for the three curves, on the Axes returned.
    ax.legend(handles=[*ax.get_lines(), gap], loc="center right")
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
    >>> len(ax.figure.axes), len(ax.get_xticklabels()), ax.get_xlabel()
    (2, 13, 'feature')
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
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="entry of M")
    ax.set_xlabel("feature")
    ax.set_ylabel("feature")
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
