"""Deprecated name of :mod:`kernlearn.evaluation`, kept so that existing imports work."""

from .evaluation import *  # noqa: F403
from .evaluation import __all__  # noqa: F401
