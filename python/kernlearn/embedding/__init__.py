"""MVU-type embeddings on the SimpleNPKL saddle-point solver (Section 6 of the SimpleNPKL paper)."""

from ._embeddings import ColoredMVU, MinimumVolumeEmbedding, StructurePreservingEmbedding

__all__ = ["ColoredMVU", "MinimumVolumeEmbedding", "StructurePreservingEmbedding"]
