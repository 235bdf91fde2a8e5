"""kernlearn.distributed on a LocalCluster: measurements, and a model of wall time and memory for
n = 10^6 and 10^7 on 8-256 workers built from them (issue 32's scaling plan).

    python bench/bench_distributed.py --quick        # one small n per workload, under 2 minutes
    python bench/bench_distributed.py                # n = 10^4 to 10^5, writes the results file
    python bench/bench_distributed.py --out bench/results/distributed.md
    python bench/bench_distributed.py --overhead     # 2 workers vs one process, kNN graph, n = 50,000

Measured, for p = 1, 2 and 4 worker processes of one thread each (this machine may have fewer
cores than workers: the model takes min(p, cores) as the tasks that run at once), every run of
one workload back to back (paired):

* per-task compute time and result bytes, from Dask's task stream (``get_task_stream``);
  input bytes per task from the block shapes (the stream gives transfer times, not sizes);
* scheduler overhead per task: no-op tasks through the same cluster, wall time / tasks;
* (i) the exact kNN graph (``kernlearn.distributed.knn_graph``, d = 16, k = 10), at a fixed
  block size of n / 4 rows for every p, so the 1-worker run measures the 4-worker run's tasks;
* (ii) one product K @ v with ``kernlearn.distributed.KernelOperator`` (RBF, d = 16), cache off
  and on (on: the product only, the cache built beforehand; n = 10^4 only, the cache being
  n^2 8 bytes);
* (iii) one KDAC Phi(W): measured by ``bench/bench_distributed_kdac.py`` when that file exists
  and offers ``measure_phi(client, n, block_size)`` (returning the wall time in seconds and the
  task-stream records); otherwise "not measured".

The model (``predict_wall``): wall = fixed + makespan + tasks x overhead / slots, where the
makespan schedules the measured 1-worker task durations on slots = min(p, cores) (longest task
first, searches before merges), fixed is the 1-worker run's time outside its tasks (placing X,
gathering, assembling the graph here), and overhead is the measured scheduler cost per task. The
check compares its 4-worker prediction with the 4-worker measurement. The extrapolation to
10^6 - 10^7 points uses the per-task cost per b^2 fitted here and the network assumptions stated
in the results file.
"""

import argparse
import contextlib
import datetime
import heapq
import importlib.util
import math
import os
import pickle
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

D, K = 16, 10
CORES = os.cpu_count() or 1
WORKERS = (1, 2, 4)
# Stated network assumptions of the extrapolation (not measured here: one machine).
BANDWIDTH = 1.25e9  # bytes/s per worker link (10 Gbit/s Ethernet)
LATENCY = 1e-4  # s per transfer
MEMORY_PER_WORKER = 16 * 2**30  # bytes a worker may use


def cluster(p):
    import distributed

    environ = dict(os.environ)  # the nanny sets OMP_NUM_THREADS=1 here too: put it back after
    local = distributed.LocalCluster(
        n_workers=p, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
    )
    client = distributed.Client(local)
    return local, client, environ


@contextlib.contextmanager
def running(p):
    local, client, environ = cluster(p)
    try:
        yield client
    finally:
        client.close()
        local.close()
        os.environ.clear()
        os.environ.update(environ)


def profiled(client, run):
    """(wall seconds, task-stream records) of run()."""
    import distributed

    with distributed.get_task_stream(client) as stream:
        start = time.perf_counter()
        run()
        wall = time.perf_counter() - start
    return wall, stream.data


def kind_of(record):
    return str(record["key"]).split("-")[0].strip("('_")


def task_table(records):
    """Per task kind: count, compute seconds (sum, mean), result bytes (mean), transfer seconds."""
    kinds = {}
    for r in records:
        entry = kinds.setdefault(kind_of(r), {"count": 0, "compute": [], "nbytes": [], "transfer": 0.0})
        entry["count"] += 1
        for step in r["startstops"]:
            if step["action"] == "compute":
                entry["compute"].append(step["stop"] - step["start"])
            elif step["action"] == "transfer":
                entry["transfer"] += step["stop"] - step["start"]
        entry["nbytes"].append(r.get("nbytes", 0))
    return kinds


