"""
Several alternative clusterings in turn
=======================================

Three independent two-group structures hide in six features (one per pair of features). Given
the first, KDAC finds the other two in sequence (``n_views=2``): each new view is unlike the
given clustering and every view found before it. Each panel colours the points by one view, in
the feature pair that carries it.
"""

import matplotlib.pyplot as plt
import numpy as np

from kernlearn.cluster import KDAC

rng = np.random.default_rng(0)
n = 300
truth = rng.integers(0, 2, size=(3, n))
X = np.hstack([np.c_[4.0 * t, np.zeros(n)] + rng.normal(scale=0.6, size=(n, 2)) for t in truth])
model = KDAC(2, n_views=2, random_state=0).fit(X, truth[0])

fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
shown = [("given clustering", truth[0], 0)] + [
    (f"view {v + 1} found", labels, v + 1) for v, labels in enumerate(model.labels_views_)
]
for ax, (title, labels, block) in zip(axes, shown):
    ax.scatter(X[:, 2 * block], X[:, 2 * block + 1], c=labels, s=10, cmap="coolwarm")
    ax.set_title(f"{title} (features {2 * block}, {2 * block + 1})")
fig.tight_layout()
plt.show()
