"""kernlearn: learning kernels, metrics and embeddings from side information.

The C++ core (``kernlearn._core``) holds the hot loops; the modules here validate input and
offer scikit-learn style functions and estimators on top of it.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kernlearn")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

from ._utils._threadpool import register_with_threadpoolctl

register_with_threadpoolctl()

# Submodules load on first attribute access (``kernlearn.npkl.SimpleNPKL`` after a bare
# ``import kernlearn``), so that importing the package costs only what is used.
_SUBMODULES = (
    "cluster",
    "constraints",
    "datasets",
    "distributed",
    "embedding",
    "evaluation",
    "graph",
    "indefinite",
    "kernels",
    "linalg",
    "metric",
    "metrics",
    "npkl",
    "npkl_cv",
    "plot",
    "similarity",
)

__all__ = ["__version__", *_SUBMODULES]


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))
