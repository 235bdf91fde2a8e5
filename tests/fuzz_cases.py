"""Hostile-input cases over every public entry point of kernlearn and its ``_core`` bindings.

Shared by ``tests/test_fuzz.py`` (hypothesis draws cases) and ``bench/fuzz_classify.py`` (enumerates
thousands). A case is a string ``"entry|mutation|seed|size"``; it fully determines the inputs, so
``python -c "import fuzz_cases as f; f.repro('graph.knn|X:huge|3|s')"`` (with ``PYTHONPATH=python:tests``)
replays it.

Every case runs in a forked child of a worker process (``Worker``) that has imported kernlearn once
and runs under an address-space limit, so a segfault, an abort or a hang is an outcome, not a dead
test run. A case's outcome is one of ``CLASSES``:

- crash: the child died of a signal (or exited without reporting);
- hang: the child passed the wall-clock limit;
- nan: the call returned non-finite output without a warning;
- wrong: the output fails the cheap independent check, an input was modified, or valid input was
  rejected;
- accepted: bad input returned without an error;
- weak: an exception of the wrong type (pybind11 "incompatible function arguments" from a public
  function, IndexError, RuntimeError, OverflowError, AttributeError, MemoryError, ...) or a
  ValueError/TypeError whose message does not name the argument (a raw ``_core`` binding's
  pybind11 TypeError is clear: it states the exact signature the stubs document);
- clear: ValueError/TypeError naming the argument (or non-finite output that came with a warning);
- ok: the call returned a finite, correctly shaped result that passes the independent check.

Each mutation has a kind: ``valid`` (must be ``ok``), ``bad`` (must be ``clear``) or ``edge``
(``ok`` or ``clear``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import resource
import select
import signal
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

CLASSES = ("crash", "hang", "nan", "wrong", "accepted", "weak", "clear", "ok")
FAILURES = CLASSES[:6]
ACCEPTABLE = {"valid": {"ok"}, "bad": {"clear"}, "edge": {"ok", "clear"}}
MEMORY_LIMIT = 8 << 30
SIZES = {"s": (2, 3, 5, 8), "m": (12, 20, 30), "l": (60, 120, 250)}


class Wrong(AssertionError):
    """The independent check failed."""


def expect(cond, msg):
    if not cond:
        raise Wrong(msg)


# ---------------------------------------------------------------------------------------------
# Entries
# ---------------------------------------------------------------------------------------------


@dataclass
class Entry:
    name: str
    area: str  # where a failure is routed: neighbors / linalg / kernels / methods (C++) / python
    make: object  # (rng, n) -> dict of arguments
    call: object  # (kw) -> result
    check: object  # (kw, result) -> None, raises Wrong
    arrays: dict = field(default_factory=dict)  # name -> array role ("data", "sym", "spd", "labels", "index", ...)
    params: dict = field(default_factory=dict)  # name -> scalar role ("int", "count", "float", "njobs", ...)
    extra: dict = field(default_factory=dict)  # mutation -> (fn(kw, rng) -> kw, kind, names)
    valid_muts: tuple = ()  # array mutations ("label" or "array:label") valid (not edge) for this entry
    min_n: int = 3
    core: bool = False
    allow_inf: bool = False  # +-inf is a documented value of the result (NaN never is)
    # A harness array that reaches the function through other arguments -> the names an error may use.
    stands_for: dict = field(default_factory=dict)
    # Every case of the entry is also an in-process test elsewhere (the options classes:
    # tests/test_options.py): test_fuzz samples it instead of running each specific case.
    sampled_only: bool = False


ENTRIES: dict[str, Entry] = {}


def entry(name, area, **kw):
    def deco(fns):
        make, call, check = fns
        ENTRIES[name] = Entry(name, area, make, call, check, **kw)
        return fns

    return deco


def fin(*arrays):
    """True when every float in the arrays is finite."""
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind in "fc" and not np.isfinite(a).all():
            return False
    return True


def dense(A):
    import scipy.sparse as sp

    if sp.issparse(A):
        return A.toarray().astype(np.float64)
    return np.array(A, dtype=np.float64)


def safe_scale(A):
    m = float(np.max(np.abs(A))) if np.size(A) else 0.0
    return m if m > 0 and np.isfinite(m) else 1.0


def pairwise_dist(X):
    """Exact Euclidean distances, scaled so magnitudes up to 1e308 neither overflow nor underflow."""
    s = safe_scale(X)
    Z = X / s
    D = np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    return D * s, s


def knn_check(X, k, idx, dist, metric="euclidean"):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    n = X.shape[0]
    expect(idx.shape == (n, k) and dist.shape == (n, k), f"shapes {idx.shape} {dist.shape}, want ({n}, {k})")
    expect(np.issubdtype(idx.dtype, np.integer), f"indices dtype {idx.dtype}")
    expect(((idx >= 0) & (idx < n)).all(), f"index out of range: {idx.min()}..{idx.max()}")
    expect((idx != np.arange(n)[:, None]).all(), "a point is its own neighbour")
    expect(fin(dist), "non-finite distance")
    if metric == "euclidean":
        D, s = pairwise_dist(X)
        atol = 1e-7 * s * max(1.0, np.sqrt(X.shape[1]))
    else:
        norms = np.linalg.norm(X / safe_scale(X), axis=1)
        U = (X / safe_scale(X)) / np.where(norms > 0, norms, 1.0)[:, None]
        D = 1.0 - U @ U.T
        atol = 1e-7
    got = D[np.arange(n)[:, None], idx]
    expect(
        np.allclose(dist, got, rtol=1e-6, atol=atol),
        f"distances differ from recomputed by {np.abs(dist - got).max(initial=0):.3g}",
    )
    Dn = D.copy()
    np.fill_diagonal(Dn, np.inf)
    true = np.sort(Dn, axis=1)[:, :k]
    expect(
        np.allclose(np.sort(got, axis=1), true, rtol=1e-6, atol=atol),
        f"not the k nearest: max excess {np.abs(np.sort(got, axis=1) - true).max(initial=0):.3g}",
    )
    for i in range(n):
        expect(len(set(idx[i].tolist())) == k, f"duplicate neighbour in row {i}")


def eig_check(A, w, V, k, which="LA"):
    A = dense(A)
    n = A.shape[0]
    w, V = np.asarray(w), np.asarray(V)
    expect(w.shape == (k,) and V.shape == (n, k), f"shapes {w.shape} {V.shape}, want ({k},) ({n}, {k})")
    expect(fin(w, V), "non-finite eigenpairs")
    s = safe_scale(A)
    As = A / s
    normA = max(np.linalg.norm(As, 2), 1e-300)
    R = As @ V - V * (w / s)
    res = np.linalg.norm(R, axis=0).max(initial=0.0) / normA
    expect(res < 1e-6, f"residual ||A v - lambda v|| / ||A|| = {res:.3g}")
    expect(np.allclose(V.T @ V, np.eye(k), atol=1e-6), "eigenvectors not orthonormal")
    true = np.linalg.eigvalsh(As) * s
    want = np.sort(true)[::-1][:k] if which in ("LA", "LM") else np.sort(true)[:k]
    if which == "LM":
        want = true[np.argsort(-np.abs(true))][:k]
    expect(
        np.allclose(np.sort(w), np.sort(want), rtol=1e-6, atol=1e-6 * s * normA),
        f"eigenvalues {np.sort(w)[-3:]} != true {np.sort(want)[-3:]}",
    )


def sym_rand(rng, n, spd=False):
    M = rng.standard_normal((n, n))
    if spd:
        return M @ M.T / n + np.eye(n)
    return (M + M.T) / 2


def labels(rng, n, c=2):
    y = np.arange(n) % c
    rng.shuffle(y)
    return y


# ---- graph ------------------------------------------------------------------------------------


def _knn_make(rng, n):
    d = int(rng.integers(1, 5))
    k = int(rng.integers(1, n))
    return {
        "X": rng.standard_normal((n, d)),
        "n_neighbors": k,
        "algorithm": str(rng.choice(["auto", "brute", "kd_tree"])),
    }


def _knn_call(kw):
    from kernlearn.graph import knn

    return knn(**kw)


def _knn_check(kw, out):
    knn_check(kw["X"], kw["n_neighbors"], np.asarray(out[0]), np.asarray(out[1]), kw.get("metric", "euclidean"))


def _issue1a(kw, rng):
    return {**kw, "X": np.array([[0.0], [1e300], [-1e300], [2e300]]), "n_neighbors": 2, "algorithm": "brute"}


def _issue1b(kw, rng):
    X = rng.standard_normal((30, 3))
    X[0, 0] = 1e170
    return {**kw, "X": X, "n_neighbors": 5}


def _dup_rows(kw, rng):
    X = np.repeat(kw["X"][:1], kw["X"].shape[0], axis=0)
    return {**kw, "X": X}


def _cosine_zero(kw, rng):
    X = kw["X"].copy()
    X[0] = 0.0
    return {**kw, "X": X, "metric": "cosine", "algorithm": "brute"}


KNN_EXTRA = {
    "ex:issue1a": (_issue1a, "valid", ("X",)),
    "ex:issue1b": (_issue1b, "valid", ("X",)),
    "ex:dup_rows": (_dup_rows, "valid", ("X",)),
    "ex:cosine": (lambda kw, rng: {**kw, "metric": "cosine", "algorithm": "brute"}, "valid", ()),
    "ex:cosine_zero_row": (_cosine_zero, "edge", ("X",)),
    "ex:k_eq_n": (lambda kw, rng: {**kw, "n_neighbors": kw["X"].shape[0]}, "bad", ("n_neighbors",)),
    "ex:kd_huge": (lambda kw, rng: {**kw, "X": kw["X"] * 1e250, "algorithm": "kd_tree"}, "valid", ("X",)),
    "ex:brute_tiny": (lambda kw, rng: {**kw, "X": kw["X"] * 1e-300, "algorithm": "brute"}, "valid", ("X",)),
}
KNN_VALID = ("huge", "tiny", "e150", "e-150")
entry(
    "graph.knn",
    "neighbors",
    arrays={"X": "data"},
    params={"n_neighbors": "count", "n_jobs": "njobs", "algorithm": "str", "metric": "str"},
    extra=KNN_EXTRA,
    valid_muts=KNN_VALID,
)((_knn_make, _knn_call, _knn_check))


def _knn_graph_call(kw):
    from kernlearn.graph import knn_graph

    return knn_graph(**kw)


def _knn_graph_check(kw, G):
    n = np.asarray(kw["X"]).shape[0]
    A = dense(G)
    expect(A.shape == (n, n), f"shape {A.shape}")
    expect(fin(A), "non-finite weight")
    expect((A >= 0).all(), "negative weight")
    expect((np.diag(A) == 0).all(), "self loop")
    if kw.get("mode", "symmetric") == "symmetric":
        expect(np.array_equal(A, A.T), "symmetric graph is not symmetric")
    expect(((A != 0).sum(1) >= min(1, kw["n_neighbors"])).all() or kw.get("weight") == "heat", "row without edges")


entry(
    "graph.knn_graph",
    "neighbors",
    arrays={"X": "data"},
    params={"n_neighbors": "count", "n_jobs": "njobs", "sigma": "float_opt", "mode": "str", "weight": "str"},
    extra={
        "ex:heat": (lambda kw, rng: {**kw, "weight": "heat"}, "valid", ()),
        "ex:heat_huge": (lambda kw, rng: {**kw, "weight": "heat", "X": kw["X"] * 1e300}, "edge", ("X", "sigma")),
        "ex:issue1a": (lambda kw, rng: {**_issue1a(kw, rng), "n_neighbors": 2}, "valid", ("X",)),
    },
    valid_muts=("huge", "tiny"),
)((lambda rng, n: {k: v for k, v in _knn_make(rng, n).items() if k != "algorithm"}, _knn_graph_call, _knn_graph_check))


def _lap_make(rng, n):
    import scipy.sparse as sp

    W = np.abs(sym_rand(rng, n)) * (rng.random((n, n)) < 0.5)
    W = np.triu(W, 1)
    W = W + W.T
    kind = str(rng.choice(["normalized", "unnormalized", "random_walk"]))
    return {"S": sp.csr_matrix(W) if rng.random() < 0.5 else W, "kind": kind}


def _lap_call(kw):
    from kernlearn.graph import laplacian

    return laplacian(**kw)


def _lap_check(kw, L):
    from scipy.sparse.csgraph import laplacian as cs_lap

    S = dense(kw["S"])
    n = S.shape[0]
    L = dense(L)
    expect(L.shape == (n, n), f"shape {L.shape}")
    expect(fin(L), "non-finite Laplacian entry")
    s = safe_scale(S)
    kind = kw.get("kind", "normalized")
    Ss = S / s
    if kind == "unnormalized":
        ref = cs_lap(Ss, normed=False) * s
        expect(np.allclose(L.sum(1), 0, atol=1e-9 * s * n), "row sums of L are not 0")
    elif kind == "normalized":
        ref = cs_lap(Ss, normed=True)
        deg = Ss.sum(1)
        ref[np.diag_indices(n)] = np.where(deg > 0, 1.0, 0.0) if (deg == 0).any() else ref.diagonal()
    else:
        deg = Ss.sum(1)
        P = np.divide(Ss, deg[:, None], out=np.zeros_like(Ss), where=deg[:, None] > 0)
        ref = np.diag((deg > 0).astype(float)) - P
        expect(np.allclose(L.sum(1), 0, atol=1e-9), "row sums of the random-walk L are not 0")
    if kind != "normalized" or not (Ss.sum(1) == 0).any():
        expect(
            np.allclose(L, ref, rtol=1e-7, atol=1e-9 * max(1.0, np.abs(ref).max())),
            f"L differs from scipy's by {np.abs(L - ref).max(initial=0):.3g}",
        )


def _lap_subnormal(kw, rng):
    import scipy.sparse as sp

    return {**kw, "S": sp.csr_matrix(np.array([[0, 5e-324], [5e-324, 0]])), "kind": "normalized"}


def _asym(kw, rng, name):
    A = dense(kw[name]).copy()
    if A.shape[0] >= 2:
        A[0, 1] += 1.0 + abs(A[0, 1])
    return {**kw, name: A}


def _negw(kw, rng):
    S = dense(kw["S"]).copy()
    if S.shape[0] >= 2:
        S[0, 1] = S[1, 0] = -1.0
    return {**kw, "S": S}


entry(
    "graph.laplacian",
    "neighbors",
    arrays={"S": "sym"},
    params={"kind": "str", "symmetry_tol": "float"},
    extra={
        "ex:issue5": (_lap_subnormal, "valid", ("S",)),
        "ex:asym": (lambda kw, rng: _asym(kw, rng, "S"), "bad", ("S",)),
        "ex:negative_weight": (_negw, "edge", ("S",)),
        "ex:subnormal_sparse": (
            lambda kw, rng: {**kw, "S": __import__("scipy.sparse").sparse.csr_matrix(dense(kw["S"]) * 1e-320)},
            "valid",
            ("S",),
        ),
        "ex:huge_sparse": (
            lambda kw, rng: {**kw, "S": __import__("scipy.sparse").sparse.csr_matrix(dense(kw["S"]) * 1e300)},
            "valid",
            ("S",),
        ),
        "ex:coo": (
            lambda kw, rng: {**kw, "S": __import__("scipy.sparse").sparse.coo_matrix(dense(kw["S"]))},
            "valid",
            (),
        ),
        "ex:tol_nan": (lambda kw, rng: {**kw, "symmetry_tol": float("nan")}, "bad", ("symmetry_tol",)),
    },
    valid_muts=("huge", "tiny", "subnormal"),
)((_lap_make, _lap_call, _lap_check))

# ---- linalg -----------------------------------------------------------------------------------


def _eigsh_make(rng, n):
    k = int(rng.integers(1, max(2, n // 2 + 1)))
    method = str(rng.choice(["auto", "dense", "lanczos"]))
    return {"A": sym_rand(rng, n), "k": k, "which": str(rng.choice(["LA", "SA"])), "method": method}


def _eigsh_call(kw):
    from kernlearn.linalg import eigsh

    return eigsh(**kw)


def _eigsh_check(kw, out):
    w, V = out[0], out[1]
    if kw.get("threshold") is not None:
        expect(fin(w, V), "non-finite eigenpairs")
        return
    eig_check(kw["A"], w, V, kw["k"], kw.get("which", "LA"))
    info = out[2] if len(out) > 2 else {}
    # A tol below the rounding level cannot be met: eigsh documents that and warns (a clear outcome).
    if isinstance(info, dict) and info.get("converged") is False and kw.get("tol", 1e-10) >= 1e-14:
        raise Wrong("not converged")  # the independent check passed but the solver says otherwise


def _sparse_of(kw, name, scale=1.0):
    import scipy.sparse as sp

    return {**kw, name: sp.csr_matrix(dense(kw[name]) * scale)}


def _issue2(kw, rng):
    return {"A": np.array([[1.0, 2.0], [2.0, 3.0]]) * 1e299, "k": 1, "method": "lanczos"}


def _issue3(kw, rng):
    M = rng.standard_normal((40, 40))
    return {"A": M + M.T, "k": 3, "method": "lanczos", "n_jobs": 10**6}


EIGSH_EXTRA = {
    "ex:issue2": (_issue2, "valid", ("A",)),
    "ex:issue3": (_issue3, "valid", ()),
    "ex:sparse": (lambda kw, rng: _sparse_of(kw, "A"), "valid", ()),
    "ex:sparse_huge": (lambda kw, rng: _sparse_of(kw, "A", 1e299), "valid", ("A",)),
    "ex:sparse_tiny": (lambda kw, rng: _sparse_of(kw, "A", 1e-300), "valid", ("A",)),
    "ex:lanczos_huge": (lambda kw, rng: {**kw, "A": dense(kw["A"]) * 1e200, "method": "lanczos"}, "valid", ("A",)),
    "ex:lanczos_tiny": (lambda kw, rng: {**kw, "A": dense(kw["A"]) * 1e-200, "method": "lanczos"}, "valid", ("A",)),
    "ex:lanczos_1e155": (lambda kw, rng: {**kw, "A": dense(kw["A"]) * 3e154, "method": "lanczos"}, "valid", ("A",)),
    "ex:asym": (lambda kw, rng: _asym(kw, rng, "A"), "bad", ("A",)),
    "ex:k_eq_n": (lambda kw, rng: {**kw, "k": dense(kw["A"]).shape[0]}, "edge", ("k",)),
    "ex:k_gt_n": (lambda kw, rng: {**kw, "k": dense(kw["A"]).shape[0] + 1}, "bad", ("k",)),
    "ex:threshold_nan": (lambda kw, rng: {**kw, "k": None, "threshold": float("nan")}, "bad", ("threshold",)),
    "ex:threshold": (lambda kw, rng: {**kw, "k": None, "threshold": 0.5}, "valid", ()),
    "ex:dense_njobs0": (lambda kw, rng: {**kw, "method": "dense", "n_jobs": 0}, "bad", ("n_jobs",)),
    "ex:v0_nan": (
        lambda kw, rng: {**kw, "method": "lanczos", "v0": np.full(dense(kw["A"]).shape[0], np.nan)},
        "bad",
        ("v0",),
    ),
    "ex:v0_short": (lambda kw, rng: {**kw, "method": "lanczos", "v0": np.ones(1)}, "bad", ("v0",)),
    "ex:zero": (lambda kw, rng: {**kw, "A": np.zeros_like(dense(kw["A"])), "method": "lanczos"}, "valid", ()),
    "ex:lanczos_njobs_big": (lambda kw, rng: {**kw, "method": "lanczos", "n_jobs": 2**31}, "edge", ("n_jobs",)),
}


def _eigsh_seq_make(rng, n):
    """A matrix of a sequence (the last one moved a little) and the previous one's eigenvectors as
    the warm-start block v0: the route of eigsh's "sequence" (a filtered run from the block)."""
    n = max(n, 64)
    k = int(rng.integers(2, 6))
    A0 = sym_rand(rng, n)
    V0 = np.linalg.eigh(A0)[1][:, ::-1][:, : k + 2]
    return {"A": A0 + 1e-3 * sym_rand(rng, n), "k": k, "which": "LA", "method": "lanczos", "v0": V0}


