"""CMU faces as 20 PCA features, with identity and pose labels.

``data/faces.csv.gz`` holds the ISM authors' 20 feature columns as text,
unchanged, followed by the identity and the pose label of each image.
"""

import numpy as np

from ._base import make_result, read_bundled_csv, to_float_matrix

FACES_DESCR = """\
CMU faces, 20-dimensional PCA features
--------------------------------------
Source: UCI Machine Learning Repository (https://archive.ics.uci.edu),
"CMU Face Images", donated by Tom Mitchell, Carnegie Mellon University, 1999.
Citation: Mitchell, T. M. (1997). Machine Learning. McGraw Hill.
This version is the one distributed with the ISM alternative-clustering paper:
Wu, C., Ioannidis, S., Sznaier, M., Li, X., Kaeli, D. and Dy, J. (2018).
Iterative spectral method for alternative clustering. AISTATS 2018
(repository neu-spiral/ISM, data_sets/face_624_20*.csv).

624 samples, 20 features. The 32x30 grey-level images of 20 people were
projected onto 20 principal components by the ISM authors; each column is
stored standardised (mean 0, variance 1). 16 of the 640 CMU images are
missing: those the archive marks as corrupted (".bad").

Labels: two labellings of the same images.
- target: identity, 20 classes with 28 to 32 images each, coded 0..19 as in
  the ISM file face_624_20_original_label.csv. The file does not record the
  CMU user ids, so target_names are the integers 0..19.
- target_pose: head pose, 4 classes (157, 155, 156, 156 images) from
  face_624_20_alt_label.csv. pose_names ("left", "right", "straight", "up")
  were inferred: only this assignment makes the 16 missing images match the
  archive's list of .bad files.
The ISM paper's Table 1 used the pose as the existing clustering and scored
the alternative clustering against identity, although its text describes the
roles the other way round.

Licence: UCI data sets are public; cite the donor and the references above.
UCI distributes this data set under CC BY 4.0; the donor asks for attribution
in lectures or publications that use the images.
"""


def load_faces(*, return_X_y=False):
    """Load the CMU faces as 20 PCA features (624 samples, 20 identities, 4 poses).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` with the identity as target,
        instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Fields ``data`` (float64, shape (624, 20)), ``target`` (int64
        identity, 0..19), ``target_pose`` (int64 pose, 0..3),
        ``target_names`` (identity ids 0..19), ``pose_names``,
        ``feature_names``, ``DESCR``, ``filename``, ``name``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from kernlearn.datasets import load_faces
    >>> faces = load_faces()
    >>> faces.data.shape, np.unique(faces.target).size
    ((624, 20), 20)

    A second labelling of the same images, by head pose:

    >>> np.bincount(faces.target_pose).tolist(), faces.pose_names.tolist()
    ([157, 155, 156, 156], ['left', 'right', 'straight', 'up'])

    Each person is seen in every pose, e.g. the first one 8 times in each:

    >>> np.bincount(faces.target_pose[faces.target == 0]).tolist()
    [8, 8, 8, 8]
    """
    filename = "faces.csv.gz"
    rows = read_bundled_csv(filename)
    data = to_float_matrix([row[:20] for row in rows])
    # The label columns were written as plain integers when the file was built.
    target = np.array([row[20] for row in rows], dtype=np.int64)
    target_pose = np.array([row[21] for row in rows], dtype=np.int64)
    return make_result(
        data=data,
        target=target,
        return_X_y=return_X_y,
        target_pose=target_pose,
        target_names=np.arange(20, dtype=np.int64),
        pose_names=np.array(["left", "right", "straight", "up"]),
        feature_names=[f"pc_{i}" for i in range(1, 21)],
        DESCR=FACES_DESCR,
        filename=filename,
        name="faces",
    )
