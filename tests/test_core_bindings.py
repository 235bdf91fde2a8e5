"""The raw ``_core`` bindings of the methods and kernels layers fail safely on malformed input:
a ValueError naming the argument, never a crash, an out-of-bounds read, a hang or silent NaN.
(Issue 27, defects 3, 7 and 8; the estimators' own validation is tested elsewhere.)"""

import numpy as np
import pytest

from kernlearn import _core

M = _core.methods
K = _core.kernels


def csr(n, indptr, indices, data):
    return M.Csr(
        n, np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int64), np.asarray(data, dtype=np.float64)
    )


def path_laplacian(n):
    """The Laplacian of the path 0 - 1 - ... - n-1, as a Csr."""
    indptr, indices, data = [0], [], []
    for i in range(n):
        row = [(j, -1.0) for j in (i - 1, i + 1) if 0 <= j < n]
        row.append((i, float(len(row))))
        for j, v in sorted(row):
            indices.append(j)
            data.append(v)
        indptr.append(len(indices))
    return csr(n, indptr, indices, data)


def npkl(laplacian=None, pairs=None, labels=None, **options):
    laplacian = path_laplacian(6) if laplacian is None else laplacian
    pairs = np.array([[0, 5], [1, 2]], dtype=np.int64) if pairs is None else pairs
    labels = np.array([-1.0, 1.0]) if labels is None else labels
    spectral = M.SpectralOptions(eigen_solver=M.SpectralSolver.dense, **options.pop("spectral", {}))
    return M.simple_npkl(laplacian, pairs, labels, M.NpklOptions(spectral=spectral, **options))


def sice(S=None, R=None, **options):
    S = np.eye(3) + 0.1 if S is None else S
    R = np.full((3, 3), 0.1) if R is None else R
    return M.sice(np.ascontiguousarray(S), np.ascontiguousarray(R), M.SiceOptions(**options))


def test_valid_calls_still_work():
    out = npkl()
    assert np.isfinite(out.eigenvalues).all()
    assert sice().status == _core.core.SolverStatus.converged


@pytest.mark.parametrize(
    ("call", "match"),
    [
        # defect 8: a negative n read indptr[-1]; a 0 x 0 sice indexed an empty block list
        (lambda: csr(-1, [], [], []), "n must be >= 0"),
        (lambda: csr(2, [0, 2, 1], [0, 1], [1.0, 1.0]), "indptr"),
        (lambda: csr(2, [0, 1, 5], [0, 1], [1.0, 1.0]), "indptr"),
        (lambda: csr(2, [0, 1, 2], [0, -1], [1.0, 1.0]), "indices"),
        (lambda: sice(np.zeros((0, 0)), np.zeros((0, 0))), "at least 1 x 1"),
        (lambda: sice(np.ones((3, 2)), np.ones((3, 2))), "square"),
        (lambda: sice(np.eye(3), np.ones((2, 2))), "same size"),
        (lambda: sice(np.full((3, 3), np.nan)), "S must be finite"),
        (lambda: sice(R=-np.ones((3, 3))), "R must be finite and >= 0"),
        (lambda: sice(tol=float("nan")), "tol"),
        (lambda: sice(tol=-1.0), "tol"),
        (lambda: sice(max_iter=-1), "max_iter"),
        (lambda: sice(max_cg=0), "max_cg"),
        (lambda: sice(mu=float("nan")), "mu"),
        (lambda: sice(mu_period=0), "mu_period"),
        (lambda: npkl(pairs=np.array([[0, 9], [1, 2]], dtype=np.int64)), "out of range"),
        (lambda: npkl(pairs=np.array([[0, -1], [1, 2]], dtype=np.int64)), "out of range"),
        (lambda: npkl(pairs=np.array([[0, 1, 2], [1, 2, 3]], dtype=np.int64)), "2 columns"),
        (lambda: npkl(labels=np.array([1.0])), "labels must have one value per row of pairs"),
        (lambda: npkl(labels=np.array([1.0, np.nan])), "pair_labels"),
        (lambda: npkl(spectral={"tol": float("nan")}), "tol"),
        (lambda: npkl(spectral={"max_iter": -1}), "max_iter"),
        (lambda: npkl(spectral={"p": 0.5}), "p must be"),
        (lambda: npkl(spectral={"B": -1.0}), "B must be"),
        (lambda: npkl(spectral={"rank": 0}), "rank"),
        (lambda: npkl(spectral={"eig_tol": float("nan")}), "eig_tol"),
        (lambda: npkl(spectral={"step": 0.0}), "step"),
        # defect 7: rho = 2 / C overflowed to inf (a RuntimeError or NaN downstream)
        (lambda: npkl(C=5e-324), r"C must lie in \[1e-300, 1e300\]"),
        (lambda: npkl(C=float("nan")), r"NpklOptions\.C must not be NaN"),
        (lambda: npkl(C=float("inf")), "C must lie"),
        # n_threads goes through the core's one thread-count rule
        (lambda: npkl_threads(0), "n_threads must be >= 1"),
        (lambda: npkl_threads(-5), "n_threads must be >= 1"),
    ],
)
def test_methods_bindings_reject_malformed_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def npkl_threads(n_threads):
    return M.simple_npkl(
        path_laplacian(4), np.array([[0, 3]], dtype=np.int64), np.array([-1.0]), M.NpklOptions(), n_threads=n_threads
    )


