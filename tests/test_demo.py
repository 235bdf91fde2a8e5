"""The README's first command runs the demo: it must work, with and without plotting."""

import importlib.util
import subprocess
import sys

import pytest

from kernlearn.__main__ import main


def test_demo_prints_tables_saves_plots_and_agrees_with_sklearn(tmp_path, capsys):
    # One run of the whole demo (it takes a while); with plots when matplotlib is there.
    plots = importlib.util.find_spec("matplotlib") is not None
    assert main(["demo", "--out-dir", str(tmp_path)] + ([] if plots else ["--no-plot"])) == 0
    out = capsys.readouterr().out
    for name in ("iris", "wine", "sonar", "ionosphere", "glass", "faces"):
        assert name in out
    assert " NO" not in out  # every graph agrees with scikit-learn
    too_wide = [line for line in out.splitlines() if len(line) > 100 and not line.startswith("plot saved")]
    assert not too_wide, "the demo's tables must fit 100 columns"
    from kernlearn.demo import spectral_embedding_section

    rows, _ = spectral_embedding_section()
    assert len(rows) == 6
    for row in rows:  # our Lanczos agrees with LAPACK on every bundled data set
        assert float(row["|dlambda| vs LAPACK"]) < 1e-9 and float(row["subspace sin"]) < 1e-6
    if plots:
        for name in ("knn_graph", "spectral_embedding", "iklr", "similarity", "kdac", "metric"):
            assert (tmp_path / f"kernlearn_demo_{name}.png").stat().st_size > 10_000
        assert "plot saved" in out


def test_module_entry_point_reports_the_version():
    # The entry point without a second whole demo run (the test above runs it once).
    import kernlearn

    result = subprocess.run(
        [sys.executable, "-m", "kernlearn", "--version"], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == f"kernlearn {kernlearn.__version__}"


def test_wide_tables_print_transposed_and_fit():
    from kernlearn.demo import format_table

    row = {f"a long column name {i}": f"value {i}" for i in range(12)}
    rows = [{"data": "first"} | row, {"data": "second"} | row]
    table = format_table(rows, width=60)
    assert max(map(len, table.splitlines())) <= 60
    assert table.splitlines()[0].split() == ["data", "first", "second"]  # one column per row
    narrow = format_table([{"a": 1, "b": 2}])
    assert narrow.splitlines()[0].split() == ["a", "b"]


def test_cli_rejects_unknown_command():
    with pytest.raises(SystemExit):
        main(["frobnicate"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--n-neighbors", "0"], "--n-neighbors: number of neighbours: expected an integer in [1, 149], got 0"),
        (["--n-neighbors", "ten"], "expected an integer, got 'ten'"),
        (["--n-neighbors", "500"], "got 500"),
        (["--n-jobs", "0"], "--n-jobs: expected a positive integer or -1"),
        (["--n-jobs", "-3"], "got -3"),
    ],
)
def test_cli_validates_demo_options(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_submodules_load_on_attribute_access():
    code = "import kernlearn; print(kernlearn.npkl.SimpleNPKL.__name__, kernlearn.metric.__name__)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.split() == ["SimpleNPKL", "kernlearn.metric"]
    import kernlearn

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        kernlearn.nope  # noqa: B018
