"""kernlearn's thread pool as a threadpoolctl library, so that the tools scikit-learn users already
use to control nested parallelism control it too.

``threadpoolctl.threadpool_info()`` lists it (user_api and internal_api "kernlearn"), and
``threadpool_limits(n)`` (or ``threadpool_limits(n, user_api="kernlearn")``) caps every kernlearn
parallel section at n threads until the context exits. The limit lives in the C++ core
(``thread_cap`` in core/parallel.hpp), so it applies to the raw ``_core`` functions as well.
"""

import ctypes

from threadpoolctl import LibController, register


class KernlearnController(LibController):
    """threadpoolctl's view of ``kernlearn._core``: found by the extension's file name and
    confirmed by the two C functions it exports (cpp/bindings/register_threads.cpp)."""

    user_api = "kernlearn"
    internal_api = "kernlearn"
    filename_prefixes = ("_core",)
    check_symbols = ("kernlearn_get_num_threads", "kernlearn_set_num_threads")

    def get_num_threads(self):
        return int(self.dynlib.kernlearn_get_num_threads())

    def set_num_threads(self, num_threads):
        self.dynlib.kernlearn_set_num_threads(ctypes.c_int(int(num_threads)))

    def get_version(self):
        from .. import __version__  # the package's one version lookup (kernlearn/__init__.py)

        return __version__


def register_with_threadpoolctl():
    """Called once, when kernlearn is imported."""
    register(KernlearnController)
