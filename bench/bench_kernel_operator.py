"""The on-the-fly kernel (kernlearn.kernels.KernelOperator) against the stored dense kernel: one
product K @ V, and IKLR's default fit, which switches to the operator above the memory rule of
python/kernlearn/_utils/_solver_choice.py.

    python bench/bench_kernel_operator.py [--n 20000] [--fit-n 30000] [--before-python PATH]

Data: X standard normal, d = 10; the RBF kernel with gamma = 1 / (d Var X) (IKLR's "scale").

product  K @ V for V with 1 and 16 columns on 1 and 2 threads: numpy's BLAS product with the
         stored K (threadpoolctl pins its threads), the operator with float64 tiles and with
         float32 tiles (n_jobs threads). Best of --repeats after a warm-up; the ratio is the
         operator's time over the dense product's. Accuracy: the float64 operator and the
         float32 tiles against the dense product (relative Frobenius norm); the 1- and 2-thread
         products compared bitwise. The stored kernel's product in the core (what the solvers
         use below the memory rule) against numpy's, 1-32 columns. Peak memory: VmHWM of a fresh process that builds the
         operator and takes 3 products with 16 columns, minus its VmHWM with the data loaded,
         against a process that forms the dense K (rbf_kernel) and takes the same products.
fit      IndefiniteKernelLogisticRegression() with its defaults (RBF, Newton-CG) at --fit-n points
         on 2 threads, each in a fresh process: kernel_storage="auto" (the operator at this n),
         "dense", and optionally the same default fit under --before-python (an interpreter with
         an older kernlearn installed, e.g. the commit before the operator layer). Seconds, peak
         RSS above the loaded data, Newton steps, products, converged_, and the decision values'
         largest difference relative to the first row's.

Every figure is from one run on an otherwise idle machine; compare ratios within it.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

from bench_distributed_iklr import make_data  # the same data as the Dask IKLR bench

CHILD_PRELUDE = textwrap.dedent(
    """
    import json, sys, time
    import numpy as np
    def make_data(n, d=10, seed=0):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, d))
        y = (X[:, 0] + X[:, 1] ** 2 - 1.0 + 0.3 * rng.standard_normal(n) > 0).astype(int)
        return X, y
    def peak_mb():
        # VmHWM: the high-water mark of this process's memory since its exec (ru_maxrss would
        # carry the parent's across exec)
        with open("/proc/self/status") as status:
            return next(float(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024.0
    """
)

MEMORY_CHILD = CHILD_PRELUDE + textwrap.dedent(
    """
    from kernlearn.kernels import KernelOperator, rbf_kernel
    n, path = int(sys.argv[1]), sys.argv[2]
    X, _ = make_data(n)
    gamma = 1.0 / (X.shape[1] * X.var())
    V = np.random.default_rng(1).standard_normal((n, 16))
    base = peak_mb()
    K = rbf_kernel(X, gamma=gamma, n_jobs=2) if path == "dense" else KernelOperator(X, gamma=gamma, n_jobs=2)
    for _ in range(3):
        K @ V
    print(json.dumps({"peak_mb": peak_mb() - base}))
    """
)

FIT_CHILD = CHILD_PRELUDE + textwrap.dedent(
    """
    from kernlearn.indefinite import IndefiniteKernelLogisticRegression
    n, storage = int(sys.argv[1]), sys.argv[2]
    X, y = make_data(n)
    base = peak_mb()
    options = {"n_jobs": 2} if storage == "before" else {"n_jobs": 2, "kernel_storage": storage}
    model = IndefiniteKernelLogisticRegression(**options)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    peak = peak_mb() - base
    scores = model.decision_function(X[:2000])
    print(json.dumps({
        "seconds": seconds, "peak_mb": peak, "steps": int(model.n_iter_[0]),
        "products": int(model.history_[0]["matvecs"].sum()), "converged": bool(model.converged_[0]),
        "scores": scores.tolist(),
    }))
    """
)


def best_seconds(call, repeats):
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def child(code, *arguments, python=sys.executable):
    env = dict(os.environ)
    out = subprocess.run([python, "-c", code, *map(str, arguments)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def product_table(n, repeats):
    from threadpoolctl import threadpool_limits

    from kernlearn.kernels import KernelOperator, rbf_kernel

    X, _ = make_data(n)
    gamma = 1.0 / (X.shape[1] * X.var())
    K = rbf_kernel(X, gamma=gamma, n_jobs=2)
    lines = [
        f"### One product K @ V, RBF, n = {n:,}, d = 10\n",
        "| columns | threads | dense BLAS (s) | on the fly, float64 (s) | ratio | float32 tiles (s) | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    accuracy = []
    for b in (1, 16):
        V = np.random.default_rng(1).standard_normal((n, b))
        for threads in (1, 2):
            with threadpool_limits(threads):
                dense = best_seconds(lambda V=V: K @ V, repeats)
            exact = KernelOperator(X, gamma=gamma, n_jobs=threads)
            single = KernelOperator(X, gamma=gamma, dtype=np.float32, n_jobs=threads)
            fly = best_seconds(lambda V=V, op=exact: op @ V, repeats)
            fly32 = best_seconds(lambda V=V, op=single: op @ V, repeats)
            lines.append(
                f"| {b} | {threads} | {dense:.4f} | {fly:.4f} | {fly / dense:.2f} | {fly32:.4f} | {fly32 / dense:.2f} |"
            )
        reference = K @ V
        one = KernelOperator(X, gamma=gamma, n_jobs=1) @ V
        two = KernelOperator(X, gamma=gamma, n_jobs=2) @ V
        single = KernelOperator(X, gamma=gamma, dtype=np.float32, n_jobs=2) @ V
        norm = np.linalg.norm(reference)
        accuracy.append(
            f"| {b} | {np.linalg.norm(one - reference) / norm:.1e} | {np.linalg.norm(single - reference) / norm:.1e} "
            f"| {bool(np.array_equal(one, two))} |"
        )
    lines += stored_kernel_table(K, repeats)
    K = None  # freed before the memory and fit children run
    lines += [
        "\n| columns | float64 operator vs dense | float32 tiles vs dense | 1 thread == 2 threads (bitwise) |",
        "|---|---|---|---|",
        *accuracy,
    ]
    memory = {path: child(MEMORY_CHILD, n, path) for path in ("dense", "operator")}
    lines += [
        f"\nPeak memory above the loaded data, forming the kernel (or the operator) and taking 3 products "
        f"with 16 columns: dense {memory['dense'].get('peak_mb', float('nan')):.0f} MB (K alone is "
        f"{8 * n * n / 2**20:.0f} MB), operator {memory['operator'].get('peak_mb', float('nan')):.1f} MB.",
    ]
    return lines


def stored_kernel_table(K, repeats):
    """The solvers' product with a stored kernel (the core's dense operator: one SIMD pass over K
    for 2-8 columns, Eigen's GEMM above) against numpy's BLAS, 2 threads each."""
    from threadpoolctl import threadpool_limits

    from kernlearn import _core

    n = K.shape[0]
    op = _core.linalg.dense_operator(K)
    lines = [
        f"\n### Stored kernel: the solvers' dense product against numpy's, n = {n:,}, 2 threads\n",
        "| columns | numpy K @ V (s) | core dense operator (s) | ratio |",
        "|---|---|---|---|",
    ]
    for b in (1, 2, 4, 8, 16, 32):
        V = np.ascontiguousarray(np.random.default_rng(2).standard_normal((n, b)))
        with threadpool_limits(2):
            dense = best_seconds(lambda V=V: K @ V, repeats)
        core = best_seconds(lambda V=V: op.matmat(V, n_threads=2), repeats)
        lines.append(f"| {b} | {dense:.4f} | {core:.4f} | {core / dense:.2f} |")
    return lines


def fit_table(n, before_python):
    runs = [("auto (operator at this n)", "auto", sys.executable), ("dense", "dense", sys.executable)]
    if before_python:
        runs.append(("before: dense, older kernlearn", "before", before_python))
    lines = [
        f"### IKLR's default fit (RBF, Newton-CG), n = {n:,}, d = 10, 2 threads\n",
        "| kernel_storage | seconds | peak RSS above data (MB) | Newton steps | products | converged_ "
        "| max rel. diff. of scores |",
        "|---|---|---|---|---|---|---|",
    ]
    reference = None
    for label, storage, python in runs:
        result = child(FIT_CHILD, n, storage, python=python)
        if "error" in result:
            lines.append(f"| {label} | - | - | - | - | - | {result['error']} |")
            continue
        scores = np.asarray(result["scores"])
        reference = scores if reference is None else reference
        difference = np.abs(scores - reference).max() / np.abs(reference).max()
        lines.append(
            f"| {label} | {result['seconds']:.1f} | {result['peak_mb']:.0f} | {result['steps']} | "
            f"{result['products']} | {result['converged']} | {difference:.1e} |"
        )
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--fit-n", type=int, default=30_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before-python", default=None)
    parser.add_argument("--skip-fit", action="store_true")
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}\n")
    for line in product_table(args.n, args.repeats):
        print(line)
    if not args.skip_fit:
        print()
        for line in fit_table(args.fit_n, args.before_python):
            print(line)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
