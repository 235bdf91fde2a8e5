"""Thick-restart Lanczos against dense LAPACK (scipy.linalg.eigh): values, residuals, counts."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import laplacian as scipy_laplacian
from scipy.sparse.linalg import aslinearoperator
from sklearn.exceptions import ConvergenceWarning

from kernlearn.linalg import eigsh


def random_sparse_symmetric(n, density=0.01, seed=0):
    B = sp.random(
        n,
        n,
        density=density,
        random_state=np.random.RandomState(seed),
        data_rvs=np.random.RandomState(seed + 1).standard_normal,
    )
    return (B + B.T).tocsr()


def grid_laplacian(side):
    path = sp.diags([1.0, 1.0], [-1, 1], shape=(side, side))
    grid = sp.kron(path, sp.eye(side)) + sp.kron(sp.eye(side), path)
    return sp.csr_matrix(scipy_laplacian(grid))  # clustered, repeated eigenvalues


def repeated_spectrum(n, seed=0):
    """Q diag(values) Q' with a triple eigenvalue at the top and a double one at the bottom."""
    rng = np.random.default_rng(seed)
    values = np.sort(rng.uniform(-3, 3, n))
    values[-3:] = 5.0
    values[:2] = -4.0
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (Q * values) @ Q.T


def as_kind(A, kind):
    if kind == "sparse":
        return sp.csr_matrix(A)
    if kind == "dense":
        return A.toarray() if sp.issparse(A) else np.asarray(A)
    return aslinearoperator(sp.csr_matrix(A))


def check_pairs(A, values, vectors, info, reference, tol=1e-10):
    M = A.toarray() if sp.issparse(A) else A
    np.testing.assert_allclose(values, reference, rtol=1e-8, atol=1e-8 * np.abs(reference).max())
    residuals = np.linalg.norm(M @ vectors - vectors * values, axis=0)
    norm = np.abs(scipy.linalg.eigvalsh(M)).max()
    assert residuals.max() <= 10 * tol * norm
    if info["method"] == "lanczos":  # the estimates are honest (locked pairs' couplings included)
        assert np.all(residuals <= 1.01 * info["residuals"] + 1e-12 * norm)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(len(values)), atol=1e-8)
    assert info["n_matvec"] > 0 or info["method"] == "dense"


@pytest.mark.parametrize("kind", ["sparse", "dense", "operator"])
@pytest.mark.parametrize("which", ["LA", "SA"])
@pytest.mark.parametrize(
    "make",
    [lambda: random_sparse_symmetric(600), lambda: grid_laplacian(24), lambda: repeated_spectrum(300)],
    ids=["random", "grid-laplacian", "repeated"],
)
def test_matches_dense_eigh(kind, which, make):
    A = make()
    M = A.toarray() if sp.issparse(A) else A
    w = scipy.linalg.eigvalsh(M)
    k = 12
    values, vectors, info = eigsh(as_kind(A, kind), k, which, method="lanczos", random_state=0)
    reference = w[::-1][:k] if which == "LA" else w[:k]
    check_pairs(M, values, vectors, info, reference)
    assert info["status"] == "converged" and info["method"] == "lanczos"


@pytest.mark.parametrize("which", ["LA", "SA"])
def test_threshold_mode_exact_counts(which):
    A = random_sparse_symmetric(500, density=0.02, seed=3)
    w = scipy.linalg.eigvalsh(A.toarray())
    for t in (np.quantile(w, 0.97), np.quantile(w, 0.5) if which == "LA" else np.quantile(w, 0.03)):
        values, vectors, info = eigsh(A, which=which, threshold=t, method="lanczos", random_state=1)
        expected = np.sort(w[w > t])[::-1] if which == "LA" else np.sort(w[w < t])
        assert len(values) == len(expected)
        check_pairs(A, values, vectors, info, expected)


def test_threshold_mode_grows_its_window_before_converging_it():
    """Sixty pairs above the threshold from the default first guess of ten: the window grows as
    soon as all its Ritz values lie above the threshold (they are lower bounds of the eigenvalues),
    not after converging each intermediate window (1,335 products before, 530 now)."""
    A = random_sparse_symmetric(600, density=0.02, seed=3)
    w = scipy.linalg.eigvalsh(A.toarray())
    t = np.quantile(w, 0.9)
    values, vectors, info = eigsh(A, threshold=t, method="lanczos", random_state=1)
    check_pairs(A, values, vectors, info, np.sort(w[w > t])[::-1])
    assert info["status"] == "converged" and info["n_matvec"] <= 800


def test_threshold_with_nothing_beyond_is_empty():
    A = random_sparse_symmetric(400)
    top = scipy.linalg.eigvalsh(A.toarray())[-1]
    for method in ("lanczos", "dense"):
        values, vectors, info = eigsh(A, threshold=top + 1.0, method=method)
        assert values.shape == (0,) and vectors.shape == (400, 0) and info["converged"]


def test_threshold_all_eigenpairs():
    A = random_sparse_symmetric(60, density=0.1)
    w = scipy.linalg.eigvalsh(A.toarray())
    values, _, _ = eigsh(A, threshold=w[0] - 1.0, method="lanczos")
    np.testing.assert_allclose(values, w[::-1], atol=1e-9)


