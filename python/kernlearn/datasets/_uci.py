"""Sonar, ionosphere and glass: UCI data sets bundled with kernlearn.

Each ``data/<name>.csv.gz`` is the UCI file's text unchanged (features, then
the raw class label in the last column), so values keep the source precision.
"""

import numpy as np

from ._base import encode_labels, make_result, read_bundled_csv, to_float_matrix

SONAR_DESCR = """\
Sonar, mines vs. rocks
----------------------
Source: UCI Machine Learning Repository (https://archive.ics.uci.edu),
"Connectionist Bench (Sonar, Mines vs. Rocks)", contributed by Terry
Sejnowski, developed with R. Paul Gorman.
Citation: Gorman, R. P. and Sejnowski, T. J. (1988). Analysis of hidden units
in a layered network trained to classify sonar targets. Neural Networks, 1,
75-89.

208 samples, 60 features, 2 classes. Each feature is the energy of a sonar
return in one frequency band, integrated over time, in [0, 1].

Labels: "R" (rock, 97 samples) -> 0, "M" (mine, i.e. metal cylinder,
111 samples) -> 1; target_names holds the original letters.

Licence: UCI data sets are public; cite the donors and the reference above.
UCI distributes this data set under CC BY 4.0.
"""

IONOSPHERE_DESCR = """\
Johns Hopkins University ionosphere
-----------------------------------
Source: UCI Machine Learning Repository (https://archive.ics.uci.edu),
"Ionosphere", donated by Vince Sigillito, Space Physics Group, Applied Physics
Laboratory, Johns Hopkins University, 1989.
Citation: Sigillito, V. G., Wing, S. P., Hutton, L. V. and Baker, K. B. (1989).
Classification of radar returns from the ionosphere using neural networks.
Johns Hopkins APL Technical Digest, 10, 262-266.

351 samples, 34 features, 2 classes. The features are two values per pulse
number (17 pulses) of the autocorrelation of complex radar returns, in
[-1, 1]. Feature 2 is 0 for every sample, so guard against dividing by its
zero standard deviation when standardising.

Labels: "g" (good: the return shows structure in the ionosphere, 225 samples)
-> 0, "b" (bad: the signal passes through, 126 samples) -> 1; target_names
holds the original letters.

Licence: UCI data sets are public; cite the donors and the reference above.
UCI distributes this data set under CC BY 4.0.
"""

GLASS_DESCR = """\
Glass identification
--------------------
Source: UCI Machine Learning Repository (https://archive.ics.uci.edu),
"Glass Identification", created by B. German (Home Office Forensic Science
Service, Aldermaston) and donated by Vina Spiehler, 1987.
Citation: Evett, I. W. and Spiehler, E. J. (1987). Rule induction in forensic
science. Technical note, Central Research Establishment, Home Office Forensic
Science Service.

214 samples, 9 features (refractive index RI, then weight percent of the
oxides of Na, Mg, Al, Si, K, Ca, Ba, Fe; the UCI Id column is not included),
6 classes.

Labels: the UCI glass types 1, 2, 3, 5, 6, 7 are encoded as 0..5; type 4
(vehicle windows, non-float) has no samples. target_names holds the original
type numbers: 1 building windows, float processed (70); 2 building windows,
non-float processed (76); 3 vehicle windows, float processed (17);
5 containers (13); 6 tableware (9); 7 headlamps (29).

Licence: UCI data sets are public; cite the donors and the reference above.
UCI distributes this data set under CC BY 4.0.
"""


def _load_bundled_uci(name, *, classes, target_names, feature_names, descr, return_X_y):
    filename = f"{name}.csv.gz"
    rows = read_bundled_csv(filename)
    data = to_float_matrix([row[:-1] for row in rows])
    target = encode_labels([row[-1] for row in rows], classes)
    return make_result(
        data=data,
        target=target,
        return_X_y=return_X_y,
        target_names=target_names,
        feature_names=feature_names,
        DESCR=descr,
        filename=filename,
        name=name,
    )


def load_sonar(*, return_X_y=False):
    """Load the sonar data set (208 samples, 60 features, 2 classes).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Fields ``data`` (float64, shape (208, 60)), ``target`` (int64;
        0 rock, 1 mine), ``target_names`` (``["R", "M"]``),
        ``feature_names``, ``DESCR``, ``filename``, ``name``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from kernlearn.datasets import load_sonar
    >>> data = load_sonar()
    >>> data.data.shape, np.bincount(data.target).tolist(), data.target_names.tolist()
    ((208, 60), [97, 111], ['R', 'M'])

    Every feature is an energy in [0, 1], the range the TL1 kernel's default tau assumes:

    >>> bool(data.data.min() >= 0), bool(data.data.max() <= 1)
    (True, True)
    """
    return _load_bundled_uci(
        "sonar",
        classes=("R", "M"),
        target_names=np.array(["R", "M"]),
        feature_names=[f"band_{i}" for i in range(1, 61)],
        descr=SONAR_DESCR,
        return_X_y=return_X_y,
    )


def load_ionosphere(*, return_X_y=False):
    """Load the ionosphere data set (351 samples, 34 features, 2 classes).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Fields ``data`` (float64, shape (351, 34)), ``target`` (int64;
        0 good, 1 bad), ``target_names`` (``["g", "b"]``), ``feature_names``,
        ``DESCR``, ``filename``, ``name``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from kernlearn.datasets import load_ionosphere
    >>> X, y = load_ionosphere(return_X_y=True)
    >>> X.shape, np.bincount(y).tolist()
    ((351, 34), [225, 126])

    The second feature is constant (0): guard against its zero deviation when standardising.

    >>> np.flatnonzero(X.std(axis=0) == 0).tolist()
    [1]
    >>> bool(X.min() >= -1), bool(X.max() <= 1)
    (True, True)
    """
    return _load_bundled_uci(
        "ionosphere",
        classes=("g", "b"),
        target_names=np.array(["g", "b"]),
        # UCI gives the attributes no individual names, only their numbers.
        feature_names=[f"attribute_{i}" for i in range(1, 35)],
        descr=IONOSPHERE_DESCR,
        return_X_y=return_X_y,
    )


def load_glass(*, return_X_y=False):
    """Load the glass identification data set (214 samples, 9 features, 6 classes).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Fields ``data`` (float64, shape (214, 9)), ``target`` (int64, 0..5),
        ``target_names`` (the UCI glass types ``[1, 2, 3, 5, 6, 7]``),
        ``feature_names``, ``DESCR``, ``filename``, ``name``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from kernlearn.datasets import load_glass
    >>> data = load_glass()
    >>> data.data.shape, data.feature_names[:3]
    ((214, 9), ['RI', 'Na', 'Mg'])

    The targets 0..5 stand for the UCI glass types in ``target_names`` (type 4 has no sample):

    >>> np.bincount(data.target).tolist()
    [70, 76, 17, 13, 9, 29]
    >>> data.target_names.tolist()
    [1, 2, 3, 5, 6, 7]
    """
    return _load_bundled_uci(
        "glass",
        classes=("1", "2", "3", "5", "6", "7"),
        target_names=np.array([1, 2, 3, 5, 6, 7], dtype=np.int64),
        feature_names=["RI", "Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe"],
        descr=GLASS_DESCR,
        return_X_y=return_X_y,
    )
