"""
Kernel logistic regression on a kernel that is never formed
===========================================================

The RBF kernel of 20,000 points would take 3.0 GiB as a dense array. With
``kernel_storage="operator"`` (the default "auto" chooses it above 16,000 points) IKLR's Newton
solver multiplies a :class:`kernlearn.kernels.KernelOperator` instead: every product recomputes
the kernel tile by tile in C++ on the thread team, in a few MiB. The fit is the dense one (the
products differ only in the order of their sums; ``tests/test_operators.py`` checks the two to
1e-10), so the choice is memory against time: ``bench/results/kernel_operator.md`` has the figures.

Left: the decision function on the two moons (a sample of the training points drawn). Right: the
norm of the objective's gradient after each Newton step, the certificate the fit stops on
(``gradient_norm_`` reports it relative to its value at a = 0).
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from kernlearn.indefinite import IndefiniteKernelLogisticRegression
from kernlearn.kernels import KernelOperator

n_points = 20_000
# sphinx_gallery_start_ignore
# tests/test_figures.py checks this figure's labels on 2,000 points (hidden from the docs).
import os  # noqa: E402

if os.environ.get("KERNLEARN_EXAMPLES_QUICK"):
    n_points = 2_000
# sphinx_gallery_end_ignore
X, y = make_moons(n_points, noise=0.25, random_state=0)
X_test, y_test = make_moons(2_000, noise=0.25, random_state=1)

start = time.perf_counter()
model = IndefiniteKernelLogisticRegression(kernel_storage="operator", n_jobs=2).fit(X, y)
seconds = time.perf_counter() - start
print(f"fit in {seconds:.1f} s, {model.n_iter_[0]} Newton steps, converged: {model.converged_[0]}")
print(f"test accuracy {model.score(X_test, y_test):.3f}")

# The same operator is public: its products, columns and diagonal for any solver of your own.
K = KernelOperator(X, "rbf", gamma=model.gamma_, n_jobs=2)
print(f"K @ 1 for the first point: {(K @ np.ones(len(X)))[0]:.2f}; K[0, 0] = {K.diagonal()[0]:.1f}")

xx, yy = np.meshgrid(np.linspace(-2.3, 3.2, 140), np.linspace(-1.6, 2.0, 120))
scores = model.decision_function(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
filled = left.contourf(xx, yy, scores, levels=20, cmap="RdBu_r", alpha=0.7)
left.contour(xx, yy, scores, levels=[0.0], colors="k")
shown = np.random.default_rng(0).choice(len(X), min(len(X), 1_000), replace=False)
for label, marker in ((0, "o"), (1, "s")):
    members = shown[y[shown] == label]
    left.scatter(
        X[members, 0], X[members, 1], s=8, marker=marker, edgecolors="k", linewidths=0.3, label=f"class {label}"
    )
left.set_xlabel("$x_1$")
left.set_ylabel("$x_2$")
left.legend(loc="lower left")
fig.colorbar(filled, ax=left, label="decision function")
left.set_title(f"Two moons, n = {len(X):,}: IKLR on a KernelOperator\ntest accuracy {model.score(X_test, y_test):.3f}")

steps = model.history_[0]
right.semilogy(
    np.arange(len(steps["gradient_norm"])), steps["gradient_norm"], marker="o", label="on the KernelOperator"
)
right.set_xlabel("Newton step")
right.set_ylabel("gradient norm of the objective")
right.set_title(f"Two moons: IKLR Newton-CG on the KernelOperator\n{model.n_iter_[0]} steps, {seconds:.1f} s")
right.legend()
fig.tight_layout()
plt.show()
