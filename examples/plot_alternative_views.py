"""
Several alternative clusterings in turn
=======================================

Three independent two-group structures hide in six features (one per pair of features). Given
the first, KDAC finds the other two in sequence (``n_views=2``): each new view is unlike the
given clustering and every view found before it. Each panel colours the points by one view, in
the feature pair that carries the structure it should find; the title gives the normalised mutual
information (NMI) of the view with that structure (1: found exactly).
"""

import matplotlib.pyplot as plt
import numpy as np

from kernlearn.cluster import KDAC
from kernlearn.evaluation import nmi
from kernlearn.plot import plot_embedding

rng = np.random.default_rng(0)
n = 300
truth = rng.integers(0, 2, size=(3, n))
X = np.hstack([np.c_[4.0 * t, np.zeros(n)] + rng.normal(scale=0.6, size=(n, 2)) for t in truth])
model = KDAC(2, n_views=2, random_state=0).fit(X, truth[0])

fig, axes = plt.subplots(1, 3, figsize=(12, 4.2))
shown = [("given clustering", truth[0], 0)] + [
    (f"KDAC view {v + 1}: NMI {nmi(truth[v + 1], labels):.2f} with the truth", labels, v + 1)
    for v, labels in enumerate(model.labels_views_)
]
for ax, (title, labels, block) in zip(axes, shown):
    plot_embedding(
        X[:, 2 * block : 2 * block + 2],
        labels,
        ax=ax,
        title=title,
        axis_labels=(f"feature {2 * block}", f"feature {2 * block + 1}"),
        label_name="cluster",
    )
fig.suptitle(f"Three hidden two-group structures ({n} points, 6 features): KDAC with n_views=2")
fig.tight_layout()
plt.show()
