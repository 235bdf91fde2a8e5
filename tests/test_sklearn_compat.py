"""scikit-learn's estimator checks over every estimator (fit/clone/pickle conventions, input
validation messages, n_features_in_, no mutation of inputs)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kernlearn.cluster import KernelKMeans
from kernlearn.npkl import SimpleNPKL


@parametrize_with_checks([SimpleNPKL(n_neighbors=3, random_state=0), KernelKMeans(2, random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
