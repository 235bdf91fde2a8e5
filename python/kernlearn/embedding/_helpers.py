"""Helpers of the embeddings: the default bound's geodesic trace, the connectivity checks and the
hint for solves that stall where the bound is inactive."""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, dijkstra

from .._utils._validation import check_square_sparse

__all__ = ["check_connectivity", "geodesic_trace", "inactive_bound_hint", "warn_if_disconnected"]


def inactive_bound_hint(ranks):
    """Why unconverged solves crawl, when their rank histories show it: an iterate with A_+ = 0
    (K = 0) means the optimum has A's top eigenvalue at 0, i.e. |K|_F^2 < B: the trace bound is
    inactive, J = -sqrt(B) |A_+|_F + ... is not differentiable there and the dual steps stall."""
    if not any(np.any(np.asarray(rank)[1:] == 0) for rank in ranks):
        return ""
    return (
        "; iterates reached A_+ = 0: the optimum leaves the bound B inactive (|K|_F^2 < B), where the dual "
        "is not differentiable and converges slowly. A smaller B, which the solution reaches, is solved "
        "quickly"
    )


def geodesic_trace(W, seed, n_sources=32):
    """(n/2) x the mean squared shortest-path distance on the kNN graph W (edge lengths: the
    input distances), from Dijkstra runs out of a few random sources.

    For a centred K, tr K = (1/2n) sum_ij d_ij, so any K whose embedded distances stay below the
    geodesic ones has tr K <= this value, and |K|_F <= tr K: its square is the default bound B.
    Pairs in different components (no geodesic) count with the largest finite distance."""
    n = W.shape[0]
    sources = np.random.default_rng(seed).choice(n, size=min(n_sources, n), replace=False)
    g = dijkstra(W, directed=False, indices=sources)
    finite = np.isfinite(g)
    g[~finite] = g[finite].max()
    return float(n * np.mean(g**2) / 2.0)


def check_connectivity(W):
    """A symmetric 0/1 connectivity matrix as CSR with a zero diagonal."""
    W = check_square_sparse(W, "X (connectivity)")
    values = np.unique(W.data)
    if not np.all(np.isin(values, (0.0, 1.0))):
        raise ValueError(f"the connectivity matrix must be binary (0/1), got values such as {values[:5]}")
    if abs(W - W.T).sum() != 0:
        raise ValueError("the connectivity matrix must be symmetric")
    W = (W - sp.diags(W.diagonal())).tocsr()  # not setdiag(0): scipy < 1.13 warns when it adds entries
    W.eliminate_zeros()
    if W.nnz == 0:
        raise ValueError("X (connectivity) has no edges")
    return W


def warn_if_disconnected(pairs, n, n_neighbors, owner):
    """Warn when the kNN pairs leave the graph in several pieces. MVE constrains only the kNN
    distances, so the relative placement of two pieces is free and the embedding places them
    arbitrarily (scikit-learn's Isomap and SpectralEmbedding warn
    likewise). Seen on the held-back mpg set, whose repeated discrete rows give 5 pieces at
    n_neighbors=5 and a 1-NN accuracy 18 points below PCA's (bench/results/suite_heldback.md)."""
    graph = sp.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    n_pieces = connected_components(graph, directed=False)[0]
    if n_pieces > 1:
        warnings.warn(
            f"{owner}: the kNN graph (n_neighbors={n_neighbors}) has {n_pieces} connected components; only "
            "distances within a component are kept, so the components are placed arbitrarily relative to "
            "each other. A larger n_neighbors connects them",
            UserWarning,
            stacklevel=4,  # here, _setup, fit: the user's call to fit
        )
