"""Small benchmark data sets for kernel methods.

The bundled loaders (sonar, ionosphere, glass, faces; files in the ``data`` folder) return a
:class:`sklearn.utils.Bunch` with ``data`` (float64, C-contiguous, a new array on every call),
``target`` (int64 labels 0..K-1), ``target_names``, ``feature_names``, ``DESCR`` (source,
citation, licence), ``filename`` and ``name``, or ``(data, target)`` when called with
``return_X_y=True``. ``load_iris`` and ``load_wine`` are scikit-learn's own loaders, exported here
unchanged so that every data set the examples use comes from one module.
"""

from sklearn.datasets import load_iris, load_wine

from ._faces import load_faces
from ._uci import load_glass, load_ionosphere, load_sonar

__all__ = [
    "load_faces",
    "load_glass",
    "load_ionosphere",
    "load_iris",
    "load_sonar",
    "load_wine",
]
