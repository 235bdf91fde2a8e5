"""Kernels learned from several indefinite similarity matrices (Kundu et al. 2010).

ESKL, EMKL and REKL take the m similarity matrices over n points as one array S of shape
(n, n, m): samples on the first two axes, the similarity index last (a 3-D array is always read
so; pass an (m, n, n) stack as ``np.moveaxis(S, 0, -1)``), or as a list of m (n, n) matrices.
They are tagged pairwise, so scikit-learn's ``cross_val_score`` and ``GridSearchCV`` slice S as
``S[np.ix_(train, train)]`` for fit and ``S[np.ix_(test, train)]`` (n_test, n_train, m) for
predict and score. See :mod:`kernlearn.similarity._base`. With ``rank=r`` the three restrict
the learned kernels to r leading eigenvectors and also take the m similarities as
LinearOperators (e.g. :class:`kernlearn.distributed.KernelOperator`), never forming an n x n
matrix (:mod:`kernlearn.similarity._oracles` for ESKL and EMKL).
"""

from ._emkl import EMKL
from ._eskl import ESKL
from ._rekl import REKL

__all__ = ["EMKL", "ESKL", "REKL"]
