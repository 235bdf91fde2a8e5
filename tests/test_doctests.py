"""Every public object documents itself with an Examples section, and every example runs.

"Public" is each public module's ``__all__`` (``kernlearn.metrics`` is an alias of
``kernlearn.evaluation`` and is not counted twice; module constants, warning classes and
scikit-learn's re-exported iris and wine loaders carry no example of ours). The examples run as
doctests with the output compared, so a changed result fails here.
"""

import doctest
import importlib
import inspect

import numpy as np
import pytest

import kernlearn

# Aliases of another module, whose objects are checked there.
ALIASES = {"metrics": "evaluation"}


def _public_objects():
    seen = {}
    for module_name in kernlearn._SUBMODULES:
        if module_name in ALIASES:
            continue
        module = importlib.import_module(f"kernlearn.{module_name}")
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue  # constants
            if inspect.isclass(obj) and issubclass(obj, Warning):
                continue
            if not obj.__module__.startswith("kernlearn"):
                continue  # another library's object re-exported (its examples are its own)
            seen.setdefault(f"kernlearn.{module_name}.{name}", obj)
    return seen


PUBLIC = _public_objects()

# The examples show numpy 2's plain scalar reprs (``0.5``, not ``np.float64(0.5)``) on every numpy
# the package supports, and four decimals.
PRINT_OPTIONS = {"precision": 4, "suppress": True}
if int(np.__version__.split(".")[0]) >= 2:
    PRINT_OPTIONS["legacy"] = "1.25"


def test_the_public_objects_are_found():
    assert len(PUBLIC) >= 50
    assert "kernlearn.npkl.SimpleNPKL" in PUBLIC
    assert "kernlearn.embedding.ColoredMVU" in PUBLIC


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_public_object_has_a_runnable_example(qualname, tmp_path, monkeypatch):
    obj = PUBLIC[qualname]
    doc = inspect.getdoc(obj) or ""
    assert "Examples\n--------" in doc, f"{qualname} has no Examples section"
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, qualname) if t.examples]
    assert tests, f"{qualname}'s Examples section has no >>> lines"
    monkeypatch.chdir(tmp_path)  # examples that save files write here
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    with np.printoptions(**PRINT_OPTIONS):
        for test in tests:
            test.globs = {"np": np}
            runner.run(test, out=report.append)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{qualname}: {failed} of {attempted} examples failed:\n" + "".join(report)
