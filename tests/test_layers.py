"""The C++ library's layering (DESIGN.md section 1): includes point down the layers."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_includes_point_down_the_layers():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "check_layers.py")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout


def test_the_check_catches_a_wrong_way_include(tmp_path, monkeypatch):
    """A core header that includes a linalg header is reported (the check can fail)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import check_layers
    finally:
        sys.path.pop(0)
    fake = tmp_path / "cpp" / "include" / "kernlearn" / "core"
    fake.mkdir(parents=True)
    (fake / "bad.hpp").write_text('#include "kernlearn/linalg/lanczos.hpp"\n#include <pybind11/pybind11.h>\n')
    (tmp_path / "cpp" / "src").mkdir()
    monkeypatch.setattr(check_layers, "ROOT", tmp_path)
    reasons = [reason for _, _, reason in check_layers.violations()]
    assert len(reasons) == 2 and "may include only" in reasons[0] and "pybind11" in reasons[1]
