"""REKL, ESKL and EMKL restricted to a rank on KernelOperators (Dask) against dense REKL: where
the time goes.

    python bench/bench_distributed_similarity.py [--n 20000] [--rank 50] [--labelled 1000]
                                                 [--dense-n 2000 4000 6000] [--max-iter 50]
                                                 [--estimators REKL ESKL EMKL]

Protocol:

* Data: two Gaussian classes in d = 5 (means 0 and 1.2 on every axis), ``--labelled`` points
  labelled, the rest y = -1 (transductive); seed 0.
* Operator path: a 2-worker ``LocalCluster`` (one thread each), two KernelOperators
  (RBF gamma 0.2 and TL1 with its default tau), ``cache=True``;
  each of ``--estimators`` with ``rank=--rank, init="identity", max_iter=--max-iter`` on the same
  operators. The eigensolves (Lanczos on S_i^2 and the Rayleigh-Ritz step,
  :mod:`kernlearn.similarity._operators`; for ESKL one of the operators' mean) are timed apart
  from the rest of the fit (the mirror-descent loop with its SVM / MKL solves, and ESKL's
  compressions B' S_i B), and the products with each operator are counted.
* Dense path: the same two kernels as dense arrays, plain ``REKL`` (all n eigenpairs, LAPACK)
  at each ``--dense-n`` until a fit takes more than a minute; eigendecompositions timed apart
  in the same way.
* The report prints wall times on this machine (a shared one: the load is printed too) and the
  transductive accuracy on the unlabelled points.
"""

import argparse
import os
import time
import warnings

import numpy as np
from scipy.sparse.linalg import LinearOperator
from sklearn.exceptions import ConvergenceWarning

from kernlearn import kernels
from kernlearn.similarity import EMKL, ESKL, REKL, _base, _operators

ESTIMATORS = {"REKL": REKL, "ESKL": ESKL, "EMKL": EMKL}

KERNELS = [("rbf", {"gamma": 0.2}), ("tl1", {})]


class CountingOperator(LinearOperator):
    """A LinearOperator that counts the columns it is multiplied by."""

    def __init__(self, inner):
        self.inner = inner
        self.columns = 0
        super().__init__(np.float64, inner.shape)

    def _matmat(self, V):
        self.columns += V.shape[1]
        return self.inner.matmat(V)

    def _adjoint(self):
        return self


def data(n, labelled, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    X = rng.standard_normal((n, 5)) + 1.2 * labels[:, None]
    return X, labels, np.where(np.arange(n) < labelled, labels, -1)


def timed_fit(model, S, y):
    """(fitted model, total seconds, eigensolve seconds)."""
    spent = [0.0]
    originals = (_operators.leading_eigenpairs, _operators.dense_leading_eigenpairs)

    def timing(function):
        def wrapped(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - start

        return wrapped

    _operators.leading_eigenpairs, _operators.dense_leading_eigenpairs = map(timing, originals)
    try:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(S, y)
        return model, time.perf_counter() - start, spent[0]
    finally:
        _operators.leading_eigenpairs, _operators.dense_leading_eigenpairs = originals


def accuracy(model, labels, y):
    return float(np.mean(model.predict() == labels[y == -1]))


def report(args):
    """Print one line per fit: path, n, rank, eigensolve and rest seconds, products, accuracy."""
    import distributed

    from kernlearn.distributed import KernelOperator

    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    print(
        "| path | n | rank | eigensolves s | rest of fit s | total s | products per operator | accuracy | load | stop |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    assert _base._operators is _operators
    for n in args.dense_n:
        X, labels, y = data(n, args.labelled)
        S = [kernels.rbf_kernel(X, **kw) if kind == "rbf" else kernels.tl1_kernel(X, **kw) for kind, kw in KERNELS]
        model, total, eig = timed_fit(REKL(init="identity", max_iter=args.max_iter, random_state=0), S, y)
        print(
            f"| dense REKL | {n} | {n} | {eig:.1f} | {total - eig:.1f} | {total:.1f} | - | "
            f"{accuracy(model, labels, y):.3f} | {os.getloadavg()[0]:.1f} | {model.stop_reason_} |",
            flush=True,
        )
        if total > 60:
            break
    environ = dict(os.environ)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = distributed.Client(cluster)
    try:
        X, labels, y = data(args.n, args.labelled)
        start = time.perf_counter()
        operators = [CountingOperator(KernelOperator(X, kind, client=client, cache=True, **kw)) for kind, kw in KERNELS]
        for op in operators:  # builds the cached row blocks
            op.inner @ np.zeros((args.n, 1))
        build = time.perf_counter() - start
        print(f"(building the cached kernel row blocks, before the fits: {build:.1f} s)")
        for name in args.estimators:
            for op in operators:
                op.columns = 0
            model = ESTIMATORS[name](rank=args.rank, init="identity", max_iter=args.max_iter, random_state=0)
            model, total, eig = timed_fit(model, operators, y)
            products = "/".join(str(op.columns) for op in operators)
            print(
                f"| {name}, 2 KernelOperators, 2 workers | {args.n} | {args.rank} | {eig:.1f} | {total - eig:.1f} | "
                f"{total:.1f} | {products} | {accuracy(model, labels, y):.3f} | {os.getloadavg()[0]:.1f} | "
                f"{model.stop_reason_} |",
                flush=True,
            )
    finally:
        client.close()
        cluster.close()
        os.environ.clear()
        os.environ.update(environ)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--rank", type=int, default=50)
    parser.add_argument("--labelled", type=int, default=1000)
    parser.add_argument("--dense-n", type=int, nargs="*", default=[2000, 4000, 6000])
    parser.add_argument("--max-iter", type=int, default=50)
    parser.add_argument("--estimators", nargs="+", choices=list(ESTIMATORS), default=list(ESTIMATORS))
    report(parser.parse_args())


if __name__ == "__main__":
    main()
