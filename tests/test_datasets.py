"""Tests for the bundled and wrapped data sets in kernlearn.datasets."""

import numpy as np
import pytest

from kernlearn import datasets

# loader name -> (shape, samples per class in label order, source named in DESCR)
EXPECTED = {
    "load_sonar": ((208, 60), [97, 111], "UCI Machine Learning Repository"),
    "load_ionosphere": ((351, 34), [225, 126], "UCI Machine Learning Repository"),
    "load_glass": ((214, 9), [70, 76, 17, 13, 9, 29], "UCI Machine Learning Repository"),
    "load_faces": (
        (624, 20),
        [32, 31, 32, 31, 32, 31, 32, 30, 28, 30, 31, 31, 32, 32, 32, 31, 32, 30, 32, 32],
        "UCI Machine Learning Repository",
    ),
}


@pytest.fixture(params=sorted(EXPECTED))
def loader_name(request):
    return request.param


def test_all_exports_the_six_loaders():
    assert sorted(datasets.__all__) == sorted([*EXPECTED, "load_iris", "load_wine"])


def test_iris_and_wine_are_scikit_learns_loaders():
    import sklearn.datasets

    assert datasets.load_iris is sklearn.datasets.load_iris
    assert datasets.load_wine is sklearn.datasets.load_wine


def test_bunch_contents(loader_name):
    shape, class_counts, source = EXPECTED[loader_name]
    bunch = getattr(datasets, loader_name)()

    assert bunch.data.shape == shape
    assert bunch.data.dtype == np.float64
    assert bunch.data.flags.c_contiguous
    assert np.isfinite(bunch.data).all()

    assert bunch.target.shape == (shape[0],)
    assert bunch.target.dtype == np.int64
    assert np.bincount(bunch.target).tolist() == class_counts
    assert len(bunch.target_names) == len(class_counts)
    assert len(bunch.feature_names) == shape[1]

    assert source in bunch.DESCR
    assert bunch.name == loader_name.removeprefix("load_")
    assert bunch.filename


def test_return_X_y(loader_name):
    loader = getattr(datasets, loader_name)
    X, y = loader(return_X_y=True)
    bunch = loader()
    np.testing.assert_array_equal(X, bunch.data)
    np.testing.assert_array_equal(y, bunch.target)


def test_calls_return_independent_arrays(loader_name):
    loader = getattr(datasets, loader_name)
    first, second = loader(), loader()
    assert not np.shares_memory(first.data, second.data)
    assert not np.shares_memory(first.target, second.target)
    first.data[0, 0] += 1.0
    first.target[0] += 1
    fresh = loader()
    np.testing.assert_array_equal(second.data, fresh.data)
    np.testing.assert_array_equal(second.target, fresh.target)


def test_values_keep_source_precision():
    # First sonar row and a glass value with 5 decimals, as printed in the UCI files.
    sonar = datasets.load_sonar()
    assert sonar.data[0, 0] == 0.0200 and sonar.data[0, 59] == 0.0032
    assert datasets.load_glass().data[0, 0] == 1.52101
    assert datasets.load_ionosphere().data[0, 2] == 0.99539


def test_label_encodings():
    sonar = datasets.load_sonar()
    assert sonar.target_names.tolist() == ["R", "M"]
    assert sonar.target[0] == 0  # the UCI file starts with rocks

    ionosphere = datasets.load_ionosphere()
    assert ionosphere.target_names.tolist() == ["g", "b"]
    assert ionosphere.target[:2].tolist() == [0, 1]  # rows labelled g, b

    glass = datasets.load_glass()
    assert glass.target_names.tolist() == [1, 2, 3, 5, 6, 7]
    assert glass.feature_names[0] == "RI"


def test_faces_pose_labels():
    faces = datasets.load_faces()
    assert faces.target_pose.dtype == np.int64
    assert faces.target_pose.shape == (624,)
    assert np.bincount(faces.target_pose).tolist() == [157, 155, 156, 156]
    assert faces.pose_names.tolist() == ["left", "right", "straight", "up"]
    assert len(np.unique(faces.target)) == 20
    assert "pose" in faces.DESCR and "Wu" in faces.DESCR
    # Standardised by the ISM authors before they shared the features.
    np.testing.assert_allclose(faces.data.mean(axis=0), 0.0, atol=1e-5)
    np.testing.assert_allclose(faces.data.std(axis=0), 1.0, atol=1e-5)


def test_faces_return_X_y_uses_identity():
    X, y = datasets.load_faces(return_X_y=True)
    assert X.shape == (624, 20)
    assert len(np.unique(y)) == 20


def test_bundled_files_are_package_resources():
    from importlib.resources import files

    data_dir = files("kernlearn.datasets") / "data"
    for name in ("sonar", "ionosphere", "glass", "faces"):
        assert (data_dir / f"{name}.csv.gz").is_file()