def test_threshold_max_rank_caps():
    A = random_sparse_symmetric(400, seed=5)
    w = scipy.linalg.eigvalsh(A.toarray())
    t = np.quantile(w, 0.9)
    values, _, info = eigsh(A, threshold=t, max_rank=10, method="lanczos")
    assert len(values) == 10 and info["status"] == "max_rank_reached"
    np.testing.assert_allclose(values, w[::-1][:10], atol=1e-8)


def test_dense_and_lanczos_agree_including_signs():
    A = random_sparse_symmetric(700, seed=2)
    v1, V1, _ = eigsh(A, 8, method="lanczos", random_state=0)
    v2, V2, info = eigsh(A, 8, method="dense")
    assert info["method"] == "dense"
    np.testing.assert_allclose(v1, v2, atol=1e-9)
    np.testing.assert_allclose(V1, V2, atol=1e-6)  # same sign rule: largest |entry| positive
    assert np.all(V1[np.argmax(np.abs(V1), axis=0), np.arange(8)] > 0)


def test_deterministic_for_fixed_random_state():
    A = random_sparse_symmetric(800)
    a = eigsh(A, 10, method="lanczos", random_state=42)
    b = eigsh(A, 10, method="lanczos", random_state=42)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_auto_picks_dense_for_small_and_many():
    small = random_sparse_symmetric(100, density=0.1)
    assert eigsh(small, 3)[2]["method"] == "dense"
    big = random_sparse_symmetric(1000)
    assert eigsh(big, 5)[2]["method"] == "lanczos"
    assert eigsh(big, 300)[2]["method"] == "dense"


def test_non_convergence_warns_and_reports():
    A = grid_laplacian(30)
    with pytest.warns(ConvergenceWarning, match="before convergence"):
        values, _, info = eigsh(A, 10, "SA", method="lanczos", maxiter=40)
    assert info["status"] == "not_converged" and not info["converged"]
    assert len(values) == 10


@pytest.mark.parametrize("scale", [1e-13, 1e-6, 1e-2])
def test_warm_start_on_a_perturbed_matrix(scale):
    """A block of earlier eigenvectors: locked after one Rayleigh-Ritz step when they still meet
    tol (then a probe alone confirms them: >= 3x fewer mat-vecs). Otherwise its k-th Ritz value
    sets a Chebyshev filter's level and filtered Lanczos starts from the sum of its wanted Ritz
    vectors (more products, fewer Lanczos steps; bench/results/eigsh.md). Either way the answer
    is the new matrix's."""
    A = random_sparse_symmetric(3000, density=0.003, seed=1)
    _, V, cold = eigsh(A, 20, method="lanczos", random_state=0)
    P = A.copy()
    P.data *= 1 + scale * np.random.default_rng(2).standard_normal(P.nnz)
    P = ((P + P.T) / 2).tocsr()
    values, vectors, warm = eigsh(P, 20, v0=V, method="lanczos")
    check_pairs(P, values, vectors, warm, eigsh(P, 20, method="dense")[0])
    if scale < 1e-10:
        assert 3 * warm["n_matvec"] <= cold["n_matvec"] and not warm["filtered"]
    else:
        assert warm["filtered"] and warm["n_matvec"] <= 1.6 * cold["n_matvec"]
        # The level is the block's 20th Ritz value, a lower bound of lambda_20 (interlacing):
        # the same filter by hand gives the same run.
        theta = np.linalg.eigvalsh(V.T @ (P @ V))
        by_hand = eigsh(
            P, 20, v0=V @ np.linalg.eigh(V.T @ (P @ V))[1].sum(axis=1), method="lanczos", filter_level=theta[0]
        )[2]
        # Within a restart cycle: the hand-made start differs from the core's by rounding (numpy's
        # BLAS, whose threads may vary under load), which can move a restart (a 30 was seen).
        assert by_hand["filtered"] and abs(by_hand["n_matvec"] + 20 - warm["n_matvec"]) <= 45