def scheduler_overhead(client, tasks=1000):
    """Seconds of wall time per no-op task (submitted together, gathered together)."""
    futures = client.map(lambda i: i, range(tasks), pure=False)
    client.gather(futures)  # warm
    start = time.perf_counter()
    client.gather(client.map(lambda i: i, range(tasks), pure=False))
    return (time.perf_counter() - start) / tasks


def makespan(durations, slots, merges=()):
    """Longest-first list schedule of independent task durations on `slots`, then the merges."""
    finish = [0.0] * slots
    for t in sorted(durations, reverse=True):
        heapq.heappush(finish, heapq.heappop(finish) + t)
    span = max(finish)
    if merges:
        span += sum(sorted(merges, reverse=True)[: max(1, math.ceil(len(merges) / slots))])
    return span


def slowdown(processes, background):
    """How much slower each of `processes` busy processes runs than alone on an idle core, when
    `background` other runnable processes share the CORES cores fairly."""
    return max(1.0, (processes + background) / CORES)


def predict_wall(one_worker, p, overhead, background=0.0):
    """Wall time on p workers from a 1-worker run's measurements (see the module docstring): the
    1-worker task durations, rescaled from that run's slowdown to p workers' (the cores shared
    fairly with `background` other runnable processes; 0 on an idle machine, where p > CORES
    workers simply share the cores), list-scheduled on p workers."""
    scale = slowdown(p, background) / slowdown(1, background)
    searches, merges = one_worker["searches"], one_worker["merges"]
    busy_one = makespan(searches, 1, merges) + one_worker["tasks"] * overhead
    fixed = max(0.0, one_worker["wall"] - busy_one)
    scaled = makespan([t * scale for t in searches], p, [t * scale for t in merges])
    return fixed + scaled + one_worker["tasks"] * overhead / min(p, CORES)


def split_tasks(records, search_kinds, merge_kinds=()):
    kinds = task_table(records)
    searches = [t for k in search_kinds for t in kinds.get(k, {"compute": []})["compute"]]
    merges = [t for k in merge_kinds for t in kinds.get(k, {"compute": []})["compute"]]
    return searches, merges, sum(v["count"] for v in kinds.values()), kinds


# -- workloads --------------------------------------------------------------------------------


def knn_run(client, X, block_size):
    from kernlearn.distributed import knn_graph

    # Warm: the workers import kernlearn on their first task (a cold start, not a per-search cost).
    knn_graph(X[:2000], K, client=client, block_size=500)
    return lambda: knn_graph(X, K, client=client, block_size=block_size)


def matvec_run(client, X, block_size, cache):
    from kernlearn.distributed import KernelOperator

    operator = KernelOperator(X, "rbf", client=client, block_size=block_size, cache=cache)
    v = np.ones(X.shape[0])
    operator @ v  # warm: the blocks (and the cache) are on the workers before the timed product
    return lambda: operator @ v


