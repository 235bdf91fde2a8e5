"""Subspaces as the core's kdac.cpp represents and compares them: eigenvector signs, the
projection distance, the leading eigenvectors of a combination of projectors."""

import numpy as np

__all__ = ["fix_signs", "leading_subspace", "projection_distance"]


def fix_signs(V):
    """Each column's entry of largest magnitude made positive (the first on ties), as the core."""
    V = np.array(V, dtype=np.float64)
    rows = np.argmax(np.abs(V), axis=0)
    V[:, V[rows, np.arange(V.shape[1])] < 0] *= -1.0
    return V


def projection_distance(W1, W2):
    """|W2 - W1 (W1' W2)|_F: sqrt(q - |W1'W2|_F^2) without its cancellation (as the core)."""
    return float(np.linalg.norm(W2 - W1 @ (W1.T @ W2)))


def leading_subspace(P, q):
    """The q eigenvectors of the symmetric matrix P with the largest eigenvalues, in ascending
    order of eigenvalue (the core's ``leading_subspace``: the last q columns of its ascending
    eigensolver), signs fixed; None if the eigensolver fails."""
    try:
        vectors = np.linalg.eigh(P)[1]
    except np.linalg.LinAlgError:
        return None
    return fix_signs(vectors[:, vectors.shape[1] - q :])
