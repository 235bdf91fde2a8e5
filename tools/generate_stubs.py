"""Regenerate the type stubs of kernlearn._core (python/kernlearn/_core/*.pyi) and the stubtest
allowlist (tools/stubtest_allowlist.txt).

pybind11-stubgen writes one .pyi per submodule from the built extension; then
- each options class's ``__init__(self, **kwargs)`` is rewritten with its real keyword arguments
  (the fields in ``_fields``, typed as their properties, defaults ``...``: the values are the C++
  member initialisers, readable on ``Options()``);
- a class that Python cannot construct (results, records) gets pybind11's ``__init__(*args,
  **kwargs)``, which raises TypeError, as at run time; the enums (``enum.Enum`` subclasses) keep
  Enum's constructor;
- each options class's ``_field_types`` (the rule of each field) is declared without its value;
- ``__all__`` goes (the extension's submodules define none), and the package stub re-exports its
  submodules (``from . import linalg as linalg``), which are attributes of ``_core`` at run time;
- every class is allowlisted for stubtest's one unavoidable complaint, that its metaclass is
  pybind11's (each enum for its ``__pybind11_native_enum__`` capsule); its members are still checked.
Needs the extension built and importable, and ``pip install pybind11-stubgen``. Run from the
repository root: ``python tools/generate_stubs.py``.
"""

import importlib
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
ALL = re.compile(r"^__all__: list\[str\] = \[.*?\]\n", re.MULTILINE | re.DOTALL)
# stubgen prints each field's rule with a 1-tuple as a parenthesised string: only the type stays.
FIELD_TYPES = re.compile(r"^    _field_types: typing\.ClassVar\[dict\] = \{.*?\}\n", re.MULTILINE | re.DOTALL)
FIELD_TYPES_STUB = "    _field_types: typing.ClassVar[dict[str, tuple]]  # each field's rule (option_fields.hpp)\n"
ALLOWLIST = ROOT / "tools" / "stubtest_allowlist.txt"
ENUM_CLASS = re.compile(r"class (\w+)\(enum\.Enum\):")
ENUM_MEMBER = re.compile(r"    (\w+): typing\.ClassVar\[\w+\]\n")
ENUM_NEW = re.compile(r"    @classmethod\n    def __new__\(cls, value\):\s*\.\.\.\n")
NO_CONSTRUCTOR = "    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible\n"


def keyword_inits(text, module):
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
        elif ENUM_CLASS.match(block):
            # An enum.Enum (py::native_enum): Enum's own constructor, as at run time, and members
            # spelled ``name = value`` as the typing spec wants them in a stub.
            cls = getattr(module, ENUM_CLASS.match(block).group(1))
            block = ENUM_MEMBER.sub(lambda m: f"    {m.group(1)} = {cls[m.group(1)].value}\n", ENUM_NEW.sub("", block))
        elif "def __init__" not in block and "__members__" not in block:
            header_end = (
                block.index("\n", block.index('"""', block.index('"""') + 3)) + 1
                if '"""' in block
                else block.index("\n") + 1
            )
            block = block[:header_end] + NO_CONSTRUCTOR + block[header_end:]
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
        classes = []
        for stub in sorted(generated.glob("*.pyi")):
            module = "kernlearn._core" + ("" if stub.stem == "__init__" else f".{stub.stem}")
            text = FIELD_TYPES.sub(FIELD_TYPES_STUB, ALL.sub("", stub.read_text()))
            text = keyword_inits(text, importlib.import_module(module))
            # The submodules are attributes of _core at run time: re-export them explicitly.
            text = re.sub(r"^from \. import (\w+)$", r"from . import \1 as \1", text, flags=re.MULTILINE)
            (TARGET / stub.name).write_text(text)
            # pybind11's classes: their metaclass; the enums: pybind11's capsule on each of them.
            enums = set(ENUM_CLASS.findall(text))
            classes += [
                f"{module}.{name}" + (".__pybind11_native_enum__" if name in enums else "")
                for name in CLASS.findall(text)
            ]
            print(f"wrote {(TARGET / stub.name).relative_to(ROOT)}")
    header = "# Written by tools/generate_stubs.py. stubtest cannot see pybind11's metaclass in a stub, nor\n"
    header += "# the capsule pybind11 puts on each enum; these entries silence those complaints (every other\n"
    header += "# member is still checked).\n"
    ALLOWLIST.write_text(header + "".join(f"{name}\n" for name in sorted(classes)))
    subprocess.run([sys.executable, "-m", "ruff", "check", "--fix", "-q", str(TARGET)], check=False)
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(TARGET)], check=False)


if __name__ == "__main__":
    main()
