"""``--dask ADDRESS`` of the reproduction and suite scripts (bench/repetitions.py): every script
takes it, and a small run through a local cluster writes the same table as the run without it."""

import contextlib
import importlib
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import repetitions  # noqa: E402
from dask_cluster import local_cluster  # noqa: E402

SCRIPTS = sorted(path.stem for path in BENCH.glob("*.py") if path.stem.startswith(("reproduce_", "suite")))


@pytest.fixture(scope="module")
def scheduler_address():
    with local_cluster() as cluster:
        yield cluster.scheduler_address


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_takes_the_dask_option(script):
    module = importlib.import_module(script)
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        module.main(["--help"])
    assert "--dask ADDRESS" in help_text.getvalue()


def _square_with_seed(seed):
    return seed, float(np.random.default_rng(seed).random()) ** 2


def test_repetitions_on_the_cluster_come_back_in_order(scheduler_address):
    here = repetitions.repeat(_square_with_seed, range(6))
    with repetitions.dask_backend(scheduler_address) as client:
        on_cluster = repetitions.repeat(_square_with_seed, range(6))
        ran_on = client.run(os.getpid)
    assert on_cluster == here
    assert len(ran_on) == 2


# A cluster in another process started without the bench directory on its path, as `dask
# scheduler` / `dask worker` on other machines are (a LocalCluster of this process would inherit
# this process's sys.path, which holds it).
_CLUSTER_ELSEWHERE = """
import sys
import distributed
with distributed.LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as cluster:
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()
"""


def test_workers_started_elsewhere_can_import_the_bench_modules():
    with subprocess.Popen(
        [sys.executable, "-c", _CLUSTER_ELSEWHERE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as process:
        try:
            address = process.stdout.readline().strip()
            assert address.startswith("tcp://")
            with repetitions.dask_backend(address) as client:
                files = client.run(lambda: importlib.import_module("repetitions").__file__)
        finally:
            process.stdin.close()
    assert [Path(f).resolve() for f in files.values()] == [BENCH / "repetitions.py"]


def _table(path):
    """The markdown rows of a report without its timing column and wall-time line."""
    lines = [line for line in Path(path).read_text().splitlines() if line.startswith("|")]
    time_column = lines[0].split("|").index(" time (s) ")
    return ["|".join(cell for i, cell in enumerate(line.split("|")) if i != time_column) for line in lines]


def test_a_small_suite_run_on_the_cluster_writes_the_same_table(scheduler_address, tmp_path, monkeypatch):
    suite_kdac = importlib.import_module("suite_kdac")
    full = suite_kdac.dataset

    def small(name):  # every fourth point: 50 of MoonN's 200, both clusterings kept
        X, existing, alternative, k = full(name)
        return X[::4], existing[::4], alternative[::4], k

    monkeypatch.setattr(suite_kdac, "dataset", small)  # read here, before the repetitions start
    arguments = ["--datasets", "MoonN", "--repeats", "2", "--out"]
    with contextlib.redirect_stdout(io.StringIO()):
        suite_kdac.main([*arguments, str(tmp_path / "here.md")])
        suite_kdac.main([*arguments, str(tmp_path / "dask.md"), "--dask", scheduler_address])
    assert _table(tmp_path / "dask.md") == _table(tmp_path / "here.md")
