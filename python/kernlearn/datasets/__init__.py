"""Small benchmark data sets for kernel methods.

Every loader returns a :class:`sklearn.utils.Bunch` with ``data`` (float64,
C-contiguous, a new array on every call), ``target`` (int64 labels 0..K-1),
``target_names``, ``feature_names``, ``DESCR``, ``filename`` and ``name``, or
``(data, target)`` when called with ``return_X_y=True``. Iris and wine come
from scikit-learn; the others are bundled in the ``data`` folder.
"""

from ._faces import load_faces
from ._from_sklearn import load_iris, load_wine
from ._uci import load_glass, load_ionosphere, load_sonar

__all__ = [
    "load_faces",
    "load_glass",
    "load_ionosphere",
    "load_iris",
    "load_sonar",
    "load_wine",
]