@pytest.mark.parametrize("which", ["LA", "SA"])
def test_a_warm_block_sets_the_filter_level(which):
    """A block of k + 10 earlier eigenvectors, mixed by a non-orthogonal matrix and with columns of
    very different scales: its k-th Ritz value (computed here by QR, independently of the core's
    Cholesky route) is the filter's level, and the run is the one that level and the sum of the
    wanted Ritz vectors give by hand, plus the block's k + 10 products. A random block is too far
    from invariant for that and is left to plain Lanczos."""
    n, k = 1500, 8
    A = random_sparse_symmetric(n, density=0.005, seed=7)
    _, V, _ = eigsh(A, k + 10, which, method="lanczos", random_state=0)
    P = A.copy()
    P.data *= 1 + 1e-2 * np.random.default_rng(8).standard_normal(P.nnz)
    P = ((P + P.T) / 2).tocsr()
    rng = np.random.default_rng(9)
    block = (V @ rng.standard_normal((k + 10, k + 10))) * np.geomspace(1, 1e4, k + 10)
    values, vectors, info = eigsh(P, k, which, v0=block, method="lanczos")
    check_pairs(P, values, vectors, info, eigsh(P, k, which, method="dense")[0])
    assert info["filtered"]
    Q = np.linalg.qr(block)[0]
    theta, U = np.linalg.eigh(Q.T @ (P @ Q))  # ascending
    wanted = slice(k + 10 - k, None) if which == "LA" else slice(0, k)
    level = theta[wanted][0] if which == "LA" else theta[wanted][-1]
    by_hand = eigsh(P, k, which, v0=Q @ U[:, wanted].sum(axis=1), filter_level=level, method="lanczos")[2]
    assert by_hand["filtered"]
    assert abs(by_hand["n_matvec"] + k + 10 - info["n_matvec"]) <= 0.05 * info["n_matvec"]
    noise = rng.standard_normal((n, k + 10))
    values, vectors, info = eigsh(P, k, which, v0=noise, method="lanczos")
    check_pairs(P, values, vectors, info, eigsh(P, k, which, method="dense")[0])
    assert not info["filtered"]


@pytest.mark.parametrize("which", ["LA", "SA"])
def test_warm_blocks_wider_than_the_basis_or_dependent(which):
    """Warm blocks the Rayleigh-Ritz step must trim: wider than ncv, with repeated columns, with
    more columns than n (the first n independent ones span the space). The answer is exact, and a
    block that already holds it costs its own 40 products (the Rayleigh-Ritz step that finds its
    5 wanted pairs converged), then Lanczos's warm start on those 5 Ritz vectors (one product to
    find them close to invariant, 5 for its own Rayleigh-Ritz step), one probe of 20 steps (the
    basis grown to take a block is not kept for it), and the 5 products that measure the
    residuals."""
    A = random_sparse_symmetric(300, density=0.05, seed=3)
    reference = eigsh(A, 5, which, method="dense")[0]
    _, V, _ = eigsh(A, 40, which, method="lanczos", random_state=0)
    noise = np.random.default_rng(4).standard_normal((300, 300))
    for block in (V, np.c_[V, V[:, :7]], np.c_[V[:, :1], V[:, :1], noise]):
        values, vectors, info = eigsh(A, 5, which, v0=block, ncv=12, method="lanczos")
        check_pairs(A, values, vectors, info, reference)
    assert eigsh(A, 5, which, v0=V, ncv=12, method="lanczos")[2]["n_matvec"] <= 40 + 1 + 5 + 20 + 5


def test_locking_leaves_room_for_late_copies_of_repeated_eigenvalues():
    """Pairs locked early can be pushed out of the wanted window by copies of a repeated
    eigenvalue that a single Krylov vector finds late. They must not take the room of the pairs
    still converging: counted against it, the active part shrank to nothing and Lanczos ran to
    maxiter (60 identical 6-node components, 5 large ones; a spectrum repeated five times)."""
    rng = np.random.default_rng(42)
    piece = sp.random(6, 6, density=0.3, random_state=rng)
    piece = ((piece + piece.T) > 0).astype(float)
    big = [sp.random(200, 200, density=0.3, random_state=np.random.default_rng(s)) for s in range(5)]
    W = sp.block_diag([piece] * 60 + [((b + b.T) > 0).astype(float) for b in big]).tocsr()
    L = (sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W).tocsr()
    spectrum_L = np.sort(scipy.linalg.eigvalsh(L.toarray()))
    for k in (20, 100):  # k = 20: all 65 components' zeros
        values, vectors, info = eigsh(L, k, "SA", method="lanczos", random_state=0, maxiter=20000)
        assert info["converged"]
        np.testing.assert_allclose(values, spectrum_L[:k], atol=1e-8 * spectrum_L[-1])
        residuals = np.linalg.norm(L @ vectors - vectors * values, axis=0)
        assert np.all(residuals <= 1.01 * info["residuals"] + 1e-12 * spectrum_L[-1])
        np.testing.assert_allclose(vectors.T @ vectors, np.eye(k), atol=1e-8)
    Q, _ = np.linalg.qr(rng.standard_normal((30, 30)))
    spectrum = np.repeat(rng.standard_normal(6), 5)
    A = (Q * spectrum) @ Q.T
    values, vectors, info = eigsh(A, 25, "LA", ncv=27, method="lanczos", random_state=1, maxiter=3000)
    assert info["converged"]
    check_pairs(A, values, vectors, info, np.sort(spectrum)[::-1][:25])


