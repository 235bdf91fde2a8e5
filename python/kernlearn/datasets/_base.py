"""Helpers shared by the loaders: reading bundled files and building the result."""

import csv
import gzip
from importlib.resources import files

import numpy as np
from sklearn.utils import Bunch


def read_bundled_csv(filename):
    """Read a gzip-compressed CSV file from the bundled ``data`` folder.

    Parameters
    ----------
    filename : str
        File name inside ``kernlearn/datasets/data``.

    Returns
    -------
    rows : list of list of str
        The fields of every row, as text.
    """
    # importlib.resources rather than __file__, so the files are found in any
    # installed layout (wheel, zip import, editable install).
    resource = files("kernlearn.datasets") / "data" / filename
    with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="ascii", newline="") as text:
        return list(csv.reader(text))


def to_float_matrix(rows):
    """Parse rows of decimal text into a new float64 C-contiguous 2-D array."""
    # Parsing the stored text (not a binary copy) keeps the source's values exactly.
    return np.array(rows, dtype=np.float64, order="C")


def encode_labels(labels, classes):
    """Map raw labels to int64 codes 0..K-1 in the order given by ``classes``.

    Parameters
    ----------
    labels : sequence of str
        Raw label of every sample.
    classes : sequence of str
        All raw labels; the label ``classes[k]`` is encoded as ``k``.

    Returns
    -------
    target : ndarray of shape (n_samples,), dtype int64
    """
    code = {label: k for k, label in enumerate(classes)}
    unknown = set(labels) - code.keys()
    if unknown:
        # A mismatch means the bundled file and the loader disagree: fail loudly.
        raise ValueError(f"unexpected labels {sorted(unknown)}; expected {list(classes)}")
    return np.array([code[label] for label in labels], dtype=np.int64)


def make_result(*, data, target, return_X_y, **fields):
    """Return ``(data, target)`` or a :class:`~sklearn.utils.Bunch` of all fields.

    Parameters
    ----------
    data : ndarray of shape (n_samples, n_features)
    target : ndarray of shape (n_samples,)
    return_X_y : bool
        If True, return only the tuple ``(data, target)``.
    **fields
        Further entries of the Bunch (``target_names``, ``DESCR``, ...).
    """
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, **fields)
