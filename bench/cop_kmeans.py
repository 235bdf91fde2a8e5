"""COP-k-means (Wagstaff, Cardie, Rogers & Schroedl, ICML 2001): k-means whose assignment step
never breaks a must-link or cannot-link pair. The constrained-clustering baseline of the
evaluation suite (bench/suite.py), standing in for the paper's ck-means.

Must-linked points are merged first (connected components of the must-link graph), so every
component moves as one weighted unit and no must-link can break; each unit then takes the
nearest centre that no cannot-linked unit already holds, in a random order per start. When a
unit finds every centre blocked (COP-k-means's failure case, possible only with more than k
mutually cannot-linked units) it takes the nearest centre anyway and the start counts one
violation; the start with the fewest violations, then the lowest inertia, wins.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.utils import check_random_state


def cop_kmeans(X, n_clusters, pairs, pair_labels, *, n_init=10, max_iter=100, random_state=None):
    """Labels (n,) of COP-k-means on rows X under the pairs (+1 must-link, -1 cannot-link)."""
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    rng = check_random_state(random_state)
    pairs, pair_labels = np.asarray(pairs), np.asarray(pair_labels)
    must = pairs[pair_labels > 0]
    graph = sp.coo_matrix((np.ones(len(must)), (must[:, 0], must[:, 1])), shape=(n, n))
    _, unit = connected_components(graph, directed=False)
    n_units = unit.max() + 1
    weight = np.bincount(unit, minlength=n_units).astype(np.float64)
    means = np.zeros((n_units, X.shape[1]))
    np.add.at(means, unit, X)
    means /= weight[:, None]
    cannot = unit[pairs[pair_labels < 0]]
    cannot = cannot[cannot[:, 0] != cannot[:, 1]]
    blocked = [set() for _ in range(n_units)]
    for a, b in cannot:
        blocked[a].add(b)
        blocked[b].add(a)
    best = None
    for _ in range(n_init):
        # k-means++ style seeding on the units, weighted by their sizes.
        centres = [means[rng.choice(n_units, p=weight / weight.sum())]]
        for _ in range(1, n_clusters):
            d = np.min([((means - c) ** 2).sum(axis=1) for c in centres], axis=0) * weight
            centres.append(means[rng.choice(n_units, p=d / d.sum()) if d.sum() > 0 else rng.randint(n_units)])
        centres = np.array(centres)
        assign = np.full(n_units, -1)
        for _ in range(max_iter):
            previous = assign.copy()
            assign[:] = -1
            violations = 0
            distance = ((means[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
            for u in rng.permutation(n_units):
                taken = {assign[v] for v in blocked[u] if assign[v] >= 0}
                order = np.argsort(distance[u])
                free = [c for c in order if c not in taken]
                assign[u] = free[0] if free else order[0]
                violations += not free
            for c in range(n_clusters):
                members = assign == c
                if members.any():
                    centres[c] = (means[members] * weight[members, None]).sum(axis=0) / weight[members].sum()
            if np.array_equal(assign, previous):
                break
        inertia = float((((means - centres[assign]) ** 2).sum(axis=1) * weight).sum())
        if best is None or (violations, inertia) < best[0]:
            best = ((violations, inertia), assign.copy())
    return best[1][unit]