def test_warm_block_just_inside_tol_does_not_cap_the_others():
    """A warm block whose pairs meet tol only just (0.3-0.9 tol, each tilted towards the one
    eigenvector the block lacks): locked at tol, their couplings held the missing pair's residual
    above tol for good. Only pairs at 1% of tol lock now."""
    rng = np.random.default_rng(0)
    n, k, tol = 200, 20, 1e-10
    lam = np.linspace(2, 1, n)
    X, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (X * lam) @ X.T
    A = (A + A.T) / 2
    for fraction in (0.3, 0.9):
        block = np.column_stack(
            [X[:, c] + fraction * tol * 2 / abs(lam[10] - lam[c]) * X[:, 10] for c in range(k) if c != 10]
        )
        values, vectors, info = eigsh(A, k, "LA", v0=block, method="lanczos", tol=tol, maxiter=20000)
        assert info["converged"]
        check_pairs(A, values, vectors, info, lam[:k], tol=tol)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"k": 0}, ValueError, "k must be >= 1"),
        ({"k": 50}, ValueError, "k must be < n = 50"),
        ({"k": 2.5}, TypeError, "k must be an integer"),
        ({}, ValueError, "k is required unless threshold"),
        ({"k": 3, "which": "LM"}, ValueError, "which must be one of"),
        ({"k": 3, "v0": np.zeros(50)}, ValueError, "v0 must not be zero"),
        ({"k": 3, "v0": np.ones(49)}, ValueError, r"v0 must have shape \(50,\)"),
        ({"k": 3, "v0": np.full(50, np.nan)}, ValueError, "v0 contains NaN"),
        ({"k": 3, "tol": -1.0}, ValueError, "tol must be a positive"),
        ({"k": 3, "ncv": 2}, ValueError, "ncv must satisfy"),
        ({"threshold": np.inf}, ValueError, "threshold must be finite"),
        ({"threshold": "big"}, TypeError, "threshold must be a real number"),
        ({"k": 3, "method": "arpack"}, ValueError, "method must be one of"),
        ({"threshold": 0.0, "filter_level": 0.5}, ValueError, "filter_level must lie on the unwanted side"),
        (
            {"threshold": 0.0, "which": "SA", "filter_level": -0.5},
            ValueError,
            "filter_level must lie on the unwanted side",
        ),
        ({"k": 3, "filter_level": np.nan}, ValueError, "filter_level must be finite"),
        ({"k": 3, "filter_level": "low"}, TypeError, "filter_level must be a real number"),
        ({"k": 3, "filter_level": True}, TypeError, "filter_level must be a real number"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    A = random_sparse_symmetric(50, density=0.1)
    with pytest.raises(error, match=match):
        eigsh(A, **kwargs)


@pytest.mark.parametrize(
    "A, error, match",
    [
        (np.ones((3, 4)), ValueError, "A must be square"),
        (sp.csr_matrix(np.ones((3, 4))), ValueError, "A must be square"),
        (np.triu(np.ones((5, 5))), ValueError, "A must be symmetric"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), ValueError, "A contains NaN"),
        (sp.csr_matrix(np.array([[1.0, np.inf], [np.inf, 1.0]])), ValueError, "A contains NaN"),
        (np.eye(3, dtype=complex), ValueError, "A: Complex data not supported"),
    ],
)
def test_bad_matrices(A, error, match):
    with pytest.raises(error, match=match):
        eigsh(A, 1)


def test_symmetry_check_opt_out_and_inputs_untouched():
    A = np.triu(np.random.default_rng(0).standard_normal((40, 40)))
    before = A.copy()
    with pytest.warns(ConvergenceWarning):  # the pairs of its lower triangle miss tol against A
        eigsh(A, 2, check_symmetric=False)
    np.testing.assert_array_equal(A, before)
    V0 = np.random.default_rng(1).standard_normal((300, 3))
    V0_before = V0.copy()
    eigsh(random_sparse_symmetric(300), 3, v0=V0, method="lanczos")
    np.testing.assert_array_equal(V0, V0_before)


def test_operator_returning_wrong_shape_is_an_error():
    from scipy.sparse.linalg import LinearOperator

    bad = LinearOperator((600, 600), matvec=lambda x: np.ones(599), dtype=float)
    with pytest.raises(ValueError):
        eigsh(bad, 3, method="lanczos")


def test_exact_multiplicities_are_all_found():
    """60 identical components: a single Krylov vector sees one copy of each eigenvalue; the
    probes after convergence must find the other 59."""
    rng = np.random.default_rng(0)
    B = rng.standard_normal((10, 10))
    B = B + B.T
    wb = np.linalg.eigvalsh(B)
    A = sp.kron(sp.identity(60), sp.csr_matrix(B)).tocsr()
    values, vectors, info = eigsh(A, 5, method="lanczos", random_state=0)
    np.testing.assert_allclose(values, np.full(5, wb[-1]), rtol=1e-10)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(5), atol=1e-8)
    values, _, _ = eigsh(A, threshold=wb[-2] - 1e-6, method="lanczos", random_state=0)
    assert len(values) == 120


def test_count_estimate_and_auto_threshold():
    from kernlearn.linalg import DENSE_FRACTION, estimate_count_beyond

    A = random_sparse_symmetric(1500, density=0.004, seed=4)
    w = scipy.linalg.eigvalsh(A.toarray())
    for t, which in ((np.quantile(w, 0.9), "LA"), (np.quantile(w, 0.5), "LA"), (np.quantile(w, 0.05), "SA")):
        true = int((w > t).sum() if which == "LA" else (w < t).sum())
        estimate = estimate_count_beyond(A, t, which, random_state=0)
        assert abs(estimate - true) <= 0.05 * len(w), (t, estimate, true)
    # auto: few pairs -> Lanczos sized by the estimate; many -> dense
    values, _, info = eigsh(A, threshold=np.quantile(w, 0.97), random_state=0)
    assert info["method"] == "lanczos" and len(values) == (w > np.quantile(w, 0.97)).sum()
    values, _, info = eigsh(A, threshold=np.quantile(w, 1 - 2 * DENSE_FRACTION), random_state=0)
    assert info["method"] == "dense" and "estimated_count" in info