X = np.random.default_rng(0).standard_normal((12, 3))
Y = np.eye(12)[:, :2].copy()


def kdac(**options):
    return M.kdac(X, Y, options=M.KdacOptions(**{"n_clusters": 2, "q": 1, **options}))


def ism(X_=X, W0=None, A=None, c=None, **options):
    W0 = np.linalg.qr(np.ones((3, 1)))[0] if W0 is None else W0
    A = Y if A is None else A
    c = np.ones(A.shape[1]) if c is None else c
    return M.ism(X_, np.ascontiguousarray(W0), np.ascontiguousarray(A), c, options=M.IsmOptions(**options))


def ccicp(K_=None, y=None, **options):
    n = 5
    K_ = np.eye(n) if K_ is None else K_
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0]) if y is None else y
    return M.ccicp(
        K_,
        y,
        np.zeros((n, 0)),
        np.zeros(0),
        np.zeros(n),
        shift=0.0,
        options=M.IklrOptions(**{"max_outer": 2, "max_inner": 3, **options}),
        sgd_indices=np.zeros(0, dtype=np.int64),
    )


@pytest.mark.parametrize(
    ("call", "match"),
    [
        # defect 7: sigma^2 underflowed to 0, the kernel turned NaN and an eigensolver failed
        (lambda: kdac(sigma=1e-300), r"sigma must lie in \[1e-150, 1e150\]"),
        (lambda: kdac(sigma=1e300), "sigma must lie"),
        (lambda: kdac(sigma=float("nan")), r"KdacOptions\.sigma must not be NaN"),
        (lambda: ism(sigma=1e-300), "sigma must lie"),
        (lambda: K.gaussian_degree(X, sigma=1e-300), "sigma must lie"),
        (lambda: kdac(lambda_=float("nan")), "lambda_"),
        (lambda: kdac(tol=-1.0), "tol"),
        (lambda: kdac(max_iter=-1), "max_iter"),
        (lambda: kdac(eig_tol=2.0), "eig_tol"),
        (lambda: kdac(n_clusters=0), "n_clusters"),
        (lambda: M.kdac(X, Y[:5], options=M.KdacOptions()), "Y must be n x k_y"),
        (lambda: ism(W0=np.ones((2, 1))), "W0 must be d x q"),
        (lambda: ism(A=np.ones((5, 2))), "A must be n x m"),
        (lambda: ism(c=np.ones(5)), "c of length m"),
        (lambda: ism(max_iter=-1), "max_iter"),
        (lambda: ccicp(K_=np.ones((5, 4))), "square"),
        (lambda: ccicp(y=np.ones(3)), "n entries"),
        (lambda: ccicp(y=np.array([1.0, np.nan, 1.0, 1.0, 1.0])), "finite"),
        (lambda: ccicp(lambda_=0.0), "lambda_"),
        (lambda: ccicp(eps=float("nan")), "eps"),
        (lambda: ccicp(max_outer=-1), "max_outer"),
        (lambda: ccicp(learning_rate=float("inf")), "learning_rate"),
        (lambda: ccicp(decay=0.0), "decay"),
        (lambda: ccicp(inner=M.IklrInner.sgd, max_outer=2**40, max_inner=2**40), "sgd_indices needs max_outer"),
        (
            lambda: M.most_violated_triplets(X, path_laplacian(12), margin=float("nan"), per_point=1),
            "margin",
        ),
        (lambda: M.most_violated_triplets(X, path_laplacian(12), margin=0.0, per_point=0), "per_point"),
        (lambda: M.most_violated_triplets(X, path_laplacian(5), margin=0.0, per_point=1), "one row per"),
    ],
)
def test_kdac_iklr_spe_bindings_reject_malformed_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def rbf(gamma=1.0):
    return K.PairwiseKernel(kind=K.PairwiseKind.rbf, gamma=gamma)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: K.pairwise_kernel(X, X[:, :2].copy(), kernel=rbf()), "same number of features"),
        (lambda: K.pairwise_kernel(X, X, kernel=rbf(float("nan"))), "gamma"),
        (lambda: K.pairwise_kernel(X, X, kernel=rbf(-1.0)), "gamma"),
        (lambda: K.pairwise_kernel(np.full((2, 3), np.nan), X, kernel=rbf()), "finite"),
        (lambda: K.pairwise_kernel(X, X, kernel=rbf(), n_threads=0), "n_threads must be >= 1"),
        (lambda: K.kernel_matvec(np.eye(3), np.ones(4)), "one entry per row"),
        (lambda: K.kernel_matvec(np.ones((3, 4)), np.ones(3)), "square"),
        (lambda: K.kernel_matvec(np.eye(3), np.ones(3), n_threads=-1), "n_threads must be >= 1"),
        (lambda: K.affine_invariant_kernel(np.ones((2, 3, 3)), np.ones((2, 2, 2)), gamma=1.0, same=False), "d x d"),
        (
            lambda: K.affine_invariant_kernel(np.ones((2, 3, 3)), np.ones((3, 3, 3)), gamma=1.0, same=True),
            "same=True",
        ),
        (
            lambda: K.affine_invariant_kernel(np.ones((2, 3, 3)), np.ones((2, 3, 3)), gamma=np.nan, same=False),
            "gamma",
        ),
        (
            lambda: K.affine_invariant_kernel(np.full((1, 3, 3), np.nan), np.ones((1, 3, 3)), gamma=1.0, same=False),
            "W must be finite",
        ),
        (lambda: K.hsic_phi(X, np.ones((2, 1)), Y, np.ones(2), sigma=1.0), "W must have one row"),
        (lambda: K.hsic_phi(X, np.ones((3, 1)), Y[:4], np.ones(2), sigma=1.0), "A must be n x m"),
        (lambda: K.hsic_phi(X, np.ones((3, 1)), Y, np.ones(2), sigma=0.0), "sigma"),
    ],
)
def test_kernels_bindings_reject_malformed_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_huge_n_threads_is_capped_in_the_core():
    """Defect 3 at the raw binding: the core caps the thread count at the usable cores, so a
    huge n_threads neither starts 10^6 threads nor changes the answer."""
    Kmat = np.random.default_rng(1).standard_normal((300, 300))
    x = np.ones(300)
    assert np.allclose(K.kernel_matvec(Kmat, x, n_threads=10**6), Kmat @ x)
    assert np.allclose(
        K.pairwise_kernel(X, X, kernel=rbf(), n_threads=2**31 - 1), K.pairwise_kernel(X, X, kernel=rbf())
    )
