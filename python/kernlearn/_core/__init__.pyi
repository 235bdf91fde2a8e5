"""
kernlearn's C++ core, one submodule per layer. Use the Python wrappers, which validate input.
"""

from __future__ import annotations
