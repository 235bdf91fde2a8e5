"""
Three embeddings of the wine data on one solver
===============================================

The embeddings of the SimpleNPKL paper's Section 6 run on its saddle-point solver: colored MVU
unfolds the kNN graph while aligning the embedding with the class labels, minimum volume
embedding (MVE) concentrates the kernel's spectrum in the first two dimensions, and structure
preserving embedding (SPE) keeps every point's kNN set nearer than its other points. Each panel
shows a method's 2-D embedding of the 178 standardised wine samples (coloured by cultivar; only
colored MVU reads the labels) and its certificate: the final relative duality gap, or SPE's largest
violated kNN constraint.
"""

import matplotlib.pyplot as plt
from sklearn.preprocessing import StandardScaler

from kernlearn.datasets import load_wine
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.plot import plot_embedding

X, y = load_wine(return_X_y=True)
X = StandardScaler().fit_transform(X)
models = {
    "colored MVU": ColoredMVU(n_components=2, n_neighbors=5, random_state=0).fit(X, y),
    "minimum volume embedding": MinimumVolumeEmbedding(n_components=2, n_neighbors=5, random_state=0).fit(X),
    "structure preserving embedding": StructurePreservingEmbedding(n_components=2, n_neighbors=5, random_state=0).fit(
        X
    ),
}

fig, axes = plt.subplots(1, 3, figsize=(13, 4.6))
for ax, (name, model) in zip(axes, models.items()):
    if hasattr(model, "max_violation_"):
        certificate = f"largest violation {model.max_violation_:.1e}"
    else:  # the last saddle-point solve's relative duality gap
        certificate = f"duality gap {model.history_['gap'][-1]:.1e}"
    status = "converged" if model.converged_ else "not converged"
    plot_embedding(
        model.embedding_,
        y,
        ax=ax,
        title=f"{name}: {status}\n{model.n_iter_} iterations, {certificate}",
        axis_labels=("embedding dimension 1", "embedding dimension 2"),
        label_name="cultivar",
    )
    ax.title.set_fontsize(10)
fig.suptitle(f"wine ({len(y)} samples, standardised, 5-NN graph): three 2-D embeddings on SimpleNPKL's solver")
fig.tight_layout()
plt.show()
