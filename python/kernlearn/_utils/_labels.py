"""One rule for class labels, used wherever an estimator takes them.

Labels may be integers, floats holding integers, strings or any hashable values numpy can sort.
Semi-supervised estimators follow scikit-learn's ``LabelSpreading`` convention: the numeric value
-1 marks an unlabelled point (strings have no such marker: every string label is a class). That
convention has one trap, binary labels in {-1, +1}, which it reads as "class +1 plus unlabelled
points"; it is refused with an error that says how to relabel.
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

__all__ = ["UNLABELLED", "encode_labels"]

UNLABELLED = -1


def encode_labels(y, n, *, semi_supervised=True, name="y", min_classes=2):
    """(classes, codes): the sorted classes of the labelled points and each point's index into
    them, -1 for an unlabelled point. Errors name ``name``.

    n: the number of samples y must label. semi_supervised: whether the numeric -1 means
    unlabelled (otherwise it is a class like any other)."""
    if y is None:
        raise ValueError(f"{name} is required: one class label per sample")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D with one label per sample, got shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"{name} has {y.shape[0]} labels for {n} samples")
    if y.dtype.kind == "c":
        raise ValueError(f"{name} must hold class labels, got complex values")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or infinity")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and not np.isfinite(v)) for v in y):
        raise ValueError(f"{name} contains None or NaN")
    numeric = y.dtype.kind in "biuf"
    labelled = y != UNLABELLED if (semi_supervised and numeric) else np.ones(n, dtype=bool)
    if not labelled.any():
        raise ValueError(f"{name} has no labelled point ({UNLABELLED} marks an unlabelled one)")
    try:
        check_classification_targets(y[labelled])
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None
    classes, codes = np.unique(y[labelled], return_inverse=True)
    if classes.size == 1 and semi_supervised and numeric and not labelled.all():
        raise ValueError(
            f"{name} holds {UNLABELLED} and a single other class ({classes[0]}). {UNLABELLED} marks "
            "an unlabelled point (scikit-learn's semi-supervised convention), so this reads as one "
            f"class plus unlabelled points. If {UNLABELLED} is a class (binary labels in "
            "{-1, +1}), relabel, e.g. y = (y > 0).astype(int) or string labels"
        )
    if classes.size < min_classes:
        raise ValueError(f"{name} must hold at least {min_classes} classes, got {classes.size}: {classes!r}")
    out = np.full(n, UNLABELLED, dtype=np.int64)
    out[labelled] = np.ravel(codes)
    return classes, out
