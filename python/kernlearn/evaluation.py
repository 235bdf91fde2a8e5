"""Evaluation measures."""

import numpy as np
from sklearn.metrics import normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

__all__ = ["pairwise_cluster_accuracy", "nmi"]


def _check_partitions(a, b, names):
    """Two 1-D label arrays of one length; labels are any hashable values but not NaN/inf or complex."""
    a, b = np.asarray(a), np.asarray(b)
    for labels, name in zip((a, b), names):
        if labels.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {labels.shape}")
        if labels.dtype.kind == "c":
            raise ValueError(f"{name} must hold class labels, got complex values")
        if labels.dtype.kind == "f" and not np.all(np.isfinite(labels)):
            raise ValueError(f"{name} contains NaN or infinity")
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} have different lengths: {a.size} and {b.size}")
    return a, b


def nmi(labels_a, labels_b):
    """Normalised mutual information with the geometric-mean normalisation I / sqrt(H_a H_b):
    the NMI and "novelty" of the alternative-clustering papers (Niu et al.; Wu et al., Table 1)."""
    labels_a, labels_b = _check_partitions(labels_a, labels_b, ("labels_a", "labels_b"))
    return normalized_mutual_info_score(labels_a, labels_b, average_method="geometric")


def pairwise_cluster_accuracy(y_true, y_pred):
    """Fraction of the n (n - 1) / 2 point pairs on which two partitions agree.

    The "cluster accuracy" of Hoi et al. (2007) and SimpleNPKL (Section 7.2): a pair counts when
    both partitions put it in one cluster or both split it (the Rand index). Computed from the
    contingency table in O(n + k1 k2), never over the pairs.
    """
    y_true, y_pred = _check_partitions(y_true, y_pred, ("y_true", "y_pred"))
    n = y_true.size
    if n < 2:
        raise ValueError("need at least 2 points to form a pair")
    table = contingency_matrix(y_true, y_pred, sparse=True).astype(np.float64)
    rows = np.asarray(table.sum(axis=1)).ravel()  # cluster sizes of each partition
    cols = np.asarray(table.sum(axis=0)).ravel()

    def together(counts):
        return float((counts * (counts - 1)).sum() / 2)

    total = n * (n - 1) / 2
    disagree = together(rows) + together(cols) - 2 * together(table.data)
    return (total - disagree) / total
