"""Every figure kernlearn draws reads on its own (issue 47, item 4).

The gallery scripts (examples/, run with KERNLEARN_EXAMPLES_QUICK=1 where they would take long),
the demo's figures (its ``*_figure`` functions, on small stand-in inputs of the shapes its
sections produce) and the ``kernlearn.plot`` functions are rendered with the Agg backend, and every
Axes is checked: an x and a y label, a title (the Axes' or the figure's) that names the data and
the method, and a legend or colour bar wherever more than one colour is drawn.
"""

import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

matplotlib = pytest.importorskip("matplotlib")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _colorbar_mappables(fig):
    """The Axes each colour bar of ``fig`` explains, and the colour bars' own Axes."""
    explained, bars = set(), set()
    for ax in fig.axes:
        bar = getattr(ax, "_colorbar", None)  # set by matplotlib on a colour bar's Axes
        if bar is not None:
            explained.add(bar.mappable.axes)
        if bar is not None or ax.get_label() == "<colorbar>":
            bars.add(ax)
    return explained, bars


def _colours(ax):
    """(distinct colours of the lines and markers drawn, whether a colormap is drawn)."""
    colours, mapped = set(), bool(ax.images)
    for line in ax.get_lines():
        if not line.get_label().startswith("_"):  # reference lines (axhline) carry no meaning
            colours.add(matplotlib.colors.to_hex(line.get_color()))
    for collection in ax.collections:
        if collection.get_array() is not None:  # scatter c=values, contour(f): a colormap
            mapped = True
        elif isinstance(collection, matplotlib.collections.PathCollection):
            colours.update(matplotlib.colors.to_hex(c) for c in collection.get_facecolors())
    return colours, mapped


def check_figure(fig, data, method):
    """Every Axes of ``fig`` is labelled and titled, with a key to its colours. ``data`` and
    ``method`` are a string or a tuple of alternatives, one of which each title must name."""
    data, method = (data,) if isinstance(data, str) else data, (method,) if isinstance(method, str) else method
    explained, bars = _colorbar_mappables(fig)
    suptitle = fig._suptitle.get_text() if fig._suptitle is not None else ""  # get_suptitle: matplotlib 3.8
    problems = []
    for i, ax in enumerate(fig.axes):
        if ax in bars:
            continue
        twins = [a for a in ax.get_shared_x_axes().get_siblings(ax) if a not in bars]
        where = f"Axes {i} ({ax.get_title()!r})"
        if not any(a.get_xlabel() for a in twins):
            problems.append(f"{where}: no x label")
        if not ax.get_ylabel():
            problems.append(f"{where}: no y label")
        title = " ".join([suptitle, *(a.get_title() for a in twins)]).lower()
        if not any(d.lower() in title for d in data):
            problems.append(f"{where}: the title {title!r} names none of the data {data}")
        if not any(m.lower() in title for m in method):
            problems.append(f"{where}: the title {title!r} names none of the methods {method}")
        colours, mapped = _colours(ax)
        keyed = ax.get_legend() is not None or bool(fig.legends)
        if mapped and ax not in explained:
            problems.append(f"{where}: a colormap without a colour bar")
        if len(colours) > 1 and not (keyed or ax in explained):
            problems.append(f"{where}: {len(colours)} colours without a legend")
    assert not problems, "\n".join(problems)


# -- the gallery

GALLERY = {
    "plot_alternative_views.py": ("two-group structures", "KDAC"),
    "plot_embeddings.py": ("wine", ("colored MVU", "minimum volume embedding", "structure preserving embedding")),
    "plot_iklr_solvers.py": ("two moons", "IKLR"),
    "plot_kernel_operator.py": ("two moons", "IKLR"),
    "plot_npkl_kernel.py": ("iris", "SimpleNPKL"),
    "plot_npkl_scale.py": ("mixture", "SimpleNPKL"),
    "plot_similarity_kernel.py": ("sonar", "ESKL"),
    "plot_sparse_metric.py": ("wine", "S3ML"),
}


def test_every_gallery_script_is_checked():
    assert sorted(p.name for p in EXAMPLES.glob("plot_*.py")) == sorted(GALLERY)


@pytest.mark.parametrize("script", sorted(GALLERY))
def test_gallery_figure_reads_on_its_own(script, monkeypatch, capsys):
    import matplotlib.pyplot as plt

    # Agg, and no show(): on Agg it warns that it cannot show (an error under filterwarnings).
    monkeypatch.setenv("KERNLEARN_EXAMPLES_QUICK", "1")
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: None)
    backend = matplotlib.get_backend()
    plt.switch_backend("agg")
    try:
        plt.close("all")
        runpy.run_path(str(EXAMPLES / script), run_name="__main__")
        figures = [plt.figure(number) for number in plt.get_fignums()]
        assert figures, f"{script} draws no figure"
        for fig in figures:
            check_figure(fig, *GALLERY[script])
    finally:
        plt.close("all")
        plt.switch_backend(backend)


# -- the demo: each *_figure function on stand-in inputs of the shapes its section produces


