"""Regenerate the type stubs of kernlearn._core (python/kernlearn/_core/*.pyi).

pybind11-stubgen writes one .pyi per submodule from the built extension; then each options
class's ``__init__(self, **kwargs)`` is rewritten with its real keyword arguments (the fields in
``_fields``, typed as their properties, defaults ``...``: the values are the C++ member
initialisers, readable on ``Options()``). Needs the extension built and importable, and
``pip install pybind11-stubgen``. Run from the repository root: ``python tools/generate_stubs.py``.
"""

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "python" / "kernlearn" / "_core"
CLASS = re.compile(r"^class (\w+)[:(]", re.MULTILINE)
GETTER = re.compile(r"    @property\n    def (\w+)\(self\) -> (.+?):\n")
KWARGS_INIT = re.compile(r"    def __init__\(self, \*\*kwargs\) -> None:\n")


def keyword_inits(text):
    """Give every class whose __init__ takes **kwargs and that lists _fields typed keywords."""
    starts = [m.start() for m in CLASS.finditer(text)] + [len(text)]
    pieces = [text[: starts[0]]]
    for begin, end in zip(starts[:-1], starts[1:]):
        block = text[begin:end]
        fields = re.search(r"_fields: typing\.ClassVar\[tuple\] = \((.*?)\)\n", block)
        if fields and KWARGS_INIT.search(block):
            names = re.findall(r"'(\w+)'", fields.group(1))
            types = dict(GETTER.findall(block))
            args = ", ".join(f"{name}: {types.get(name, 'typing.Any')} = ..." for name in names)
            block = KWARGS_INIT.sub(lambda _: f"    def __init__(self, *, {args}) -> None:\n", block, count=1)
        pieces.append(block)
    return "".join(pieces)


def main():
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [sys.executable, "-m", "pybind11_stubgen", "kernlearn._core", "-o", out, "--numpy-array-remove-parameters"],
            check=True,
        )
        generated = Path(out) / "kernlearn" / "_core"
        if TARGET.exists():
            shutil.rmtree(TARGET)
        TARGET.mkdir()
        for stub in sorted(generated.glob("*.pyi")):
            (TARGET / stub.name).write_text(keyword_inits(stub.read_text()))
            print(f"wrote {(TARGET / stub.name).relative_to(ROOT)}")
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(TARGET)], check=False)
    subprocess.run([sys.executable, "-m", "ruff", "check", "--fix", "-q", str(TARGET)], check=False)


if __name__ == "__main__":
    main()
