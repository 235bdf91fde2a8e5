"""Where the tasks of kernlearn.distributed run: a Dask client, or Dask's local scheduler when there
is none. Dask is imported here, on first use, and nowhere at import time."""

import contextlib
import uuid

INSTALL_HINT = 'pip install "kernlearn[dask]"'


def import_dask():
    """The modules (dask, dask.array, distributed), or an ImportError that names the extra."""
    try:
        import dask
        import dask.array
        import distributed
    except ImportError as err:
        raise ImportError(
            f"kernlearn.distributed needs Dask and dask.distributed ({err.name or err} is missing): {INSTALL_HINT}"
        ) from err
    return dask, dask.array, distributed


def unique_name(what):
    """A graph key of our own: Dask never merges two of our computations' data."""
    return f"kernlearn-{what}-{uuid.uuid4().hex}"


def _worker_memory_limit(dask_worker):
    """Run on each worker by Cluster.memory_limits (0: no limit)."""
    return dask_worker.memory_manager.memory_limit


class Cluster:
    """The client passed in, else the current default client, else Dask's local scheduler (threads
    in this process, for data that fits here).

    Task inputs come in three forms, all accepted as arguments of ``dask.delayed`` calls: futures
    of data on the workers, Delayed objects (row blocks of a dask array), and plain arrays (local
    scheduler)."""

    def __init__(self, client):
        self.dask, self.da, distributed = import_dask()
        if client is None:
            try:
                client = distributed.default_client()
            except ValueError:  # no client exists: the local scheduler
                client = None
        elif not isinstance(client, distributed.Client):
            raise TypeError(f"client must be a distributed.Client or None, got {type(client).__name__}")
        self.client = client

    def n_threads(self):
        """Tasks that can run at once: the workers' threads, or the local scheduler's."""
        if self.client is None:
            from dask.system import CPU_COUNT

            return CPU_COUNT
        return max(1, sum(self.client.nthreads().values()))

    def memory_limits(self):
        """Bytes each worker may hold (its ``memory_limit``; this machine's memory for the local
        scheduler); None for a worker without a limit."""
        if self.client is None:
            from distributed.system import MEMORY_LIMIT

            return [MEMORY_LIMIT]
        return [limit or None for limit in self.client.run(_worker_memory_limit).values()]

    def place(self, arrays):
        """Arrays sent to the workers, one task input each. They travel as data of the task graph
        (through the scheduler) rather than by ``client.scatter``: the scheduler keeps a graph's
        data, so a block lost with its worker is sent again, where scattered data would be lost for
        good and fail every task that needs it."""
        if self.client is None:
            return list(arrays)
        nodes = [self.dask.delayed(a, name=unique_name("block")) for a in arrays]
        with self._large_data_allowed(sum(a.nbytes for a in arrays)):
            return self.client.compute(nodes)

    def embed(self, array):
        """An array as data of the next computation (a product's right-hand side)."""
        return array if self.client is None else self.dask.delayed(array, name=unique_name("operand"))

    def persist(self, tasks, *, embedded_bytes=0):
        """Results kept where they were computed (futures), or here for the local scheduler."""
        if self.client is None:
            return list(self.dask.compute(*tasks))
        with self._large_data_allowed(embedded_bytes):
            return self.client.compute(tasks)

    def persist_array(self, X):
        """A dask array computed once and kept in memory (the workers', or this process's)."""
        return X.persist() if self.client is None else self.client.persist(X)

    def compute(self, tasks, *, embedded_bytes=0):
        """The results of a list of delayed tasks, in order."""
        if self.client is None:
            return list(self.dask.compute(*tasks))
        with self._large_data_allowed(embedded_bytes):
            return self.client.gather(self.client.compute(tasks))

    @contextlib.contextmanager
    def _large_data_allowed(self, nbytes):
        """Data we put in a graph on purpose does not trigger Dask's warning about large graphs."""
        key = "distributed.admin.large-graph-warning-threshold"
        from dask.utils import parse_bytes

        threshold = parse_bytes(self.dask.config.get(key))
        with self.dask.config.set({key: threshold + int(nbytes)}):
            yield
