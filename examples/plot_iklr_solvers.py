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
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
filled = left.contourf(xx, yy, scores, levels=20, cmap="RdBu_r", alpha=0.7)
left.contour(xx, yy, scores, levels=[0.0], colors="k")
for label, marker in ((0, "o"), (1, "s")):
    left.scatter(
        X[y == label, 0], X[y == label, 1], s=10, marker=marker, edgecolors="k", linewidths=0.3, label=f"class {label}"
    )
fig.colorbar(filled, ax=left, label="decision function")
left.legend(loc="lower left")
left.set_xlabel("$x_1$")
left.set_ylabel("$x_2$")
left.set_title(f"Two moons (n = {len(X)}): IKLR, Newton (default)\ntraining accuracy {newton.score(X, y):.3f}")
for model, label in ((newton, "Newton"), (paper, "CCICP-GD, the paper's schedule")):
    right.plot(model.history_[0]["objective"], marker="o", label=label)
right.set_xlabel("(outer) iteration")
right.set_ylabel("objective")
right.set_yscale("log")
right.set_title("Two moons: IKLR objective per iteration, two solvers")
right.legend()
fig.tight_layout()
plt.show()
