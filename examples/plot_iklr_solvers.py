"""
Kernel logistic regression: Newton against the paper's schedule
================================================================

On the two moons, the default Newton solver reaches the optimum of kernel logistic regression
in a handful of steps; the paper's concave-inexact-convex procedure with its fixed step schedule
is shown beside it on the same kernel. Left: the decision function of the default model. Right:
the objective per (outer) iteration of each solver.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from kernlearn.indefinite import IndefiniteKernelLogisticRegression

X, y = make_moons(300, noise=0.2, random_state=0)
newton = IndefiniteKernelLogisticRegression().fit(X, y)
paper = IndefiniteKernelLogisticRegression(solver="ccicp-gd", penalty="krein").fit(X, y)

xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 200), np.linspace(-1.0, 1.5, 200))
scores = newton.decision_function(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
left.contourf(xx, yy, scores, levels=20, cmap="RdBu_r", alpha=0.7)
left.contour(xx, yy, scores, levels=[0.0], colors="k")
left.scatter(X[:, 0], X[:, 1], c=y, s=10, cmap="RdBu_r", edgecolors="k", linewidths=0.3)
left.set_title(f"Newton (default): training accuracy {newton.score(X, y):.3f}")
for model, label in ((newton, "Newton"), (paper, "CCICP-GD, the paper's schedule")):
    right.plot(model.history_[0]["objective"], marker="o", label=label)
right.set_xlabel("iteration")
right.set_ylabel("objective")
right.set_yscale("log")
right.legend()
fig.tight_layout()
plt.show()
