"""Check that the C++ library's includes point down its layers (DESIGN.md section 1).

core <- linalg, neighbors; linalg <- kernels; all of them <- methods; the library never
includes pybind11, and the bindings may include anything. Exit status 1 and one line per offending include otherwise.
Run from anywhere: ``python tools/check_layers.py``.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What each layer may include from kernlearn (itself included).
ALLOWED = {
    "core": {"core"},
    "linalg": {"core", "linalg"},
    "neighbors": {"core", "neighbors"},
    "kernels": {"core", "linalg", "kernels"},  # a kernel is an operator (linalg/operator.hpp)
    "methods": {"core", "linalg", "neighbors", "kernels", "methods"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.MULTILINE)


def violations():
    """(file, include, reason) for every include that breaks the layering."""
    found = []
    for top in ("cpp/include/kernlearn", "cpp/src"):
        for path in sorted((ROOT / top).rglob("*.?pp")):
            rel = path.relative_to(ROOT / top)
            if len(rel.parts) < 2 or rel.parts[0] not in ALLOWED:
                found.append((path, "-", f"outside the layer folders {sorted(ALLOWED)}"))
                continue
            layer = rel.parts[0]
            for target in INCLUDE.findall(path.read_text()):
                if target.startswith("pybind11"):
                    found.append((path, target, "the C++ library never includes pybind11"))
                elif target.startswith("kernlearn/"):
                    parts = target.split("/")
                    if len(parts) != 3 or parts[1] not in ALLOWED[layer]:
                        found.append((path, target, f"layer '{layer}' may include only {sorted(ALLOWED[layer])}"))
    return found


def main():
    bad = violations()
    for path, target, reason in bad:
        print(f"{path.relative_to(ROOT)}: #include {target}: {reason}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
