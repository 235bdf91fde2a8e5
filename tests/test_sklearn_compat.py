"""scikit-learn's estimator checks over every estimator (fit/clone/pickle conventions, input
validation messages, n_features_in_, no mutation of inputs)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kernlearn.cluster import KernelKMeans
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.npkl import SimpleNPKL

ESTIMATORS = [
    SimpleNPKL(n_neighbors=3, random_state=0),
    KernelKMeans(2, random_state=0),
    MinimumVolumeEmbedding(n_components=1, n_neighbors=3, outer_tol=1e-2, max_iter=5000, random_state=0),
    StructurePreservingEmbedding(n_components=1, n_neighbors=3, max_rounds=3, random_state=0),
    ColoredMVU(n_components=1, n_neighbors=3, random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