@pytest.mark.parametrize("which", ["LA", "SA"])
@pytest.mark.parametrize("count", [5, 120])  # MRRR (at most n / 10 pairs) and divide and conquer
def test_dense_method_top_k_and_threshold_against_scipy(which, count):
    A = random_sparse_symmetric(300, seed=7)
    w, V = scipy.linalg.eigh(A.toarray())
    order = np.arange(299, 299 - count, -1) if which == "LA" else np.arange(count)
    values, vectors, info = eigsh(A, count, which, method="dense")
    np.testing.assert_allclose(values, w[order], atol=1e-12)
    np.testing.assert_allclose(np.abs(vectors.T @ V[:, order]), np.eye(count), atol=1e-8)
    assert info["residuals"].max() <= 1e-12 * np.abs(w).max()
    # the same pairs by threshold: halfway between the count-th and the next eigenvalue
    t = 0.5 * (w[order[-1]] + w[order[-1] - 1 if which == "LA" else order[-1] + 1])
    by_threshold, _, _ = eigsh(A, threshold=t, which=which, method="dense")
    np.testing.assert_allclose(by_threshold, w[order], atol=1e-12)


def npkl_like(side=30, seed=0):
    """-L of a grid plus random +-1/2 pairs: SimpleNPKL's A, a wide negative spectrum (to -8.7)
    and 43 positive pairs within 0.84 of zero."""
    L = grid_laplacian(side)
    n = L.shape[0]
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, n, (2, 3 * n))
    keep = i != j
    T = sp.coo_matrix((rng.choice([-1.0, 1.0], keep.sum()), (i[keep], j[keep])), shape=(n, n))
    return (0.5 * (T + T.T) - L).tocsr()


@pytest.mark.parametrize("which", ["LA", "SA"])
def test_filtered_lanczos_against_scipy(which):
    """A level below the top 20 (above the bottom 20 of -A): the Chebyshev-filtered pairs are
    A's own, and the filter takes a fraction of plain Lanczos's restarts."""
    A = npkl_like() if which == "LA" else -npkl_like()
    reference = scipy.linalg.eigvalsh(A.toarray())
    reference = reference[::-1][:20] if which == "LA" else reference[:20]
    values, V, info = eigsh(A, 20, which, filter_level=0.0, method="lanczos", random_state=0)
    assert info["filtered"] and info["converged"]
    np.testing.assert_allclose(values, reference, rtol=0, atol=1e-10)
    residual = np.linalg.norm(A @ V - V * values, axis=0)
    assert residual.max() <= 1.1e-10 * np.abs(scipy.linalg.eigvalsh(A.toarray())).max()
    np.testing.assert_allclose(V.T @ V, np.eye(20), atol=1e-12)
    plain = eigsh(A, 20, which, method="lanczos", random_state=0)[2]
    assert not plain["filtered"] and info["n_restart"] < plain["n_restart"] / 2


@pytest.mark.parametrize("which", ["LA", "SA"])
@pytest.mark.parametrize("level, filtered", [(0.56, True), (1.5, False), (-10.0, False)])
def test_filter_levels_inside_and_beyond_the_wanted_pairs(which, level, filtered):
    """0.56 lies inside the top 20 (11 above it): the rest come from just below the level, where
    the filter still keeps the order. 1.5 lies above the whole spectrum, -10 below it: plain
    Lanczos serves them (after a capped filtered run for 1.5, none for -10)."""
    sign = 1.0 if which == "LA" else -1.0
    A = sign * npkl_like()
    spectrum = scipy.linalg.eigvalsh(A.toarray())
    reference = spectrum[::-1][:20] if which == "LA" else spectrum[:20]
    assert np.sum(sign * reference > level) == {0.56: 11, 1.5: 0, -10.0: 20}[level]
    values, V, info = eigsh(A, 20, which, filter_level=sign * level, method="lanczos", random_state=0)
    assert info["filtered"] == filtered
    np.testing.assert_allclose(values, reference, rtol=0, atol=1e-10)


def test_filtered_lanczos_keeps_to_maxiter_and_dense_ignores_the_level():
    A = npkl_like()
    with pytest.warns(ConvergenceWarning):
        values, V, info = eigsh(A, 20, filter_level=0.0, method="lanczos", maxiter=300, random_state=0)
    assert not info["converged"]
    # the budget, shared by the stages (far-end estimate, filtered run, plain finish), each kept
    # to within a Lanczos cycle
    assert info["n_matvec"] <= 2 * 300
    values, V, info = eigsh(A, 20, filter_level=0.0, method="dense")
    assert info["method"] == "dense" and not info["filtered"]
    np.testing.assert_allclose(values, scipy.linalg.eigvalsh(A.toarray())[::-1][:20], rtol=0, atol=1e-10)


