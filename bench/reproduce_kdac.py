"""Reproduce the ISM paper's Table 1 (Wu et al., AISTATS 2018: KDAC solved by ISM) with
kernlearn.cluster.KDAC, beside the paper's ISM rows.

    python bench/reproduce_kdac.py [--runs 10] [--n-jobs 1] [--out bench/results/kdac_table1.md]

Data and settings (/work/shared/data/alt-clustering/README.md):
  Faces  face_624_20, standardised; existing clustering = pose, NMI against identity (the reverse
         of the paper's text, as the README says the table was produced); k = 4, q = 17, lambda = 1,
         sigma = 0.5 x median pairwise distance (3.17; the paper's appendix: 3.1).
  Moon   moon_400x4, standardised; sigma 0.1, lambda 1, q 3, k 2.
  MoonN  moon_200x7, standardised, then the three uniform-noise columns divided by 3 (as the
         authors do); the appendix's sigma 0.2, lambda 0.1, q 6, k 2. (With Moon's settings,
         sigma 0.1 / lambda 1 / q 3, the alternation ends on a cycle (period 3) at NMI 0.63: row
         "MoonN, Moon's settings".)
  LG     Four_gaussian_3D_200, raw; sigma 5, lambda 10 (the authors' code; the table says 2), q 3,
         k 2 (both labelings have two groups).
NMI and Novelty use the geometric-mean normalisation of the paper. CQ = HSIC(XW, U) = Tr(U'QU).
Cost: ours is the objective (2a) actually optimised at the end, HSIC(XW, U) - lambda HSIC(XW, Y)
(maximised); the paper's "Cost" column was computed after k-means had appended the new labels
to Y, so the two are not comparable (shown for reference). SI = spectral initialisation (12), one
run; RI = random orthonormal W_0, --runs seeds, mean ± std. Time = wall-clock seconds of fit()
(median of 3 for SI) on this shared 2-core machine; the paper's on an Intel Xeon E7.

    python bench/reproduce_kdac.py --search [--out bench/results/kdac_search.md]

The paper's tuning procedure (Section 4, "Hyperparameter tuning") on the same four data sets:
(a) inequality (10) and the q rule at the appendix's own (sigma, lambda): q fitted at k, q at the
largest gap of Phi(W*) (``n_components="auto"``), of Phi_0 (``"init-gap"``), and the paper's q;
(b) ``KDAC(k, search="inequality")`` with its default grid and ``n_components="auto"``: the pair it
chooses, whether (10) held anywhere, and the alternative it finds.
"""

import argparse
import functools
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from kernlearn.cluster import KDAC
from kernlearn.cluster._kdac import median_sigma
from kernlearn.evaluation import nmi
from repetitions import add_dask_option, dask_backend, repeat  # bench/repetitions.py

# ../shared beside the repository, else this machine's copy (a CI clone lives elsewhere).
DATA = next(
    (
        p
        for p in (
            Path(__file__).resolve().parents[2] / "shared" / "data" / "alt-clustering",
            Path("/work/shared/data/alt-clustering"),
        )
        if p.is_dir()
    ),
    Path("alt-clustering-not-found"),
)

# Table 1, ISM rows: (NMI, CQ, Novelty, Cost, Time) for SI and RI (mean, std).
PAPER = {
    "Faces": {
        "SI": (0.57, 0.61, 0.004, 59.6, 1.5),
        "RI": ("0.56 ± 0.002", "0.61 ± 0.0", "0.0 ± 0.0", "59.6 ± 0.118", "1.51 ± 0.146"),
    },
    "Moon": {"SI": (1, 2, 0, 149, 0.575), "RI": ("0.4 ± 0.4", "2.0 ± 0.0", "0.5 ± 0.5", "269.98 ± 43", "3.07 ± 1.4")},
    "MoonN": {"SI": (1, 2, 0, 15.3, 0.3), "RI": ("0.91 ± 0.2", "2.0 ± 0", "0.04 ± 0.1", "15.59 ± 0.8", "0.55 ± 0.2")},
    "LG": {"SI": (1, 1.9, 0, 509, 0.239), "RI": ("0.8 ± 0.4", "1.9 ± 0.011", "0.0 ± 0.0", "605 ± 193", "0.18 ± 0.038")},
}


