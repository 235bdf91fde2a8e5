"""The LRML baseline of bench/reproduce_s3ml.py (closed form) against cvxpy's solution of LRML's
convex program, min tr(A X'LX) + gamma (mean must-link - mean cannot-link squared distances)
subject to log det A >= 0, with the program's matrix built here independently."""

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
from sklearn.datasets import load_iris
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler

from kernlearn.constraints import from_labels

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))


def lrml_matrix(Xs, pairs, labels, f, k=6):
    """C = X'LX (0/1 symmetrised kNN graph) + f gamma_max (mean ML - mean CL outer products)."""
    n = Xs.shape[0]
    _, idx = NearestNeighbors(n_neighbors=k + 1).fit(Xs).kneighbors(Xs)
    W = np.zeros((n, n))
    for i in range(n):
        W[i, [j for j in idx[i] if j != i][:k]] = 1.0
    W = np.maximum(W, W.T)
    T_knn = Xs.T @ (np.diag(W.sum(1)) - W) @ Xs
    d = Xs[pairs[:, 0]] - Xs[pairs[:, 1]]
    T_c = d[labels > 0].T @ d[labels > 0] / (labels > 0).sum() - d[labels < 0].T @ d[labels < 0] / (labels < 0).sum()
    gamma_max = 1.0 / scipy.linalg.eigh(-T_c, T_knn, eigvals_only=True)[-1]
    return T_knn + f * gamma_max * T_c


def test_lrml_closed_form_matches_cvxpy():
    cp = pytest.importorskip("cvxpy")
    from reproduce_s3ml import lrml_metrics

    X, y = load_iris(return_X_y=True)
    Xs = StandardScaler().fit_transform(X)
    chosen = [0, 1, 2, 50, 51, 52, 100, 101, 102]
    ys = np.full_like(y, -1)
    ys[chosen] = y[chosen]
    pairs, labels = from_labels(ys)
    maps = lrml_metrics(Xs, pairs, labels)
    for f in (0.5, 0.9):
        C = lrml_matrix(Xs, pairs, labels, f)
        A = cp.Variable((4, 4), PSD=True)
        problem = cp.Problem(cp.Minimize(cp.trace(C @ A)), [cp.log_det(A) >= 0])
        problem.solve(solver=cp.CLARABEL)
        ours = maps[f] @ maps[f].T  # the bench's transform L, A = L L'
        ours /= np.linalg.det(ours) ** (1 / 4)  # the scale 1-NN ignores, fixed by log det A = 0
        np.testing.assert_allclose(ours, A.value, rtol=1e-4, atol=1e-4 * np.abs(ours).max())
