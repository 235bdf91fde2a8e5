"""A partially labelled Gaussian mixture: the scale benchmarks' data, in one place for
bench/scale.py, bench/bench_npkl_pairs.py and the tests that check their figures (not public:
the examples write their data out so that each stands alone); and the 2 x 2 mixture of KDAC's
scale benchmark (bench/bench_kdac_scale.py)."""

import numpy as np

from .._utils._validation import check_int


def make_labelled_mixture(n_samples, *, n_classes=5, n_features=10, separation=3.0, labelled=0.1, random_state=0):
    """Gaussian classes around random centres, a random share of the points labelled.

    Centres ``separation * N(0, I)``, unit-variance noise around them, each point's class drawn
    uniformly, each point labelled with probability ``labelled`` (-1 for the rest: scikit-learn's
    semi-supervised convention). The data of ``bench/results/scale.md`` and
    ``bench/results/npkl_pairs.md`` (the defaults, random_state=0).

    Parameters
    ----------
    n_samples, n_classes, n_features : int >= 1
    separation : float >= 0
        Standard deviation of the centres, in units of the noise.
    labelled : float in [0, 1]
    random_state : int or numpy Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y_true : int64 ndarray of shape (n_samples,), the classes
    y : int64 ndarray of shape (n_samples,), the classes of the labelled points, -1 elsewhere

    Examples
    --------
    >>> from kernlearn.datasets._mixture import make_labelled_mixture
    >>> X, y_true, y = make_labelled_mixture(1000)
    >>> X.shape, int((y >= 0).sum()), bool((y[y >= 0] == y_true[y >= 0]).all())
    ((1000, 10), 110, True)
    """
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_classes = check_int(n_classes, "n_classes", low=1)
    n_features = check_int(n_features, "n_features", low=1)
    if not 0.0 <= float(labelled) <= 1.0:
        raise ValueError(f"labelled must be in [0, 1], got {labelled!r}")
    if not float(separation) >= 0.0:
        raise ValueError(f"separation must be >= 0, got {separation!r}")
    rng = np.random.default_rng(random_state)
    centres = rng.standard_normal((n_classes, n_features)) * float(separation)
    y_true = rng.integers(0, n_classes, n_samples)
    X = centres[y_true] + rng.standard_normal((n_samples, n_features))
    y = np.where(rng.random(n_samples) < float(labelled), y_true, -1)
    return X, y_true.astype(np.int64), y.astype(np.int64)


def make_alternative_mixture(n_samples, *, n_features=10, separation=2.5, random_state=0):
    """Two independent two-group structures in a 2 x 2 design: KDAC's scale data.

    The given grouping ``a`` moves features 0 and 1 by ``+-separation``, the hidden alternative
    ``b`` features 2 and 3 the same way, each drawn uniformly and independently; all features
    carry unit-variance noise, and features 4 .. n_features - 1 nothing else. Given ``a``, an
    alternative clustering should find ``b`` (bench/bench_kdac_scale.py, bench/results/kdac_scale.md).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    a, b : int64 ndarrays of shape (n_samples,), the given and the hidden grouping

    Examples
    --------
    >>> from kernlearn.datasets._mixture import make_alternative_mixture
    >>> X, a, b = make_alternative_mixture(1000)
    >>> X.shape, sorted(set(a.tolist())), sorted(set(b.tolist()))
    ((1000, 10), [0, 1], [0, 1])
    """
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_features = check_int(n_features, "n_features", low=4)
    if not float(separation) >= 0.0:
        raise ValueError(f"separation must be >= 0, got {separation!r}")
    rng = np.random.default_rng(random_state)
    a = rng.integers(0, 2, n_samples)
    b = rng.integers(0, 2, n_samples)
    X = rng.standard_normal((n_samples, n_features))
    X[:, :2] += float(separation) * (2.0 * a[:, None] - 1.0)
    X[:, 2:4] += float(separation) * (2.0 * b[:, None] - 1.0)
    return X, a.astype(np.int64), b.astype(np.int64)