def load(name):
    X = np.loadtxt(DATA / f"{name}.csv", delimiter=",")
    return (
        X,
        np.loadtxt(DATA / f"{name}_original_label.csv", delimiter=","),
        np.loadtxt(DATA / f"{name}_alt_label.csv", delimiter=","),
    )


def cases():
    X, identity, pose = load("face_624_20")
    Xs = StandardScaler().fit_transform(X)
    yield (
        "Faces",
        Xs,
        pose,
        identity,
        dict(n_clusters=4, n_components=17, sigma=median_sigma(Xs), lambda_=1.0, lambda_scale="absolute"),
    )
    X, original, alternative = load("moon_400x4")
    yield (
        "Moon",
        StandardScaler().fit_transform(X),
        original,
        alternative,
        dict(n_clusters=2, n_components=3, sigma=0.1, lambda_=1.0, lambda_scale="absolute"),
    )
    X, original, alternative = load("moon_200x7")
    Xs = StandardScaler().fit_transform(X)
    Xs[:, 4:] /= 3
    yield (
        "MoonN",
        Xs,
        original,
        alternative,
        dict(n_clusters=2, n_components=6, sigma=0.2, lambda_=0.1, lambda_scale="absolute"),
    )
    yield (
        "MoonN, Moon's settings",
        Xs,
        original,
        alternative,
        dict(n_clusters=2, n_components=3, sigma=0.1, lambda_=1.0, lambda_scale="absolute"),
    )
    X, original, alternative = load("Four_gaussian_3D_200")
    yield (
        "LG",
        X,
        original,
        alternative,
        dict(n_clusters=2, n_components=3, sigma=5.0, lambda_=10.0, lambda_scale="absolute"),
    )


def fit(X, y, params, **extra):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        m = KDAC(**params, **extra).fit(X, y)
        elapsed = time.perf_counter() - start
    notes = []
    if m.cycled_:
        notes.append(f"outer cycle (period {m.cycle_period_})")
    if m.history_["ism_cycled"].any():
        notes.append("ISM 2-cycle")
    if not m.converged_ and not m.cycled_:
        notes.append("not converged")
    return m, elapsed, notes


def random_start(X, existing, target, params, seed):
    """({score: value}, notes) of the fit from random start `seed`."""
    m, t, notes = fit(X, existing, params, init="random", random_state=seed)
    values = {"nmi": nmi(target, m.labels_), "cq": m.quality_, "nov": float(m.novelty_[0]), "cost": m.cost_}
    return values | {"time": t, "iter": m.n_iter_}, notes


def fmt(values, digits=3):
    if len(values) == 1:
        return f"{values[0]:.{digits}g}"
    return f"{statistics.mean(values):.{digits}g} ± {statistics.pstdev(values):.2g}"


