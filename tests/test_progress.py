"""Progress through logging: one line format for every estimator, verbose=1 for the outer loop
and verbose=2 for the inner steps, output without configuring logging, the user's logging
configuration and levels respected, and the optional progress bar."""

import logging
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kernlearn._utils import _monitor
from kernlearn.cluster import KDAC
from kernlearn.constraints import from_labels
from kernlearn.datasets import load_iris
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.indefinite import IndefiniteKernelLogisticRegression
from kernlearn.metric import S3ML
from kernlearn.npkl import SimpleNPKL
from kernlearn.similarity import ESKL

# "[Owner] iter   k/max  name value  ...  1.23 s"
LINE = re.compile(r"^\[[^\]]+\] iter +(\d+)/(\d+)(  \S.*)?  \d+\.\d\d s$")


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X[::3], y[::3]


def _fits(X, y):
    pairs, labels = from_labels(np.where(np.arange(len(y)) % 2 == 0, y, -1))
    S = np.stack([np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)), X @ X.T], axis=-1)
    partial = np.where(np.arange(len(y)) % 3 == 0, y, -1)
    return {
        "SimpleNPKL": (lambda v: SimpleNPKL(verbose=v, random_state=0).fit(X, pairs=pairs, pair_labels=labels)),
        "ColoredMVU": (lambda v: ColoredMVU(verbose=v, n_neighbors=5, random_state=0).fit(X, y)),
        "MinimumVolumeEmbedding": (
            lambda v: MinimumVolumeEmbedding(verbose=v, n_neighbors=5, n_outer=2, random_state=0).fit(X)
        ),
        "StructurePreservingEmbedding": (
            lambda v: StructurePreservingEmbedding(verbose=v, n_neighbors=5, max_rounds=2, random_state=0).fit(X)
        ),
        "KDAC": (lambda v: KDAC(3, verbose=v, max_iter=3, random_state=0).fit(X, y)),
        "IKLR": (lambda v: IndefiniteKernelLogisticRegression(verbose=v, random_state=0).fit(X, y == 0)),
        # explicit prior and beta: "auto" may pick beta = 0, whose SICE problem starts at its optimum
        "S3ML": (lambda v: S3ML(verbose=v, prior="identity", beta=5e-4).fit(X, partial)),
        "ESKL": (lambda v: ESKL(verbose=v, max_iter=3).fit(S, y == 0)),
    }


def _lines(caplog, fit, verbose):
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="kernlearn"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # tiny budgets: the lines are the point
        model = fit(verbose)
    return [r.getMessage() for r in caplog.records if r.name == "kernlearn"], model


@pytest.mark.parametrize(
    "name",
    [
        "SimpleNPKL",
        "ColoredMVU",
        "MinimumVolumeEmbedding",
        "StructurePreservingEmbedding",
        "KDAC",
        "IKLR",
        "S3ML",
        "ESKL",
    ],
)
def test_every_estimator_logs_one_line_format(name, iris, caplog):
    fit = _fits(*iris)[name]
    quiet, _ = _lines(caplog, fit, 0)
    assert quiet == []
    outer, model = _lines(caplog, fit, 1)
    assert outer, f"{name}: verbose=1 logged nothing"
    for line in outer:
        match = LINE.match(line)
        assert match, f"{name}: {line!r} is not in the shared format"
        assert 1 <= int(match.group(1)) <= int(match.group(2))
    detailed, _ = _lines(caplog, fit, 2)
    assert len(detailed) >= len(outer)
    assert all(LINE.match(line) for line in detailed)
    assert max(len(line) for line in outer) <= max(len(line) for line in detailed)


def test_verbose_1_is_the_outer_loop_and_2_adds_the_inner_steps(iris, caplog):
    fit = _fits(*iris)["MinimumVolumeEmbedding"]
    outer, model = _lines(caplog, fit, 1)
    assert len(outer) == model.n_iter_  # one line per outer iteration, not per saddle-point step
    assert all(line.startswith("[MinimumVolumeEmbedding] iter") and "/2" in line for line in outer)
    detailed, _ = _lines(caplog, fit, 2)
    inner = [line for line in detailed if line.startswith("[MinimumVolumeEmbedding saddle point]")]
    assert len(inner) >= model.n_inner_iter_ > len(outer)


def test_the_compact_line_shows_objective_and_certificate(iris, caplog):
    outer, model = _lines(caplog, _fits(*iris)["SimpleNPKL"], 1)
    assert all(" primal " in line and " gap " in line and " dual " not in line for line in outer)
    assert outer[0].startswith(f"[SimpleNPKL] iter    1/{model.max_iter}")


def _run(code):
    script = textwrap.dedent(
        """
        import numpy as np
        from kernlearn.indefinite import IndefiniteKernelLogisticRegression
        X = np.random.default_rng(0).normal(size=(40, 3)); y = X[:, 0] > 0
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out


def test_lines_reach_a_user_who_configured_no_logging():
    out = _run("IndefiniteKernelLogisticRegression(verbose=1).fit(X, y)")
    lines = out.stderr.splitlines()
    assert lines and all(LINE.match(line) for line in lines), out.stderr
    assert out.stdout == ""


def test_a_level_set_on_the_kernlearn_logger_is_honoured():
    out = _run(
        """
        import logging
        logging.getLogger("kernlearn").setLevel(logging.WARNING)
        IndefiniteKernelLogisticRegression(verbose=1).fit(X, y)
        """
    )
    assert out.stderr == ""


def test_the_users_handlers_and_format_are_used():
    out = _run(
        """
        import logging, sys
        logging.basicConfig(stream=sys.stdout, format="LOG %(name)s %(levelname)s %(message)s")
        IndefiniteKernelLogisticRegression(verbose=1).fit(X, y)
        """
    )
    assert out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines and all(line.startswith("LOG kernlearn INFO [IKLR") for line in lines)


class _FakeBar:
    made = []

    def __init__(self, total, desc, leave, file):
        self.total, self.n, self.postfix, self.closed = total, 0, None, False
        _FakeBar.made.append(self)

    def update(self, k):
        self.n += k

    def set_postfix_str(self, text, refresh=True):
        self.postfix = text

    def close(self):
        self.closed = True


def test_a_progress_bar_replaces_the_lines_in_a_terminal(monkeypatch, caplog):
    monkeypatch.setattr(_monitor, "_bar_factory", lambda: _FakeBar)
    _FakeBar.made.clear()
    X = np.random.default_rng(0).normal(size=(40, 3))
    with caplog.at_level(logging.INFO, logger="kernlearn"):
        model = IndefiniteKernelLogisticRegression(verbose=1).fit(X, X[:, 0] > 0)
    (bar,) = _FakeBar.made
    n_iter = int(np.max(model.n_iter_))
    assert bar.total == model.max_iter and bar.n == n_iter and bar.closed
    assert "gradient_norm" in bar.postfix
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and lines[0].startswith(f"[IKLR 0] iter {n_iter:4d}/")


def test_no_bar_without_a_terminal():
    assert _monitor._bar_factory() is None  # pytest's output is not a terminal / logging is configured
