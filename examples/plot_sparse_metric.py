"""
A sparse metric from a few labels
=================================

S3ML learns a sparse Mahalanobis metric on the wine data from the labels of 20 % of the points
(all pairs among them, propagated over the kNN graph of all points). The heat map shows the
metric: white entries are exact zeros. The 1-NN error on the unlabelled points is printed for
the learned metric and for standardised Euclidean distance.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from kernlearn.datasets import load_wine
from kernlearn.metric import S3ML
from kernlearn.plot import plot_metric

data = load_wine()
X, y = data.data, data.target
rng = np.random.default_rng(0)
labelled = rng.random(y.size) < 0.2
y_semi = np.where(labelled, y, -1)
model = S3ML(random_state=0).fit(X, y_semi)


def error(Z):
    clf = KNeighborsClassifier(1).fit(Z[labelled], y[labelled])
    return np.mean(clf.predict(Z[~labelled]) != y[~labelled])


print(f"1-NN error, S3ML: {error(model.transform(X)):.3f}")
print(f"1-NN error, standardised Euclidean: {error(StandardScaler().fit_transform(X)):.3f}")
fig, ax = plt.subplots(figsize=(6.5, 5.5))
plot_metric(model.metric_, data.feature_names, ax=ax, title="wine, 20 % labelled: S3ML metric")
fig.tight_layout()
plt.show()