def search_report(datasets, n_jobs):
    """The markdown of --search (module docstring)."""
    lines = [
        "# KDAC: the paper's (sigma, lambda) search against inequality (10) and its q rule",
        "",
        "Generated by `bench/reproduce_kdac.py --search`; protocol in the script's docstring. NMI against the "
        "alternative labelling, novelty = NMI against the existing one (geometric normalisation).",
        "",
        "## (a) At the appendix's (sigma, lambda): inequality (10) and q",
        "",
        "| data | sigma | lambda | lhs / rhs of (10) at q = k | holds | q by Phi(W*) gap (auto) | q by Phi_0 gap "
        "(init-gap) | paper's q | NMI, q = k | NMI, q auto | novelty, q auto |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    searched = []
    for name, X, existing, target, params in cases():
        if "settings" in name or name not in datasets:
            continue
        k, q_paper = params["n_clusters"], params["n_components"]
        base = {key: v for key, v in params.items() if key != "n_components"}
        at_k, _, _ = fit(X, existing, dict(base, n_components=min(k, X.shape[1]), n_jobs=n_jobs), random_state=0)
        auto, _, _ = fit(X, existing, dict(base, n_components="auto", n_jobs=n_jobs), random_state=0)
        init_gap, _, _ = fit(X, existing, dict(base, n_components="init-gap", n_jobs=n_jobs), random_state=0)
        cond = at_k.sigma_condition_
        lines.append(
            f"| {name} | {params['sigma']:.3g} | {params['lambda_']:g} | {cond['lhs'] / cond['rhs']:.2g} | "
            f"{cond['holds']} | {auto.n_components_} | {init_gap.n_components_} | {q_paper} | "
            f"{nmi(target, at_k.labels_):.3f} | {nmi(target, auto.labels_):.3f} | {auto.novelty_[0]:.3g} |"
        )
        print(lines[-1], flush=True)
        searched.append((name, X, existing, target, k))
    lines += [
        "",
        '## (b) `KDAC(k, search="inequality")`, default grid, `n_components="auto"`',
        "",
        "| data | grid pairs | (10) held at | max lhs / rhs | chosen sigma (x median sigma) | chosen lambda | q | "
        "NMI | novelty | CQ | not converged | time (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, X, existing, target, k in searched:
        m, elapsed, _ = fit(X, existing, dict(n_clusters=k, search="inequality", n_jobs=n_jobs), random_state=0)
        r = m.search_results_
        best = m.search_best_params_
        lines.append(
            f"| {name} | {r['sigma'].size} | {int(r['holds'].sum())} | {r['ratio'].max():.2g} | "
            f"{best['sigma']:.3g} ({best['sigma'] / median_sigma(X):.3g}) | {best['lambda_']:g} | {m.n_components_} | "
            f"{nmi(target, m.labels_):.3f} | {m.novelty_[0]:.3g} | {m.quality_:.3f} | "
            f"{int((~r['converged']).sum())}/{r['sigma'].size} | {elapsed:.0f} |"
        )
        print(lines[-1], flush=True)
    lines += ["", SEARCH_NOTES]
    return "\n".join(lines) + "\n"


# What the measured tables show (bench/results/kdac_search.md); kept beside the code producing them.
SEARCH_NOTES = (
    "Findings. (a) At the appendix's own (sigma, lambda) inequality (10) fails by 4 to 6 orders of magnitude "
    "on all four data sets, so the published pairs cannot have come from the search as the paper states it; "
    "the q rule, run as the paper describes (fit at q = k, then the largest gap (11) of Phi(W*)), returns "
    "the appendix's q on all four (17, 3, 6, 3), and so does the shortcut on Phi_0 (init-gap). On Faces "
    "the q = k = 4 fit alone reaches NMI 0.25; the rule's q = 17 reaches 0.56. (b) On our grid (10) holds "
    "nowhere either; lhs / rhs grows with sigma (roughly as sigma^2 at large sigma), so the fallback, the "
    "pair closest to satisfying (10), is always the grid's largest sigma (4 x the median distance), with "
    "the smallest lambda. That wide kernel keeps the alternative of LG (NMI 1) and Faces (0.56, as the "
    "defaults) but loses the moons' (NMI about 0.3): the search as written selects for the condition, not "
    "for the clustering. On Faces 17 of the 18 candidate fits (at q = k = 4) ran out of outer iterations, "
    "and the search took 16 minutes here. It is therefore an option (search=inequality), not the default."
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument("--search", action="store_true", help="the (sigma, lambda) search and q rule report")
    parser.add_argument("--datasets", nargs="+", default=["Faces", "Moon", "MoonN", "LG"])
    add_dask_option(parser)
    args = parser.parse_args(argv)
    with dask_backend(args.dask):
        return run_script(args)


def run_script(args):
    """The script's work for parsed arguments (main, inside dask_backend)."""
    if args.search:
        text = search_report(args.datasets, args.n_jobs)
        print(text)
        if args.out:
            Path(args.out).write_text(text)
        return 0

    lines = [
        "# ISM paper, Table 1 (ISM rows), reproduced with kernlearn.cluster.KDAC",
        "",
        f"Generated by `bench/reproduce_kdac.py --runs {args.runs} --n-jobs {args.n_jobs}`; "
        "protocol in the script's docstring.",
        "",
        "| data | init | source | NMI ↑ | CQ ↑ | Novelty ↓ | Cost (see note) | Time (s) | outer iter | notes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, X, existing, target, params in cases():
        params = dict(params, n_jobs=args.n_jobs)
        # SI: deterministic up to k-means; time = median of 3 fits.
        runs = [fit(X, existing, params, random_state=0) for _ in range(3)]
        m, _, notes = runs[0]
        t = statistics.median(r[1] for r in runs)
        lines.append(
            f"| {name} | SI | ours | {nmi(target, m.labels_):.3f} | {m.quality_:.3f} | {m.novelty_[0]:.3g} | "
            f"{m.cost_:.4g} | {t:.3f} | {m.n_iter_} | {', '.join(notes)} |"
        )
        paper = PAPER.get(name.split(",")[0] if "settings" not in name else "")
        if paper:
            p = paper["SI"]
            lines.append(f"| | SI | paper | {p[0]} | {p[1]} | {p[2]} | {p[3]} | {p[4]} | | |")
        res = {"nmi": [], "cq": [], "nov": [], "cost": [], "time": [], "iter": []}
        note_count = {}
        # bench/repetitions.py: the random starts one after another here, or as tasks on a Dask cluster
        for values, notes in repeat(functools.partial(random_start, X, existing, target, params), range(args.runs)):
            for key, value in values.items():
                res[key].append(value)
            for note in notes:
                note_count[note] = note_count.get(note, 0) + 1
        lines.append(
            f"| {name} | RI | ours | {fmt(res['nmi'])} | {fmt(res['cq'])} | {fmt(res['nov'])} | "
            f"{fmt(res['cost'], 4)} | {fmt(res['time'])} | {fmt(res['iter'])} | "
            f"{', '.join(f'{k}: {v}/{args.runs}' for k, v in note_count.items())} |"
        )
        if paper:
            p = paper["RI"]
            lines.append(f"| | RI | paper | {p[0]} | {p[1]} | {p[2]} | {p[3]} | {p[4]} | | |")
        print("\n".join(lines[-4:]), flush=True)
    lines += [
        "",
        "Cost: ours = HSIC(XW, U) - lambda HSIC(XW, Y) at the returned (W, U) (eq. 2a, maximised, Y = the existing "
        "clustering only); the paper's column was computed after its k-means had appended the new labels to Y "
        "and is shown for reference only.",
        "",
        "Random starts (RI) are not the paper's protocol in full: it does not say how W_0 was drawn nor how "
        "exactly its W-steps were solved, and on MoonN the answer depends on the latter. With the W-steps "
        "solved to tolerance (ism_max_iter=200, ten seeds) 9 of 10 random starts end at the existing "
        "clustering (NMI 0, novelty 1, cost -7.998, a fixed point of Algorithm 2 worse than SI's -5.268) and "
        "1 of 10 at the alternative; the default inexact W-steps (30 ISM steps) reach the alternative from "
        "6 of 10 and Anderson-accelerated W-steps from 4 of 10 (3 more at NMI 0.68). The spectral "
        "initialisation avoids that basin, which is the paper's argument for it.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    sys.exit(main())
