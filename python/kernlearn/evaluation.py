"""Evaluation measures."""

import numpy as np
from sklearn.metrics import normalized_mutual_info_score, roc_auc_score
from sklearn.metrics.cluster import contingency_matrix

__all__ = ["nmi", "pair_distance_auc", "pairwise_cluster_accuracy"]


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


def pair_distance_auc(embedding, pairs, pair_labels):
    """How well a kernel's distances separate must-links from cannot-links: the area under the
    ROC curve of ``-|f_i - f_j|^2`` (the kernel distance K_ii + K_jj - 2 K_ij, with the kernel's
    factor F = ``embedding`` rows f) for must-link (+1) against cannot-link (-1) pairs.

    1 when every must-link pair is closer than every cannot-link pair, 0.5 for no separation.
    The squared distance, not the cosine, is what kernel k-means and nearest neighbours read:
    points the kernel gives (nearly) no mass all sit at the origin, close to each other whatever
    their pairs say, and score 0.5 here even when their directions would separate them."""
    F = np.asarray(embedding, dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(f"embedding must be 2-D (n, rank), got shape {F.shape}")
    pairs = np.asarray(pairs)
    labels = np.asarray(pair_labels)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or labels.shape != (pairs.shape[0],):
        raise ValueError(f"pairs must be (m, 2) and pair_labels (m,), got {pairs.shape} and {labels.shape}")
    if not np.isin(labels, (-1, 1)).all() or np.unique(labels).size < 2:
        raise ValueError("pair_labels must hold both +1 (must-link) and -1 (cannot-link)")
    if pairs.min() < 0 or pairs.max() >= F.shape[0]:
        raise ValueError(f"pairs index points outside 0..{F.shape[0] - 1}")
    difference = F[pairs[:, 0]] - F[pairs[:, 1]]
    distance = np.einsum("ij,ij->i", difference, difference)
    return float(roc_auc_score(labels > 0, -distance))