@pytest.mark.parametrize("which", ["LA", "SA"])
def test_filtered_threshold_mode_against_scipy(which):
    """Every pair beyond 0 of npkl_like() (43 of them) with the filter's level at the threshold:
    the count and the pairs of LAPACK, in a fraction of plain Lanczos's restarts."""
    sign = 1.0 if which == "LA" else -1.0
    A = sign * npkl_like()
    spectrum = scipy.linalg.eigvalsh(A.toarray())
    reference = spectrum[sign * spectrum > 1e-8]
    reference = reference[::-1] if which == "LA" else reference  # the most extreme first
    values, V, info = eigsh(A, threshold=0.0, which=which, filter_level=0.0, method="lanczos", random_state=0)
    assert info["filtered"] and values.size == reference.size == 43
    np.testing.assert_allclose(values, reference, rtol=0, atol=1e-10)
    assert np.linalg.norm(A @ V - V * values, axis=0).max() <= 1.1e-10 * np.abs(spectrum).max()
    plain = eigsh(A, threshold=0.0, which=which, method="lanczos", random_state=0)[2]
    assert info["n_restart"] < plain["n_restart"]


def test_core_threshold_mode_rejects_an_empty_first_guess():
    """The core's threshold mode sizes its window by k: k = 0 once read past the Ritz values
    (a segfault); eigsh never passes it, the core itself must refuse it."""
    from kernlearn import _core

    A = random_sparse_symmetric(80)
    start = np.random.default_rng(0).standard_normal((80, 1))
    with pytest.raises(ValueError, match="k must satisfy 0 < k <= n"):
        _core.linalg.lanczos(
            _core.linalg.csr_operator(A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data),
            options=_core.linalg.LanczosOptions(k=0, threshold=0.0, max_matvec=10_000, seed=1),
            v0=start,
            n_threads=1,
        )


# Magnitudes around the squares' overflow (1e154) and underflow (1e-154) and near the ends of
# the double range: before the scaling, Lanczos certified wrong eigenvalues with residual 0.
MAGNITUDES = [1e-300, 1e-170, 1e-160, 10**154.5, 1e156, 1e200, 1e299]


def scaled_test_matrix(n=80, seed=0):
    """A symmetric B of norm about 10 with a spread spectrum, and its eigenvalues (decreasing)."""
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, n))
    B = (B + B.T) / 2
    return B, np.linalg.eigvalsh(B)[::-1]


@pytest.mark.parametrize("magnitude", MAGNITUDES)
@pytest.mark.parametrize("kind", ["dense", "sparse", "operator"])
def test_badly_scaled_matrices_give_their_eigenpairs(magnitude, kind):
    """Any finite scale: the eigenvalues of magnitude * B are magnitude times B's, to 1e-12
    relative, and the residuals, recomputed here on the scaled-back matrix, are at tol."""
    B, reference = scaled_test_matrix()
    A = B * magnitude
    B_back = A / magnitude  # B up to the rounding of the product
    norm = np.abs(reference).max()
    operand = {"dense": A, "sparse": sp.csr_matrix(A), "operator": aslinearoperator(A)}[kind]
    runs = [
        ({"k": 4, "method": "lanczos"}, reference[:4]),
        ({"k": 4, "which": "SA", "method": "lanczos"}, reference[::-1][:4]),
        ({"k": 4, "method": "dense"}, reference[:4]),
        ({"k": 4, "method": "lanczos", "filter_level": 0.0}, reference[:4]),
        ({"threshold": 8.0 * magnitude, "method": "lanczos"}, reference[reference > 8.0]),
        ({"threshold": 8.0 * magnitude, "method": "dense"}, reference[reference > 8.0]),
    ]
    for kwargs, expected in runs:
        values, vectors, info = eigsh(operand, random_state=0, **kwargs)
        assert info["status"] == "converged", kwargs
        np.testing.assert_allclose(values / magnitude, expected, rtol=0, atol=1e-12 * norm, err_msg=str(kwargs))
        residuals = np.linalg.norm(B_back @ vectors - vectors * (values / magnitude), axis=0)
        assert residuals.max(initial=0.0) <= 1e-10 * norm, kwargs
        np.testing.assert_allclose(info["residuals"] / magnitude, residuals, rtol=0.1, atol=1e-13 * norm)


def test_the_issues_two_by_two_at_1e299():
    A = np.array([[1.0, 2.0], [2.0, 3.0]])
    for scale in (1e299, 1e-170, 3e154):
        values, _, info = eigsh(A * scale, 1, method="lanczos")
        assert info["status"] == "converged"
        np.testing.assert_allclose(values[0] / scale, 2.0 + np.sqrt(5.0), rtol=1e-13)


