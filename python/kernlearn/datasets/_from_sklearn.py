"""Iris and wine, read from scikit-learn's bundled copies.

scikit-learn is a runtime dependency of kernlearn, so these two data sets are
not shipped again; the loaders only convert the result to kernlearn's format.
"""

import numpy as np
import sklearn.datasets

from ._base import make_result

IRIS_DESCR = """\
Iris plants
-----------
Source: scikit-learn's bundled copy (sklearn.datasets.load_iris) of the
"Iris" data set from the UCI Machine Learning Repository
(https://archive.ics.uci.edu), donated by Michael Marshall, 1988.
Citation: Fisher, R. A. (1936). The use of multiple measurements in taxonomic
problems. Annals of Eugenics, 7(2), 179-188.

150 samples, 4 features (sepal length, sepal width, petal length, petal
width, in cm), 3 classes of 50 samples each.

Labels: scikit-learn's encoding, setosa -> 0, versicolor -> 1,
virginica -> 2 (target_names). scikit-learn's copy has samples 35 and 38 as
printed in Fisher's paper; the UCI file differs from it there.

Licence: UCI data sets are public; cite the donor and the reference above.
UCI distributes this data set under CC BY 4.0.
"""

WINE_DESCR = """\
Wine recognition
----------------
Source: scikit-learn's bundled copy (sklearn.datasets.load_wine) of the
"Wine" data set from the UCI Machine Learning Repository
(https://archive.ics.uci.edu), donated by Stefan Aeberhard, 1991.
Citation: Forina, M. et al. PARVUS - An Extendable Package of Programs for
Data Exploration, Classification and Correlation. Institute of Pharmaceutical
and Food Analysis and Technologies, Genoa, Italy.

178 samples, 13 features (chemical analysis of wines from three cultivars of
the same Italian region), 3 classes with 59, 71 and 48 samples.

Labels: UCI classes 1, 2, 3 -> 0, 1, 2, named class_0, class_1, class_2 as
in scikit-learn (target_names). The features have very different scales
(e.g. proline in the hundreds), so standardise before using an RBF kernel.

Licence: UCI data sets are public; cite the donors and the reference above.
UCI distributes this data set under CC BY 4.0.
"""


def _rewrap(sk_bunch, *, name, filename, descr, return_X_y):
    # Explicit copies with fixed dtypes: callers own their arrays, and labels are
    # int64 on every platform (NumPy < 2 on Windows gives int32 by default).
    data = np.array(sk_bunch.data, dtype=np.float64, order="C")
    target = np.array(sk_bunch.target, dtype=np.int64)
    return make_result(
        data=data,
        target=target,
        return_X_y=return_X_y,
        target_names=np.array(sk_bunch.target_names),
        feature_names=list(sk_bunch.feature_names),
        DESCR=descr,
        filename=filename,
        name=name,
    )


def load_iris(*, return_X_y=False):
    """Load the iris data set (150 samples, 4 features, 3 classes).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Fields ``data`` (float64, shape (150, 4)), ``target`` (int64, 0..2),
        ``target_names``, ``feature_names``, ``DESCR``, ``filename``, ``name``.
    (data, target) : tuple
        If ``return_X_y`` is True.
    """
    return _rewrap(
        sklearn.datasets.load_iris(),
        name="iris",
        filename="iris.csv",  # scikit-learn's file, not shipped by kernlearn
        descr=IRIS_DESCR,
        return_X_y=return_X_y,
    )


def load_wine(*, return_X_y=False):
    """Load the wine data set (178 samples, 13 features, 3 classes).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Fields ``data`` (float64, shape (178, 13)), ``target`` (int64, 0..2),
        ``target_names``, ``feature_names``, ``DESCR``, ``filename``, ``name``.
    (data, target) : tuple
        If ``return_X_y`` is True.
    """
    return _rewrap(
        sklearn.datasets.load_wine(),
        name="wine",
        filename="wine_data.csv",  # scikit-learn's file, not shipped by kernlearn
        descr=WINE_DESCR,
        return_X_y=return_X_y,
    )
