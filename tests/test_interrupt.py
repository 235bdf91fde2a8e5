"""Long C++ loops release the GIL and stop on Ctrl-C."""

import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from kernlearn.graph import knn


def seconds_to_interrupt(script, after):
    """Run script (which prints 'ready', then works for long and prints a line starting with
    'interrupted' from its ``except KeyboardInterrupt``), send SIGINT `after` seconds later, and
    return the seconds from the signal to that line."""
    # SIGINT back to its default in the child: a shell runs background jobs with SIGINT ignored,
    # and Python then installs no KeyboardInterrupt handler (a suite started with "&" hung here).
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(after)
        start = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline().strip()
        assert line.startswith("interrupted"), f"the call ended before the signal: {line!r}"
        return time.perf_counter() - start
    finally:
        proc.kill()
        proc.communicate()


def interruptible(setup, call):
    """The script of seconds_to_interrupt: setup, 'ready', then the call under a KeyboardInterrupt
    handler that prints 'interrupted'."""
    handler = "except KeyboardInterrupt:\n    print('interrupted', flush=True)\n"
    return f"{setup}print('ready', flush=True)\ntry:\n    {call}\n{handler}"


def test_ctrl_c_interrupts_a_long_search():
    script = (
        "import numpy as np, sys\n"
        "from kernlearn.graph import knn\n"
        "X = np.random.default_rng(0).random((80000, 64))\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    knn(X, 10, algorithm='brute', n_jobs=2)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    assert seconds_to_interrupt(script, after=1.0) < 1.0  # the search would take far longer


def test_ctrl_c_interrupts_a_kd_tree_build_and_query_within_a_second():
    # n = 2e6 in 3-D runs several seconds, most of the first one in the tree's build (which did
    # not poll: 4.2 s from the signal to the KeyboardInterrupt).
    script = (
        "import numpy as np, sys\n"
        "from kernlearn.graph import knn_graph\n"
        "X = np.random.default_rng(0).random((2_000_000, 3))\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    knn_graph(X, 10, algorithm='kd_tree')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    assert seconds_to_interrupt(script, after=1.0) < 1.0


def test_gil_is_released_during_search():
    X = np.random.default_rng(0).random((20000, 32))
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.perf_counter()
    knn(X, 10, algorithm="brute")
    elapsed = time.perf_counter() - start
    done.set()
    counter.join()
    # Holding the GIL would freeze the counter for the whole search.
    assert len(ticks) > 0.3 * elapsed / 0.001 * 0.5


@pytest.mark.parametrize(
    "call",
    [
        "eigsh(path, 50, which='SA', method='lanczos', tol=1e-14)",  # clustered: very slow
        "eigsh(path, 50, threshold=-1.999999, which='SA', method='lanczos', tol=1e-14)",
        "eigsh(path, 50, which='SA', filter_level=-1.9, method='lanczos', tol=1e-14)",
    ],
    ids=["by_count", "threshold", "filtered"],
)
def test_ctrl_c_interrupts_lanczos_within_a_second(call):
    """The core polls every Lanczos step, product block and rotation panel (it once polled only
    between restarts: 44 s at n = 10^5, k = 300)."""
    setup = (
        "import numpy as np, scipy.sparse as sp\n"
        "from kernlearn.linalg import eigsh\n"
        "path = sp.diags([1.0, 1.0], [-1, 1], shape=(200000, 200000), format='csr')\n"
    )
    assert seconds_to_interrupt(interruptible(setup, call), after=1.5) < 1.0


def test_ctrl_c_stops_simple_npkl_dense_within_a_second():
    """Issue 27, defect 4: 13.1 s at n = 3000 (polled once per saddle-point iteration, each of
    several dense eigensolves); now polled at every eigensolve and between the panels of the
    tridiagonal reduction."""
    script = (
        "import time, numpy as np\n"
        "from kernlearn.npkl import SimpleNPKL\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.standard_normal((3000, 5)); y = np.where(rng.random(3000) < 0.05, rng.integers(0, 3, 3000), -1)\n"
        "model = SimpleNPKL(eigen_solver='dense', max_iter=200, tol=1e-12, random_state=0)\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    model.fit(X, y)\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.time(), flush=True)\n"
    )
    assert seconds_to_interrupt(script, after=1.5) < 1.0


def test_ctrl_c_stops_sparse_inverse_covariance_within_a_second():
    """Issue 27, defect 4: 8.2 s at m = 600 (polled once per Newton iteration); now polled per
    column of the coordinate-descent sweeps, per CG step and per line-search trial."""
    script = (
        "import time, numpy as np\n"
        "from kernlearn.metric import sparse_inverse_covariance\n"
        "rng = np.random.default_rng(0)\n"
        "Z = rng.standard_normal((300, 600)) @ (np.eye(600) + 0.3 * rng.standard_normal((600, 600)))\n"
        "S = np.cov(Z, rowvar=False)\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    sparse_inverse_covariance(S, 1e-3 * np.abs(S).max(), tol=1e-12, max_iter=100000)\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.time(), flush=True)\n"
    )
    assert seconds_to_interrupt(script, after=1.5) < 1.0


@pytest.mark.parametrize(
    "call",
    [
        # one product of the on-the-fly kernel: 10^5 x 10^5 entries, about 10 s on 2 threads
        "KernelOperator(X, gamma=0.1, n_jobs=2) @ np.ones((len(X), 16))",
        # IKLR's default fit computes its kernel on the fly at this n: polled in every tile round
        "IKLR(n_jobs=2).fit(X, y)",
        # Lanczos on a Python LinearOperator: the core calls back with the GIL re-taken, and
        # polls between the callbacks
        "eigsh(aslinearoperator(path), 50, which='SA', method='lanczos', tol=1e-14)",
    ],
    ids=["kernel_operator_product", "iklr_on_the_fly", "lanczos_on_a_callback"],
)
def test_ctrl_c_stops_the_operator_paths_within_a_second(call):
    setup = (
        "import numpy as np, scipy.sparse as sp\n"
        "from scipy.sparse.linalg import aslinearoperator\n"
        "from kernlearn.indefinite import IndefiniteKernelLogisticRegression as IKLR\n"
        "from kernlearn.kernels import KernelOperator\n"
        "from kernlearn.linalg import eigsh\n"
        "X = np.random.default_rng(0).standard_normal((100_000, 10))\n"
        "y = (X[:, 0] > 0).astype(int)\n"
        "path = sp.diags([1.0, 1.0], [-1, 1], shape=(200000, 200000), format='csr')\n"
    )
    assert seconds_to_interrupt(interruptible(setup, call), after=1.5) < 1.0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_stops_the_affinity_pushes_within_a_second(n_jobs):
    """S3ML's propagation at alpha = 0.99 spends seconds in one column's pushes, which polled only
    between columns (2.6 s to stop at n = 100,000): they now poll every 4096 pushes, and with two
    threads an interrupt seen between columns stops the other thread's column too."""
    setup = (
        "import numpy as np\n"
        "from kernlearn.metric import propagate_affinities\n"
        "rng = np.random.default_rng(0); X = rng.standard_normal((30000, 3))\n"
        "pairs = rng.choice(30000, size=(1000, 2), replace=False); labels = np.where(rng.random(1000) < 0.5, 1, -1)\n"
    )
    # The first column alone runs to the push cap (10^7 pushes, about 2 s here; then a ValueError):
    # the signal lands inside it.
    call = f"propagate_affinities(X, pairs, labels, alpha=0.99, theta=1e-6, tol=1e-12, n_jobs={n_jobs})"
    assert seconds_to_interrupt(interruptible(setup, call), after=0.7) < 0.5
