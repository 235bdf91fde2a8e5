"""kernlearn.plot leaves the user's matplotlib state alone and draws what it is given."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("matplotlib")

from kernlearn.plot import plot_convergence, plot_embedding, plot_graph, plot_metric  # noqa: E402

_KEEPS_BACKEND = """
import numpy as np, scipy.sparse as sp, matplotlib
from kernlearn.plot import plot_convergence, plot_embedding, plot_graph, plot_metric
from kernlearn import demo
before = matplotlib.get_backend()
plot_embedding(np.random.rand(9, 2))
plot_graph(sp.eye(9, format="csr"), np.random.rand(9, 2))
plot_metric(np.eye(3))
plot_convergence({"dual": [0, 1], "primal": [2, 1.5], "gap": [2, 0.5]})
print(before, matplotlib.get_backend())
"""


def test_the_users_backend_is_kept():
    # A fresh interpreter: the backend is whatever the user set (here MPLBACKEND=svg), before
    # and after every plotting function and the demo module's import.
    env = {"MPLBACKEND": "svg", "PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run([sys.executable, "-c", _KEEPS_BACKEND], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["svg", "svg"]


_NO_PYPLOT = """
import sys, numpy as np, scipy.sparse as sp
from matplotlib.figure import Figure
from kernlearn.plot import plot_convergence, plot_embedding, plot_graph, plot_metric
plot_embedding(np.random.rand(9, 2), ax=Figure().subplots())
plot_graph(sp.eye(9, format="csr"), np.random.rand(9, 2), ax=Figure().subplots())
plot_metric(np.eye(3), ax=Figure().subplots())
plot_convergence({"dual": [0, 1], "primal": [2, 1.5], "gap": [2, 0.5]}, ax=Figure().subplots())
print("matplotlib.pyplot" in sys.modules)
"""


def test_drawing_on_a_given_axes_never_imports_pyplot():
    # pyplot (and its backend) is the user's business: with ax= the functions do not touch it.
    env = {"PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run([sys.executable, "-c", _NO_PYPLOT], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


@pytest.mark.parametrize("labels", [None, np.arange(12) % 3])
def test_embedding_and_graph_plots_do_not_warn(labels):
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plot_embedding(rng.normal(size=(12, 3)), labels)
        plot_graph(sp.random(12, 12, density=0.3, random_state=0, format="csr"), rng.normal(size=(12, 2)), labels)
    assert len(ax.collections[0].get_offsets()) == 12
    plt.close("all")


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="embedding"):
        plot_embedding(np.zeros(5))
    with pytest.raises(ValueError, match="coords"):
        plot_graph(sp.eye(3, format="csr"), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="M must be a square"):
        plot_metric(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="gap"):
        plot_convergence({"dual": [1], "primal": [1]})
