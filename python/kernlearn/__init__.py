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

__all__ = ["__version__"]