def _demo_inputs():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    history = {"dual": np.linspace(-5, 1, 8), "primal": np.linspace(9, 1.1, 8), "gap": np.logspace(1, -3, 8)}
    npkl_model = SimpleNamespace(embedding_=rng.normal(size=(60, 3)), history_=history)
    rekl = SimpleNamespace(
        eigenvalues_of_S_=[np.sort(rng.normal(size=30)) for _ in range(3)],
        spectra_=np.abs(rng.normal(size=(1, 3, 30))),
        gamma_=np.full((1, 3), 1 / 3),
    )
    moons = (rng.normal(size=(40, 4)), np.arange(40) % 2, (np.arange(40) // 2) % 2, np.arange(40) % 2)
    faces = (rng.normal(size=(40, 20)), np.arange(40) % 4, (np.arange(40) // 4) % 4, np.arange(40) % 5)
    curves = {(name, s): np.linspace(1, 0.5, 6) for name in ("ionosphere", "sonar") for s in ("A", "B")}
    return {
        "knn_graph_figure": ((), ("wine", "NN graph")),
        "spectral_embedding_figure": (((rng.normal(size=(60, 2)), y),), ("wine", "spectral embedding")),
        "npkl_figure": (({("wine", "SHL"): (npkl_model, y)},), ("wine", "SimpleNPKL")),
        "embedding_methods_figure": (
            (({name: rng.normal(size=(60, 2)) for name in ("PCA", "MVE", "SPE", "colored MVU")}, y),),
            ("wine", ("PCA", "MVE", "SPE", "colored MVU")),
        ),
        "iklr_figure": ((curves,), (("sonar", "ionosphere"), "IKLR")),
        "similarity_figure": (({"REKL": rekl},), ("sonar", "REKL")),
        "kdac_figure": (({"moons": moons, "faces": faces},), (("moons", "faces"), "KDAC")),
        "metric_figure": (
            ({"wine": (np.diag([1.0, 0.0, 2.0]), list("abc")), "breast cancer": (np.eye(2), list("ab"))},),
            (("wine", "breast cancer"), "S3ML"),
        ),
    }


DEMO = _demo_inputs()


def test_every_demo_plot_has_a_figure_function_checked_here():
    from kernlearn import demo

    plots = {name for name in dir(demo) if name.endswith("_plot") or name == "plot_section"}
    figures = {name for name in dir(demo) if name.endswith("_figure")}
    assert len(plots) == len(figures) == len(DEMO)
    assert figures == set(DEMO)


@pytest.mark.parametrize("name", sorted(DEMO))
def test_demo_figure_reads_on_its_own(name):
    from kernlearn import demo

    args, (data, method) = DEMO[name]
    fig = getattr(demo, name)(*args)
    fig.canvas.draw()  # laid out and drawn as savefig would, without a file
    check_figure(fig, data, method)


# -- kernlearn.plot, drawn on a Figure without pyplot


def test_plot_functions_label_what_they_draw():
    from matplotlib.figure import Figure

    from kernlearn.plot import plot_convergence, plot_embedding, plot_graph, plot_metric

    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], 10)
    fig = Figure(figsize=(12, 8))
    axes = fig.subplots(2, 3).ravel()
    plot_embedding(rng.normal(size=(30, 2)), labels, ax=axes[0], title="SimpleNPKL on iris")
    plot_embedding(rng.normal(size=(30, 2)), rng.random(30), ax=axes[1], title="SimpleNPKL on iris", label_name="t")
    plot_graph(sp.random(30, 30, density=0.2, random_state=0), rng.normal(size=(30, 2)), labels, ax=axes[2],
               title="kNN graph of iris")  # fmt: skip
    plot_convergence(
        {"dual": [0.0, 1.0], "primal": [2.0, 1.5], "gap": [2.0, 0.5]}, ax=axes[3], title="SimpleNPKL on iris"
    )
    plot_metric(np.diag([1.0, 0.0, -1.0]), ["a", "b", "c"], ax=axes[4], title="S3ML on iris")
    plot_embedding(rng.normal(size=(30, 2)), ax=axes[5], title="SimpleNPKL on iris")
    fig.canvas.draw()
    check_figure(fig, "iris", ("SimpleNPKL", "S3ML", "kNN graph"))
    # classes get a legend with one entry per label; a continuous quantity a colour bar
    assert [t.get_text() for t in axes[0].get_legend().get_texts()] == ["0", "1", "2"]
    assert axes[1].get_legend() is None and axes[1] in _colorbar_mappables(fig)[0]
    assert axes[5].get_legend() is None  # one colour: nothing to explain


def test_string_labels_are_classes_and_labels_are_checked():
    from matplotlib.figure import Figure

    from kernlearn.plot import plot_embedding

    Z = np.arange(8.0).reshape(4, 2)
    names = np.array(["rock", "mine", "rock", "mine"])
    ax = plot_embedding(Z, names, ax=Figure().subplots(), label_name="class")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["mine", "rock"]
    with pytest.raises(ValueError, match="labels must have shape"):
        plot_embedding(Z, names[:3], ax=Figure().subplots())
    with pytest.raises(ValueError, match="axis_labels"):
        plot_embedding(Z, ax=Figure().subplots(), axis_labels=("x",))


def test_the_checker_catches_an_unlabelled_figure():
    # The check must be able to fail: the embeddings example as issue 47 found it.
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.subplots()
    ax.scatter([0, 1, 2], [0, 1, 2], c=[0, 1, 2], cmap="viridis")
    ax.set_title("colored MVU: converged")
    with pytest.raises(AssertionError) as failure:
        check_figure(fig, "wine", "MVU")
    message = str(failure.value)
    for problem in ("no x label", "no y label", "names none of the data", "a colormap without a colour bar"):
        assert problem in message
