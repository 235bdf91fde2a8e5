"""`pip wheel .` gives a self-contained wheel: the extension, the stubs and the bundled data, and
it imports from the unpacked wheel alone. Runs only from a source checkout (about a minute)."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(), reason="needs the source tree")
def test_wheel_builds_and_imports(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "-w", str(tmp_path), "--no-deps", "-q"],
        check=True,
        timeout=900,
    )
    (wheel,) = tmp_path.glob("kernlearn-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("kernlearn/_core") and n.endswith(".so") for n in names)
    stubs = [
        f"kernlearn/_core/{layer}.pyi" for layer in ("__init__", "core", "linalg", "neighbors", "kernels", "methods")
    ]
    for required in (*stubs, "kernlearn/py.typed", "kernlearn/datasets/data/faces.csv.gz"):
        assert required in names
    assert not any("/tests/" in n or n.startswith("cpp/") for n in names)

    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    check = (
        "import kernlearn, kernlearn.graph as g, numpy as np;"
        "assert kernlearn.__file__.startswith(%r);"
        "from kernlearn.datasets import load_faces;"
        "print(g.knn_graph(load_faces().data, 5).nnz)" % str(unpacked)
    )
    out = subprocess.run(
        [sys.executable, "-c", check],
        cwd=tmp_path,
        env={"PYTHONPATH": str(unpacked)},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert int(out.stdout) > 0
