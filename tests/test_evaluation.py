"""pairwise_cluster_accuracy against its definition, KernelKMeans on factor and matrix."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import rand_score

from kernlearn.cluster import KernelKMeans
from kernlearn.metrics import pairwise_cluster_accuracy


def brute_force(a, b):
    pairs = list(itertools.combinations(range(len(a)), 2))
    return np.mean([(a[i] == a[j]) == (b[i] == b[j]) for i, j in pairs])


@pytest.mark.parametrize("seed", range(5))
def test_pairwise_cluster_accuracy_matches_the_pair_count(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 4, 60), rng.integers(0, 3, 60)
    assert np.isclose(pairwise_cluster_accuracy(a, b), brute_force(a, b))
    assert np.isclose(pairwise_cluster_accuracy(a, b), rand_score(a, b))
    assert pairwise_cluster_accuracy(a, a) == 1.0
    assert pairwise_cluster_accuracy(a, a + 7) == 1.0  # label names do not matter


def test_pairwise_cluster_accuracy_bad_input():
    with pytest.raises(ValueError, match="different lengths"):
        pairwise_cluster_accuracy([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="at least 2"):
        pairwise_cluster_accuracy([0], [0])


def test_kernel_kmeans_factor_and_matrix_agree():
    rng = np.random.default_rng(0)
    F = np.r_[rng.normal(0, 0.3, (20, 3)), rng.normal(3, 0.3, (20, 3))]
    by_factor = KernelKMeans(2, random_state=0).fit(F).labels_
    by_matrix = KernelKMeans(2, kernel="precomputed", random_state=0).fit(F @ F.T).labels_
    assert pairwise_cluster_accuracy(by_factor, by_matrix) == 1.0
    assert pairwise_cluster_accuracy(by_factor, np.repeat([0, 1], 20)) == 1.0
    with pytest.raises(ValueError, match="square"):
        KernelKMeans(2, kernel="precomputed").fit(F)


def test_kernel_kmeans_on_a_zero_kernel_says_so():
    with pytest.raises(ValueError, match="kernel is zero"):
        KernelKMeans(3).fit(np.zeros((5, 0)))
