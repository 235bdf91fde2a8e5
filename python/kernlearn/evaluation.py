"""Evaluation measures."""

import numpy as np
from sklearn.metrics import normalized_mutual_info_score, rand_score, roc_auc_score

from ._utils._validation import as_index_array, as_label_array, as_real_array

__all__ = ["nmi", "pair_distance_auc", "pairwise_cluster_accuracy"]


def _check_partitions(a, b, names):
    """Two 1-D label arrays of one length; labels are any hashable values but not NaN/inf or complex."""
    a, b = as_label_array(a, names[0]), as_label_array(b, names[1])
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
    the NMI and "novelty" of the alternative-clustering papers (Niu et al.; Wu et al., Table 1).

    Parameters
    ----------
    labels_a, labels_b : array-like of shape (n_samples,)
        Two partitions of the same points (any hashable labels).

    Returns
    -------
    float
        In [0, 1]: 1 when the partitions agree up to renaming the clusters, 0 when they are
        independent. Symmetric in its arguments.

    Examples
    --------
    The two labellings of the CMU faces, identity and head pose, are nearly independent; a
    clustering of the images finds the identities, not the poses (a low NMI with an existing
    clustering is the "novelty" of an alternative one):

    >>> from sklearn.cluster import AgglomerativeClustering
    >>> from kernlearn.datasets import load_faces
    >>> from kernlearn.evaluation import nmi
    >>> faces = load_faces()
    >>> round(nmi(faces.target, faces.target_pose), 3)
    0.001
    >>> clusters = AgglomerativeClustering(n_clusters=20).fit_predict(faces.data)
    >>> round(nmi(clusters, faces.target), 2), round(nmi(clusters, faces.target_pose), 2)
    (0.83, 0.1)
    >>> round(nmi([0, 0, 1, 1], ["b", "b", "a", "a"]), 3)
    1.0
    """
    labels_a, labels_b = _check_partitions(labels_a, labels_b, ("labels_a", "labels_b"))
    return normalized_mutual_info_score(labels_a, labels_b, average_method="geometric")


def pairwise_cluster_accuracy(y_true, y_pred):
    """Fraction of the n (n - 1) / 2 point pairs on which two partitions agree.

    The "cluster accuracy" of Hoi et al. (2007) and SimpleNPKL (Section 7.2): a pair counts when
    both partitions put it in one cluster or both split it. That is the Rand index, and this is
    :func:`sklearn.metrics.rand_score` under the papers' name, with kernlearn's input checks.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,), n_samples >= 2
        Two partitions of the same points (any hashable labels; the cluster names need not
        match).

    Returns
    -------
    float
        In [0, 1]; 1 when the partitions agree up to renaming the clusters.

    Examples
    --------
    >>> from sklearn.cluster import AgglomerativeClustering
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.datasets import load_wine
    >>> from kernlearn.evaluation import pairwise_cluster_accuracy
    >>> X, y = load_wine(return_X_y=True)
    >>> clusters = AgglomerativeClustering(n_clusters=3).fit_predict(StandardScaler().fit_transform(X))
    >>> round(pairwise_cluster_accuracy(y, clusters), 3)
    0.906

    Only the grouping counts, not the names; of the 6 pairs of 4 points, these two
    partitions agree on 2 (pairs (0, 2) and (1, 3), split by both):

    >>> pairwise_cluster_accuracy([0, 0, 1, 1], [5, 5, 7, 7])
    1.0
    >>> round(pairwise_cluster_accuracy([0, 0, 1, 1], [0, 1, 1, 0]), 3)
    0.333
    """
    y_true, y_pred = _check_partitions(y_true, y_pred, ("y_true", "y_pred"))
    if y_true.size < 2:
        raise ValueError("need at least 2 points to form a pair")
    return float(rand_score(y_true, y_pred))


def pair_distance_auc(embedding, pairs, pair_labels):
    """How well a kernel's distances separate must-links from cannot-links: the area under the
    ROC curve of ``-|f_i - f_j|^2`` (the kernel distance K_ii + K_jj - 2 K_ij, with the kernel's
    factor F = ``embedding`` rows f) for must-link (+1) against cannot-link (-1) pairs.

    1 when every must-link pair is closer than every cannot-link pair, 0.5 for no separation.
    The squared distance, not the cosine, is what kernel k-means and nearest neighbours read:
    points the kernel gives (nearly) no mass all sit at the origin, close to each other whatever
    their pairs say, and score 0.5 here even when their directions would separate them.

    Parameters
    ----------
    embedding : array-like of shape (n_samples, rank)
        A factor F of the kernel, K = F F' (e.g. ``embedding_``), or any features whose
        Euclidean distances are to be scored (e.g. a metric learner's ``transform``).
    pairs : array-like of shape (n_pairs, 2)
        Row indices into ``embedding``.
    pair_labels : array-like of shape (n_pairs,)
        +1 must-link, -1 cannot-link; both must occur.

    Returns
    -------
    float
        The ROC AUC, in [0, 1].

    Examples
    --------
    Held-out pairs (among the points whose labels the fit did not see) scored on standardised
    wine features and in the space of the metric S3ML learns from 20 % of the labels:

    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernlearn.constraints import from_labels
    >>> from kernlearn.datasets import load_wine
    >>> from kernlearn.evaluation import pair_distance_auc
    >>> from kernlearn.metric import S3ML
    >>> X, y = load_wine(return_X_y=True)
    >>> labelled = np.random.default_rng(0).random(len(y)) < 0.2
    >>> model = S3ML(random_state=0).fit(X, np.where(labelled, y, -1))
    >>> pairs, pair_labels = from_labels(np.where(labelled, -1, y), n_pairs=500, random_state=0)
    >>> bool(labelled[pairs].any())
    False
    >>> round(pair_distance_auc(StandardScaler().fit_transform(X), pairs, pair_labels), 2)
    0.84
    >>> round(pair_distance_auc(model.transform(X), pairs, pair_labels), 2)
    0.87
    """
    F = as_real_array(embedding, "embedding", ensure_2d=False, allow_nd=True)
    if F.ndim != 2:
        raise ValueError(f"embedding must be 2-D (n, rank), got shape {F.shape}")
    pairs = as_index_array(pairs, "pairs")
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
