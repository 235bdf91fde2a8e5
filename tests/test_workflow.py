"""Every estimator in a scikit-learn workflow: Pipelines with StandardScaler, GridSearchCV with
n_jobs=2, DataFrame input (feature_names_in_, set_output), string labels and the
semi-supervised label rule."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from kernlearn.cluster import KDAC, KernelKMeans
from kernlearn.constraints import from_labels
from kernlearn.embedding import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding
from kernlearn.indefinite import IndefiniteKernelLogisticRegression
from kernlearn.metric import S3ML
from kernlearn.npkl import SimpleNPKL

TRANSFORMERS = [
    SimpleNPKL(n_neighbors=4, random_state=0),
    ColoredMVU(n_components=2, n_neighbors=4, random_state=0),
    MinimumVolumeEmbedding(n_components=2, n_neighbors=4, random_state=0),
    StructurePreservingEmbedding(n_components=2, n_neighbors=4, max_rounds=3, random_state=0),
    S3ML(n_neighbors=4, random_state=0),
    KDAC(2, n_components=2, sigma=3.0, random_state=0),
]
NAMES = lambda e: type(e).__name__  # noqa: E731


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))[:90]
    X = X[order] + 1e-3 * rng.standard_normal((90, 4))  # no duplicate points
    return pd.DataFrame(X, columns=["sepal_l", "sepal_w", "petal_l", "petal_w"]), y[order]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=NAMES)
def test_transformer_in_a_pipeline_with_pandas_output(iris, transformer):
    X, y = iris
    pipe = make_pipeline(StandardScaler(), clone(transformer)).set_output(transform="pandas")
    fitted = _quiet(pipe.fit, X[:60], y[:60])
    step = fitted[-1]
    np.testing.assert_array_equal(step.feature_names_in_, X.columns)  # StandardScaler kept them
    out = fitted.transform(X[60:])
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(step.get_feature_names_out())
    assert out.shape[0] == 30 and np.isfinite(out.to_numpy()).all()
    trained = _quiet(pipe.fit_transform, X[:60], y[:60])
    assert isinstance(trained, pd.DataFrame) and trained.shape[0] == 60


def test_the_issues_pipeline_predicts_test_points(iris):
    X, y = iris
    pipe = Pipeline(
        [
            ("scale", StandardScaler()),
            ("kernel", SimpleNPKL(n_neighbors=4, random_state=0)),
            ("cluster", KernelKMeans(3, random_state=0)),
        ]
    )
    labels = _quiet(pipe.fit, X[:60], y[:60]).predict(X[60:])
    assert labels.shape == (30,) and set(labels) <= {0, 1, 2}
    # pairs instead of labels, routed to the kernel step
    pairs, pair_labels = from_labels(y[:60], n_pairs=80, random_state=0)
    _quiet(pipe.fit, X[:60], kernel__pairs=pairs, kernel__pair_labels=pair_labels)
    assert pipe.predict(X[60:]).shape == (30,)


SEARCHES = [
    (SimpleNPKL(n_neighbors=4, random_state=0), {"C": [0.1, 0.3]}, "kernel"),
    (ColoredMVU(n_components=2, n_neighbors=4, random_state=0), {"C": [0.5, 1.0]}, "embedding"),
    (MinimumVolumeEmbedding(n_components=2, n_neighbors=4, random_state=0), {"n_neighbors": [4, 5]}, "embedding"),
    (
        StructurePreservingEmbedding(n_components=2, n_neighbors=4, max_rounds=3, random_state=0),
        {"C": [0.5, 1.0]},
        "embedding",
    ),
    (S3ML(n_neighbors=4, random_state=0), {"rho": [0.1, 0.2]}, "embedding"),
    (KernelKMeans(3, random_state=0), {"n_init": [2, 4]}, "own"),
    (KDAC(2, n_components=2, sigma=3.0, random_state=0), {"sigma": [2.0, 3.0]}, "own"),
    (IndefiniteKernelLogisticRegression(kernel="rbf", random_state=0), {"alpha": [0.01, 0.1]}, "own"),
]


@pytest.mark.parametrize("estimator, grid, kind", SEARCHES, ids=lambda p: type(p).__name__ if hasattr(p, "fit") else "")
def test_grid_search_with_two_jobs(iris, estimator, grid, kind):
    """GridSearchCV(n_jobs=2) runs and picks the same parameters as a sequential search. A
    transformer without a score is scored by a 1-NN classifier on its output (a Pipeline)."""
    from sklearn.neighbors import KNeighborsClassifier

    X, y = iris
    X = StandardScaler().fit_transform(X)
    if kind == "own":
        model, params = estimator, grid
    else:
        model = Pipeline([("learn", estimator), ("knn", KNeighborsClassifier(1))])
        params = {f"learn__{key}": values for key, values in grid.items()}
    if isinstance(estimator, KDAC):  # y is the existing clustering
        y = (X[:, 0] > np.median(X[:, 0])).astype(int)
    cv = KFold(3, shuffle=True, random_state=0)
    kwargs = dict(cv=cv, error_score="raise")
    if isinstance(estimator, (KernelKMeans, KDAC)):
        kwargs["scoring"] = "adjusted_rand_score"
    parallel = _quiet(GridSearchCV(model, params, n_jobs=2, **kwargs).fit, X, y)
    sequential = _quiet(GridSearchCV(model, params, n_jobs=1, **kwargs).fit, X, y)
    np.testing.assert_allclose(parallel.cv_results_["mean_test_score"], sequential.cv_results_["mean_test_score"])
    assert np.isfinite(parallel.cv_results_["mean_test_score"]).all()


@pytest.mark.parametrize(
    "estimator",
    [
        SimpleNPKL(n_neighbors=4, random_state=0),
        S3ML(n_neighbors=4, random_state=0),
        ColoredMVU(n_components=2, n_neighbors=4, random_state=0),
        IndefiniteKernelLogisticRegression(kernel="rbf", random_state=0),
    ],
    ids=NAMES,
)
def test_string_labels_fit_as_their_codes(iris, estimator):
    X, y = iris
    classes = np.array(["setosa", "versicolor", "virginica"])
    names = classes[y]
    by_code = _quiet(clone(estimator).fit, X, y)
    by_name = _quiet(clone(estimator).fit, X, names)
    if hasattr(by_code, "predict"):
        np.testing.assert_array_equal(by_name.predict(X), classes[by_code.predict(X)])
    else:
        np.testing.assert_allclose(by_name.transform(X), by_code.transform(X))


@pytest.mark.parametrize("estimator", [SimpleNPKL(n_neighbors=4), S3ML(n_neighbors=4)], ids=NAMES)
def test_minus_one_plus_one_labels_are_refused(iris, estimator):
    """-1 marks unlabelled points: {-1, +1} would read as one class plus unlabelled points."""
    X, y = iris
    with pytest.raises(ValueError, match="-1 marks an unlabelled point.*relabel"):
        clone(estimator).fit(X, np.where(y == 1, 1, -1))
