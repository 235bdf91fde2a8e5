"""Four Python threads calling the library at once get results bitwise equal to one thread.

The calls release the GIL and share nothing but the process (the thread pools, BLAS, the
interrupt poll), so any shared mutable state shows up here as a difference in the last bit.

The BLAS thread count is pinned to one for the whole test: it is one per process, and the
blas_threads() contexts of SICE and SimpleNPKL set it from whichever thread they run in, so a
call's LAPACK may run at another call's count, and a threaded dsymv sums in another order (SICE's
precision moved by 2.2e-16, IKLR's dual_coef_ by 8.7e-19). A known limit of OpenBLAS's process-wide
count, recorded in bench/results/threads.md; with the count pinned, IKLR joins the others.
"""

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from kernlearn.cluster import KDAC
from kernlearn.graph import knn
from kernlearn.indefinite import IndefiniteKernelLogisticRegression as IKLR
from kernlearn.kernels import rbf_kernel, tl1_kernel
from kernlearn.linalg import eigsh
from kernlearn.metric import sparse_inverse_covariance
from kernlearn.npkl import SimpleNPKL

N_THREADS = 4


def _calls():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 8))
    M = rng.standard_normal((800, 800))
    A = M + M.T
    Xk = rng.standard_normal((1500, 10))
    yn = np.arange(300) % 2
    Xn = rng.standard_normal((300, 3)) + yn[:, None]
    S = np.cov(rng.standard_normal((400, 80)).T)
    Xc = rng.standard_normal((150, 4))
    Xc[:75, 0] += 3
    yc = (np.arange(150) < 75).astype(int)
    return {
        "knn": lambda: knn(X, 10, n_jobs=2),
        "eigsh": lambda: eigsh(A, 10, method="lanczos", random_state=0, n_jobs=2)[:2],
        "rbf_kernel": lambda: rbf_kernel(Xk, gamma=0.1, n_jobs=2),
        "tl1_kernel": lambda: tl1_kernel(Xk, tau=3.0),
        "SimpleNPKL": lambda: SimpleNPKL(n_neighbors=5, max_iter=50, random_state=0).fit(Xn, yn).embedding_,
        "sparse_inverse_covariance": lambda: sparse_inverse_covariance(S, 0.02).precision,
        "KDAC": lambda: KDAC(2, n_components=2, sigma=1.0, max_iter=10, random_state=0).fit(Xc, yc).embedding_,
        "IKLR": lambda: IKLR(max_outer=3, max_inner=20, random_state=0, n_jobs=2).fit(Xn, yn).dual_coef_,
    }


def _arrays(out):
    if isinstance(out, tuple | list):
        return [a for o in out for a in _arrays(o)]
    return [np.asarray(out)]


def _same(a, b):
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(a, b)
    )


@pytest.mark.filterwarnings("ignore")
def test_four_threads_bitwise_equal_to_one():
    with threadpool_limits(limits=1, user_api="blas"):
        _four_threads_bitwise_equal_to_one()


def _four_threads_bitwise_equal_to_one():
    calls = _calls()
    reference = {name: _arrays(f()) for name, f in calls.items()}
    names = list(calls)
    results, errors = [{} for _ in range(N_THREADS)], []
    barrier = threading.Barrier(N_THREADS)

    def work(t):
        try:
            barrier.wait()
            # each thread its own order, so different calls overlap
            for name in names[t:] + names[:t]:
                results[t][name] = _arrays(calls[name]())
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append((t, repr(exc)))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    differ = [(t, name) for t in range(N_THREADS) for name in names if not _same(results[t][name], reference[name])]
    assert not differ, f"results differ from the single-thread run: {differ}"