def test_estimate_count_beyond_at_any_scale():
    from kernlearn.linalg import estimate_count_beyond

    B, reference = scaled_test_matrix(300)
    exact = int(np.sum(reference > 2.0))
    for magnitude in (1.0, 1e-300, 1e299):
        estimate = estimate_count_beyond(sp.csr_matrix(B * magnitude), 2.0 * magnitude, random_state=0)
        assert abs(estimate - exact) <= 0.05 * 300


def test_unmet_tol_is_never_certified():
    """A tol below the rounding level cannot be met: the measured residuals say so, and the
    status is not "converged" (the dense method included)."""
    B, _ = scaled_test_matrix(200)
    for method in ("lanczos", "dense"):
        with pytest.warns(ConvergenceWarning):
            _, _, info = eigsh(B, 5, method=method, tol=1e-19, maxiter=20_000, random_state=0)
        assert info["status"] == "not_converged" and not info["converged"]
        assert info["residuals"].max() > 1e-19 * info["norm_estimate"]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"k": 3, "method": "dense", "n_jobs": 0}, ValueError, "n_jobs"),
        ({"k": 3, "method": "lanczos", "n_jobs": 0}, ValueError, "n_jobs"),
        ({"k": 3, "n_jobs": 2.5}, TypeError, "n_jobs"),
        ({"k": 2**64}, ValueError, "k must be < n"),
        ({"k": 3, "ncv": 2**64}, ValueError, "ncv must satisfy"),
        ({"k": 3, "tol": "small"}, TypeError, "tol must be a real number"),
        ({"k": 3, "tol": np.nan}, ValueError, "tol must be a positive"),
        ({"k": 3, "maxiter": 0}, ValueError, "maxiter must be >= 1"),
        ({"k": 3, "maxiter": 2.0}, TypeError, "maxiter must be an integer"),
        ({"threshold": 0.0, "max_rank": 0}, ValueError, "max_rank must be >= 1"),
        ({"k": 3, "check_symmetric": "yes"}, TypeError, "check_symmetric must be a bool"),
    ],
)
def test_more_bad_arguments(kwargs, error, match):
    A = random_sparse_symmetric(50, density=0.1)
    with pytest.raises(error, match=match):
        eigsh(A, **kwargs)


def test_huge_integers_are_clipped_not_passed_to_the_core():
    """Integers at or above 2^63 (maxiter, max_rank, n_jobs >= 2^31) once reached pybind11 as
    "incompatible function arguments"; they mean "no cap" / "all cores"."""
    A = random_sparse_symmetric(300, density=0.05)
    reference = eigsh(A, 4, method="dense")[0]
    values = eigsh(A, 4, method="lanczos", maxiter=2**64, random_state=0)[0]
    np.testing.assert_allclose(values, reference, rtol=0, atol=1e-8)
    # (Lanczos's threads are capped at the usable cores by resolve_n_threads.)
    np.testing.assert_allclose(eigsh(A, 4, method="dense", n_jobs=2**40)[0], reference, rtol=0, atol=1e-12)
    values = eigsh(A, threshold=reference[1], max_rank=2**64, method="lanczos", random_state=0)[0]
    np.testing.assert_allclose(values, reference[:1], rtol=0, atol=1e-8)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"which": "bogus"}, ValueError, "which must be one of"),
        ({"threshold": np.nan}, ValueError, "threshold must be finite"),
        ({"degree": 0}, ValueError, "degree must be >= 1"),
        ({"degree": 2**64}, ValueError, "degree must be <"),
        ({"n_probes": 0}, ValueError, "n_probes must be >= 1"),
        ({"n_probes": 1.5}, TypeError, "n_probes must be an integer"),
    ],
)
def test_estimate_count_beyond_bad_arguments(kwargs, error, match):
    from kernlearn.linalg import estimate_count_beyond

    arguments = {"threshold": 0.0, **kwargs}
    with pytest.raises(error, match=match):
        estimate_count_beyond(random_sparse_symmetric(50, density=0.1), **arguments)
    with pytest.raises(ValueError, match="A must be square"):
        estimate_count_beyond(np.ones((3, 4)), 0.0)


def test_non_finite_or_empty_matrices_name_a():
    for A in (np.full((3, 3), np.nan), sp.csr_matrix(np.diag([1.0, np.inf, 1.0])), np.zeros((0, 0))):
        with pytest.raises(ValueError, match="A"):
            eigsh(A, 1)


def test_zero_matrix():
    """All eigenvalues are 0: by count they come back, beyond a threshold none does."""
    values, vectors, info = eigsh(np.zeros((300, 300)), 3, method="lanczos", random_state=0)
    np.testing.assert_array_equal(values, 0.0)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(3), atol=1e-12)
    assert info["status"] == "converged"
    for method in ("lanczos", "dense"):
        assert eigsh(sp.csr_matrix((300, 300)), threshold=0.0, method=method)[0].size == 0


