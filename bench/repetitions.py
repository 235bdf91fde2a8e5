"""Where the repetitions of a reproduction or suite script run: one after another in this process,
or as tasks on a Dask cluster with ``--dask ADDRESS`` (issue 32).

Each script keeps its loop as a function of one repetition (a seed, a split) and calls
``repeat(function, seeds)``, which goes through ``joblib.Parallel``: without a backend that is a
plain loop here (joblib's default of one job), under ``dask_backend(address)`` the repetitions are
tasks on the cluster's workers, their results back in order. A repetition draws its randomness from
its own seed, so the tables are the same either way.

The workers need kernlearn and this bench directory at the same path (a shared file system, or the
same checkout on every machine): ``dask_backend`` puts the directory on their ``sys.path``.
"""

import contextlib
import sys
from pathlib import Path

import joblib

BENCH = str(Path(__file__).resolve().parent)


def add_dask_option(parser):
    """The ``--dask ADDRESS`` option of a script's parser."""
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        default=None,
        help="run the repetitions on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.1:8786) "
        'through joblib.parallel_backend("dask"); default: one after another here',
    )
    return parser


@contextlib.contextmanager
def dask_backend(address):
    """Inside the block, ``repeat`` runs on the Dask cluster at ``address`` (a client connected for
    the block); ``address`` None changes nothing."""
    if address is None:
        yield None
        return
    import distributed

    def add_to_path(directory):
        # Defined here, not at module level: cloudpickle sends a nested function by value, where a
        # module-level one would be looked up in this module, which the workers cannot import yet.
        if directory not in sys.path:
            sys.path.insert(0, directory)

    with distributed.Client(address) as client, joblib.parallel_backend("dask"):
        client.run(add_to_path, BENCH)
        yield client


def repeat(function, arguments):
    """``[function(a) for a in arguments]``, through ``joblib.Parallel`` (see the module docstring)."""
    return joblib.Parallel()(joblib.delayed(function)(argument) for argument in arguments)
