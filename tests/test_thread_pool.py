"""Threads that share the machine (issue 33): threadpoolctl controls kernlearn's pool, n_jobs=-1
follows the caller's limits (threadpool_limits, joblib's workers, OMP_NUM_THREADS), concurrent
calls in one process share the cores, and the team gives the one-thread answer however its
threads are scheduled."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import Parallel, delayed
from threadpoolctl import threadpool_info, threadpool_limits

from kernlearn import _core
from kernlearn._utils._validation import resolve_n_threads, thread_budget
from kernlearn.linalg import eigsh


def cores():
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count()
    return len(os.sched_getaffinity(0))


def kernlearn_pools():
    return [info for info in threadpool_info() if info["internal_api"] == "kernlearn"]


def test_threadpool_info_lists_kernlearn():
    (pool,) = kernlearn_pools()
    assert pool["user_api"] == "kernlearn"
    assert pool["num_threads"] == _core.core.thread_cap()
    assert os.path.basename(pool["filepath"]).startswith("_core")


@pytest.mark.parametrize("user_api", [None, "kernlearn"])
def test_threadpool_limits_caps_the_pool_and_is_undone(user_api):
    before = _core.core.thread_cap()
    with threadpool_limits(limits=1, user_api=user_api):
        assert _core.core.thread_cap() == 1
        assert kernlearn_pools()[0]["num_threads"] == 1
        assert resolve_n_threads(-1) == 1
        assert resolve_n_threads(8) == 1
    assert _core.core.thread_cap() == before
    assert resolve_n_threads(-1) == min(before, thread_budget())


def test_threadpool_limits_on_blas_leaves_kernlearn_alone():
    before = _core.core.thread_cap()
    with threadpool_limits(limits=1, user_api="blas"):
        assert _core.core.thread_cap() == before


def test_set_thread_limit_checks_its_argument():
    with pytest.raises(ValueError, match="thread limit"):
        _core.core.set_thread_limit(-1)
    assert _core.core.thread_cap() == cores()


def test_negative_n_jobs_counts_down_from_the_budget():
    with threadpool_limits(limits=1):
        assert resolve_n_threads(-2) == 1  # never below one thread
    budget = thread_budget()
    assert resolve_n_threads(-1) == budget
    assert resolve_n_threads(-2) == max(1, budget - 1)


def run(script, env=None, timeout=120):
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_omp_num_threads_sets_the_budget():
    out = run(
        "from kernlearn._utils._validation import resolve_n_threads as r; print(r(-1), r(None))",
        env={"OMP_NUM_THREADS": "1"},
    )
    assert out.split() == ["1", "1"]


def _resolved_minus_one():
    from kernlearn._utils._validation import resolve_n_threads

    return resolve_n_threads(-1)


def test_loky_workers_get_their_share():
    """joblib's loky workers run with inner_max_num_threads = cores // n_jobs (OMP_NUM_THREADS),
    so n_jobs=-1 inside GridSearchCV(n_jobs=k) does not oversubscribe."""
    got = Parallel(n_jobs=2, backend="loky")(delayed(_resolved_minus_one)() for _ in range(2))
    assert got == [max(1, cores() // 2)] * 2


def laplacian_shift(n=6000, seed=0):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), 6)
    cols = (rows + rng.integers(1, n, rows.size)) % n
    W = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    W = W + W.T
    d = np.asarray(W.sum(1)).ravel()
    return (sp.diags(1 / np.sqrt(d)) @ W @ sp.diags(1 / np.sqrt(d))).tocsr()


def test_team_answer_does_not_depend_on_thread_count_or_scheduling():
    """The team claims row blocks dynamically, so which thread runs a block changes from run to
    run; the blocks and their order of summation do not, so the result is bitwise the same."""
    A = laplacian_shift()
    ref = eigsh(A, 8, method="lanczos", random_state=0, n_jobs=1)
    for _ in range(3):
        got = eigsh(A, 8, method="lanczos", random_state=0, n_jobs=2)
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])


def busy_loop(stop):
    while not stop.is_set():
        pass


def test_team_finishes_with_a_busy_thread_beside_it():
    """A preempted worker must not hold the section: with Python threads spinning beside it (they
    hold the GIL only between bytecodes; the core releases it), a 2-thread eigsh still gives the
    answer and finishes."""
    A = laplacian_shift(4000)
    ref = eigsh(A, 6, method="lanczos", random_state=0, n_jobs=1)
    stop = threading.Event()
    spinners = [threading.Thread(target=busy_loop, args=(stop,)) for _ in range(2)]
    for t in spinners:
        t.start()
    try:
        got = eigsh(A, 6, method="lanczos", random_state=0, n_jobs=2)
    finally:
        stop.set()
        for t in spinners:
            t.join()
    np.testing.assert_array_equal(got[0], ref[0])


def count_threads():
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_concurrent_calls_share_the_cores():
    """Four Python threads asking for every core each: the core's reservation keeps the worker
    threads it starts to at most cores - 1 in total (each caller thread counts as one)."""
    A = laplacian_shift(8000)
    idle = count_threads()
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], count_threads())
            time.sleep(0.001)

    results = [None] * 4

    def call(i):
        results[i] = eigsh(A, 20, method="lanczos", random_state=0, n_jobs=-1)[0]

    sampler = threading.Thread(target=sample)
    sampler.start()
    callers = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    done.set()
    sampler.join()
    ref = eigsh(A, 20, method="lanczos", random_state=0, n_jobs=1)[0]
    for r in results:
        np.testing.assert_array_equal(r, ref)
    # idle + 4 callers + the sampler + at most cores - 1 workers (the callers hold 4 of the budget).
    assert peak[0] - idle - 5 <= max(0, cores() - 1)


def blas_thread_counts():
    return {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}


def test_blas_threads_never_raises_a_limit_the_caller_set():
    """SimpleNPKL and the embeddings run LAPACK under blas_threads(n_jobs): inside the caller's
    threadpool_limits(1, user_api="blas") that must stay one thread."""
    from kernlearn._utils._validation import blas_threads

    with threadpool_limits(limits=1, user_api="blas"):
        with blas_threads(2):
            assert blas_thread_counts() == {1}


def test_idle_cores_counts_other_processes_only():
    """Our own threads never count (a team must not shrink because of itself); a busy process does."""
    assert 1 <= _core.core.idle_cores() <= cores()
    stop = threading.Event()
    spinners = [threading.Thread(target=busy_loop, args=(stop,)) for _ in range(3)]
    for t in spinners:
        t.start()
    try:
        own_busy = _core.core.idle_cores()
    finally:
        stop.set()
        for t in spinners:
            t.join()
    if os.getloadavg()[0] < 0.5:  # an idle machine: nothing else should count
        assert own_busy == cores()
    if cores() < 2 or cores() != os.cpu_count():
        return
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        assert _core.core.idle_cores() <= cores() - 1
    finally:
        busy.kill()
        busy.wait()
