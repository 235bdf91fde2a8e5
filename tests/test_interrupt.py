"""Long C++ loops release the GIL and stop on Ctrl-C."""

import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from kernlearn.graph import knn


def assert_ctrl_c_stops(script, after, within):
    """Run script (which prints 'ready', then works for long), send SIGINT `after` seconds later,
    and require the KeyboardInterrupt to arrive within `within` seconds."""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(after)
    start = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert "interrupted" in out
    assert time.perf_counter() - start < within


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
    assert_ctrl_c_stops(script, after=1.0, within=5.0)  # the search would take far longer


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


def seconds_to_interrupt(script, after):
    """Run script (which prints 'ready', then works for long), send SIGINT `after` seconds later,
    and return the seconds from the signal to its 'interrupted' line."""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(after)
        start = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        assert proc.stdout.readline().strip() == "interrupted"
        return time.perf_counter() - start
    finally:
        proc.kill()
        proc.communicate()


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
    script = (
        "import numpy as np, scipy.sparse as sp\n"
        "from kernlearn.linalg import eigsh\n"
        "path = sp.diags([1.0, 1.0], [-1, 1], shape=(200000, 200000), format='csr')\n"
        "print('ready', flush=True)\n"
        "try:\n"
        f"    {call}\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    assert seconds_to_interrupt(script, after=1.5) < 1.0
