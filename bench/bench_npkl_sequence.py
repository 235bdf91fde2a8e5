"""SimpleNPKL's per-iteration eigensolves: the default fit (cold Lanczos each iteration) against
``warm_start=True`` (each solve starts from the last iterate's eigenvectors), issue 45 item 3.

Data: bench/scale.py's 10-feature, 5-class mixture with 10 % labelled points
(``make_labelled_mixture(n)``), SimpleNPKL's defaults otherwise, ``n_jobs`` threads. Per
iteration: the Lanczos mat-vecs the history records (every product, rejected backtracking trials
included; they do not depend on the machine's load) and the wall time between callbacks (the
whole iteration, dominated by the eigensolve at this n). The two runs follow the same iterates up
to the eigensolver's tolerance, so iteration t of the cold run is the cold solve of (nearly) the
matrix the warm run solved at t. Also printed: the fit's spectrum certificate.

    python bench/bench_npkl_sequence.py --n 100000          # about 10 minutes on 2 idle cores
    python bench/bench_npkl_sequence.py --n 100000 --cold-only   # the default fit alone
"""

import argparse
import datetime
import time

import numpy as np

from kernlearn.datasets._mixture import make_labelled_mixture
from kernlearn.npkl import SimpleNPKL


def run(X, y, warm, n_jobs):
    stamps = [time.perf_counter()]

    def callback(info):
        stamps.append(time.perf_counter())
        return False

    model = SimpleNPKL(random_state=0, warm_start=warm, n_jobs=n_jobs, callback=callback)
    start = time.perf_counter()
    model.fit(X, y)
    total = time.perf_counter() - start
    return model, np.diff(stamps), total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--cold-only", action="store_true", help="the default fit only, per iteration")
    args = parser.parse_args()
    X, labels, y = make_labelled_mixture(args.n)
    cold, cold_s, cold_total = run(X, y, False, args.n_jobs)
    if args.cold_only:
        print_cold(args, cold, cold_s, cold_total, labels, y)
        return
    warm, warm_s, warm_total = run(X, y, True, args.n_jobs)
    print(f"## {datetime.date.today()}: n = {args.n}, n_jobs = {args.n_jobs}")
    print(f"cold fit {cold_total:.1f} s, {cold.n_iter_} iterations; warm fit {warm_total:.1f} s, {warm.n_iter_}")
    print(f"certificate (cold): {cold.spectrum_certificate_}")
    print()
    print("| iteration | rank | cold matvecs | warm matvecs | warm / cold | cold s | warm s |")
    print("|---|---|---|---|---|---|---|")
    hc, hw = cold.history_, warm.history_
    ratios = []
    for t in range(min(hc["matvecs"].size, hw["matvecs"].size)):
        c, w = int(hc["matvecs"][t]), int(hw["matvecs"][t])
        ratio = w / c if c else float("nan")
        if t > 0 and c:
            ratios.append(ratio)
        cs = f"{cold_s[t]:.2f}" if t < cold_s.size else ""
        ws = f"{warm_s[t]:.2f}" if t < warm_s.size else ""
        print(f"| {t} | {int(hc['rank'][t])} | {c} | {w} | {ratio:.2f} | {cs} | {ws} |")
    print()
    print(f"median warm / cold mat-vecs after the first iteration: {np.median(ratios):.2f}")
    print(f"total mat-vecs: cold {int(hc['matvecs'].sum())}, warm {int(hw['matvecs'].sum())}")


def print_cold(args, model, seconds, total, labels, y):
    from sklearn.metrics import adjusted_rand_score

    from kernlearn.cluster import KernelKMeans

    unlabelled = y < 0
    predicted = KernelKMeans(5, random_state=0).fit(model.embedding_).labels_
    h = model.history_
    print(f"## {datetime.date.today()}: n = {args.n}, n_jobs = {args.n_jobs}, default fit only")
    print(
        f"fit {total:.1f} s, {model.n_iter_} iterations, {int(h['matvecs'].sum())} mat-vecs, "
        f"ARI {adjusted_rand_score(labels[unlabelled], predicted[unlabelled]):.3f}, "
        f"objective {h['primal'][-1]:.6f}, gap {h['gap'][-1]:.4g}"
    )
    print(f"certificate: {model.spectrum_certificate_}")
    print()
    print("| iteration | rank | matvecs | s |")
    print("|---|---|---|---|")
    for t in range(h["matvecs"].size):
        s = f"{seconds[t]:.2f}" if t < seconds.size else ""
        print(f"| {t} | {int(h['rank'][t])} | {int(h['matvecs'][t])} | {s} |")


if __name__ == "__main__":
    main()