def _raw_csr_call(indptr=None, indices=None, data=None, n_threads=1, v0=None, **options):
    from kernlearn import _core

    A = random_sparse_symmetric(40, density=0.2)
    option_values = {"k": 3, "max_matvec": 10_000, "seed": 1, **options}
    return _core.linalg.lanczos(
        _core.linalg.csr_operator(
            A.indptr.astype(np.int64) if indptr is None else np.asarray(indptr, dtype=np.int64),
            A.indices.astype(np.int64) if indices is None else np.asarray(indices, dtype=np.int64),
            A.data if data is None else np.asarray(data, dtype=np.float64),
        ),
        options=_core.linalg.LanczosOptions(**option_values),
        v0=np.ones((40, 1)) if v0 is None else v0,
        n_threads=n_threads,
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: _raw_csr_call(indptr=[0, 5, 3] + [3] * 38), "indptr"),  # decreasing
        (lambda: _raw_csr_call(indptr=[0] + [2**62] * 40), "indptr"),  # overflowing
        (lambda: _raw_csr_call(indptr=[0]), "indptr"),  # 0 x 0
        (lambda: _raw_csr_call(indices=-_raw_indices()), "indices must lie in"),
        (lambda: _raw_csr_call(data=np.ones(3)), "indices and data"),
        (lambda: _raw_csr_call(data=_raw_data(np.nan)), r"A \(its data\) contains NaN"),
        (lambda: _raw_csr_call(k=0), "k must satisfy"),
        (lambda: _raw_csr_call(k=40), "k must satisfy"),
        (lambda: _raw_csr_call(k=41, threshold=0.0), "k must satisfy"),
        (lambda: _raw_csr_call(threshold=np.nan), "threshold must not be NaN"),
        (lambda: _raw_csr_call(ncv=2), "ncv must satisfy"),
        (lambda: _raw_csr_call(ncv=41), "ncv must satisfy"),
        (lambda: _raw_csr_call(max_matvec=0), "max_matvec must be >= 1"),
        (lambda: _raw_csr_call(threshold=0.0, max_rank=0), "max_rank must be >= 1"),
        (lambda: _raw_csr_call(tol=np.nan), r"LanczosOptions\.tol must not be NaN"),
        (lambda: _raw_csr_call(tol=-1.0), "tol must be a positive"),
        (lambda: _raw_csr_call(v0=np.ones((39, 1))), "v0 must have n = 40 rows"),
        (lambda: _raw_csr_call(v0=np.zeros((40, 1))), "v0 must not"),
        (lambda: _raw_csr_call(v0=np.full((40, 1), np.nan)), "v0 contains NaN"),
        (lambda: _raw_csr_call(n_threads=0), "n_threads"),
        (lambda: _raw_csr_call(filter=_raw_filter(level=np.nan)), r"LanczosFilter\.level must not be NaN"),
        (lambda: _raw_csr_call(filter=_raw_filter(degree=10**6)), "filter.degree"),
        (lambda: _raw_csr_call(filter=_raw_filter(degree=-3)), "filter.degree"),
        (lambda: _raw_dense_call(np.ones((3, 4))), "A must be square"),
        (lambda: _raw_dense_call(np.ones((0, 0))), "A is empty"),
        (lambda: _raw_callback_call(0), "n must be >= 1"),
        (lambda: _raw_eigenpairs(np.ones((3, 4))), "M must be square"),
        (lambda: _raw_eigenpairs(np.ones((0, 0))), "M is empty"),
        (lambda: _raw_eigenpairs(np.full((3, 3), np.inf)), "M contains NaN"),
        (lambda: _raw_eigenpairs(np.eye(3), threshold=np.nan), "threshold must be finite"),
        (lambda: _raw_eigenpairs(np.eye(3), tol=np.nan), "tol must be"),
        (lambda: _raw_eigenpairs(np.eye(3), max_count=0), "max_count must be >= 1"),
    ],
)
def test_raw_bindings_reject_malformed_input(call, match):
    """kernlearn._core.linalg is documented (_core/linalg.pyi): malformed arrays and options get a
    ValueError, never an out-of-bounds read or a hang (threshold=nan hung)."""
    with pytest.raises(ValueError, match=match):
        call()


def _raw_indices():
    return random_sparse_symmetric(40, density=0.2).indices.astype(np.int64) + 1


def _raw_data(value):
    data = random_sparse_symmetric(40, density=0.2).data.copy()
    data[0] = value
    return data


def _raw_filter(**kwargs):
    from kernlearn import _core

    return _core.linalg.LanczosFilter(**kwargs)


def _raw_dense_call(A):
    from kernlearn import _core

    options = _core.linalg.LanczosOptions(k=1, max_matvec=100, seed=1)
    return _core.linalg.lanczos(
        _core.linalg.dense_operator(np.ascontiguousarray(A)), options=options, v0=np.ones((A.shape[0], 1))
    )


def _raw_callback_call(n):
    from kernlearn import _core

    options = _core.linalg.LanczosOptions(k=1, max_matvec=100, seed=1)
    return _core.linalg.lanczos(
        _core.linalg.callback_operator(lambda X: X, n, n), options=options, v0=np.ones((max(n, 1), 1))
    )


def _raw_eigenpairs(M, tol=1e-10, **kwargs):
    from kernlearn import _core

    return _core.linalg.dense_eigenpairs(np.ascontiguousarray(M), _core.linalg.LanczosWhich.largest, tol, **kwargs)