def phi_module():
    path = Path(__file__).with_name("bench_distributed_kdac.py")
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("bench_distributed_kdac", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module if hasattr(module, "measure_phi") else None


WORKLOADS = {
    # name: (search task kinds, merge task kinds, input bytes per search task as f(b, n))
    "knn": (("search_diagonal_block", "search_block_pair"), ("merge_partial_results",)),
    "matvec": (("row_block_product", "multiply"), ()),
}


def measure(sizes, repeats, with_cache_at, overhead_tasks=1000):
    """Rows of measurements: one per (workload, n, p, repeat), the p runs of one (workload, n)
    back to back. sizes: {workload: [n, ...]}."""
    rows, overheads = [], {}
    phi = phi_module()
    for workload in ("knn", "matvec", "matvec-cache", "phi"):
        if workload == "phi" and phi is None:
            continue
        for n in sizes["matvec" if workload == "matvec-cache" else workload]:
            if workload == "matvec-cache" and n > with_cache_at:
                continue
            X = np.random.default_rng(0).standard_normal((n, D))
            b = math.ceil(n / 4)
            for repeat in range(repeats):
                for p in WORKERS:
                    with running(p) as client:
                        if p not in overheads:
                            overheads[p] = scheduler_overhead(client, overhead_tasks)
                        if workload == "knn":
                            wall, records = profiled(client, knn_run(client, X, b))
                        elif workload == "phi":
                            wall, records = phi.measure_phi(client, n, b)
                        else:
                            wall, records = profiled(client, matvec_run(client, X, b, workload == "matvec-cache"))
                    base = "knn" if workload == "knn" else "matvec"
                    search_kinds, merge_kinds = WORKLOADS.get(base, ((), ()))
                    if workload == "phi":
                        search_kinds, merge_kinds = tuple({kind_of(r) for r in records}), ()
                    searches, merges, tasks, kinds = split_tasks(records, search_kinds, merge_kinds)
                    rows.append(
                        dict(
                            workload=workload,
                            n=n,
                            p=p,
                            repeat=repeat,
                            wall=wall,
                            b=b,
                            searches=searches,
                            merges=merges,
                            tasks=tasks,
                            kinds=kinds,
                            load=os.getloadavg()[0],
                        )
                    )
                    print(
                        f"{workload} n={n} p={p} rep={repeat}: {wall:.2f} s, {tasks} tasks, "
                        f"compute {sum(searches) + sum(merges):.2f} s, load {rows[-1]['load']:.1f}",
                        flush=True,
                    )
    return rows, overheads


def input_bytes(workload, n, b):
    """Bytes a search task reads (its inputs), from the shapes."""
    if workload == "knn":  # two row blocks (a diagonal task: one)
        return 2 * b * D * 8
    if workload == "matvec":  # its block, every block of X (once per worker) and v
        return b * D * 8 + n * D * 8 + n * 8
    return n * 8  # matvec-cache: v only


# -- the model at scale -------------------------------------------------------------------------


def fitted_costs(rows, overheads):
    """Per-task compute per b^2 (kNN pair task, seconds per point pair), per kernel evaluation
    (mat-vec), per cached byte (cached mat-vec), from the 1-worker runs at the largest n."""
    costs = {}
    for workload in ("knn", "matvec", "matvec-cache"):
        ones = [r for r in rows if r["workload"] == workload and r["p"] == 1]
        if not ones:
            continue
        n = max(r["n"] for r in ones)
        ones = [r for r in ones if r["n"] == n]
        b = ones[0]["b"]
        if workload == "knn":
            pairs = [statistics.median(r["kinds"]["search_block_pair"]["compute"]) for r in ones]
            diagonal = [statistics.median(r["kinds"]["search_diagonal_block"]["compute"]) for r in ones]
            merge = [statistics.median(r["kinds"]["merge_partial_results"]["compute"]) for r in ones]
            costs["knn"] = dict(
                n=n, b=b, pair=min(pairs) / b**2, diagonal=min(diagonal) / b**2, merge=min(merge) / (b * K)
            )
        elif workload == "matvec":
            per_task = [statistics.median(r["kinds"]["row_block_product"]["compute"]) for r in ones]
            costs["matvec"] = dict(n=n, b=b, evaluation=min(per_task) / (b * n))
        else:
            per_task = [statistics.median(r["kinds"]["multiply"]["compute"]) for r in ones]
            costs["matvec-cache"] = dict(n=n, b=b, byte=min(per_task) / (b * n * 8))
    costs["overhead"] = min(overheads.values())
    return costs


def broadcast(nbytes, p):
    """Seconds to get nbytes from the client to p workers: one hop in, then copies that double
    per round among the workers (Dask workers fetch a dependency from any worker holding it)."""
    return (1 + math.ceil(math.log2(max(p, 1)))) * (LATENCY + nbytes / BANDWIDTH)


def scale_model(costs, n, p):
    """Modelled wall time, bytes moved and memory per worker at n points on p workers (one thread
    each), for the block size the code picks by default."""
    out = {}
    overhead = costs["overhead"]
    if "knn" in costs:
        c = costs["knn"]
        b = max(1, min(32768, math.ceil(n / p)))  # _knn.py: one block per thread, capped
        B = math.ceil(n / b)
        searches = B * (B + 1) // 2
        merges = B * math.ceil((B - 1) / 3)  # a fan-in-4 tree over B partials per block
        compute = (B * c["diagonal"] + B * (B - 1) / 2 * c["pair"]) * b**2 + merges * 4 * c["merge"] * b * K
        moved_per_task = 2 * b * D * 8 + 2 * b * K * 16  # two blocks in, two partial results out
        communication = (
            searches * (2 * LATENCY + moved_per_task / BANDWIDTH) + merges * 4 * b * K * 16 / BANDWIDTH
        ) / p
        out["knn"] = dict(
            b=b,
            tasks=searches + merges,
            compute=compute / p,
            communication=communication,
            scheduler=(searches + merges) * overhead,
            bytes=searches * moved_per_task,
            memory=2 * b * (D * 8 + D * 4 + K * 16) + 4 * b * K * 16,
            gather=n * K * 16 / BANDWIDTH,
        )
    if "matvec" in costs:
        c = costs["matvec"]
        b = max(1, min(4096, math.ceil(n / (2 * p))))  # _kernel_operator.py: two blocks per thread, capped
        B = math.ceil(n / b)
        x_once = min(p, B) * n * D * 8 / BANDWIDTH  # every worker fetches all of X once, kept for later products
        out["matvec"] = dict(
            b=b,
            tasks=B,
            compute=c["evaluation"] * n * n / p,
            communication=broadcast(n * 8, p) + b * 8 * B / p / BANDWIDTH,
            scheduler=B * overhead,
            bytes=p * n * 8 + n * 8,
            memory=n * (D + 1) * 8 + b * b * 8,
            first_product_extra=x_once / p,
        )
        if "matvec-cache" in costs:
            cached = n * n * 8 / p  # the worker's share of K's row blocks
            out["matvec-cache"] = dict(
                b=b,
                tasks=B,
                compute=costs["matvec-cache"]["byte"] * cached,
                communication=out["matvec"]["communication"],
                scheduler=B * overhead,
                bytes=p * n * 8 + n * 8,
                memory=cached + n * 16,
                fits=cached <= 0.5 * MEMORY_PER_WORKER,
            )
    return out


# -- report -------------------------------------------------------------------------------------


def fmt_bytes(x):
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if x >= size:
            return f"{x / size:.3g} {unit}"
    return f"{x:.0f} B"


def fmt_s(x):
    return f"{x:.3g} s" if x < 3600 else f"{x / 3600:.3g} h"


def report(rows, overheads, args):
    load = os.getloadavg()
    lines = [
        "# kernlearn.distributed: measurements on a LocalCluster and a model to 10^7 points",
        "",
        f"- date: {datetime.date.today()}; machine: {CORES} cores ({platform.processor() or platform.machine()}), "
        f"Python {platform.python_version()}",
        f"- command: `python bench/bench_distributed.py {' '.join(sys.argv[1:])}`",
        f"- load average at the end (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (the machine is "
        "shared: every row below has the 1-minute load when it ended; compare rows of one n, run back to back)",
        f"- workers: LocalCluster(n_workers=p, threads_per_worker=1), p in {WORKERS}; d = {D}, k = {K}; block size "
        "n / 4 rows for every p",
        "",
        "## Scheduler overhead per task (no-op tasks submitted together: 1000, 200 with --quick)",
        "",
        "| workers | s per task |",
        "|---|---|",
    ]
    lines += [f"| {p} | {overheads[p] * 1e3:.3f} ms |" for p in sorted(overheads)]
    lines += ["", "## Measurements", ""]
    lines += [
        "| workload | n | p | wall (s) | tasks | compute per task (median, by kind) | result bytes per task | "
        "input bytes per search task | transfer time (s, sum) | load |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        kinds = r["kinds"]
        per_task = "; ".join(
            f"{k} {statistics.median(v['compute']) * 1e3:.1f} ms x{v['count']}"
            for k, v in kinds.items()
            if v["compute"]
        )
        result = "; ".join(f"{k} {fmt_bytes(statistics.median(v['nbytes']))}" for k, v in kinds.items())
        transfer = sum(v["transfer"] for v in kinds.values())
        base = r["workload"] if r["workload"] != "phi" else "phi"
        lines.append(
            f"| {r['workload']} | {r['n']} | {r['p']} | {r['wall']:.2f} | {r['tasks']} | {per_task} | {result} | "
            f"{fmt_bytes(input_bytes(base, r['n'], r['b'])) if base != 'phi' else '—'} | {transfer:.2f} | "
            f"{r['load']:.1f} |"
        )
    if not any(r["workload"] == "phi" for r in rows):
        lines += ["", "(iii) KDAC Phi(W): not measured (bench/bench_distributed_kdac.py with measure_phi absent)."]
    lines += [
        "",
        "## Check: the 4-worker wall time predicted from the 1-worker run",
        "",
        f"{CORES} cores. The prediction uses the 1-worker run's task durations, its time outside tasks and the "
        "scheduler overhead measured with 1 worker. 'idle': the cores shared by the 4 workers only (each runs "
        f"{slowdown(4, 0):.0f}x slower than alone). 'loaded': also shared fairly with the other runnable processes "
        "of this shared machine, counted as the 1-minute load average at the end of the 1-worker run minus its "
        "own process.",
        "",
        "| workload | n | repeat | 1 worker (s) | load then | 4 workers predicted, idle (s) | error | "
        "predicted, loaded (s) | error | 4 workers measured (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    errors, loaded_errors = [], []
    for r in rows:
        if r["p"] != 1:
            continue
        four = [
            q for q in rows if (q["workload"], q["n"], q["repeat"], q["p"]) == (r["workload"], r["n"], r["repeat"], 4)
        ]
        if not four:
            continue
        predicted = predict_wall(r, 4, overheads[1])
        background = max(0.0, r["load"] - 1.0)
        loaded = predict_wall(r, 4, overheads[1], background)
        error, loaded_error = predicted / four[0]["wall"] - 1, loaded / four[0]["wall"] - 1
        errors.append(abs(error))
        loaded_errors.append(abs(loaded_error))
        lines.append(
            f"| {r['workload']} | {r['n']} | {r['repeat']} | {r['wall']:.2f} | {r['load']:.1f} | {predicted:.2f} | "
            f"{error:+.0%} | {loaded:.2f} | {loaded_error:+.0%} | {four[0]['wall']:.2f} |"
        )
    if errors:
        lines += [
            "",
            f"|error| idle model: largest {max(errors):.0%}, median {statistics.median(errors):.0%}; loaded model: "
            f"largest {max(loaded_errors):.0%}, median {statistics.median(loaded_errors):.0%} (target: within 30 %).",
        ]
    costs = fitted_costs(rows, overheads)
    lines += [
        "",
        "## The model at 10^6 and 10^7 points",
        "",
        "Fitted from the 1-worker runs at the largest n measured: "
        + "; ".join(
            f"{name}: " + ", ".join(f"{k} {v:.3g}" for k, v in c.items())
            for name, c in costs.items()
            if isinstance(c, dict)
        )
        + f"; scheduler overhead {costs['overhead'] * 1e3:.3f} ms per task.",
        "",
        f"Assumptions (not measured): {BANDWIDTH / 1e9:.2f} GB/s per worker link, {LATENCY * 1e6:.0f} us per "
        f"transfer, {MEMORY_PER_WORKER / 2**30:.0f} GiB per worker, one thread per worker computing at this "
        "machine's single-thread speed, the scheduler handling tasks one after another (its overhead does not "
        "shrink with p), task costs growing as b^2 (kNN pair and diagonal tasks) and b n (a kernel row block).",
        "",
        "| workload | n | p | b | tasks | compute (s) | communication (s) | scheduler (s) | bytes moved | "
        "memory per worker | dominant |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n in (10**6, 10**7):
        for p in (8, 32, 128, 256):
            for name, m in scale_model(costs, n, p).items():
                parts = {"compute": m["compute"], "communication": m["communication"], "scheduler": m["scheduler"]}
                dominant = max(parts, key=parts.get)
                memory = fmt_bytes(m["memory"]) + ("" if m.get("fits", True) else " (does not fit)")
                lines.append(
                    f"| {name} | {n:.0e} | {p} | {m['b']} | {m['tasks']} | {fmt_s(m['compute'])} | "
                    f"{fmt_s(m['communication'])} | {fmt_s(m['scheduler'])} | {fmt_bytes(m['bytes'])} | {memory} | "
                    f"{dominant} |"
                )
    return lines


def two_worker_overhead(n, repeats, block_sizes):
    """Target of issue 32: the kNN graph at n points on 2 local workers against the single-process
    C++ path (kernlearn.graph.knn_graph, all cores), paired runs; block sizes None (the default)
    and the ones given. Returns report lines."""
    from kernlearn import graph
    from kernlearn.distributed import knn_graph

    X = np.random.default_rng(0).standard_normal((n, D))
    lines = [
        f"## Overhead: kNN graph at n = {n}, d = {D}, k = {K}, 2 workers against one process",
        "",
        "| repeat | single process (s) | block size | 2 workers (s) | ratio | equal | load |",
        "|---|---|---|---|---|---|---|",
    ]
    with running(2) as client:
        knn_graph(X[:2000], K, client=client, block_size=500)  # warm: imports on the workers
        for repeat in range(repeats):
            start = time.perf_counter()
            single = graph.knn_graph(X, K, n_jobs=-1)
            seconds = time.perf_counter() - start
            for b in block_sizes:
                start = time.perf_counter()
                spread = knn_graph(X, K, client=client, block_size=b)
                dask_seconds = time.perf_counter() - start
                equal = (spread != single).nnz == 0
                lines.append(
                    f"| {repeat} | {seconds:.2f} | {b or 'default'} | {dask_seconds:.2f} | "
                    f"{dask_seconds / seconds:.2f} | {equal} | {os.getloadavg()[0]:.1f} |"
                )
                print(lines[-1], flush=True)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one small n per workload, one repeat (under 2 minutes)")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--overhead", action="store_true", help="only the 2-worker overhead at n = 50,000")
    parser.add_argument("--out", type=Path, default=None, help="default: bench/results/distributed.md (full mode)")
    parser.add_argument(
        "--measurements",
        type=Path,
        default=None,
        help="a pickle of the measurements: read when it exists (the report only), else written after measuring",
    )
    args = parser.parse_args(argv)
    if args.overhead:
        print("\n".join(two_worker_overhead(50_000, args.repeats or 2, [None, 12_500])))
        return
    if args.quick:
        sizes = {"knn": [10_000], "matvec": [4_000], "phi": [4_000]}
    else:  # a kernel product costs ~1e-7 s per entry here (bench/results/distributed.md): 2 10^4 at most
        sizes = {"knn": [10_000, 30_000, 100_000], "matvec": [10_000, 20_000], "phi": [10_000, 30_000]}
    repeats = args.repeats or (1 if args.quick else 2)
    if args.measurements is not None and args.measurements.exists():
        rows, overheads = pickle.loads(args.measurements.read_bytes())
    else:
        rows, overheads = measure(sizes, repeats, with_cache_at=10_000, overhead_tasks=200 if args.quick else 1000)
        if args.measurements is not None:
            args.measurements.write_bytes(pickle.dumps((rows, overheads)))
    lines = report(rows, overheads, args)
    out = args.out or (None if args.quick else Path(__file__).parent / "results" / "distributed.md")
    text = "\n".join(lines) + "\n"
    if out is None:
        print(text)
    else:
        out.write_text(text)
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
