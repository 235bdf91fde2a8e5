"""Metric learning: semi-supervised sparse metric learning (S3ML) and its sparse inverse
covariance (SICE) solver."""

from ._affinity import laplacian_quadratic_form, propagate_affinities
from ._s3ml import S3ML, admissible_beta
from ._sice import SparseInverseCovariance, sparse_inverse_covariance

__all__ = [
    "S3ML",
    "SparseInverseCovariance",
    "admissible_beta",
    "laplacian_quadratic_form",
    "propagate_affinities",
    "sparse_inverse_covariance",
]