entry(
    "linalg.eigsh[sequence]",
    "linalg",
    arrays={"v0": "opt_data"},  # None: a cold start, valid
    params={"k": "count"},
    extra={
        "ex:converged_block": (
            lambda kw, rng: {**kw, "v0": np.linalg.eigh(kw["A"])[1][:, ::-1][:, : kw["k"] + 2]},
            "valid",
            (),
        ),
        "ex:moved_far": (lambda kw, rng: {**kw, "A": sym_rand(rng, np.shape(kw["A"])[0])}, "valid", ()),
        "ex:dependent_block": (
            lambda kw, rng: {**kw, "v0": np.repeat(np.asarray(kw["v0"])[:, :1], kw["k"] + 2, axis=1)},
            "valid",
            (),
        ),
        "ex:wide_block": (
            lambda kw, rng: {**kw, "v0": rng.standard_normal((np.shape(kw["A"])[0], np.shape(kw["A"])[0] // 2 + 1))},
            "valid",
            (),
        ),
        "ex:smallest": (
            lambda kw, rng: {**kw, "which": "SA", "v0": np.linalg.eigh(kw["A"])[1][:, : kw["k"] + 2]},
            "valid",
            (),
        ),
        "ex:v0_rows": (lambda kw, rng: {**kw, "v0": np.ones((3, 2))}, "bad", ("v0",)),
        "ex:v0_zero_block": (lambda kw, rng: {**kw, "v0": np.zeros(np.shape(kw["v0"]))}, "edge", ("v0",)),
    },
    min_n=64,
)((_eigsh_seq_make, _eigsh_call, _eigsh_check))

entry(
    "linalg.eigsh",
    "linalg",
    arrays={"A": "sym"},
    params={
        "k": "count",
        "maxiter": "int_opt",
        "ncv": "int_opt",
        "max_rank": "int_opt",
        "tol": "float",
        "n_jobs": "njobs",
        "random_state": "seed",
        "which": "str",
        "method": "str",
    },
    extra=EIGSH_EXTRA,
)((_eigsh_make, _eigsh_call, _eigsh_check))


def _ecb_make(rng, n):
    return {"A": sym_rand(rng, n), "threshold": float(rng.normal()), "which": "LA", "degree": 30, "n_probes": 5}


def _ecb_call(kw):
    from kernlearn.linalg import estimate_count_beyond

    return estimate_count_beyond(**kw)


def _ecb_check(kw, out):
    n = dense(kw["A"]).shape[0]
    expect(np.isfinite(out), "non-finite estimate")
    expect(-0.5 <= float(out) <= n + 0.5, f"estimate {out} outside [0, n]")


entry(
    "linalg.estimate_count_beyond",
    "linalg",
    arrays={"A": "sym"},
    params={"threshold": "float_any", "degree": "count", "n_probes": "count", "which": "str", "random_state": "seed"},
    extra={"ex:which_bogus": (lambda kw, rng: {**kw, "which": "bogus"}, "bad", ("which",))},
)((_ecb_make, _ecb_call, _ecb_check))

# ---- constraints ------------------------------------------------------------------------------


def _fl_make(rng, n):
    return {"y": labels(rng, n, int(rng.integers(2, 4))), "random_state": int(rng.integers(100))}


def _fl_call(kw):
    from kernlearn.constraints import from_labels

    return from_labels(**kw)


def _fl_check(kw, out):
    from kernlearn.constraints import ALL_PAIRS_LIMIT  # the documented cap of the all-pairs default

    pairs, lab = np.asarray(out[0]), np.asarray(out[1])
    y = np.asarray(kw["y"])
    n = y.shape[0]
    expect(
        pairs.ndim == 2 and pairs.shape[1] == 2 and lab.shape == (pairs.shape[0],), f"shapes {pairs.shape} {lab.shape}"
    )
    expect(((pairs >= 0) & (pairs < n)).all(), "pair index out of range")
    expect(
        pairs.shape[0] <= max(50 * n, ALL_PAIRS_LIMIT) or kw.get("n_pairs") is not None,
        f"{pairs.shape[0]} pairs for n = {n}: quadratic",
    )
    lab_ok = (y >= 0) if y.dtype.kind in "iu" else np.ones(n, bool)
    both = lab_ok[pairs[:, 0]] & lab_ok[pairs[:, 1]]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    expect(np.all((lab[both] > 0) == same[both]), "pair labels disagree with y")


def _unlab(kw, rng, n=2000):
    y = np.arange(n) % 2
    y[0] = -1
    return {**kw, "y": y}


entry(
    "constraints.from_labels",
    "python",
    arrays={"y": "labels"},
    params={"n_pairs": "int_opt", "component_ratio": "float_opt", "random_state": "seed"},
    extra={
        "ex:one_unlabelled": (_unlab, "valid", ("y",)),
        "ex:all_unlabelled": (lambda kw, rng: {**kw, "y": -np.ones(10, int)}, "edge", ("y",)),
        "ex:y_float": (lambda kw, rng: {**kw, "y": np.asarray(kw["y"]) + 0.5}, "edge", ("y",)),
        "ex:n_pairs_huge": (lambda kw, rng: {**kw, "n_pairs": 2**40}, "edge", ("n_pairs",)),
        "ex:partners": (
            lambda kw, rng: {k: v for k, v in kw.items() if k not in ("n_pairs", "component_ratio")} | {"partners": 3},
            "valid",
            (),
        ),
        "ex:partners_huge": (
            lambda kw, rng: (
                {k: v for k, v in kw.items() if k not in ("n_pairs", "component_ratio")} | {"partners": 2**62}
            ),
            "bad",
            ("partners",),
        ),
        "ex:partners_zero": (lambda kw, rng: {**kw, "partners": 0}, "bad", ("partners",)),
    },
)((_fl_make, _fl_call, _fl_check))


def _pairs_make(rng, n):
    m = int(rng.integers(1, 3 * n))
    pairs = rng.integers(0, n, size=(m, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    if pairs.shape[0] == 0:
        pairs = np.array([[0, 1]])
    return {"pairs": pairs, "n": n, "pair_labels": rng.choice([-1.0, 1.0], size=pairs.shape[0])}


def _check_pairs_call(kw):
    from kernlearn.constraints import check_pairs

    return check_pairs(**kw)


def _check_pairs_check(kw, out):
    pairs = np.asarray(out[0] if isinstance(out, tuple) else out)
    n = kw["n"]
    expect(pairs.ndim == 2 and pairs.shape[1] == 2, f"pairs shape {pairs.shape}")
    expect(((pairs >= 0) & (pairs < n)).all(), "pair index out of range")


PAIR_EXTRA = {
    "ex:pair_out_of_range": (
        lambda kw, rng: {
            **kw,
            "pairs": np.vstack([kw["pairs"], [[0, kw["n"]]]]),
            "pair_labels": np.append(kw["pair_labels"], 1.0),
        },
        "bad",
        ("pairs",),
    ),
    "ex:pair_negative": (
        lambda kw, rng: {
            **kw,
            "pairs": np.vstack([kw["pairs"], [[-1, 0]]]),
            "pair_labels": np.append(kw["pair_labels"], 1.0),
        },
        "bad",
        ("pairs",),
    ),
    "ex:pair_2to63": (
        lambda kw, rng: {
            **kw,
            "pairs": np.vstack([kw["pairs"], [[0, 2**63 - 1]]]),
            "pair_labels": np.append(kw["pair_labels"], 1.0),
        },
        "bad",
        ("pairs",),
    ),
    "ex:self_pair": (
        lambda kw, rng: {
            **kw,
            "pairs": np.vstack([kw["pairs"], [[0, 0]]]),
            "pair_labels": np.append(kw["pair_labels"], 1.0),
        },
        "edge",
        ("pairs",),
    ),
    "ex:duplicate_pairs": (
        lambda kw, rng: {
            **kw,
            "pairs": np.vstack([kw["pairs"], kw["pairs"]]),
            "pair_labels": np.concatenate([kw["pair_labels"]] * 2),
        },
        "edge",
        ("pairs",),
    ),
    "ex:contradictory_pairs": (
        lambda kw, rng: {
            **kw,
            "pairs": np.vstack([kw["pairs"], kw["pairs"]]),
            "pair_labels": np.concatenate([kw["pair_labels"], -kw["pair_labels"]]),
        },
        "edge",
        ("pairs", "pair_labels"),
    ),
    "ex:labels_short": (lambda kw, rng: {**kw, "pair_labels": kw["pair_labels"][:-1]}, "bad", ("pair_labels",)),
    "ex:labels_nan": (
        lambda kw, rng: {**kw, "pair_labels": np.full(len(kw["pair_labels"]), np.nan)},
        "bad",
        ("pair_labels",),
    ),
    "ex:labels_zero": (
        lambda kw, rng: {**kw, "pair_labels": np.zeros(len(kw["pair_labels"]))},
        "edge",
        ("pair_labels",),
    ),
    "ex:pairs_float": (lambda kw, rng: {**kw, "pairs": np.asarray(kw["pairs"]) + 0.5}, "bad", ("pairs",)),
    "ex:pairs_3col": (
        lambda kw, rng: {**kw, "pairs": np.column_stack([kw["pairs"], kw["pairs"][:, 0]])},
        "bad",
        ("pairs",),
    ),
}
entry(
    "constraints.check_pairs",
    "python",
    arrays={"pairs": "index", "pair_labels": "opt"},
    params={"n": "count"},
    extra=PAIR_EXTRA,
)((_pairs_make, _check_pairs_call, _check_pairs_check))


def _ca_make(rng, n):
    return {**_pairs_make(rng, n), "pattern": str(rng.choice(["entry", "distance"]))}


def _ca_call(kw):
    from kernlearn.constraints import ConstraintAccumulator

    ca = ConstraintAccumulator(**kw)
    m = ca.n_pairs
    out = ca.assemble(np.linspace(-1, 1, m))
    return (ca, out)


def _ca_check(kw, out):
    ca, M = out
    A = dense(M) if not isinstance(M, tuple) else dense(M[0])
    expect(fin(A), "non-finite assembled matrix")


entry(
    "constraints.ConstraintAccumulator",
    "methods",
    arrays={"pairs": "index", "pair_labels": "opt"},
    params={"n": "count", "pattern": "str", "n_jobs": "njobs"},
    extra=PAIR_EXTRA,
)((_ca_make, _ca_call, _ca_check))

# ---- kernels ----------------------------------------------------------------------------------


def _feat_make(rng, n, param):
    X = rng.standard_normal((n, int(rng.integers(1, 5))))
    kw = {"X": X}
    if rng.random() < 0.5:
        kw["Y"] = rng.standard_normal((int(rng.integers(1, n + 1)), X.shape[1]))
    if rng.random() < 0.5:
        kw[param] = float(rng.uniform(0.1, 3))
    return kw


def _tl1_check(kw, K):
    X = np.asarray(kw["X"], np.float64)
    Y = X if kw.get("Y") is None else np.asarray(kw["Y"], np.float64)
    K = np.asarray(K)
    expect(K.shape == (X.shape[0], Y.shape[0]), f"shape {K.shape}")
    expect(fin(K), "non-finite kernel")
    tau = kw.get("tau")
    s = max(safe_scale(X), safe_scale(Y))
    L1 = (np.abs(X[:, None, :] / s - Y[None, :, :] / s).sum(-1)) * s
    if tau is None:
        return
    ref = np.maximum(tau - L1, 0)
    expect(
        np.allclose(K, ref, rtol=1e-5, atol=1e-6 * max(tau, 1)),
        f"TL1 kernel differs by {np.abs(K - ref).max(initial=0):.3g}",
    )
    if kw.get("Y") is None:
        expect(np.allclose(K, K.T), "not symmetric")


def _rbf_check(kw, K):
    X = np.asarray(kw["X"], np.float64)
    Y = X if kw.get("Y") is None else np.asarray(kw["Y"], np.float64)
    K = np.asarray(K)
    expect(K.shape == (X.shape[0], Y.shape[0]), f"shape {K.shape}")
    expect(fin(K), "non-finite kernel")
    expect(((K >= 0) & (K <= 1 + 1e-6)).all(), "RBF value outside [0, 1]")
    g = kw.get("gamma")
    if g is None:
        return
    s = max(safe_scale(X), safe_scale(Y))
    with np.errstate(over="ignore", under="ignore"):
        D2 = ((X[:, None, :] / s - Y[None, :, :] / s) ** 2).sum(-1)
        ref = np.exp(-(g * s) * s * D2)
    expect(np.allclose(K, ref, rtol=1e-5, atol=1e-6), f"RBF kernel differs by {np.abs(K - ref).max(initial=0):.3g}")


def _kern_call(fname):
    def call(kw):
        from kernlearn import kernels

        return getattr(kernels, fname)(**kw)

    return call


for _fname, _param, _check in (("tl1_kernel", "tau", _tl1_check), ("rbf_kernel", "gamma", _rbf_check)):
    entry(
        f"kernels.{_fname}",
        "kernels",
        arrays={"X": "data", "Y": "opt_data"},
        params={_param: "float_opt", "n_jobs": "njobs", "dtype": "dtype"},
        extra={
            "ex:Y_cols": (
                lambda kw, rng: {**kw, "Y": np.ones((2, np.asarray(kw["X"]).shape[1] + 1))},
                "bad",
                ("Y", "X"),
            ),
            "ex:float32": (lambda kw, rng: {**kw, "dtype": np.float32}, "valid", ()),
        },
        # Entries beyond 1e150 are refused by name (squared distances must stay finite): edge.
        valid_muts=("tiny", "subnormal"),
    )((lambda rng, n, p=_param: _feat_make(rng, n, p), _kern_call(_fname), _check))


def _spd_stack(rng, m, d=3):
    A = rng.standard_normal((m, d, d))
    return A @ A.transpose(0, 2, 1) + np.eye(d)


def _manifold_check(kw, K):
    S = np.asarray(kw["S"])
    T = S if kw.get("T") is None else np.asarray(kw["T"])
    K = np.asarray(K)
    expect(K.shape == (S.shape[0], T.shape[0]), f"shape {K.shape}")
    expect(fin(K), "non-finite kernel")
    expect(((K >= 0) & (K <= 1 + 1e-8)).all(), "value outside [0, 1]")
    if kw.get("T") is None:
        expect(np.allclose(K, K.T, atol=1e-10), "not symmetric")
        expect(np.allclose(np.diag(K), 1, atol=1e-8), "diagonal is not 1")


def _not_spd(kw, rng):
    S = np.array(kw["S"], dtype=float)
    S[0] = -S[0]
    return {**kw, "S": S}


for _fname in ("log_euclidean_kernel", "affine_invariant_kernel"):
    entry(
        f"kernels.{_fname}",
        "kernels",
        arrays={"S": "spd_stack", "T": "opt_spd_stack"},
        params={"gamma": "float", "n_jobs": "njobs"},
        extra={
            "ex:not_spd": (_not_spd, "bad", ("S",)),
            "ex:T_dim": (
                lambda kw, rng: {**kw, "T": _spd_stack(rng, 2, np.asarray(kw["S"]).shape[1] + 1)},
                "bad",
                ("T", "S"),
            ),
            "ex:singular": (lambda kw, rng: {**kw, "S": np.zeros_like(np.asarray(kw["S"]))}, "bad", ("S",)),
        },
    )(
        (
            lambda rng, n: {"S": _spd_stack(rng, n), "gamma": float(rng.uniform(0.01, 1))},
            _kern_call(_fname),
            _manifold_check,
        )
    )


def _covd_check(kw, C):
    C = np.asarray(C)
    expect(fin(C), "non-finite descriptor")
    expect(C.shape[-1] == C.shape[-2], f"shape {C.shape}")
    expect(np.allclose(C, np.swapaxes(C, -1, -2), rtol=1e-8, atol=1e-12 * safe_scale(C)), "not symmetric")
    ev = np.linalg.eigvalsh(C / safe_scale(C))
    expect((ev > 0).all(), "descriptor not positive definite")


entry(
    "kernels.covariance_descriptor",
    "python",
    arrays={"image": "image"},
    params={"regularization": "float"},
    extra={"ex:issue7": (lambda kw, rng: {**kw, "image": np.asarray(kw["image"]) * 1e300}, "edge", ("image",))},
    valid_muts=("3d",),  # a stack of one image, (1, h, w)
)((lambda rng, n: {"image": rng.random((n + 3, n + 4))}, _kern_call("covariance_descriptor"), _covd_check))


def _psd_check(kw, K):
    A = dense(kw["K"])
    K = dense(K)
    expect(K.shape == A.shape, f"shape {K.shape}")
    expect(fin(K), "non-finite output")
    s = safe_scale(K)
    expect(np.allclose(K, K.T, atol=1e-10 * s), "not symmetric")
    expect(np.linalg.eigvalsh(K / s).min() >= -1e-7, "not PSD")


entry(
    "kernels.make_psd",
    "kernels",
    arrays={"K": "sym"},
    params={"method": "str", "n_jobs": "njobs", "random_state": "seed"},
    extra={
        "ex:asym": (lambda kw, rng: _asym(kw, rng, "K"), "bad", ("K",)),
        "ex:sparse": (lambda kw, rng: _sparse_of(kw, "K"), "edge", ("K",)),
    },
)(
    (
        lambda rng, n: {"K": sym_rand(rng, n), "method": str(rng.choice(["clip", "flip", "shift"]))},
        _kern_call("make_psd"),
        _psd_check,
    )
)


def _bounds_check(kw, out):
    lo, hi = float(out[0]), float(out[1])
    ev = np.linalg.eigvalsh(dense(kw["K"]) / safe_scale(dense(kw["K"]))) * safe_scale(dense(kw["K"]))
    expect(np.isfinite(lo) and np.isfinite(hi), "non-finite bound")
    tol = 1e-5 * max(abs(ev).max(), 1e-300)
    expect(
        lo <= ev.min() + tol and hi >= ev.max() - tol,
        f"bounds [{lo:.6g}, {hi:.6g}] miss spectrum [{ev.min():.6g}, {ev.max():.6g}]",
    )


entry(
    "kernels.spectrum_bounds",
    "kernels",
    arrays={"K": "sym"},
    params={"tol": "float", "n_jobs": "njobs", "random_state": "seed"},
    extra={"ex:asym": (lambda kw, rng: _asym(kw, rng, "K"), "bad", ("K",))},
)((lambda rng, n: {"K": sym_rand(rng, n)}, _kern_call("spectrum_bounds"), _bounds_check))


def _negpart_check(kw, out):
    w, V = np.asarray(out[0]), np.asarray(out[1])
    A = dense(kw["K"])
    expect(fin(w, V), "non-finite output")
    expect(V.shape == (A.shape[0], w.shape[0]), f"shapes {w.shape} {V.shape}")
    if w.size:
        s = safe_scale(A)
        lam = w if (w <= 0).all() else -w
        R = (A / s) @ V - V * (lam / s)
        R2 = (A / s) @ V - V * (w / s)
        res = min(np.linalg.norm(R, axis=0).max(), np.linalg.norm(R2, axis=0).max()) / max(
            np.linalg.norm(A / s, 2), 1e-300
        )
        expect(res < 1e-6, f"negative pairs residual {res:.3g}")


entry(
    "kernels.negative_part",
    "kernels",
    arrays={"K": "sym"},
    params={"tol": "float", "n_jobs": "njobs", "random_state": "seed"},
)((lambda rng, n: {"K": sym_rand(rng, n)}, _kern_call("negative_part"), _negpart_check))


def _kop_call(kw):
    from kernlearn.kernels import kernel_operator

    op = kernel_operator(**kw)
    n = np.asarray(kw["K"]).shape[0] if not hasattr(kw["K"], "toarray") else kw["K"].shape[0]
    x = np.linspace(-1, 1, n)
    return op, op @ x, op @ np.column_stack([x, x[::-1]])


def _kop_check(kw, out):
    _, y, Y = out
    A = dense(kw["K"])
    n = A.shape[0]
    x = np.linspace(-1, 1, n)
    expect(fin(y, Y), "non-finite product")
    s = safe_scale(A)
    ref = (A / s) @ x * s
    expect(np.allclose(y, ref, rtol=1e-8, atol=1e-10 * s * n), "K @ x differs from numpy")
    expect(np.allclose(Y[:, 0], ref, rtol=1e-8, atol=1e-10 * s * n), "K @ X differs from numpy")


entry(
    "kernels.kernel_operator",
    "kernels",
    arrays={"K": "sym"},
    params={"n_jobs": "njobs"},
    extra={"ex:issue3": (lambda kw, rng: {**kw, "n_jobs": 10**6}, "valid", ())},
    valid_muts=("huge", "tiny"),
)((lambda rng, n: {"K": sym_rand(rng, n)}, _kop_call, _kop_check))


def _xe_call(kw):
    from kernlearn.kernels import extreme_eigenpairs, kernel_operator

    return extreme_eigenpairs(kernel_operator(kw["K"]), **{k: v for k, v in kw.items() if k != "K"})


def _xe_check(kw, out):
    lo, hi = float(out[0]), float(out[2])
    ev = np.linalg.eigvalsh(dense(kw["K"]))
    expect(np.isfinite(lo) and np.isfinite(hi), "non-finite")
    tol = 1e-5 * max(abs(ev).max(), 1e-300)
    expect(
        abs(lo - ev.min()) <= tol and abs(hi - ev.max()) <= tol,
        f"extremes {lo:.6g} {hi:.6g} != {ev.min():.6g} {ev.max():.6g}",
    )


entry(
    "kernels.extreme_eigenpairs",
    "kernels",
    arrays={"K": "sym"},
    params={"tol": "float", "random_state": "seed"},
)((lambda rng, n: {"K": sym_rand(rng, n)}, _xe_call, _xe_check))

# ---- indefinite -------------------------------------------------------------------------------


def _krein_call(kw):
    from kernlearn.indefinite import krein_decomposition

    return krein_decomposition(**kw)


def _krein_check(kw, d):
    A = dense(kw["K"])
    ev = np.linalg.eigvalsh(A / safe_scale(A)) * safe_scale(A)
    expect(fin(d.negative_vectors, d.negative_weights) and np.isfinite(d.shift), "non-finite decomposition")
    tol = 1e-5 * max(abs(ev).max(), 1e-300)
    expect(d.mu_min <= ev.min() + tol, f"mu_min {d.mu_min:.6g} above lambda_min {ev.min():.6g}")
    expect(d.mu_max >= ev.max() - tol, f"mu_max {d.mu_max:.6g} below lambda_max {ev.max():.6g}")


entry(
    "indefinite.krein_decomposition",
    "python",
    arrays={"K": "sym"},
    params={
        "max_negative_rank": "int_opt",
        "spectral_matvecs": "count",
        "tol": "float",
        "tau": "float_opt",
        "n_jobs": "njobs",
        "method": "str",
        "random_state": "seed",
    },
    extra={
        "ex:mnr_neg": (lambda kw, rng: {**kw, "max_negative_rank": -1}, "bad", ("max_negative_rank",)),
        "ex:mnr_nan": (lambda kw, rng: {**kw, "max_negative_rank": float("nan")}, "bad", ("max_negative_rank",)),
        "ex:mnr_2to64": (lambda kw, rng: {**kw, "max_negative_rank": 2**64}, "edge", ("max_negative_rank",)),
    },
)((lambda rng, n: {"K": sym_rand(rng, n), "method": str(rng.choice(["shift", "spectral"]))}, _krein_call, _krein_check))


def _clf_make(rng, n):
    n = max(n, 6)
    y = labels(rng, n, int(rng.integers(2, 4)))
    X = rng.standard_normal((n, 2)) + y[:, None]
    return {"X": X, "y": y}


def _est_call(cls_path, predict=None, ctor_keys=(), fit_keys=("X", "y"), attr=None):
    def call(kw):
        import importlib

        mod, cls = cls_path.rsplit(".", 1)
        Est = getattr(importlib.import_module(mod), cls)
        est = Est(**{k: v for k, v in kw.items() if k not in fit_keys})
        args = [kw[k] for k in fit_keys if k in kw]
        est.fit(*args)
        if predict == "predict":
            return est, est.predict(kw[fit_keys[0]])
        if predict == "predict_none":
            return est, est.predict()
        return est, getattr(est, attr) if attr else None

    return call


def _pred_check(kw, out):
    est, pred = out
    y = np.asarray(kw["y"])
    n = np.asarray(kw[[k for k in kw if k in ("X", "S")][0]]).shape[0] if "X" in kw else len(y)
    pred = np.asarray(pred)
    expect(pred.shape == (len(y),) or pred.shape == (n,), f"predictions shape {pred.shape}")
    expect(np.isin(pred, np.unique(y)).all(), "a prediction outside the classes")


Y_EXTRA = {
    "ex:y_short": (lambda kw, rng: {**kw, "y": np.asarray(kw["y"])[:-1]}, "bad", ("y", "X")),
    "ex:y_long": (lambda kw, rng: {**kw, "y": np.append(kw["y"], 0)}, "bad", ("y", "X")),
    "ex:y_nan": (
        lambda kw, rng: {**kw, "y": np.where(np.arange(len(kw["y"])) == 0, np.nan, np.asarray(kw["y"], float))},
        "bad",
        ("y",),
    ),
    "ex:y_one_class": (lambda kw, rng: {**kw, "y": np.zeros(len(kw["y"]), int)}, "edge", ("y",)),
    "ex:y_str": (lambda kw, rng: {**kw, "y": np.array(["a", "b"])[np.asarray(kw["y"]) % 2]}, "edge", ("y",)),
}
entry(
    "indefinite.IndefiniteKernelLogisticRegression",
    "methods",
    arrays={"X": "data", "y": "labels"},
    params={
        "tau": "float_opt",
        "alpha": "float",
        "max_outer": "count",
        "max_inner": "count",
        "learning_rate": "float",
        "n_jobs": "njobs",
        "kernel": "str",
        "random_state": "seed",
    },
    extra={**Y_EXTRA, "ex:issue3": (lambda kw, rng: {**kw, "n_jobs": 10**6}, "valid", ())},
    min_n=6,
)(
    (
        lambda rng, n: {**_clf_make(rng, n), "max_outer": 3, "max_inner": 30},
        _est_call("kernlearn.indefinite.IndefiniteKernelLogisticRegression", "predict"),
        _pred_check,
    )
)

# ---- metric -----------------------------------------------------------------------------------


def _sice_make(rng, n):
    d = min(n, 8)
    X = rng.standard_normal((3 * d, d))
    return {"Sigma": np.cov(X.T) + 0.1 * np.eye(d), "rho": float(rng.uniform(0.01, 0.5))}


def _sice_call(kw):
    from kernlearn.metric import sparse_inverse_covariance

    return sparse_inverse_covariance(**kw)


def _sice_check(kw, r):
    S = dense(kw["Sigma"])
    d = S.shape[0]
    P, W = np.asarray(r.precision), np.asarray(r.dual)
    expect(P.shape == (d, d) and W.shape == (d, d), f"shapes {P.shape} {W.shape}")
    expect(fin(P, W) and np.isfinite(r.duality_gap), "non-finite precision, dual or gap")
    expect(np.allclose(P, P.T, rtol=1e-10, atol=0), "precision not symmetric")
    sP, ldP = np.linalg.slogdet(P)
    expect(sP > 0 and np.linalg.eigvalsh(P / safe_scale(P)).min() > 0, "precision not positive definite")
    rho = kw["rho"]
    R = np.full((d, d), float(rho)) if np.ndim(rho) == 0 else np.asarray(rho, float)
    if not kw.get("penalize_diagonal", True):
        R = R.copy()
        np.fill_diagonal(R, 0.0)
    primal = -ldP + float((S * P).sum()) + float((R * np.abs(P)).sum())
    sW, ldW = np.linalg.slogdet(W)
    expect(sW > 0, "dual point not positive definite")
    viol = np.abs(W - S) - R
    scale = max(safe_scale(S), safe_scale(R))
    expect(viol.max() <= 1e-8 * scale, f"dual point infeasible by {viol.max():.3g}")
    dual = ldW + d
    gap = primal - dual
    tolerance = 1e-7 * max(1.0, abs(primal))
    expect(
        abs(primal - r.primal_objective) <= tolerance * 10,
        f"primal {primal:.10g} != reported {r.primal_objective:.10g}",
    )
    expect(gap >= -tolerance, f"negative gap {gap:.3g}")
    if r.converged:
        tol = kw.get("tol", 1e-8)
        expect(
            gap <= max(tol * max(1.0, abs(primal)) * 10, 1e-9),
            f"converged with gap {gap:.3g} (reported {r.duality_gap:.3g})",
        )


entry(
    "metric.sparse_inverse_covariance",
    "methods",
    arrays={"Sigma": "spd"},
    params={"rho": "float", "tol": "float", "max_iter": "count", "solver": "str"},
    extra={
        "ex:rho_matrix": (lambda kw, rng: {**kw, "rho": np.full(np.shape(kw["Sigma"]), kw["rho"])}, "valid", ()),
        "ex:rho_matrix_neg": (lambda kw, rng: {**kw, "rho": -np.ones(np.shape(kw["Sigma"]))}, "bad", ("rho",)),
        "ex:rho_shape": (lambda kw, rng: {**kw, "rho": np.ones((1, 2))}, "bad", ("rho",)),
        "ex:zero_sigma": (lambda kw, rng: {**kw, "Sigma": np.zeros_like(dense(kw["Sigma"]))}, "edge", ("Sigma",)),
        "ex:asym": (lambda kw, rng: _asym(kw, rng, "Sigma"), "bad", ("Sigma",)),
        "ex:no_diag_penalty": (lambda kw, rng: {**kw, "penalize_diagonal": False}, "valid", ()),
        "ex:solvers": (
            lambda kw, rng: {**kw, "solver": str(rng.choice(["newton", "quic", "bcd", "auto"]))},
            "edge",
            ("solver",),
        ),
    },
)((_sice_make, _sice_call, _sice_check))


def _s3ml_make(rng, n):
    n = max(n, 8)
    y = -np.ones(n, int)
    lab = rng.choice(n, size=max(4, n // 3), replace=False)
    y[lab] = np.arange(lab.size) % 2
    return {"X": rng.standard_normal((n, 3)) + (y[:, None] > 0), "y": y, "n_neighbors": 3, "max_iter": 50}


def _s3ml_call(kw):
    from kernlearn.metric import S3ML

    est = S3ML(**{k: v for k, v in kw.items() if k not in ("X", "y")}).fit(kw["X"], kw["y"])
    return est, est.transform(kw["X"])


def _s3ml_check(kw, out):
    est, Z = out
    X = np.asarray(kw["X"])
    M = np.asarray(est.metric_)
    expect(fin(M, Z), "non-finite metric or transform")
    expect(M.shape == (X.shape[1],) * 2 and Z.shape[0] == X.shape[0], f"shapes {M.shape} {Z.shape}")
    expect(np.allclose(M, M.T, atol=1e-10 * safe_scale(M)), "metric not symmetric")
    expect(np.linalg.eigvalsh(M / safe_scale(M)).min() >= -1e-8, "metric not PSD")


entry(
    "metric.S3ML",
    "python",
    arrays={"X": "data", "y": "labels"},
    params={
        "n_neighbors": "count",
        "alpha": "float",
        "theta": "float",
        "rho": "float",
        "max_iter": "count",
        "tol": "float",
        "n_jobs": "njobs",
        "random_state": "seed",
    },
    extra={**Y_EXTRA, "ex:one_unlabelled": (lambda kw, rng: {**kw, **_s3ml_unlab(rng)}, "valid", ("y",))},
    min_n=8,
)((_s3ml_make, _s3ml_call, _s3ml_check))


def _s3ml_unlab(rng, n=400):
    y = np.arange(n) % 2
    y[0] = -1
    return {"X": rng.standard_normal((n, 3)) + y[:, None], "y": y}


def _pa_make(rng, n):
    p = _pairs_make(rng, n)
    return {
        "X": rng.standard_normal((n, 2)),
        "pairs": p["pairs"],
        "pair_labels": p["pair_labels"],
        "n_neighbors": min(3, n - 1),
    }


def _pa_call(kw):
    from kernlearn.metric import propagate_affinities

    return propagate_affinities(**kw)


def _pa_check(kw, F):
    n = np.asarray(kw["X"]).shape[0]
    A = dense(F)
    expect(A.shape == (n, n), f"shape {A.shape}")
    expect(fin(A), "non-finite affinities")


entry(
    "metric.propagate_affinities",
    "python",
    arrays={"X": "data", "pairs": "index", "pair_labels": "pairlab"},
    params={
        "n_neighbors": "count",
        "alpha": "float",
        "theta": "float",
        "tol": "float",
        "method": "str",
        "n_jobs": "njobs",
    },
    extra={
        k: (
            lambda kw, rng, f=f: {
                a: v for a, v in f({**kw, "n": np.asarray(kw["X"]).shape[0]}, rng).items() if a != "n"
            },
            kind,
            names,
        )
        for k, (f, kind, names) in PAIR_EXTRA.items()
    },
)((_pa_make, _pa_call, _pa_check))


def _lqf_make(rng, n):
    X = rng.standard_normal((n, 2))
    W = np.abs(sym_rand(rng, n))
    np.fill_diagonal(W, 0)
    return {"X": X, "W": W}


def _lqf_check(kw, M):
    X, W = np.asarray(kw["X"], float), dense(kw["W"])
    M = np.asarray(M)
    expect(fin(M), "non-finite form")
    L = np.diag(W.sum(1)) - W
    ref = X.T @ L @ X
    alt = ref / 2
    atol = 1e-10 * safe_scale(X) ** 2 * max(np.abs(W).sum(), 1e-300)
    ok = np.allclose(M, ref, rtol=1e-8, atol=atol) or np.allclose(M, alt, rtol=1e-8, atol=atol)
    expect(ok, "X' L X differs from numpy")


entry(
    "metric.laplacian_quadratic_form",
    "python",
    arrays={"X": "data", "W": "sym"},
    extra={"ex:W_shape": (lambda kw, rng: {**kw, "W": np.ones((2, 2))}, "bad", ("W", "X"))},
)((_lqf_make, lambda kw: __import__("kernlearn.metric", fromlist=["x"]).laplacian_quadratic_form(**kw), _lqf_check))


def _ab_make(rng, n):
    d = min(n, 5)
    P = sym_rand(rng, d, spd=True)
    T = sym_rand(rng, d)
    return {"prior_inverse": P, "T": T, "rho": float(rng.uniform(0.01, 1))}


def _ab_check(kw, b):
    expect(not np.isnan(b), "NaN beta")


entry(
    "metric.admissible_beta",
    "python",
    arrays={"prior_inverse": "spd", "T": "sym"},
    params={"rho": "float"},
    allow_inf=True,  # beta_max = inf: every beta admissible, or beta_max beyond the largest float
)((_ab_make, lambda kw: __import__("kernlearn.metric", fromlist=["x"]).admissible_beta(**kw), _ab_check))

# ---- npkl / embedding / cluster / similarity --------------------------------------------------


def _emb_check(attr, ncomp_key=None):
    def check(kw, out):
        est, _ = out
        X = np.asarray(kw["X"])
        E = np.asarray(getattr(est, attr))
        expect(fin(E), f"non-finite {attr}")
        expect(E.ndim == 2 and E.shape[0] == X.shape[0], f"{attr} shape {E.shape}")
        if ncomp_key and isinstance(kw.get(ncomp_key, 2), int) and 0 < kw.get(ncomp_key, 2) <= X.shape[0]:
            expect(E.shape[1] == kw.get(ncomp_key, 2), f"{attr} has {E.shape[1]} columns, want {kw.get(ncomp_key, 2)}")

    return check


def _npkl_make(rng, n):
    n = max(n, 8)
    y = labels(rng, n)
    return {"X": rng.standard_normal((n, 2)) + y[:, None], "y": y, "n_neighbors": 3, "max_iter": 30}


def _npkl_unlab(kw, rng, n=400):
    y = np.arange(n) % 2
    y[0] = -1
    return {**kw, "X": rng.standard_normal((n, 2)), "y": y}


NPKL_EXTRA = {
    **Y_EXTRA,
    "ex:issue7_short_y": (lambda kw, rng: {**kw, "y": np.asarray(kw["y"])[:-1]}, "bad", ("y", "X")),
    "ex:issue3": (lambda kw, rng: {**kw, "n_jobs": 10**6}, "valid", ()),
    "ex:C_subnormal": (lambda kw, rng: {**kw, "C": 5e-324}, "edge", ("C",)),
    "ex:one_unlabelled": (_npkl_unlab, "valid", ()),
    "ex:dense": (lambda kw, rng: {**kw, "eigen_solver": "dense"}, "valid", ()),
    "ex:lanczos": (lambda kw, rng: {**kw, "eigen_solver": "lanczos"}, "valid", ()),
}
entry(
    "npkl.SimpleNPKL",
    "methods",
    arrays={"X": "data", "y": "labels"},
    params={
        "C": "float",
        "p": "float",
        "n_neighbors": "count",
        "max_iter": "count",
        "tol": "float",
        "n_jobs": "njobs",
        "random_state": "seed",
        "loss": "str",
    },
    extra=NPKL_EXTRA,
    min_n=8,
)((_npkl_make, _est_call("kernlearn.npkl.SimpleNPKL"), _emb_check("embedding_")))


def _cmvu_make(rng, n):
    n = max(n, 8)
    y = labels(rng, n)
    return {"X": rng.standard_normal((n, 3)) + y[:, None], "y": y, "n_neighbors": 3, "max_iter": 40, "n_components": 2}


entry(
    "embedding.ColoredMVU",
    "methods",
    arrays={"X": "data", "y": "labels"},
    params={
        "n_components": "count",
        "n_neighbors": "count",
        "C": "float",
        "max_iter": "count",
        "tol": "float",
        "n_jobs": "njobs",
        "random_state": "seed",
    },
    extra={
        **Y_EXTRA,
        "ex:issue3": (lambda kw, rng: {**kw, "n_jobs": 10**6}, "valid", ()),
        "ex:C_subnormal": (lambda kw, rng: {**kw, "C": 5e-324}, "edge", ("C",)),
    },
    min_n=8,
)((_cmvu_make, _est_call("kernlearn.embedding.ColoredMVU"), _emb_check("embedding_", "n_components")))


def _unsup_make(rng, n):
    n = max(n, 8)
    return {"X": rng.standard_normal((n, 3)), "n_neighbors": 3, "max_iter": 40, "n_components": 2}


for _cls, _extra_params in (
    ("MinimumVolumeEmbedding", {"n_outer": "count"}),
    ("StructurePreservingEmbedding", {"per_point": "count", "max_rounds": "count"}),
):
    entry(
        f"embedding.{_cls}",
        "methods",
        arrays={"X": "data"},
        params={
            "n_components": "count",
            "n_neighbors": "count",
            "C": "float",
            "max_iter": "count",
            "tol": "float",
            "n_jobs": "njobs",
            "random_state": "seed",
            **_extra_params,
        },
        extra={"ex:issue3": (lambda kw, rng: {**kw, "n_jobs": 10**6}, "valid", ())},
        min_n=8,
    )(
        (
            (
                lambda rng, n, c=_cls: {
                    **_unsup_make(rng, n),
                    **({"n_outer": 3} if c.startswith("Min") else {"max_rounds": 3}),
                }
            ),
            _est_call(f"kernlearn.embedding.{_cls}", fit_keys=("X",)),
            _emb_check("embedding_", "n_components"),
        )
    )


def _kdac_make(rng, n):
    n = max(n, 8)
    X = rng.standard_normal((n, 3))
    X[: n // 2, 0] += 3
    return {
        "X": X,
        "y": (np.arange(n) < n // 2).astype(int),
        "n_clusters": 2,
        "max_iter": 5,
        "ism_max_iter": 5,
        "random_state": 0,
    }


def _labels_check(kcount_key):
    def check(kw, out):
        est, _ = out
        X = np.asarray(kw["X"])
        lab = np.asarray(est.labels_)
        expect(lab.shape == (X.shape[0],), f"labels_ shape {lab.shape}")
        k = kw.get(kcount_key, 2)
        expect(((lab >= 0) & (lab < k)).all(), f"labels outside range({k})")

    return check


entry(
    "cluster.KDAC",
    "methods",
    arrays={"X": "data"},
    params={
        "n_clusters": "count",
        "n_components": "count",
        "sigma": "float",
        "lambda_": "float",
        "max_iter": "count",
        "ism_max_iter": "count",
        "tol": "float",
        "n_jobs": "njobs",
        "random_state": "seed",
    },
    extra={
        "ex:issue7_sigma": (lambda kw, rng: {**kw, "sigma": 1e-300}, "edge", ("sigma",)),
        "ex:issue3": (lambda kw, rng: {**kw, "n_jobs": 10**6}, "valid", ()),
        "ex:y_list": (lambda kw, rng: {**kw, "y": [kw["y"], 1 - kw["y"]]}, "valid", ()),
        "ex:y_short": (lambda kw, rng: {**kw, "y": np.arange(np.asarray(kw["X"]).shape[0] - 1) % 2}, "bad", ("y", "X")),
        "ex:y_nan": (lambda kw, rng: {**kw, "y": np.full(np.asarray(kw["X"]).shape[0], np.nan)}, "bad", ("y",)),
    },
    min_n=8,
)((_kdac_make, _est_call("kernlearn.cluster.KDAC", fit_keys=("X", "y")), _labels_check("n_clusters")))

entry(
    "cluster.KernelKMeans",
    "python",
    arrays={"X": "data"},
    params={
        "n_clusters": "count",
        "n_init": "count",
        "max_iter": "count",
        "tol": "float",
        "random_state": "seed",
        "kernel": "str",
    },
    extra={
        "ex:precomputed_asym": (
            lambda kw, rng: {
                **kw,
                "kernel": "precomputed",
                "X": np.asarray(kw["X"]) @ np.asarray(kw["X"]).T + np.triu(np.ones((len(kw["X"]),) * 2), 1),
            },
            "bad",
            ("X",),
        )
    },
    min_n=4,
)(
    (
        lambda rng, n: {"X": rng.standard_normal((max(n, 4), 3)), "n_clusters": 2, "n_init": 2},
        _est_call("kernlearn.cluster.KernelKMeans", fit_keys=("X",)),
        _labels_check("n_clusters"),
    )
)


def _ms_check(kw, s):
    X = np.asarray(kw["X"], float)
    expect(np.isfinite(s) and (s > 0 or kw.get("factor", 0.5) == 0), f"sigma {s}")
    D, _ = pairwise_dist(X)
    expect(
        s <= D.max() * max(1.0, kw.get("factor", 0.5)) * (1 + 1e-9),
        f"sigma {s:.4g} above the largest distance {D.max():.4g}",
    )


entry(
    "cluster.median_sigma",
    "python",
    arrays={"X": "data"},
    params={"factor": "float", "max_points": "count", "random_state": "seed"},
    extra={"ex:dup_rows": (_dup_rows, "edge", ("X",))},
)(
    (
        lambda rng, n: {"X": rng.standard_normal((n, 2))},
        lambda kw: __import__("kernlearn.cluster", fromlist=["x"]).median_sigma(**kw),
        _ms_check,
    )
)


def _sim_make(rng, n):
    n = max(n, 6)
    y = labels(rng, n)
    F = rng.standard_normal((n, 2)) + y[:, None]
    y = y.copy()
    y[rng.choice(n, size=n // 3, replace=False)] = -1
    y[:2] = [0, 1]
    return {"S": F @ F.T, "y": y, "max_iter": 5}


def _sim_check(kw, out):
    est, pred = out
    y = np.asarray(kw["y"])
    pred = np.asarray(pred)
    unlabelled = y == -1 if y.dtype.kind in "biuf" else np.zeros(y.shape, bool)  # numpy < 1.25: str == -1 is a scalar
    expect(pred.shape == ((~unlabelled).sum(),) or pred.shape == (unlabelled.sum(),), f"predict() shape {pred.shape}")
    expect(np.isin(pred, np.unique(y[~unlabelled])).all(), "a prediction outside the classes")


for _cls in ("EMKL", "ESKL", "REKL"):
    entry(
        f"similarity.{_cls}",
        "python",
        arrays={"S": "sym", "y": "labels"},
        params={
            "rho": "float",
            "C": "float",
            "max_iter": "count",
            "tol": "float",
            "n_jobs": "njobs",
            "random_state": "seed",
            "loss": "str",
        },
        extra={**Y_EXTRA, "ex:asym": (lambda kw, rng: _asym(kw, rng, "S"), "edge", ("S",))},
        # S may be a stack (n, n, m); the generic 3-D mutation S[None], (1, n, n), is not one
        min_n=6,
    )((_sim_make, _est_call(f"kernlearn.similarity.{_cls}", "predict_none", fit_keys=("S", "y")), _sim_check))


def _eval_make(rng, n):
    return {"a": labels(rng, n, int(rng.integers(1, 4))), "b": labels(rng, n, int(rng.integers(1, 4)))}


def _pca_check(kw, v):
    a, b = np.asarray(kw["y_true"]), np.asarray(kw["y_pred"])
    n = len(a)
    sa, sb = a[:, None] == a[None], b[:, None] == b[None]
    iu = np.triu_indices(n, 1)
    ref = (sa[iu] == sb[iu]).mean()
    expect(abs(v - ref) < 1e-12, f"accuracy {v} != {ref}")


def _nmi_check(kw, v):
    from sklearn.metrics import normalized_mutual_info_score

    a, b = np.asarray(kw["labels_a"]), np.asarray(kw["labels_b"])
    expect(np.isfinite(v) and -1e-12 <= v <= 1 + 1e-12, f"nmi {v}")
    refs = [normalized_mutual_info_score(a, b, average_method=m) for m in ("arithmetic", "geometric", "max", "min")]
    expect(any(abs(v - r) < 1e-9 for r in refs), f"nmi {v} is none of sklearn's {refs}")


entry(
    "evaluation.pairwise_cluster_accuracy",
    "python",
    arrays={"y_true": "labels", "y_pred": "labels"},
    extra={"ex:len": (lambda kw, rng: {**kw, "y_pred": np.asarray(kw["y_pred"])[:-1]}, "bad", ("y_pred", "y_true"))},
    min_n=2,
)(
    (
        lambda rng, n: dict(zip(("y_true", "y_pred"), _eval_make(rng, n).values())),
        lambda kw: __import__("kernlearn.evaluation", fromlist=["x"]).pairwise_cluster_accuracy(**kw),
        _pca_check,
    )
)
entry(
    "evaluation.nmi",
    "python",
    arrays={"labels_a": "labels", "labels_b": "labels"},
    extra={
        "ex:len": (lambda kw, rng: {**kw, "labels_b": np.asarray(kw["labels_b"])[:-1]}, "bad", ("labels_b", "labels_a"))
    },
    min_n=1,
)(
    (
        lambda rng, n: dict(zip(("labels_a", "labels_b"), _eval_make(rng, n).values())),
        lambda kw: __import__("kernlearn.evaluation", fromlist=["x"]).nmi(**kw),
        _nmi_check,
    )
)

# ---- _core bindings ---------------------------------------------------------------------------


def _core():
    from kernlearn import _core

    return _core


def _cknn_make(rng, n):
    return {
        "X": rng.standard_normal((n, int(rng.integers(1, 4)))),
        "n_neighbors": int(rng.integers(1, n)),
        "algorithm": str(rng.choice(["brute", "kd_tree"])),
        "n_threads": 1,
    }


def _cknn_call(kw):
    nb = _core().neighbors
    kw = dict(kw)
    alg = kw.pop("algorithm")
    r = nb.knn(
        kw.pop("X"), kw.pop("n_neighbors"), metric=nb.Metric.euclidean, algorithm=nb.KnnAlgorithm.__members__[alg], **kw
    )
    return np.array(r.indices), np.array(r.distances)


CORE_EXTRA_KNN = {
    "ex:zero_cols": (lambda kw, rng: {**kw, "X": np.empty((np.asarray(kw["X"]).shape[0], 0))}, "bad", ("X",)),
    "ex:k_big": (lambda kw, rng: {**kw, "n_neighbors": 10**6}, "bad", ("n_neighbors",)),
    "ex:k_zero": (lambda kw, rng: {**kw, "n_neighbors": 0}, "bad", ("n_neighbors",)),
    "ex:k_neg": (lambda kw, rng: {**kw, "n_neighbors": -1}, "bad", ("n_neighbors",)),
    "ex:issue1a": (_issue1a, "valid", ("X",)),
    "ex:threads_big": (lambda kw, rng: {**kw, "n_threads": 10**6}, "edge", ("n_threads",)),
    "ex:threads_neg": (lambda kw, rng: {**kw, "n_threads": -5}, "edge", ("n_threads",)),
}
entry(
    "_core.neighbors.knn",
    "neighbors",
    arrays={"X": "data"},
    params={"n_neighbors": "count", "n_threads": "threads"},
    extra=CORE_EXTRA_KNN,
    valid_muts=KNN_VALID,
    core=True,
)((_cknn_make, _cknn_call, lambda kw, out: knn_check(kw["X"], kw["n_neighbors"], out[0], out[1])))


def _ccsr_make(rng, n):
    import scipy.sparse as sp

    W = np.abs(sym_rand(rng, n)) * (rng.random((n, n)) < 0.6)
    W = np.triu(W, 1)
    W = sp.csr_matrix(W + W.T)
    return {
        "data": W.data.copy(),
        "indices": W.indices.astype(np.int64),
        "indptr": W.indptr.astype(np.int64),
        "kind": str(rng.choice(["normalized", "unnormalized", "random_walk"])),
    }


def _clap_call(kw):
    nb = _core().neighbors
    return nb.laplacian(kw["data"], kw["indices"], kw["indptr"], kind=nb.LaplacianKind.__members__[kw["kind"]])


def _clap_check(kw, out):
    import scipy.sparse as sp

    data, cols, indptr = (np.asarray(a) for a in out)
    n = len(kw["indptr"]) - 1
    expect(fin(data), "non-finite Laplacian")
    expect(len(indptr) == n + 1 and ((cols >= 0) & (cols < n)).all(), "malformed CSR output")
    S = sp.csr_matrix((kw["data"], kw["indices"], kw["indptr"]), shape=(n, n))
    _lap_check({"S": S, "kind": kw["kind"]}, sp.csr_matrix((data, cols, indptr), shape=(n, n)))


def _csr_bad(field_, fn):
    return lambda kw, rng: {**kw, field_: fn(np.array(kw[field_]))}


def _decreasing(p):
    if len(p) > 2:
        p[1] = p[-1] + 5
    else:
        p[-1] = -1
    return p


CSR_EXTRA = {
    "ex:indptr_decreasing": (_csr_bad("indptr", _decreasing), "bad", ("indptr",)),
    "ex:indptr_overflow": (_csr_bad("indptr", lambda p: np.append(p[:-1], p[-1] + 10**6)), "bad", ("indptr",)),
    "ex:indptr_2to62": (_csr_bad("indptr", lambda p: np.append(p[:-1], 2**62)), "bad", ("indptr",)),
    "ex:indptr_empty": (lambda kw, rng: {**kw, "indptr": np.empty(0, np.int64)}, "bad", ("indptr",)),
    "ex:indptr_nonzero_start": (_csr_bad("indptr", lambda p: p + 1), "bad", ("indptr",)),
    "ex:indices_negative": (
        _csr_bad("indices", lambda i: np.where(np.arange(len(i)) == 0, -7, i)),
        "bad",
        ("indices",),
    ),
    "ex:indices_big": (_csr_bad("indices", lambda i: np.where(np.arange(len(i)) == 0, 2**40, i)), "bad", ("indices",)),
    "ex:data_short": (_csr_bad("data", lambda d: d[:-1] if len(d) else d), "bad", ("data", "indices")),
    "ex:data_nan": (_csr_bad("data", lambda d: np.where(np.arange(len(d)) == 0, np.nan, d)), "bad", ("data",)),
    "ex:data_subnormal": (_csr_bad("data", lambda d: d * 1e-320), "valid", ("data",)),
}
entry(
    "_core.neighbors.laplacian",
    "neighbors",
    arrays={},
    extra=CSR_EXTRA,
    core=True,
)((_ccsr_make, _clap_call, _clap_check))


def _ckg_make(rng, n):
    return {
        **_cknn_make(rng, n),
        "mode": str(rng.choice(["symmetric", "mutual", "directed"])),
        "weight": str(rng.choice(["binary", "distance", "heat"])),
    }


def _ckg_call(kw):
    nb = _core().neighbors
    kw = dict(kw)
    idx, dist = kw.pop("idx", None), kw.pop("dist", None)
    if idx is None:
        r = nb.knn(kw["X"], kw["n_neighbors"], metric=nb.Metric.euclidean, algorithm=nb.KnnAlgorithm.brute)
    else:
        r = (
            nb.Neighbors(indices=idx, distances=dist)
            if "indices" in str(nb.Neighbors.__init__.__doc__)
            else nb.Neighbors(idx, dist)
        )
    modes = nb.GraphMode.__members__
    mode = modes.get(kw["mode"], list(modes.values())[0])
    weights = nb.EdgeWeight.__members__
    weight = weights.get(kw["weight"], list(weights.values())[0])
    return nb.knn_graph(r, mode, weight, kw.get("sigma"))


def _ckg_check(kw, out):
    for a in out:
        if isinstance(a, np.ndarray):
            expect(fin(a), "non-finite graph")


def _neighbors_bad(fn):
    def mut(kw, rng):
        X = np.asarray(kw["X"])
        n, k = X.shape[0], kw["n_neighbors"]
        idx = np.tile(np.arange(1, k + 1), (n, 1)) % n
        dist = np.ones((n, k))
        idx, dist = fn(idx, dist)
        return {**kw, "idx": idx, "dist": dist}

    return mut


entry(
    "_core.neighbors.knn_graph",
    "neighbors",
    params={"sigma": "float_opt"},
    extra={
        "ex:idx_out_of_range": (_neighbors_bad(lambda i, d: (i + 10**6, d)), "bad", ("neighbors", "indices")),
        "ex:idx_negative": (_neighbors_bad(lambda i, d: (-i - 1, d)), "bad", ("neighbors", "indices")),
        "ex:dist_nan": (_neighbors_bad(lambda i, d: (i, d * np.nan)), "bad", ("neighbors", "distances")),
        "ex:shape_mismatch": (
            _neighbors_bad(lambda i, d: (i, d[:, :-1] if d.shape[1] > 1 else d[:-1])),
            "bad",
            ("neighbors", "distances", "indices"),
        ),
    },
    core=True,
)((_ckg_make, _ckg_call, _ckg_check))


def _cchoose_call(kw):
    nb = _core().neighbors
    return nb.choose_knn_algorithm(kw["n"], kw["d"], nb.Metric.euclidean)


entry(
    "_core.neighbors.choose_knn_algorithm",
    "neighbors",
    params={"n": "count", "d": "count"},
    core=True,
)((lambda rng, n: {"n": n, "d": int(rng.integers(1, 50))}, _cchoose_call, lambda kw, out: None))


def _opts(kw):
    la = _core().linalg
    o = {k[4:]: v for k, v in kw.items() if k.startswith("opt_")}
    if "which" in o:
        o["which"] = la.LanczosWhich.__members__[o["which"]]
    return la.LanczosOptions(**o)


def _cld_make(rng, n):
    n = max(n, 3)
    k = int(rng.integers(1, max(2, n // 2)))
    return {
        "A": sym_rand(rng, n),
        "opt_k": k,
        "opt_which": str(rng.choice(["largest", "smallest"])),
        "opt_ncv": None,
        "v0": np.ones((n, 1)),
    }


def _lanczos_result_check(A, kw, r):
    if kw.get("opt_threshold") is not None:
        expect(fin(np.asarray(r.values)), "non-finite values")
        return
    w, V = np.asarray(r.values), np.asarray(r.vectors)
    expect(fin(w, V, np.asarray(r.residuals)), "non-finite result")
    st = str(r.status)
    if "converged" in st and "not" not in st:
        eig_check(A, w, V, kw["opt_k"], "LA" if kw.get("opt_which", "largest") == "largest" else "SA")


def _cld_call(kw):
    la = _core().linalg
    return la.lanczos(kw["A"], _opts(kw), kw["v0"], n_threads=kw.get("n_threads", 1))


LANCZOS_EXTRA = {
    "ex:huge": (lambda kw, rng: {**kw, "A": dense(kw["A"]) * 1e299}, "valid", ("A",)),
    "ex:tiny": (lambda kw, rng: {**kw, "A": dense(kw["A"]) * 1e-300}, "valid", ("A",)),
    "ex:threshold_nan": (lambda kw, rng: {**kw, "opt_threshold": float("nan")}, "bad", ("threshold",)),
    "ex:k_zero": (lambda kw, rng: {**kw, "opt_k": 0}, "bad", ("k",)),
    "ex:k_big": (lambda kw, rng: {**kw, "opt_k": 10**6}, "bad", ("k",)),
    "ex:ncv_small": (lambda kw, rng: {**kw, "opt_ncv": 1}, "bad", ("ncv",)),
    "ex:tol_nan": (lambda kw, rng: {**kw, "opt_tol": float("nan")}, "bad", ("tol",)),
    "ex:v0_short": (lambda kw, rng: {**kw, "v0": np.ones((1, 1))}, "bad", ("v0",)),
    "ex:v0_nan": (lambda kw, rng: {**kw, "v0": np.full(np.shape(kw["v0"]), np.nan)}, "bad", ("v0",)),
    "ex:v0_zero": (lambda kw, rng: {**kw, "v0": np.zeros(np.shape(kw["v0"]))}, "edge", ("v0",)),
    "ex:threads_big": (lambda kw, rng: {**kw, "n_threads": 10**6}, "edge", ("n_threads",)),
    "ex:max_matvec_zero": (lambda kw, rng: {**kw, "opt_max_matvec": 0}, "edge", ("max_matvec",)),
}
entry(
    "_core.linalg.lanczos",
    "linalg",
    arrays={"A": "sym"},
    extra={
        **LANCZOS_EXTRA,
        "ex:nonsquare": (lambda kw, rng: {**kw, "A": np.ones((dense(kw["A"]).shape[0], 2))}, "bad", ("A",)),
    },
    core=True,
)((_cld_make, _cld_call, lambda kw, r: _lanczos_result_check(kw["A"], kw, r)))


def _clc_make(rng, n):
    import scipy.sparse as sp

    kw = _cld_make(rng, n)
    A = sp.csr_matrix(kw.pop("A"))
    return {**kw, "data": A.data.copy(), "indices": A.indices.astype(np.int64), "indptr": A.indptr.astype(np.int64)}


def _clc_call(kw):
    la = _core().linalg
    return la.lanczos(
        la.csr_operator(kw["indptr"], kw["indices"], kw["data"]), _opts(kw), kw["v0"], n_threads=kw.get("n_threads", 1)
    )


def _clc_A(kw):
    import scipy.sparse as sp

    n = len(kw["indptr"]) - 1
    return sp.csr_matrix((kw["data"], kw["indices"], kw["indptr"]), shape=(n, n))


entry(
    "_core.linalg.csr_operator",
    "linalg",
    extra={
        **{k: v for k, v in LANCZOS_EXTRA.items() if k not in ("ex:huge", "ex:tiny")},
        **{k: v for k, v in CSR_EXTRA.items() if k != "ex:data_subnormal"},
        "ex:huge": (_csr_bad("data", lambda d: d * 1e299), "valid", ("data",)),
    },
    core=True,
)((_clc_make, _clc_call, lambda kw, r: _lanczos_result_check(_clc_A(kw), kw, r)))


def _clcb_call(kw):
    la = _core().linalg
    # A complex A stays complex, so that the callback returns complex values (dense() would drop
    # the imaginary part here, and the binding would never see them).
    try:
        A = np.asarray(kw["A"]) if np.iscomplexobj(kw["A"]) else dense(kw["A"])
    except (TypeError, ValueError):  # the callback could not be written: the caller's error
        raise ValueError("matmat: the callback's A is not a numeric matrix") from None
    # The binding takes no A, only its size n and a callback: an A that is not a non-empty matrix
    # of v0's length is the caller's error, not the binding's.
    if np.ndim(A) != 2 or A.shape[0] == 0 or (kw.get("v0") is not None and np.shape(kw["v0"])[0] != A.shape[0]):
        raise ValueError("matmat / n: the callback's A must be a non-empty 2-D matrix of v0's length")
    if kw.get("bad_cb") == "shape":

        def mm(V):
            return np.ones((1, 1))
    elif kw.get("bad_cb") == "raise":
        boom = CallbackError("matmat: boom")

        def mm(V):
            raise boom  # the caller's own exception must come back as itself, not translated
    elif kw.get("bad_cb") == "nan":

        def mm(V):
            return np.full((A.shape[0], np.shape(V)[1]), np.nan)
    else:

        def mm(V):
            return A @ V

    n = kw.get("n", A.shape[0])
    if kw.get("bad_cb") == "raise":
        try:
            la.lanczos(la.callback_operator(mm, n, n), _opts(kw), kw["v0"], n_threads=kw.get("n_threads", 1))
        except CallbackError as err:
            return "propagated" if err is boom else "a copy of the exception"
        return "no exception"
    return la.lanczos(la.callback_operator(mm, n, n), _opts(kw), kw["v0"], n_threads=kw.get("n_threads", 1))


class CallbackError(Exception):
    """A user's own exception type (no ValueError): a binding must let it through unchanged."""


def _clcb_check(kw, r):
    if kw.get("bad_cb") == "raise":
        expect(r == "propagated", f"the callback's exception did not propagate as itself: {r}")
        return
    _lanczos_result_check(kw["A"], kw, r)


entry(
    "_core.linalg.callback_operator",
    "linalg",
    arrays={"A": "sym"},
    extra={
        "ex:cb_shape": (lambda kw, rng: {**kw, "bad_cb": "shape"}, "bad", ("matmat",)),
        "ex:cb_raise": (lambda kw, rng: {**kw, "bad_cb": "raise"}, "valid", ("matmat",)),
        "ex:cb_nan": (lambda kw, rng: {**kw, "bad_cb": "nan"}, "bad", ("matmat",)),
        "ex:n_neg": (lambda kw, rng: {**kw, "n": -3}, "bad", ("n",)),
        "ex:n_big": (lambda kw, rng: {**kw, "n": 2**40}, "bad", ("n", "v0")),
        **{k: v for k, v in LANCZOS_EXTRA.items() if k in ("ex:threshold_nan", "ex:k_big", "ex:v0_short")},
    },
    core=True,
    stands_for={"A": ("matmat", "n", "v0")},  # A is the callback's matrix: its size is n, its product matmat's
)((_cld_make, _clcb_call, _clcb_check))


def _cde_call(kw):
    la = _core().linalg
    return la.dense_eigenpairs(
        kw["M"], la.LanczosWhich.__members__[kw["which"]], kw["tol"], kw.get("threshold"), kw.get("max_count")
    )


def _cde_check(kw, out):
    w, V = np.asarray(out[0]), np.asarray(out[1])
    expect(fin(w, V), "non-finite eigenpairs")
    A = dense(kw["M"])
    if w.size and kw.get("threshold") is None:
        eig_check(A, w, V, w.size, "LA" if kw["which"] == "largest" else "SA")


entry(
    "_core.linalg.dense_eigenpairs",
    "linalg",
    arrays={"M": "sym"},
    params={"tol": "float", "max_count": "int_opt"},
    extra={
        "ex:nonsquare": (
            lambda kw, rng: {**kw, "M": np.ones((dense(kw["M"]).shape[0], dense(kw["M"]).shape[0] + 1))},
            "bad",
            ("M",),
        ),
        "ex:threshold_nan": (lambda kw, rng: {**kw, "threshold": float("nan")}, "bad", ("threshold",)),
        "ex:max_count_neg": (lambda kw, rng: {**kw, "max_count": -1}, "bad", ("max_count",)),
        "ex:huge": (lambda kw, rng: {**kw, "M": dense(kw["M"]) * 1e300}, "valid", ("M",)),
    },
    core=True,
)(
    (
        lambda rng, n: {
            "M": sym_rand(rng, n),
            "which": str(rng.choice(["largest", "smallest"])),
            "tol": 1e-10,
            "max_count": int(rng.integers(1, n + 1)),
        },
        _cde_call,
        _cde_check,
    )
)


def _cpk_call(kw):
    kn = _core().kernels
    k = kn.PairwiseKernel(
        kind=kn.PairwiseKind.__members__[kw["kind"]], tau=kw.get("tau", 1.0), gamma=kw.get("gamma", 1.0)
    )
    return kn.pairwise_kernel(
        kw["X"], kw["Y"], kernel=k, single=kw.get("single", False), n_threads=kw.get("n_threads", 1)
    )


def _cpk_check(kw, K):
    K = np.asarray(K)
    X, Y = np.asarray(kw["X"], float), np.asarray(kw["Y"], float)
    expect(K.shape == (X.shape[0], Y.shape[0]), f"shape {K.shape}")
    expect(fin(K), "non-finite kernel")
    sub = {
        "X": X,
        "Y": Y,
        ("tau" if kw["kind"] == "tl1" else "gamma"): kw.get("tau" if kw["kind"] == "tl1" else "gamma", 1.0),
    }
    (_tl1_check if kw["kind"] == "tl1" else _rbf_check)(sub, K.astype(np.float64))


entry(
    "_core.kernels.pairwise_kernel",
    "kernels",
    arrays={"X": "data", "Y": "data"},
    params={"tau": "float", "gamma": "float", "n_threads": "threads"},
    extra={
        "ex:cols_mismatch": (
            lambda kw, rng: {**kw, "Y": np.ones((2, np.asarray(kw["X"]).shape[1] + 1))},
            "bad",
            ("Y", "X"),
        ),
        "ex:single": (lambda kw, rng: {**kw, "single": True}, "valid", ()),
        "ex:zero_cols": (lambda kw, rng: {**kw, "X": np.ones((3, 0)), "Y": np.ones((2, 0))}, "edge", ("X", "Y")),
    },
    core=True,
)(
    (
        lambda rng, n: {
            "X": rng.standard_normal((n, 3)),
            "Y": rng.standard_normal((max(1, n - 1), 3)),
            "kind": str(rng.choice(["tl1", "rbf"])),
            "tau": 2.0,
            "gamma": 0.5,
        },
        _cpk_call,
        _cpk_check,
    )
)


def _ckm_call(kw):
    return _core().kernels.kernel_matvec(kw["K"], kw["x"], n_threads=kw.get("n_threads", 1))


def _ckm_check(kw, y):
    K = dense(kw["K"])
    y = np.asarray(y)
    expect(fin(y), "non-finite product")
    ref = K @ np.asarray(kw["x"], float)
    expect(np.allclose(y, ref, rtol=1e-6, atol=1e-8 * safe_scale(ref)), "K x differs from numpy")


entry(
    "_core.kernels.kernel_matvec",
    "kernels",
    arrays={"K": "sym", "x": "vec"},
    params={"n_threads": "threads"},
    extra={
        "ex:x_short": (lambda kw, rng: {**kw, "x": np.ones(1)}, "bad", ("x", "K")),
        "ex:nonsquare": (lambda kw, rng: {**kw, "K": np.ones((len(kw["x"]), len(kw["x"]) + 1))}, "bad", ("K",)),
        "ex:float32": (lambda kw, rng: {**kw, "K": np.asarray(kw["K"], np.float32)}, "valid", ()),
    },
    core=True,
)((lambda rng, n: {"K": sym_rand(rng, n), "x": rng.standard_normal(n)}, _ckm_call, _ckm_check))


def _cko_call(kw):
    kn = _core().kernels
    spec = kn.PairwiseKernel(
        kind=kn.PairwiseKind.__members__[kw["kind"]], tau=kw.get("tau", 1.0), gamma=kw.get("gamma", 1.0)
    )
    op = kn.kernel_operator(kw["X"], kernel=spec, constant=kw.get("constant", 0.0), single=kw.get("single", False))
    threads = kw.get("n_threads", 1)
    return op.matmat(kw["V"], n_threads=threads), op.column(kw.get("j", 0), n_threads=threads), op.diagonal()


def _cko_check(kw, out):
    """The products, a column and the diagonal against the dense kernel of the same binding family
    (checked itself against numpy by _cpk_check) plus the constant."""
    product, column, diagonal = (np.asarray(a) for a in out)
    X = np.asarray(kw["X"], float)
    n = X.shape[0]
    expect(fin(product, column, diagonal), "non-finite operator output")
    kn = _core().kernels
    spec = kn.PairwiseKernel(kind=kn.PairwiseKind.__members__[kw["kind"]], tau=kw.get("tau", 1.0), gamma=kw["gamma"])
    K = np.asarray(kn.pairwise_kernel(X, X, kernel=spec)) + kw.get("constant", 0.0)
    V = np.asarray(kw["V"], float)
    reference = K @ V
    tolerance = (1e-6 if kw.get("single") else 1e-12) * safe_scale(K) * max(1.0, np.abs(V).sum(axis=0).max())
    expect(product.shape == (n, V.shape[1]), f"product shape {product.shape}")
    expect(np.abs(product - reference).max(initial=0) <= tolerance, "K @ V differs from the dense kernel's")
    expect(np.abs(column - K[:, kw.get("j", 0)]).max(initial=0) <= tolerance, "column differs")
    expect(np.abs(diagonal - np.diag(K)).max(initial=0) <= tolerance, "diagonal differs")


entry(
    "_core.kernels.kernel_operator",
    "kernels",
    arrays={"X": "data", "V": "data"},
    params={"tau": "float", "gamma": "float", "constant": "float_any", "n_threads": "threads"},  # K + c: any c
    extra={
        "ex:single": (lambda kw, rng: {**kw, "single": True}, "valid", ()),
        "ex:V_rows": (lambda kw, rng: {**kw, "V": np.ones((np.shape(kw["X"])[0] + 1, 2))}, "bad", ("V",)),
        "ex:j_out": (lambda kw, rng: {**kw, "j": np.shape(kw["X"])[0]}, "bad", ("j",)),
        "ex:j_neg": (lambda kw, rng: {**kw, "j": -1}, "bad", ("j",)),
        "ex:constant_nan": (lambda kw, rng: {**kw, "constant": float("nan")}, "bad", ("constant",)),
        "ex:zero_rows": (lambda kw, rng: {**kw, "X": np.ones((0, 3))}, "bad", ("X",)),
    },
    core=True,
)(
    (
        lambda rng, n: {
            "X": rng.standard_normal((n, 3)),
            "V": rng.standard_normal((n, 2)),
            "kind": str(rng.choice(["tl1", "rbf"])),
            "tau": 2.0,
            "gamma": 0.5,
            "constant": 0.25,
        },
        _cko_call,
        _cko_check,
    )
)


def _cso_call(kw):
    la = _core().linalg
    terms = [(la.dense_operator(kw["A"]), kw.get("a", 2.0)), (la.low_rank_operator(kw["U"], kw["c"]), -1.0)]
    op = la.sum_operator(terms, shift=kw.get("shift", 0.5), constant=kw.get("constant", 0.1))
    return op.matmat(np.ascontiguousarray(np.eye(op.shape[1])[:, :3])), op.diagonal()


def _cso_check(kw, out):
    product, diagonal = (np.asarray(a) for a in out)
    A, U, c = dense(kw["A"]), np.asarray(kw["U"], float), np.asarray(kw["c"], float)
    M = kw.get("a", 2.0) * A - (U * c) @ U.T + kw.get("shift", 0.5) * np.eye(len(A)) + kw.get("constant", 0.1)
    expect(fin(product, diagonal), "non-finite operator output")
    tolerance = 1e-12 * safe_scale(M) * len(A)
    expect(np.abs(product - M[:, :3]).max(initial=0) <= tolerance, "sum @ V differs from numpy")
    expect(np.abs(diagonal - np.diag(M)).max(initial=0) <= tolerance, "diagonal differs from numpy")


entry(
    "_core.linalg.sum_operator",
    "linalg",
    arrays={"A": "sym", "U": "data", "c": "vec"},
    params={"a": "float_any", "shift": "float_any", "constant": "float_any"},  # signed coefficients are valid
    # a and U are this harness's names for parts of the binding's one argument, terms.
    stands_for={"a": ("a", "terms"), "U": ("U", "terms")},
    extra={
        "ex:U_rows": (
            lambda kw, rng: {**kw, "U": np.ones((np.shape(kw["A"])[0] + 1, 2)), "c": np.ones(2)},
            "bad",
            ("terms",),  # the two terms' shapes differ
        ),
        "ex:c_short": (lambda kw, rng: {**kw, "c": np.ones(1)}, "bad", ("c", "U")),
        "ex:shift_inf": (lambda kw, rng: {**kw, "shift": float("inf")}, "bad", ("shift",)),
    },
    core=True,
    min_n=3,
)(
    (
        lambda rng, n: {"A": sym_rand(rng, n), "U": rng.standard_normal((n, 2)), "c": rng.standard_normal(2)},
        _cso_call,
        _cso_check,
    )
)


def _cny_call(kw):
    op = _core().linalg.nystrom_operator(kw["C"], kw["W"], rcond=kw.get("rcond", 1e-10))
    V = kw["V"]
    # A caller lays a real array out as matmat wants; anything else reaches the binding as given
    # (converting a complex V to float64 here dropped its imaginary part before the binding saw it).
    if isinstance(V, np.ndarray) and V.dtype.kind == "f":
        V = np.ascontiguousarray(V, dtype=np.float64)
    return op.matmat(V)


def _cny_check(kw, product):
    C, W = np.asarray(kw["C"], float), np.asarray(kw["W"], float)
    product = np.asarray(product)
    expect(fin(product), "non-finite product")
    mu, Q = np.linalg.eigh(0.5 * (W + W.T))
    keep = mu > max(kw.get("rcond", 1e-10) * max(mu.max(), 0.0), 0.0)
    reference = (C @ Q[:, keep]) @ (((C @ Q[:, keep]) / mu[keep]).T @ np.asarray(kw["V"], float))
    expect(np.abs(product - reference).max(initial=0) <= 1e-8 * safe_scale(reference), "C W^+ C' V differs")


def _cny_make(rng, n):
    X = rng.standard_normal((n, 2))
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    centres = np.arange(0, n, 2)
    return {
        "C": np.ascontiguousarray(K[:, centres]),
        "W": np.ascontiguousarray(K[np.ix_(centres, centres)]),
        "V": rng.standard_normal((n, 2)),
    }


entry(
    "_core.linalg.nystrom_operator",
    "linalg",
    arrays={"C": "data", "W": "sym", "V": "data"},
    params={"rcond": "float"},
    extra={
        "ex:W_shape": (lambda kw, rng: {**kw, "W": np.eye(np.shape(kw["C"])[1] + 1)}, "bad", ("W",)),
        "ex:rcond_one": (lambda kw, rng: {**kw, "rcond": 1.0}, "bad", ("rcond",)),
    },
    core=True,
)((_cny_make, _cny_call, _cny_check))


def _cgd_call(kw):
    return _core().kernels.gaussian_degree(kw["Z"], sigma=kw["sigma"], n_threads=kw.get("n_threads", 1))


def _cgd_check(kw, d):
    Z = np.asarray(kw["Z"], float)
    d = np.asarray(d)
    expect(d.shape == (Z.shape[0],), f"shape {d.shape}")
    expect(fin(d), "non-finite degree")


entry(
    "_core.kernels.gaussian_degree",
    "kernels",
    arrays={"Z": "data"},
    params={"sigma": "float", "n_threads": "threads"},
    core=True,
)((lambda rng, n: {"Z": rng.standard_normal((n, 2)), "sigma": 1.0}, _cgd_call, _cgd_check))


def _caik_call(kw):
    return _core().kernels.affine_invariant_kernel(
        kw["W"], kw["T"], gamma=kw["gamma"], same=kw["same"], n_threads=kw.get("n_threads", 1)
    )


def _caik_make(rng, n):
    S = _spd_stack(rng, n)
    L = np.linalg.cholesky(S)
    Winv = np.linalg.inv(L)
    return {"W": Winv, "T": S, "gamma": 0.3, "same": True}


entry(
    "_core.kernels.affine_invariant_kernel",
    "kernels",
    arrays={"W": "stack", "T": "stack"},
    params={"gamma": "float", "n_threads": "threads"},
    extra={
        "ex:T_dim": (lambda kw, rng: {**kw, "T": _spd_stack(rng, 2, 4), "same": False}, "bad", ("T", "W")),
        "ex:W_2d": (lambda kw, rng: {**kw, "W": np.ones((3, 3))}, "bad", ("W",)),
        "ex:same_mismatch": (lambda kw, rng: {**kw, "T": np.asarray(kw["T"])[:1]}, "bad", ("T", "same", "W")),
    },
    core=True,
)((_caik_make, _caik_call, lambda kw, K: expect(fin(np.asarray(K)), "non-finite kernel")))


def _csice_make(rng, n):
    d = min(max(n, 2), 8)
    X = rng.standard_normal((3 * d, d))
    S = np.cov(X.T) + 0.1 * np.eye(d) + 0.1 * np.eye(d)
    R = np.full((d, d), 0.1)
    np.fill_diagonal(R, 0)
    return {"S": S, "R": R}


def _csice_call(kw):
    m = _core().methods
    o = m.SiceOptions(**{k[4:]: v for k, v in kw.items() if k.startswith("opt_")})
    return m.sice(kw["S"], kw["R"], o, kw.get("M0"))


def _csice_check(kw, r):
    P = np.asarray(r.precision)
    expect(fin(P, np.asarray(r.dual)), "non-finite precision")
    expect(np.linalg.eigvalsh(P / safe_scale(P)).min() > 0, "precision not positive definite")


entry(
    "_core.methods.sice",
    "methods",
    arrays={"S": "spd", "R": "sym"},
    extra={
        "ex:empty": (lambda kw, rng: {**kw, "S": np.empty((0, 0)), "R": np.empty((0, 0))}, "edge", ("S",)),
        "ex:R_shape": (lambda kw, rng: {**kw, "R": np.zeros((1, 1))}, "bad", ("R",)),
        "ex:nonsquare": (lambda kw, rng: {**kw, "S": np.ones((2, 3)), "R": np.ones((2, 3))}, "bad", ("S",)),
        "ex:M0_shape": (lambda kw, rng: {**kw, "M0": np.eye(1)}, "bad", ("M0",)),
        "ex:R_neg": (lambda kw, rng: {**kw, "R": -np.abs(np.asarray(kw["R"])) - 1}, "bad", ("R",)),
        "ex:tol_nan": (lambda kw, rng: {**kw, "opt_tol": float("nan")}, "bad", ("tol",)),
        "ex:max_iter_neg": (lambda kw, rng: {**kw, "opt_max_iter": -1}, "bad", ("max_iter",)),
    },
    core=True,
)((_csice_make, _csice_call, _csice_check))


def _cnpkl_make(rng, n):
    import scipy.sparse as sp

    n = max(n, 6)
    W = np.abs(sym_rand(rng, n))
    np.fill_diagonal(W, 0)
    L = sp.csr_matrix(np.diag(W.sum(1)) - W)
    y = labels(rng, n)
    i, j = np.triu_indices(n, 1)
    return {
        "n": n,
        "indptr": L.indptr.astype(np.int64),
        "indices": L.indices.astype(np.int64),
        "data": L.data.copy(),
        "pairs": np.ascontiguousarray(np.column_stack([i, j]).astype(np.int64)),
        "labels": np.where(y[i] == y[j], 1.0, -1.0),
    }


def _cnpkl_call(kw):
    m = _core().methods
    L = m.Csr(n=kw["n"], indptr=kw["indptr"], indices=kw["indices"], data=kw["data"])
    o = m.NpklOptions(
        loss=m.NpklLoss.__members__["squared_hinge"], C=kw.get("C", 0.3), spectral=m.SpectralOptions(max_iter=20)
    )
    return m.simple_npkl(
        L, kw["pairs"], kw["labels"], options=o, basis=kw.get("basis"), n_threads=kw.get("n_threads", 1)
    )


def _cnpkl_check(kw, r):
    w, V = np.asarray(r.eigenvalues), np.asarray(r.eigenvectors)
    expect(fin(w, V, np.asarray(r.alpha)), "non-finite result")
    expect(np.allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-8), "eigenvectors not orthonormal")
    expect((w > 0).all(), "an eigenvalue <= 0")
    if kw.get("basis") is not None:  # the fixed basis of Section 5.4: K's eigenvectors lie in its span
        B = np.asarray(kw["basis"], float)
        expect(np.abs(B @ (B.T @ V) - V).max(initial=0) <= 1e-8, "eigenvectors outside the basis' span")


def _npkl_basis(kw, rng, r=3):
    """The r smoothest eigenvectors of the Laplacian, orthonormal (SimpleNPKL's basis_from)."""
    import scipy.sparse as sp

    n = kw["n"]
    L = sp.csr_matrix((kw["data"], kw["indices"], kw["indptr"]), shape=(n, n)).toarray()
    return np.ascontiguousarray(np.linalg.eigh(L)[1][:, :r])


entry(
    "_core.methods.simple_npkl",
    "methods",
    params={"n": "count", "C": "float", "n_threads": "threads"},
    extra={
        **{k: v for k, v in CSR_EXTRA.items() if k != "ex:data_subnormal"},
        "ex:n_neg": (lambda kw, rng: {**kw, "n": -1}, "bad", ("n",)),
        "ex:n_small": (lambda kw, rng: {**kw, "n": 2}, "bad", ("n", "indptr")),
        "ex:pair_oob": (
            lambda kw, rng: {
                **kw,
                "pairs": np.where(np.arange(kw["pairs"].size).reshape(kw["pairs"].shape) == 0, 10**9, kw["pairs"]),
            },
            "bad",
            ("pairs",),
        ),
        "ex:pair_neg": (lambda kw, rng: {**kw, "pairs": -np.asarray(kw["pairs"]) - 1}, "bad", ("pairs",)),
        "ex:labels_short": (lambda kw, rng: {**kw, "labels": kw["labels"][:-1]}, "bad", ("labels", "pairs")),
        "ex:pairs_3col": (
            lambda kw, rng: {**kw, "pairs": np.ascontiguousarray(np.column_stack([kw["pairs"], kw["pairs"][:, 0]]))},
            "bad",
            ("pairs",),
        ),
        "ex:threads_big": (lambda kw, rng: {**kw, "n_threads": 10**6}, "edge", ("n_threads",)),
        "ex:basis": (lambda kw, rng: {**kw, "basis": _npkl_basis(kw, rng)}, "valid", ()),
        "ex:basis_rows": (lambda kw, rng: {**kw, "basis": np.ones((2, 2))}, "bad", ("basis",)),
        "ex:basis_nan": (
            lambda kw, rng: {**kw, "basis": np.where(_npkl_basis(kw, rng) > 0.1, np.nan, _npkl_basis(kw, rng))},
            "bad",
            ("basis",),
        ),
        "ex:basis_not_orthonormal": (
            lambda kw, rng: {**kw, "basis": np.ascontiguousarray(3.0 * _npkl_basis(kw, rng))},
            "bad",
            ("basis",),
        ),
        "ex:basis_wide": (lambda kw, rng: {**kw, "basis": np.ascontiguousarray(np.eye(kw["n"]))}, "edge", ("basis",)),
    },
    core=True,
    min_n=6,
)((_cnpkl_make, _cnpkl_call, _cnpkl_check))


def _cmvt_make(rng, n):
    import scipy.sparse as sp

    n = max(n, 4)
    G = sp.csr_matrix((np.abs(sym_rand(rng, n)) > 0.5).astype(float))
    G = (G - sp.diags(G.diagonal())).tocsr()  # not setdiag(0): scipy < 1.13 warns when it adds entries
    G.eliminate_zeros()
    return {
        "Z": rng.standard_normal((n, 2)),
        "n": n,
        "indptr": G.indptr.astype(np.int64),
        "indices": G.indices.astype(np.int64),
        "data": G.data.copy(),
        "margin": 1.0,
        "per_point": 3,
    }


def _cmvt_call(kw):
    m = _core().methods
    G = m.Csr(n=kw["n"], indptr=kw["indptr"], indices=kw["indices"], data=kw["data"])
    return m.most_violated_triplets(
        kw["Z"], G, margin=kw["margin"], per_point=kw["per_point"], n_threads=kw.get("n_threads", 1)
    )


def _cmvt_check(kw, out):
    T = np.asarray(out[0])
    n = kw["n"]
    expect(T.size == 0 or ((T >= 0) & (T < n)).all(), "triplet index out of range")
    expect(fin(np.asarray(out[1])), "non-finite violations")


entry(
    "_core.methods.most_violated_triplets",
    "methods",
    arrays={"Z": "data"},
    params={"per_point": "count", "margin": "float", "n_threads": "threads"},
    extra={
        **{k: v for k, v in CSR_EXTRA.items() if k != "ex:data_subnormal"},
        "ex:Z_rows": (lambda kw, rng: {**kw, "Z": np.ones((1, 2))}, "bad", ("Z", "graph")),
        "ex:n_neg": (lambda kw, rng: {**kw, "n": -1}, "bad", ("n",)),
    },
    core=True,
    min_n=4,
)((_cmvt_make, _cmvt_call, _cmvt_check))


def _ckdac_make(rng, n):
    n = max(n, 8)
    return {
        "X": rng.standard_normal((n, 3)),
        "Y": np.eye(2)[np.arange(n) % 2],
        "opt_n_clusters": 2,
        "opt_q": 2,
        "opt_sigma": 1.0,
        "opt_max_iter": 5,
        "opt_ism_max_iter": 5,
    }


def _ckdac_call(kw):
    m = _core().methods
    o = m.KdacOptions(**{k[4:]: v for k, v in kw.items() if k.startswith("opt_")})
    return m.kdac(kw["X"], kw["Y"], options=o, W0=kw.get("W0"), n_threads=kw.get("n_threads", 1))


def _ckdac_check(kw, r):
    expect(fin(np.asarray(r.W), np.asarray(r.U)), "non-finite W or U")


entry(
    "_core.methods.kdac",
    "methods",
    arrays={"X": "data"},
    params={
        "opt_n_clusters": "count",
        "opt_q": "count",
        "opt_sigma": "float",
        "opt_max_iter": "count",
        "n_threads": "threads",
    },
    extra={
        "ex:Y_rows": (lambda kw, rng: {**kw, "Y": np.ones((1, 1))}, "bad", ("Y",)),
        "ex:W0_shape": (lambda kw, rng: {**kw, "W0": np.ones((1, 1))}, "bad", ("W0",)),
        "ex:q_big": (lambda kw, rng: {**kw, "opt_q": 10**6}, "bad", ("q",)),
        "ex:sigma_tiny": (lambda kw, rng: {**kw, "opt_sigma": 1e-300}, "edge", ("sigma",)),
        "ex:threads_big": (lambda kw, rng: {**kw, "n_threads": 10**6}, "edge", ("n_threads",)),
    },
    core=True,
    min_n=8,
)((_ckdac_make, _ckdac_call, _ckdac_check))


def _cism_make(rng, n):
    n = max(n, 6)
    d, q = 3, 2
    X = rng.standard_normal((n, d))
    W0 = np.linalg.qr(rng.standard_normal((d, q)))[0]
    A = sym_rand(rng, n)
    return {"X": X, "W0": np.ascontiguousarray(W0), "A": A, "c": np.ones(n), "opt_sigma": 1.0, "opt_max_iter": 5}


def _cism_call(kw):
    m = _core().methods
    o = m.IsmOptions(**{k[4:]: v for k, v in kw.items() if k.startswith("opt_")})
    return m.ism(kw["X"], kw["W0"], kw["A"], kw["c"], options=o, n_threads=kw.get("n_threads", 1))


entry(
    "_core.methods.ism",
    "methods",
    arrays={"X": "data", "A": "sym"},
    params={"opt_sigma": "float", "opt_max_iter": "count", "n_threads": "threads"},
    extra={
        "ex:A_shape": (lambda kw, rng: {**kw, "A": np.eye(2)}, "bad", ("A",)),
        "ex:c_short": (lambda kw, rng: {**kw, "c": np.ones(1)}, "bad", ("c",)),
        "ex:W0_rows": (lambda kw, rng: {**kw, "W0": np.ones((7, 2))}, "bad", ("W0",)),
    },
    core=True,
    min_n=6,
)((_cism_make, _cism_call, lambda kw, r: expect(fin(np.asarray(r.W)), "non-finite W")))


def _ccicp_make(rng, n):
    n = max(n, 6)
    K = sym_rand(rng, n)
    w, V = np.linalg.eigh(K)
    neg = w < 0
    return {
        "K": K,
        "y": np.where(np.arange(n) % 2 == 0, 1.0, -1.0),
        "V": np.ascontiguousarray(V[:, neg]),
        "w": -w[neg],
        "alpha0": np.zeros(n),
        "shift": float(max(0, -w.min())),
        "opt_max_outer": 3,
        "opt_max_inner": 10,
    }


def _ccicp_call(kw):
    m = _core().methods
    o = m.IklrOptions(**{k[4:]: v for k, v in kw.items() if k.startswith("opt_")})
    return m.ccicp(
        kw["K"],
        kw["y"],
        kw["V"],
        kw["w"],
        kw["alpha0"],
        shift=kw["shift"],
        options=o,
        sgd_indices=kw.get("sgd_indices", np.empty(0, np.int64)),
        n_threads=kw.get("n_threads", 1),
    )


entry(
    "_core.methods.ccicp",
    "methods",
    arrays={"K": "sym"},
    params={"shift": "float", "opt_max_outer": "count", "opt_max_inner": "count", "n_threads": "threads"},
    extra={
        "ex:y_short": (lambda kw, rng: {**kw, "y": np.ones(1)}, "bad", ("y",)),
        "ex:V_rows": (lambda kw, rng: {**kw, "V": np.ones((1, 1)), "w": np.ones(1)}, "bad", ("V",)),
        "ex:w_len": (lambda kw, rng: {**kw, "w": np.ones(np.shape(kw["V"])[1] + 1)}, "bad", ("w", "V")),
        "ex:alpha0_short": (lambda kw, rng: {**kw, "alpha0": np.ones(1)}, "bad", ("alpha0",)),
        "ex:sgd_oob": (
            lambda kw, rng: {
                **kw,
                "opt_inner": _core().methods.IklrInner.__members__["sgd"],
                "sgd_indices": np.full(30, 10**6, np.int64),
            },
            "bad",
            ("sgd_indices",),
        ),
        "ex:sgd_short": (
            lambda kw, rng: {
                **kw,
                "opt_inner": _core().methods.IklrInner.__members__["sgd"],
                "sgd_indices": np.zeros(1, np.int64),
            },
            "bad",
            ("sgd_indices",),
        ),
        "ex:threads_big": (lambda kw, rng: {**kw, "n_threads": 10**6}, "edge", ("n_threads",)),
    },
    core=True,
    min_n=6,
)((_ccicp_make, _ccicp_call, lambda kw, r: expect(fin(np.asarray(r.alpha)), "non-finite alpha")))

# IKLR's Nystrom model: Newton-CG on the features C T (methods/iklr_nystrom.hpp)


def _ikny_make(rng, n):
    n = max(n, 6)
    m = max(2, n // 3)
    C = np.abs(rng.standard_normal((n, m)))
    return {
        "C": C,
        "T": np.ascontiguousarray(np.linalg.qr(rng.standard_normal((m, m)))[0]),
        "Phi_centers": np.ascontiguousarray(C[:m]),
        "y": np.where(np.arange(n) % 2 == 0, 1.0, -1.0),
        "beta0": np.zeros(m),
        "opt_lambda_": 1e-2,
    }


def _ikny_call(kw):
    m = _core().methods
    o = m.IklrNystromOptions(**{k[4:]: v for k, v in kw.items() if k.startswith("opt_")})
    return m.iklr_nystrom_newton(
        kw["C"], kw["T"], kw["Phi_centers"], kw["y"], kw["beta0"], options=o, n_threads=kw.get("n_threads", 1)
    )


def _ikny_check(kw, r):
    """The certificate recomputed: the gradient of the feature-space objective at the answer."""
    beta = np.asarray(r.beta)
    expect(fin(beta, np.asarray(r.intercept_weight)), "non-finite weights")
    Phi = np.asarray(kw["C"], float) @ np.asarray(kw["T"], float)
    s = kw.get("opt_intercept", 1.0)
    y = np.asarray(kw["y"], float)
    z = Phi @ beta + s * r.intercept_weight
    u = -y / (1.0 + np.exp(np.clip(y * z, -700, 700))) / len(y)
    lam = kw.get("opt_lambda_", 1e-2)
    g = np.concatenate([Phi.T @ u, [s * u.sum()]]) + lam * np.concatenate([beta, [r.intercept_weight]])
    scale = max(1.0, abs(r.reference_gradient_norm))
    expect(abs(np.linalg.norm(g) - r.gradient_norm) <= 1e-6 * scale, "gradient norm does not match the answer")


entry(
    "_core.methods.iklr_nystrom_newton",
    "methods",
    arrays={"C": "data"},
    params={"opt_lambda_": "float", "opt_max_iter": "count", "n_threads": "threads"},
    extra={
        "ex:T_rows": (lambda kw, rng: {**kw, "T": np.ones((1, 1))}, "bad", ("T",)),
        "ex:centers_cols": (lambda kw, rng: {**kw, "Phi_centers": np.ones((2, 1))}, "bad", ("Phi_centers",)),
        "ex:y_short": (lambda kw, rng: {**kw, "y": np.ones(1)}, "bad", ("y",)),
        "ex:beta0_short": (lambda kw, rng: {**kw, "beta0": np.ones(1)}, "bad", ("beta0",)),
        "ex:intercept_neg": (lambda kw, rng: {**kw, "opt_intercept": -1.0}, "bad", ("intercept",)),
        "ex:threads_big": (lambda kw, rng: {**kw, "n_threads": 10**6}, "edge", ("n_threads",)),
    },
    core=True,
    min_n=6,
)((_ikny_make, _ikny_call, _ikny_check))

# S3ML's propagation by residual pushes (methods/affinity_propagation.hpp)


def _push_make(rng, n):
    n = max(n, 6)
    k = 3
    X = rng.standard_normal((n, 2))
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    P = np.zeros((n, n))
    P[np.repeat(np.arange(n), k), np.argsort(d2, axis=1)[:, :k].ravel()] = 1.0 / k
    W0 = np.eye(n)
    W0[0, 1] = W0[1, 0] = 1.0
    W0[2, 3] = W0[3, 2] = -1.0
    return {"P": P, "W0": W0, "alpha": 0.5, "eps": 1e-8, "cut": 0.0}


def _csr_parts(A):
    import scipy.sparse as sp

    A = sp.csr_matrix(np.asarray(A, float))
    A.sort_indices()
    return A.data.copy(), A.indices.astype(np.int64), A.indptr.astype(np.int64)


def _push_call(kw):
    return _core().methods.affinity_push(
        *_csr_parts(np.asarray(kw["P"]).T),
        *_csr_parts(kw["W0"]),
        alpha=kw["alpha"],
        eps=kw["eps"],
        cut=kw["cut"],
        n_threads=kw.get("n_threads", 1),
    )


def _push_check(kw, r):
    """Every returned value within eps of the dense solve (1 - a)(I - aP)^-1 W0."""
    rows, cols, values = (np.asarray(a) for a in r)
    expect(fin(values), "non-finite affinities")
    P, W0, a = np.asarray(kw["P"], float), np.asarray(kw["W0"], float), kw["alpha"]
    exact = (1 - a) * np.linalg.solve(np.eye(len(P)) - a * P, W0)
    expect(np.abs(values - exact[rows, cols]).max(initial=0.0) <= kw["eps"] * (1 + 1e-9), "a value beyond eps")


entry(
    "_core.methods.affinity_push",
    "methods",
    params={"alpha": "float", "eps": "float", "n_threads": "threads"},
    extra={
        "ex:W0_shape": (lambda kw, rng: {**kw, "W0": np.eye(2)}, "bad", ("W0",)),
        "ex:P_not_stochastic": (lambda kw, rng: {**kw, "P": 2.0 * np.asarray(kw["P"])}, "bad", ("P",)),
        "ex:eps_tiny": (lambda kw, rng: {**kw, "eps": 1e-300}, "bad", ("eps",)),
        "ex:alpha_one": (lambda kw, rng: {**kw, "alpha": 1.0}, "bad", ("alpha",)),
        "ex:cut_neg": (lambda kw, rng: {**kw, "cut": -1.0}, "bad", ("cut",)),
    },
    core=True,
    min_n=6,
)((_push_make, _push_call, _push_check))

# distributed KDAC: the tile-pair entry point of Phi(W) (kernlearn.distributed._hsic)


def _chpp_make(rng, n):
    n = max(n, 4)
    d, q, m = 3, 2, 3
    half = n // 3  # blocks of different sizes: same=True is then bad input
    X = rng.standard_normal((n, d))
    A = rng.standard_normal((n, m))
    return {
        "X_I": np.ascontiguousarray(X[:half]),
        "X_J": np.ascontiguousarray(X[half:]),
        "W": np.linalg.qr(rng.standard_normal((d, q)))[0].copy(order="C"),
        "A_I": np.ascontiguousarray(A[:half]),
        "A_J": np.ascontiguousarray(A[half:]),
        "c": np.array([1.0, 1.0, -0.5]),
        "sigma": 1.0,
        "same": False,
    }


def _chpp_call(kw):
    return _core().kernels.hsic_phi_pair(
        kw["X_I"],
        kw["X_J"],
        kw["W"],
        kw["A_I"],
        kw["A_J"],
        kw["c"],
        sigma=kw["sigma"],
        same=kw["same"],
        with_bound=kw.get("with_bound", False),
        n_threads=kw.get("n_threads", 1),
    )


def _chpp_check(kw, r):
    phi, trace, bound = r
    d = np.shape(kw["X_I"])[1]
    expect(np.shape(phi) == (d, d), f"Phi shape {np.shape(phi)}")
    expect(fin(phi, np.asarray(trace), np.asarray(bound)), "non-finite Phi")
    expect(np.array_equal(phi, np.asarray(phi).T), "Phi not exactly symmetric")


entry(
    "_core.kernels.hsic_phi_pair",
    "kernels",
    arrays={"X_I": "data"},
    params={"sigma": "float", "n_threads": "threads"},
    extra={
        "ex:A_I_rows": (lambda kw, rng: {**kw, "A_I": np.ones((1, 3))}, "bad", ("A_I", "X_I")),
        "ex:A_J_cols": (lambda kw, rng: {**kw, "A_J": np.ones((np.shape(kw["X_J"])[0], 2))}, "bad", ("A_J",)),
        "ex:c_short": (lambda kw, rng: {**kw, "c": np.ones(1)}, "bad", ("c",)),
        "ex:W_rows": (lambda kw, rng: {**kw, "W": np.ones((7, 2))}, "bad", ("W",)),
        "ex:X_J_cols": (lambda kw, rng: {**kw, "X_J": np.ones((np.shape(kw["X_J"])[0], 5))}, "bad", ("X_J",)),
        "ex:A_J_nan": (lambda kw, rng: {**kw, "A_J": np.full(np.shape(kw["A_J"]), np.nan)}, "bad", ("A_J",)),
        "ex:same_shapes": (lambda kw, rng: {**kw, "same": True}, "bad", ("X_I", "X_J")),
        "ex:same": (
            lambda kw, rng: {**kw, "X_J": kw["X_I"], "A_J": kw["A_I"], "same": True, "with_bound": True},
            "valid",
            (),
        ),
        "ex:threads_big": (lambda kw, rng: {**kw, "n_threads": 10**6}, "edge", ("n_threads",)),
    },
    core=True,
    min_n=4,
)((_chpp_make, _chpp_call, _chpp_check))


# ---- issue 32: knn_block_pair, the two-way block search of kernlearn.distributed ---------------


def _cpair_make(rng, n):
    d = int(rng.choice([2, 12]))  # the kd-tree fallback (d <= 8, 256+ rows) and the shared tiles
    m = int(rng.integers(1, 2 * n))
    return {
        "queries": rng.standard_normal((n, d)),
        "data": rng.standard_normal((m, d)),
        "n_neighbors": int(rng.integers(1, n + m)),
        "query_offset": 0,
        "data_offset": n,
        "n_threads": 1,
    }


def _cpair_keywords(kw):
    """Keywords of both calls: the scale exponent of the largest finite |x| (the rule of
    kernlearn.distributed), so that huge or tiny data stay valid input."""
    nb = _core().neighbors
    arrays = [np.asarray(a) for a in (kw["queries"], kw["data"]) if isinstance(a, np.ndarray) and a.size]
    finite = [a for a in arrays if a.dtype.kind == "f" and np.isfinite(a).all()]
    largest = max((float(np.abs(a).max()) for a in finite), default=0.0)
    exponent = nb.knn_scale_exponent(largest) if finite and not kw.get("scale_exponent_zero") else 0
    rest = {k: v for k, v in kw.items() if k not in ("queries", "data", "n_neighbors", "scale_exponent_zero")}
    return {"metric": nb.Metric.euclidean, "scale_exponent": exponent, **rest}


def _cpair_call(kw):
    nb = _core().neighbors
    return nb.knn_block_pair(kw["queries"], kw["data"], kw["n_neighbors"], **_cpair_keywords(kw))


def _cpair_check(kw, out):
    nb = _core().neighbors
    keywords = _cpair_keywords(kw)
    one_way = nb.knn_block(kw["queries"], kw["data"], kw["n_neighbors"], **keywords)
    keywords["query_offset"], keywords["data_offset"] = kw["data_offset"], kw["query_offset"]
    other_way = nb.knn_block(kw["data"], kw["queries"], kw["n_neighbors"], **keywords)
    for got, want in zip((*out[0], *out[1]), (*one_way, *other_way)):
        expect(np.array_equal(got, want), "knn_block_pair differs from two knn_block calls")


entry(
    "_core.neighbors.knn_block_pair",
    "neighbors",
    arrays={"queries": "data", "data": "data"},
    params={"n_neighbors": "count", "query_offset": "count", "data_offset": "count", "n_threads": "threads"},
    extra={
        "ex:overlap": (lambda kw, rng: {**kw, "data_offset": 1}, "bad", ("data_offset", "query_offset")),
        "ex:diagonal": (lambda kw, rng: {**kw, "data": kw["queries"], "data_offset": 0}, "bad", ()),
        "ex:cols": (lambda kw, rng: {**kw, "data": np.ones((4, kw["queries"].shape[1] + 1))}, "bad", ("data",)),
        "ex:huge_unscaled": (
            lambda kw, rng: {**kw, "data": kw["data"] * 1e300, "n_neighbors": 1, "scale_exponent_zero": True},
            "bad",
            ("scale_exponent",),
        ),
        "ex:big_blocks": (
            lambda kw, rng: (
                {**kw, "queries": rng.standard_normal((600, 12)), "data": rng.standard_normal((300, 12))}
                | {"data_offset": 600, "n_neighbors": 5}
            ),
            "valid",
            (),
        ),
    },
    core=True,
    allow_inf=True,  # (-1, inf) pads a row with fewer than k candidates in the other block
)((_cpair_make, _cpair_call, _cpair_check))

# ---- issue 48: the new paths of the scale turn, each with an independent check ------------------


def _np_kernel(X, kind, gamma, tau):
    """The RBF / TL1 kernel by numpy's broadcasting (the reference of the on-the-fly operators)."""
    X = np.asarray(X, float)
    if kind == "rbf":
        with np.errstate(over="ignore"):
            return np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return np.maximum(tau - np.abs(X[:, None, :] - X[None, :, :]).sum(-1), 0.0)


def _kopc_make(rng, n):
    return {
        "X": rng.standard_normal((n, 3)),
        "V": rng.standard_normal((n, 2)),
        "kernel": str(rng.choice(["rbf", "tl1"])),
        "gamma": 0.5,
        "tau": 2.0,
        "constant": 0.25,
    }


def _kopc_kernel(kw):
    """The kernel a case exercises: the one whose parameter a mutation changed, else the drawn one."""
    for name, base, kernel in (("gamma", 0.5, "rbf"), ("tau", 2.0, "tl1")):
        value = kw.get(name)
        if not (type(value) is float and value == base):
            return kernel
    return kw["kernel"]


def _kopc_call(kw):
    from kernlearn.kernels import KernelOperator

    kernel = _kopc_kernel(kw)
    args = {k: v for k, v in kw.items() if k not in ("X", "V", "j", "kernel")}
    args.pop("tau" if kernel == "rbf" else "gamma", None)
    args["kernel"] = kw["kernel"] if kw["kernel"] not in ("rbf", "tl1") else kernel
    op = KernelOperator(kw["X"], **args)
    return op @ kw["V"], op.column(kw.get("j", 0)), op.diagonal()


def _kopc_check(kw, out):
    """K @ V, a column and the diagonal against numpy's kernel of the same X plus the constant."""
    product, column, diagonal = (np.asarray(a, float) for a in out)
    K = _np_kernel(kw["X"], _kopc_kernel(kw), kw["gamma"], kw["tau"]) + kw.get("constant", 0.0)
    V = np.asarray(kw["V"], float)
    tolerance = 1e-10 * safe_scale(K) * max(1.0, np.abs(V).sum(axis=0).max())
    expect(product.shape == (K.shape[0], V.shape[1]), f"product shape {product.shape}")
    expect(np.abs(product - K @ V).max(initial=0) <= tolerance, "K @ V differs from numpy's kernel")
    expect(np.abs(column - K[:, kw.get("j", 0)]).max(initial=0) <= tolerance, "column differs")
    expect(np.abs(diagonal - np.diag(K)).max(initial=0) <= tolerance, "diagonal differs")


entry(
    "kernels.KernelOperator",
    "kernels",
    arrays={"X": "data", "V": "data"},
    params={"gamma": "float_opt", "tau": "float_opt", "constant": "float_any", "n_jobs": "njobs"},
    extra={
        "ex:V_rows": (lambda kw, rng: {**kw, "V": np.ones((np.shape(kw["X"])[0] + 1, 2))}, "bad", ("V", "X")),
        "ex:j_out": (lambda kw, rng: {**kw, "j": np.shape(kw["X"])[0]}, "bad", ("j",)),
        "ex:kernel_bogus": (lambda kw, rng: {**kw, "kernel": "poly"}, "bad", ("kernel",)),
        "ex:issue3": (lambda kw, rng: {**kw, "n_jobs": 10**6}, "valid", ()),
    },
    valid_muts=("fortran", "strided", "negstride", "readonly", "list"),
    stands_for={"V": ("V", "X", "shape", "dimension", "dimensions")},  # scipy's LinearOperator names the shape
)((_kopc_make, _kopc_call, _kopc_check))


def _clr_call(kw):
    la = _core().linalg
    op = la.low_rank_operator(kw["U"], kw["c"])
    V = np.ascontiguousarray(np.eye(op.shape[1])[:, :2])
    return op.matmat(V), op.diagonal()


def _clr_check(kw, out):
    product, diagonal = (np.asarray(a) for a in out)
    U, c = np.asarray(kw["U"], float), np.asarray(kw["c"], float)
    M = (U * c) @ U.T
    expect(fin(product, diagonal), "non-finite operator output")
    tolerance = 1e-12 * safe_scale(M) * len(M)
    expect(np.abs(product - M[:, :2]).max(initial=0) <= tolerance, "U diag(c) U' V differs from numpy")
    expect(np.abs(diagonal - np.diag(M)).max(initial=0) <= tolerance, "diagonal differs from numpy")


entry(
    "_core.linalg.low_rank_operator",
    "linalg",
    arrays={"U": "data", "c": "vec"},
    extra={
        "ex:c_short": (lambda kw, rng: {**kw, "c": np.ones(1)}, "bad", ("c", "U")),
        "ex:c_nan": (lambda kw, rng: {**kw, "c": np.full(np.shape(kw["U"])[1], np.nan)}, "bad", ("c",)),
        "ex:rank_zero": (lambda kw, rng: {**kw, "U": np.ones((np.shape(kw["U"])[0], 0)), "c": np.ones(0)}, "edge", ()),
    },
    core=True,
    min_n=3,
)((lambda rng, n: {"U": rng.standard_normal((n, 2)), "c": rng.standard_normal(2)}, _clr_call, _clr_check))


def _cnorm_call(kw):
    la = _core().linalg
    op = la.normalized_operator(la.dense_operator(kw["A"]), kw["s"], center=kw.get("center", False))
    V = np.ascontiguousarray(kw["V"])
    return op.matmat(V), op.diagonal()


def _cnorm_check(kw, out):
    product, diagonal = (np.asarray(a) for a in out)
    A, s = dense(kw["A"]), np.asarray(kw["s"], float)
    M = s[:, None] * A * s[None, :]
    if kw.get("center"):
        H = np.eye(len(A)) - 1.0 / len(A)
        M = H @ M @ H
    expect(fin(product, diagonal), "non-finite operator output")
    tolerance = 1e-12 * safe_scale(M) * len(M)
    expect(np.abs(product - M @ np.asarray(kw["V"], float)).max(initial=0) <= tolerance, "D A D V differs")
    expect(np.abs(diagonal - np.diag(M)).max(initial=0) <= tolerance, "diagonal differs from numpy")


entry(
    "_core.linalg.normalized_operator",
    "linalg",
    arrays={"A": "sym", "s": "vec"},
    extra={
        "ex:center": (lambda kw, rng: {**kw, "center": True}, "valid", ()),
        "ex:s_short": (lambda kw, rng: {**kw, "s": np.ones(1)}, "bad", ("s", "A")),
        "ex:s_nan": (lambda kw, rng: {**kw, "s": np.full(np.shape(kw["A"])[0], np.nan)}, "bad", ("s",)),
    },
    core=True,
    min_n=3,
)(
    (
        lambda rng, n: {"A": sym_rand(rng, n), "s": rng.random(n) + 0.5, "V": rng.standard_normal((n, 2))},
        _cnorm_call,
        _cnorm_check,
    )
)


def _cnkt_make(rng, n):
    n = max(n, 4)
    X = rng.standard_normal((n, 3))
    return {
        "X": X,
        "W": np.ascontiguousarray(np.linalg.qr(rng.standard_normal((3, 2)))[0]),
        "V": np.asfortranarray(rng.standard_normal((n, 2))),
        "sigma": 1.0,
        "landmarks": sorted(rng.choice(n, size=max(2, n // 2), replace=False).tolist()),
    }


def _cnkt_call(kw):
    return _core().kernels.nystrom_kernel_times(
        kw["X"], kw["W"], kw["V"], sigma=kw["sigma"], landmarks=kw["landmarks"], n_threads=kw.get("n_threads", 1)
    )


def _cnkt_check(kw, out):
    """K V with K = K_nL K_LL^+ K_Ln (the pseudo-inverse cut at NYSTROM_RCOND), diagonal set to 1."""
    Z = np.asarray(kw["X"], float) @ np.asarray(kw["W"], float)
    L = np.asarray(kw["landmarks"])
    G = np.exp(-((Z[:, None, :] - Z[None, L, :]) ** 2).sum(-1) / (2.0 * kw["sigma"] ** 2))
    mu, Q = np.linalg.eigh(G[L])
    keep = mu > _core().kernels.NYSTROM_RCOND * mu.max()
    F = (G @ Q[:, keep]) / np.sqrt(mu[keep])
    K = F @ F.T
    np.fill_diagonal(K, 1.0)
    reference = K @ np.asarray(kw["V"], float)
    out = np.asarray(out)
    expect(out.shape == reference.shape, f"shape {out.shape}")
    expect(np.abs(out - reference).max(initial=0) <= 1e-7 * max(1.0, safe_scale(reference)), "K V differs")


entry(
    "_core.kernels.nystrom_kernel_times",
    "kernels",
    arrays={"X": "data"},
    params={"sigma": "float", "n_threads": "threads"},
    extra={
        "ex:landmark_out": (lambda kw, rng: {**kw, "landmarks": [0, np.shape(kw["X"])[0]]}, "bad", ("landmarks",)),
        "ex:landmark_neg": (lambda kw, rng: {**kw, "landmarks": [-1, 0]}, "bad", ("landmarks",)),
        "ex:landmarks_empty": (lambda kw, rng: {**kw, "landmarks": []}, "bad", ("landmarks", "n_landmarks")),
        "ex:landmarks_dup": (lambda kw, rng: {**kw, "landmarks": [0, 0, 1]}, "edge", ("landmarks",)),
        "ex:V_rows": (lambda kw, rng: {**kw, "V": np.asfortranarray(np.ones((1, 2)))}, "bad", ("V",)),
        "ex:W_rows": (lambda kw, rng: {**kw, "W": np.ones((7, 2))}, "bad", ("W",)),
    },
    core=True,
    min_n=4,
    stands_for={"X": ("X", "W", "V")},  # W's rows are X's columns, V's rows X's rows
)((_cnkt_make, _cnkt_call, _cnkt_check))


def _iklr_ny_make(rng, n):
    return {**_clf_make(rng, n), "approximation": "nystrom", "n_centers": 4, "max_iter": 20, "random_state": 0}


def _iklr_ny_check(kw, out):
    """Predictions among the classes, from the Nystrom model, with finite weights and certificate
    (the core's certificate itself is recomputed by _core.methods.iklr_nystrom_newton's check)."""
    _pred_check(kw, out)
    est, _ = out
    expect(est.approximation_ == "nystrom", f"fit took the {est.approximation_} path")
    arrays = (np.asarray(est.dual_coef_, float), np.asarray(est.intercept_, float), np.asarray(est.gradient_norm_))
    expect(fin(*arrays), "non-finite weights or gradient norm")


entry(
    "indefinite.IndefiniteKernelLogisticRegression[nystrom]",
    "methods",
    arrays={"X": "data", "y": "labels"},
    params={
        "n_centers": "count",
        "alpha": "float",
        "intercept_scaling": "float",
        "tol": "float",
        "max_iter": "count",
        "random_state": "seed",
    },
    extra={**Y_EXTRA, "ex:centers_more_than_n": (lambda kw, rng: {**kw, "n_centers": 10**6}, "edge", ("n_centers",))},
    min_n=6,
)(
    (
        _iklr_ny_make,
        _est_call("kernlearn.indefinite.IndefiniteKernelLogisticRegression", "predict"),
        _iklr_ny_check,
    )
)


def _kdac_lr_make(rng, n):
    kw = _kdac_make(rng, n)
    return {**kw, "approximation": str(rng.choice(["nystrom", "rff"])), "n_landmarks": 6, "n_random_features": 16}


entry(
    "cluster.KDAC[low-rank]",
    "methods",
    arrays={"X": "data"},
    params={
        "n_landmarks": "count",
        "n_random_features": "count",
        "sigma": "float",
        "lambda_": "float",
        "max_iter": "count",
        "random_state": "seed",
    },
    extra={
        "ex:landmarks_more_than_n": (lambda kw, rng: {**kw, "n_landmarks": 10**6}, "edge", ("n_landmarks",)),
        "ex:y_short": (lambda kw, rng: {**kw, "y": np.arange(np.asarray(kw["X"]).shape[0] - 1) % 2}, "bad", ("y", "X")),
    },
    min_n=8,
)((_kdac_lr_make, _est_call("kernlearn.cluster.KDAC", fit_keys=("X", "y")), _labels_check("n_clusters")))


# Every field of every options class: the values of tests/test_options.py's rules, given to the
# constructor and assigned, must come back as set (valid) or raise a TypeError / ValueError naming
# Class.field (bad) -- never pybind11's signature dump (issue 48).


def _field_cases(spec, default):
    """(label, value, kind) for one field's rule (Class._field_types)."""
    kind = spec[0]
    if kind == "optional":
        inner = [c for c in _field_cases(spec[1], default) if c[1] is not None]
        return [("none", None, "valid"), *inner]
    if kind == "int":
        low, high = spec[1], spec[2]
        return [
            ("str", "3", "bad"),
            ("1.5", 1.5, "bad"),
            ("bool", True, "bad"),
            ("none", None, "bad"),
            ("above", high + 1, "bad"),
            ("below", low - 1, "bad"),
            ("np_int", np.int32(1), "valid"),
            ("max", high, "valid"),
        ]
    if kind == "float":
        return [
            ("str", "tight", "bad"),
            ("none", None, "bad"),
            ("complex", 1j, "bad"),
            ("nan", float("nan"), "bad"),
            ("bool", True, "bad"),
            ("inf", float("inf"), "valid"),
            ("np_float32", np.float32(0.5), "valid"),
            ("int", 2, "valid"),
        ]
    if kind == "bool":
        return [("int", 1, "bad"), ("str", "yes", "bad"), ("none", None, "bad"), ("np_bool", np.bool_(True), "valid")]
    if kind == "enum":
        member = next(iter(spec[1]))
        return [("name", member.name, "bad"), ("int", 0, "bad"), ("member", member, "valid")]
    if kind == "class":
        return [("str", "x", "bad"), ("int", 1, "bad"), ("none", None, "bad")]
    return [("str", "abc", "bad"), ("none", None, "bad")]  # arrays, lists


def _options_call(module, name):
    def call(kw):
        cls = getattr(getattr(_core(), module), name)
        built = cls(**kw)
        assigned = cls()
        for k, v in kw.items():
            setattr(assigned, k, v)
        return built, assigned

    return call


def _options_check(kw, out):
    for options in out:
        for k, v in kw.items():
            got = getattr(options, k)
            expect(
                v is None and got is None or got == v or (isinstance(v, float) and got == float(v)),
                f"{k} reads back {got!r}, set {v!r}",
            )


def _options_entries():
    for module in ("linalg", "kernels", "methods"):
        mod = getattr(_core(), module)
        for name in dir(mod):
            cls = getattr(mod, name)
            if not isinstance(cls, type) or not hasattr(cls, "_field_types"):
                continue
            default = cls()
            extra = {}
            for field_name, spec in cls._field_types.items():
                for label, value, kind in _field_cases(spec, getattr(default, field_name)):
                    extra[f"ex:{field_name}={label}"] = (
                        lambda kw, rng, f=field_name, v=value: {**kw, f: v},
                        kind,
                        (field_name,),
                    )
            area = "linalg" if module == "linalg" else module
            entry(f"_core.{module}.{name}", area, extra=extra, core=True, sampled_only=True)(
                (lambda rng, n: {}, _options_call(module, name), _options_check)
            )


_options_entries()


# ---------------------------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")

# (label, value, kind) for scalar roles; None kinds are resolved per role.
SCALAR = {
    "count": [
        ("0", 0, "edge"),
        ("-1", -1, "bad"),
        ("2to31", 2**31, "edge"),
        ("2to63", 2**63, "edge"),
        ("2to64", 2**64, "edge"),
        ("1.5", 1.5, "bad"),
        ("str", "3", "bad"),
        ("nan", NAN, "bad"),
        ("none", None, "edge"),
        ("np_int", "np_int", "valid"),
    ],
    "int_opt": [
        ("0", 0, "edge"),
        ("-1", -1, "bad"),
        ("2to31", 2**31, "edge"),
        ("2to63", 2**63, "edge"),
        ("2to64", 2**64, "edge"),
        ("1.5", 1.5, "bad"),
        ("str", "3", "bad"),
        ("nan", NAN, "bad"),
    ],
    "float": [
        ("0", 0.0, "edge"),
        ("-1", -1.0, "bad"),
        ("nan", NAN, "bad"),
        ("inf", INF, "edge"),
        ("-inf", -INF, "bad"),
        ("subnormal", 5e-324, "edge"),
        ("1e-300", 1e-300, "edge"),
        ("1e300", 1e300, "edge"),
        ("str", "1", "bad"),
        ("none", None, "edge"),
        ("complex", 1j, "bad"),
        ("int", 1, "edge"),
    ],
    "float_opt": [
        ("0", 0.0, "edge"),
        ("-1", -1.0, "bad"),
        ("nan", NAN, "bad"),
        ("inf", INF, "edge"),
        ("subnormal", 5e-324, "edge"),
        ("1e300", 1e300, "edge"),
        ("str", "1", "bad"),
    ],
    "float_any": [
        ("nan", NAN, "bad"),
        ("inf", INF, "edge"),
        ("1e300", 1e300, "edge"),
        ("str", "1", "bad"),
        ("none", None, "edge"),
    ],
    "njobs": [
        ("0", 0, "bad"),
        ("-1", -1, "valid"),
        ("-1e6", -(10**6), "edge"),
        ("1e6", 10**6, "valid"),
        ("2to31", 2**31, "edge"),
        ("2to63", 2**63, "edge"),
        ("1.5", 1.5, "bad"),
        ("str", "2", "bad"),
    ],
    "threads": [("0", 0, "edge"), ("-1", -1, "edge"), ("2to31", 2**31, "edge"), ("2to63", 2**63, "edge")],
    "seed": [
        ("-1", -1, "bad"),
        ("2to32", 2**32, "edge"),
        ("2to64", 2**64, "edge"),
        ("str", "x", "bad"),
        ("1.5", 1.5, "bad"),
    ],
    "str": [("bogus", "bogus", "bad"), ("none", None, "edge"), ("int", 3, "bad")],
    "dtype": [("int", np.int32, "bad"), ("str", "float16", "edge")],
}
# the array mutations: label -> default kind
ARRAY = {
    "fortran": "valid",
    "strided": "valid",
    "negstride": "valid",
    "readonly": "valid",
    "float32": "edge",
    "int": "edge",
    "bool": "edge",
    "object": "edge",
    "complex": "bad",
    "list": "edge",
    "huge": "edge",
    "e150": "edge",
    "tiny": "edge",
    "e-150": "edge",
    "subnormal": "edge",
    "nan": "bad",
    "inf": "bad",
    "empty": "edge",
    "one": "edge",
    "1d": "edge",
    "3d": "bad",
    "none": "bad",
    "str": "bad",
    "scalar": "bad",
    "ragged": "bad",
}
SCALES = {"huge": 1e300, "e150": 1e150, "tiny": 1e-300, "e-150": 1e-150, "subnormal": 1e-310}


def _renorm(A, target):
    """A rescaled so its largest magnitude is ``target`` (finite)."""
    s = safe_scale(A)
    return (A / s) * target if target >= 1 else (A / s) * target


def _optional_default(kw, role):
    """A valid value for an optional array the base case left out, for the mutations to work on."""
    if role == "opt_data":
        return np.array(kw["X"], dtype=np.float64)
    if role == "opt_spd_stack":
        return np.array(kw["S"], dtype=np.float64)
    return np.ones(len(kw["pairs"]))  # pair_labels


def _mutate_array(A, label, role, rng):
    import scipy.sparse as sp

    if sp.issparse(A):
        A = A.toarray()
    if A is None:
        A = np.ones((3, 2))
    A = np.asarray(A)
    if label == "fortran":
        return np.asfortranarray(A)
    if label == "strided":
        big = np.zeros((A.shape[0] * 2,) + A.shape[1:], dtype=A.dtype)
        big[::2] = A
        if A.ndim >= 2:
            big2 = np.zeros(big.shape[:1] + (A.shape[1] * 3,) + A.shape[2:], dtype=A.dtype)
            big2[:, ::3] = big
            return big2[::2, ::3]
        return big[::2]
    if label == "negstride":
        return A[::-1].copy()[::-1]
    if label == "readonly":
        B = A.copy()
        B.setflags(write=False)
        return B
    if label == "float32":
        return A.astype(np.float32)
    if label == "int":
        return np.round(A).astype(np.int64) if role in ("labels", "index") else np.round(A * 3).astype(np.int64)
    if label == "bool":
        return A != 0 if role not in ("labels", "index") else A % 2 == 0
    if label == "object":
        return A.astype(object)
    if label == "complex":
        return A.astype(np.complex128) + 0.5j
    if label == "list":
        return A.tolist()
    if label in SCALES:
        if A.dtype.kind not in "fc":
            A = A.astype(np.float64)
        return _renorm(A.astype(np.float64), SCALES[label])
    if label in ("nan", "inf"):
        B = A.astype(np.float64)
        if B.size:
            B.flat[int(rng.integers(B.size))] = np.nan if label == "nan" else np.inf
        return B
    if label == "empty":
        return A[:0]
    if label == "one":
        return A[:1]
    if label == "1d":
        return A.ravel()
    if label == "3d":
        return A[None]
    if label == "none":
        return None
    if label == "str":
        return "abc"
    if label == "scalar":
        return 3.0
    if label == "ragged":
        return [[1.0, 2.0], [3.0]]
    raise KeyError(label)


def mutations(e: Entry):
    """Every mutation of the entry: (label, kind)."""
    out = [("base", "valid")]
    for name, role in e.arrays.items():
        for label, kind in ARRAY.items():
            if role.startswith("opt") and label == "none":
                kind = "valid"
            if e.core and kind == "valid":
                kind = "edge"  # the stubs require C-contiguous float64: a clear error is fine
            if label in e.valid_muts or f"{name}:{label}" in e.valid_muts:
                kind = "valid"
            if role in ("labels", "index") and label in SCALES:
                continue
            out.append((f"{name}:{label}", kind))
    for name, role in e.params.items():
        for label, _, kind in SCALAR.get(role, []):
            out.append((f"{name}={label}", kind))
    for label, (_, kind, _) in e.extra.items():
        out.append((label, kind))
    return out


def mutation_kind(e, mut):
    return dict(mutations(e))[mut]


def _mut_names(e, mut):
    """The argument names an error message may name for this mutation."""
    if mut == "base":
        return ()
    if mut in e.extra:
        names = e.extra[mut][2]
        return names or tuple(e.arrays) + tuple(e.params)
    name = re.split("[:=]", mut, maxsplit=1)[0]
    name = name[4:] if name.startswith("opt_") else name
    return e.stands_for.get(name, (name,))


def build(case: str):
    """(entry, kwargs, kind, names) of a case id."""
    ename, mut, seed, size = case.split("|")
    e = ENTRIES[ename]
    rng = np.random.default_rng(int(seed))
    sizes = [s for s in SIZES[size] if s >= e.min_n] or [e.min_n]
    n = int(rng.choice(sizes))
    kw = e.make(rng, n)
    if mut == "base":
        pass
    elif mut in e.extra:
        kw = e.extra[mut][0](kw, rng)
    elif "=" in mut:
        name, label = mut.split("=", 1)
        role = e.params[name]
        value = {lab: v for lab, v, _ in SCALAR[role]}[label]
        if value == "np_int":
            cur = kw.get(name)
            value = np.int32(cur) if isinstance(cur, int) else np.int32(2)
        kw[name] = value
    else:
        name, label = mut.split(":", 1)
        role = e.arrays[name]
        value = kw.get(name)
        if value is None and role.startswith("opt"):
            value = _optional_default(kw, role)
        kw[name] = _mutate_array(value, label, role, rng)
    return e, kw, mutation_kind(e, mut), _mut_names(e, mut)


# ---------------------------------------------------------------------------------------------
# Running one case (in the process that runs it)
# ---------------------------------------------------------------------------------------------


def _snapshot(v):
    import scipy.sparse as sp

    if isinstance(v, np.ndarray):
        return ("nd", v.copy(), v.flags.writeable, v.flags.c_contiguous, v.flags.f_contiguous, v.strides, v.dtype)
    if sp.issparse(v):
        return ("sp", v.copy(), v.format)
    if isinstance(v, list):
        import copy

        return ("list", copy.deepcopy(v))
    return None


def _unchanged(v, snap):
    import scipy.sparse as sp

    if snap is None:
        return True
    if snap[0] == "nd":
        _, c, w, cc, fc, st, dt = snap
        if (
            v.dtype != dt
            or v.strides != st
            or v.flags.writeable != w
            or v.flags.c_contiguous != cc
            or v.flags.f_contiguous != fc
        ):
            return False
        if v.dtype == object:
            return all((a is b) or (a == b) or (a != a and b != b) for a, b in zip(v.ravel(), c.ravel()))
        return np.array_equal(v, c, equal_nan=v.dtype.kind in "fc")
    if snap[0] == "sp":
        return (
            sp.issparse(v) and v.format == snap[2] and (v != snap[1]).nnz == 0 if not np.isnan(v.data).any() else True
        )
    return _deep_equal(v, snap[1])


def _deep_equal(a, b):
    if isinstance(a, list | tuple):
        return isinstance(b, list | tuple) and len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind in "fc")
    return a == b or (a != a and b != b)


def names_argument(msg, names):
    for name in names:
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", msg):
            return True
    return False


def _outputs(out):
    """Float arrays and scalars in a result, for the finiteness test."""
    import scipy.sparse as sp

    seen = []

    def walk(o, depth=0):
        if depth > 3:
            return
        if isinstance(o, np.ndarray) and o.dtype.kind in "fc":
            seen.append(o)
        elif sp.issparse(o):
            seen.append(o.data)
        elif isinstance(o, float | np.floating):
            seen.append(np.asarray(o))
        elif isinstance(o, tuple | list):
            for x in o:
                walk(x, depth + 1)
        elif isinstance(o, dict):
            for x in o.values():
                walk(x, depth + 1)

    walk(out)
    return seen


def run_case(case: str) -> dict:
    """Run one case here; return {"cls", "detail"} (crash and hang are the caller's to see)."""
    try:
        e, kw, kind, names = build(case)
    except Exception as exc:  # a harness bug
        return {"cls": "harness", "detail": f"build: {type(exc).__name__}: {exc}"}
    snaps = {k: _snapshot(v) for k, v in kw.items()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        try:
            out = e.call(kw)
            exc = None
        except Exception as err:  # noqa: BLE001 - classifying is the point
            exc = err
        seconds = time.perf_counter() - t0
    for k, v in kw.items():
        if not _unchanged(v, snaps[k]):
            return {"cls": "wrong", "detail": f"input {k} was modified (values or flags)", "seconds": seconds}
    if exc is not None:
        msg = str(exc).splitlines()[0][:300] if str(exc) else ""
        label = f"{type(exc).__name__}: {msg}"
        if type(exc) in (ValueError, TypeError) or (
            isinstance(exc, ValueError | TypeError) and not isinstance(exc, AttributeError | IndexError | KeyError)
        ):
            if "incompatible function arguments" in str(exc) or "incompatible constructor arguments" in str(exc):
                # The raw bindings take exactly the types their stubs state (arrays .noconvert():
                # no silent copies), and pybind11's TypeError lists that signature: a clear
                # refusal there. From a public function it means a check is missing, and so it
                # does for an options field, which names itself (Class.field, issue 48).
                mut = case.split("|")[1]
                option_field = e.sampled_only or mut.startswith("opt_")
                if e.core and kind != "valid" and not option_field:
                    return {"cls": "clear", "detail": label, "seconds": seconds}
                return {"cls": "weak", "detail": label, "seconds": seconds}
            if not names_argument(str(exc), names) and names:
                return {"cls": "weak", "detail": f"does not name {'/'.join(names)}: {label}", "seconds": seconds}
            if kind == "valid":
                return {"cls": "wrong", "detail": f"valid input rejected: {label}", "seconds": seconds}
            return {"cls": "clear", "detail": label, "seconds": seconds}
        return {"cls": "weak", "detail": label, "seconds": seconds}
    # A deliberate warning from kernlearn about non-finite output counts; numpy's floating-point
    # and complex-casting warnings raised on the way do not.
    incidental = ("encountered in", "Casting complex values")
    warned = [
        str(w.message)[:120]
        for w in caught
        if not issubclass(w.category, DeprecationWarning | PendingDeprecationWarning | FutureWarning)
        and not any(m in str(w.message) for m in incidental)
    ]
    arrays = _outputs(out)
    finite = all(fin(a) for a in arrays) or (e.allow_inf and not any(np.isnan(a).any() for a in arrays))
    if kind == "bad":  # a warning does not make accepting bad input right
        if not finite:
            return {"cls": "nan", "detail": "bad input accepted with non-finite output", "seconds": seconds}
        return {"cls": "accepted", "detail": "returned without error", "seconds": seconds}
    if not finite:
        if warned:
            return {"cls": "clear", "detail": f"non-finite output with a warning: {warned[0]}", "seconds": seconds}
        return {"cls": "nan", "detail": "non-finite output, no warning", "seconds": seconds}
    try:
        e.check(kw, out)
    except Wrong as w:
        return {"cls": "wrong", "detail": str(w)[:300], "seconds": seconds}
    except Exception as exc2:  # noqa: BLE001
        return {"cls": "harness", "detail": f"check: {type(exc2).__name__}: {exc2}"[:300], "seconds": seconds}
    return {"cls": "ok", "detail": "", "seconds": seconds}


def describe(case: str) -> str:
    e, kw, kind, names = build(case)

    def short(v):
        import scipy.sparse as sp

        if isinstance(v, np.ndarray):
            s = f"<{v.dtype} {v.shape}"
            if v.dtype.kind == "f" and v.size:
                with np.errstate(all="ignore"):
                    s += f" max|.|={np.nanmax(np.abs(v)) if np.isfinite(v).any() else v.flat[0]:.3g}"
            if not v.flags.writeable:
                s += " ro"
            if not v.flags.c_contiguous:
                s += " F" if v.flags.f_contiguous else " strided"
            return s + ">"
        if sp.issparse(v):
            return f"<{v.format} {v.shape} nnz={v.nnz}>"
        if isinstance(v, list):
            return f"<list len {len(v)}>"
        return repr(v)

    return f"{e.name}({', '.join(f'{k}={short(v)}' for k, v in kw.items())})"


def repro(case: str):
    """Print the call and run it in this process (crashes and hangs show as such)."""
    print(describe(case), flush=True)
    print(run_case(case))


def repro_line(case: str) -> str:
    return f"PYTHONPATH=python:tests python -c \"import fuzz_cases as f; f.repro('{case}')\""


def all_cases(seeds_valid=3, seeds_other=2, sizes=("s", "m")):
    """The deterministic enumeration the classifier runs."""
    cases = []
    for e in ENTRIES.values():
        for mut, _kind in mutations(e):
            random_part = mut == "base" or mut.split(":")[-1] in (
                "fortran",
                "strided",
                "negstride",
                "readonly",
                "float32",
                "int",
                "list",
                "huge",
                "tiny",
                "e150",
                "e-150",
                "subnormal",
                "nan",
                "inf",
            )
            n_seeds = seeds_valid if random_part or mut.startswith("ex:") else seeds_other
            if "njobs" in e.params.get(mut.split("=")[0], "") or "issue3" in mut or "threads_big" in mut:
                n_seeds = 1  # deadlock cases cost the whole wall clock each
            for seed in range(n_seeds):
                cases.append(f"{e.name}|{mut}|{seed}|{sizes[seed % len(sizes)]}")
    return cases


# ---------------------------------------------------------------------------------------------
# The fork server: imports once, forks a child per case, reports crash / hang / the child's verdict
# ---------------------------------------------------------------------------------------------


def _serve():
    # Under ASan (.ci/sanitize) the shadow memory needs terabytes of address space: its allocator's
    # max_allocation_size_mb bounds the cases' allocations there instead.
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    import scipy.sparse  # noqa: F401
    import scipy.sparse.csgraph  # noqa: F401

    import kernlearn.cluster  # noqa: F401
    import kernlearn.constraints  # noqa: F401
    import kernlearn.embedding  # noqa: F401
    import kernlearn.evaluation  # noqa: F401
    import kernlearn.graph  # noqa: F401
    import kernlearn.indefinite  # noqa: F401
    import kernlearn.kernels  # noqa: F401
    import kernlearn.linalg  # noqa: F401
    import kernlearn.metric  # noqa: F401
    import kernlearn.npkl  # noqa: F401
    import kernlearn.similarity  # noqa: F401

    out = sys.stdout
    sys.stdout = sys.stderr
    devnull = os.open(os.devnull, os.O_WRONLY)
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        case, timeout = req["case"], req["timeout"]
        r, w = os.pipe()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            try:
                res = run_case(case)
            except BaseException as exc:  # noqa: BLE001
                res = {"cls": "harness", "detail": f"{type(exc).__name__}: {exc}"[:300]}
            os.write(w, json.dumps(res).encode())
            os._exit(0)
        os.close(w)
        chunks, deadline = [], t0 + timeout
        timed_out = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                b = os.read(r, 65536)
                if not b:
                    break
                chunks.append(b)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(r)
        elapsed = time.monotonic() - t0
        if timed_out:
            res = {"cls": "hang", "detail": f"no answer within {timeout:g} s"}
        elif os.WIFSIGNALED(status):
            res = {"cls": "crash", "detail": f"killed by {signal.Signals(os.WTERMSIG(status)).name}"}
        elif chunks:
            res = json.loads(b"".join(chunks))
        else:
            res = {"cls": "crash", "detail": f"exit status {os.WEXITSTATUS(status)} without a verdict"}
        res["elapsed"] = elapsed
        out.write(json.dumps(res) + "\n")
        out.flush()


class Worker:
    """A fork server in a subprocess; ``run(case)`` returns the verdict dict."""

    def __init__(self):
        # The server imports the kernlearn this process would import (the installed one in CI,
        # the source tree under PYTHONPATH=python), and these cases from beside this file.
        spec = importlib.util.find_spec("kernlearn")
        if spec is None or spec.origin is None:
            raise RuntimeError("kernlearn is not importable here")
        package_parent = os.path.dirname(os.path.dirname(spec.origin))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [package_parent, os.path.dirname(os.path.abspath(__file__)), env.get("PYTHONPATH", "")]
        )
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("MKL_NUM_THREADS", "1")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import fuzz_cases; fuzz_cases._serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
            bufsize=1,
        )
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"fuzz worker did not start: {line!r}")

    def run(self, case, timeout=60.0):
        self.proc.stdin.write(json.dumps({"case": case, "timeout": timeout}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("fuzz worker died")
        return json.loads(line)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


if __name__ == "__main__" and len(sys.argv) > 1:
    for c in sys.argv[1:]:
        repro(c)
