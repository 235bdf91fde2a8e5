"""Clustering: k-means in a kernel's feature space, and alternative clustering (KDAC)."""

from ._kdac import KDAC, median_sigma
from ._kernel_kmeans import KernelKMeans

__all__ = ["KDAC", "KernelKMeans", "median_sigma"]
