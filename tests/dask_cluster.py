"""The local Dask cluster of the distributed tests, and the worker-kill check they share."""

import contextlib
import os
import signal
import threading
import time

import pytest


@contextlib.contextmanager
def local_cluster():
    """A LocalCluster of 2 worker processes of one thread, its dashboard on a free port (others may
    hold 8787). Starting the workers sets OMP_NUM_THREADS=1 (and MKL_ / OPENBLAS_) in this
    process's environment too (distributed's nanny "pre-spawn" variables), which would cap
    n_jobs=-1 in every later test of the session: the environment is put back afterwards."""
    distributed = pytest.importorskip("distributed")
    environ = dict(os.environ)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        yield cluster
    finally:
        cluster.close()
        os.environ.clear()
        os.environ.update(environ)


@pytest.fixture(scope="module")
def client():
    """A client of local_cluster(), one cluster per test module."""
    distributed = pytest.importorskip("distributed")
    with local_cluster() as cluster, distributed.Client(cluster) as client:
        yield client


def result_with_a_worker_killed(client, work, task_name):
    """work()'s result when one worker process is killed (SIGKILL) while a task whose key contains
    task_name runs: asserts that work was still running at the kill and raised nothing, and waits
    for the nanny's replacement worker process."""
    pids = client.run(os.getpid)
    outcome = {}

    def run():
        try:
            outcome["result"] = work()
        except BaseException as err:  # reported below, in the test's thread
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while not any(task_name in str(key) for keys in client.processing().values() for key in keys):
        assert time.monotonic() < deadline and thread.is_alive(), f"no {task_name} task ever started"
        time.sleep(0.005)
    victim = pids[sorted(pids)[0]]
    os.kill(victim, signal.SIGKILL)
    killed_mid_run = thread.is_alive()
    thread.join(timeout=120)
    assert killed_mid_run
    assert "error" not in outcome, outcome.get("error")
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()  # the nanny started a new process
    return outcome["result"]
