"""Checks of a built kernlearn wheel (CI's wheel step, .ci/wheel, and cibuildwheel's test-command).

``python tools/check_wheel.py contents WHEEL`` checks what the wheel holds: the compiled
extension, the stubs, py.typed and the bundled data, and no tests or C++ sources.

``python tools/check_wheel.py smoke`` is run by the interpreter the wheel was installed into,
from outside the source tree: kernlearn must load from that installation (not a checkout) with
its extension, and a kNN graph of the bundled faces must come out non-empty.

Exit status 1 and one line per failed check otherwise.
"""

import sys
import zipfile
from pathlib import Path

LAYERS = ("__init__", "core", "linalg", "neighbors", "kernels", "methods")
REQUIRED = (
    *(f"kernlearn/_core/{layer}.pyi" for layer in LAYERS),
    "kernlearn/py.typed",
    "kernlearn/datasets/data/faces.csv.gz",
)


def contents_problems(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    problems = []
    if not any(n.startswith("kernlearn/_core") and n.endswith(".so") for n in names):
        problems.append("no compiled extension kernlearn/_core*.so")
    problems += [f"missing {name}" for name in REQUIRED if name not in names]
    problems += [f"should not ship {n}" for n in names if "/tests/" in n or n.startswith(("cpp/", "tests/"))]
    return problems


def smoke_problems():
    import kernlearn
    import kernlearn._core as core
    from kernlearn.datasets import load_faces
    from kernlearn.graph import knn_graph

    problems = []
    package = Path(kernlearn.__file__).resolve().parent
    if (package.parent.parent / "pyproject.toml").exists():
        problems.append(f"kernlearn imported from a source tree ({package}), not the installed wheel")
    if Path(core.__file__).resolve().parent != package:
        problems.append(f"the extension {core.__file__} is not inside {package}")
    nnz = knn_graph(load_faces().data, 5).nnz
    if nnz <= 0:
        problems.append(f"knn_graph of the faces has {nnz} entries")
    print(
        f"kernlearn {kernlearn.__version__} from {package}: extension {Path(core.__file__).name}, faces graph nnz {nnz}"
    )
    return problems


def main(argv):
    if len(argv) == 2 and argv[0] == "contents":
        problems = contents_problems(argv[1])
    elif argv == ["smoke"]:
        problems = smoke_problems()
    else:
        print(__doc__)
        return 2
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
