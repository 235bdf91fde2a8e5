"""
kernlearn's C++ core, one submodule per layer. Use the Python wrappers, which validate input.
"""

from __future__ import annotations

from . import core as core
from . import kernels as kernels
from . import linalg as linalg
from . import methods as methods
from . import neighbors as neighbors
