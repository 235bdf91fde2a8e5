"""
One kernel from three indefinite similarities
=============================================

ESKL learns one positive semidefinite kernel from three similarity measures over the sonar
returns (truncated L1, a tanh similarity, negative distances), two of them indefinite, together
with an SVM on the labelled half. The panels show the three similarities and the learned kernel,
points sorted by class, and the fit reports how far the kernel moved from its start.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial.distance import cdist
from sklearn.preprocessing import StandardScaler

from kernlearn.datasets import load_sonar
from kernlearn.similarity import ESKL

X, y = load_sonar(return_X_y=True)
X = StandardScaler().fit_transform(X)
n, d = X.shape
D = cdist(X, X)
median = np.median(D[np.triu_indices(n, 1)])
similarities = [np.maximum(median - D, 0.0), np.tanh(X @ X.T / d - 0.5), -D]
similarities = [S * n / np.maximum(np.linalg.eigvalsh(S), 0).sum() for S in similarities]
S = np.stack(similarities, axis=-1)  # (n, n, m): the similarity index last

rng = np.random.default_rng(0)
y_semi = np.where(rng.random(n) < 0.5, y, -1)  # -1: unlabelled
model = ESKL(random_state=0).fit(S, y_semi)

order = np.argsort(y, kind="stable")
K = (model.eigenvectors_[0] * model.eigenvalues_[0]) @ model.eigenvectors_[0].T
fig, axes = plt.subplots(1, 4, figsize=(14, 3.6))
for ax, M, title in zip(axes, [*similarities, K], ["TL1", "tanh", "-distance", "learned kernel"]):
    ax.imshow(M[np.ix_(order, order)], cmap="viridis")
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle(
    f"ESKL: {model.stop_reason_} after {model.n_iter_} iterations, moved {model.start_change_[0]:.2f} from its start"
)
fig.tight_layout()
plt.show()
