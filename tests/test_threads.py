"""Thread counts (issue 27, defect 3): n_jobs is capped at the usable cores in Python
(resolve_n_threads) and in the core (usable_threads), and a thread that cannot start under a
memory limit is an error or fewer threads, never a deadlock."""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import needs_address_limit
from kernlearn._utils._validation import resolve_n_threads


def usable_cores():
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count()
    return len(os.sched_getaffinity(0))


def run(script, timeout=120):
    """Run script in a fresh interpreter (it may set resource limits) and return its stdout."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_resolve_n_threads_caps_at_the_usable_cores():
    cores = usable_cores()
    assert resolve_n_threads(None) == 1
    assert resolve_n_threads(1) == 1
    assert resolve_n_threads(-1) == cores
    assert resolve_n_threads(10**6) == cores
    assert resolve_n_threads(2**70) == cores  # would not even fit pybind11's int
    assert resolve_n_threads(-(10**6)) == 1
    with pytest.raises(ValueError, match="n_jobs"):
        resolve_n_threads(0)


@needs_address_limit
def test_huge_n_jobs_finishes_under_an_address_space_limit():
    """The issue's repro: n_jobs=10**6 under an 8 GiB address-space limit deadlocked (the thread
    team started workers until one failed, then waited for them forever). Each estimator named
    in the issue now finishes with the n_jobs=1 answer."""
    out = run(
        """
        import resource
        import numpy as np
        from kernlearn.linalg import eigsh
        from kernlearn.kernels import kernel_operator
        from kernlearn.npkl import SimpleNPKL
        from kernlearn.cluster import KDAC
        from kernlearn.indefinite import IndefiniteKernelLogisticRegression as IKLR
        from kernlearn.embedding import ColoredMVU
        from kernlearn.embedding import MinimumVolumeEmbedding as MVE
        from kernlearn.embedding import StructurePreservingEmbedding as SPE
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
        rng = np.random.default_rng(0)
        M = rng.standard_normal((40, 40))
        A = M + M.T
        ref = eigsh(A, 3, method="lanczos")[0]
        got = eigsh(A, 3, method="lanczos", n_jobs=10**6)[0]
        assert np.allclose(ref, got, rtol=1e-10, atol=1e-10), (ref, got)
        op = kernel_operator(A, n_jobs=10**6)
        assert np.allclose(op @ np.ones(40), A @ np.ones(40))
        X = rng.standard_normal((30, 3))
        y = np.arange(30) % 2
        for make in (
            lambda n_jobs: SimpleNPKL(n_neighbors=3, max_iter=5, random_state=0, n_jobs=n_jobs).fit(X, y),
            lambda n_jobs: MVE(n_neighbors=4, n_outer=2, max_iter=3, random_state=0, n_jobs=n_jobs).fit(X),
            lambda n_jobs: SPE(n_neighbors=4, max_rounds=1, random_state=0, n_jobs=n_jobs).fit(X),
            lambda n_jobs: ColoredMVU(n_neighbors=4, max_iter=3, random_state=0, n_jobs=n_jobs).fit(X, y),
            lambda n_jobs: KDAC(n_clusters=2, max_iter=2, random_state=0, n_jobs=n_jobs).fit(X, y),
            lambda n_jobs: IKLR(max_outer=2, max_inner=5, random_state=0, n_jobs=n_jobs).fit(X, y),
        ):
            make(10**6)
        print("done")
        """
    )
    assert "done" in out


@pytest.mark.skipif(usable_cores() < 2, reason="needs two usable cores to start a second thread")
@needs_address_limit
def test_parallel_for_runs_on_fewer_threads_when_one_cannot_start():
    """parallel_for under an address-space limit that leaves no room for a thread stack: the
    failed std::thread used to escape as a RuntimeError (and with other threads running, it
    would have called std::terminate); now the caller does the chunks itself."""
    out = run(
        """
        import resource
        import numpy as np
        from kernlearn import _core
        X = np.random.default_rng(0).standard_normal((400, 5))
        kernel = _core.kernels.PairwiseKernel(kind=_core.kernels.PairwiseKind.rbf, gamma=0.5)
        ref = _core.kernels.pairwise_kernel(X, X, kernel=kernel)
        out = np.empty_like(ref)
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize")) << 10
        resource.setrlimit(resource.RLIMIT_AS, (vm + (3 << 20), resource.RLIM_INFINITY))
        try:
            got = _core.kernels.pairwise_kernel(X, X, kernel=kernel, n_threads=2)
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        assert np.array_equal(got, ref)
        print("done")
        """,
        timeout=60,
    )
    assert "done" in out


@needs_address_limit
@pytest.mark.skipif(usable_cores() < 2, reason="needs two usable cores to start a second thread")
def test_thread_team_that_cannot_start_raises_instead_of_hanging():
    out = run(
        """
        import resource
        import numpy as np
        from kernlearn import _core
        K = np.random.default_rng(0).standard_normal((50, 50))
        x = np.ones(50)
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize")) << 10
        resource.setrlimit(resource.RLIMIT_AS, (vm + (3 << 20), resource.RLIM_INFINITY))
        try:
            _core.kernels.kernel_matvec(K, x, n_threads=2)
            outcome = "ran"
        except RuntimeError:
            outcome = "raised"
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print(outcome)
        """,
        timeout=60,
    )
    assert out.strip() in ("ran", "raised")
