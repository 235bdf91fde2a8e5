"""
A kernel learned from pairwise constraints
==========================================

SimpleNPKL learns a kernel on all 150 iris flowers from must-link / cannot-link pairs among a
third of them. The heat map shows the learned kernel with the points sorted by species: three
blocks, although two of the species overlap in the raw features. The right panel is the
solver's certificate: the primal and dual objectives meet, and the duality gap falls below the
tolerance.
"""

import matplotlib.pyplot as plt
import numpy as np

from kernlearn.constraints import from_labels
from kernlearn.datasets import load_iris
from kernlearn.npkl import SimpleNPKL
from kernlearn.plot import plot_convergence

X, y = load_iris(return_X_y=True)
rng = np.random.default_rng(0)
y_partial = np.where(rng.random(y.size) < 1 / 3, y, -1)  # -1: the point is in no pair
pairs, pair_labels = from_labels(y_partial)
model = SimpleNPKL().fit(X, pairs=pairs, pair_labels=pair_labels)

order = np.argsort(y, kind="stable")
F = model.embedding_[order]
fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.8))
image = left.imshow(F @ F.T, cmap="viridis")
fig.colorbar(image, ax=left, fraction=0.046, label="learned kernel entry K_ij")
# Lines between the species, and the species' names at the middle of their blocks.
bounds = np.flatnonzero(np.diff(y[order])) + 0.5
for b in bounds:
    left.axhline(b, color="w", lw=0.8)
    left.axvline(b, color="w", lw=0.8)
middles = (np.r_[-0.5, bounds] + np.r_[bounds, y.size - 0.5]) / 2
left.set_xticks(middles, labels=load_iris().target_names)
left.set_yticks(middles, labels=load_iris().target_names, rotation=90, va="center")
left.set_xlabel("flower j (sorted by species)")
left.set_ylabel("flower i (sorted by species)")
left.set_title(f"iris: SimpleNPKL kernel from {len(pairs)} pairs")
status = "gap below tol" if model.converged_ else "not converged"
plot_convergence(model.history_, ax=right, title=f"iris: SimpleNPKL convergence, {model.n_iter_} iterations ({status})")
fig.tight_layout()
plt.show()
