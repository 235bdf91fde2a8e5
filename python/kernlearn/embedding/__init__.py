"""MVU-type embeddings on the SimpleNPKL saddle-point solver (Section 6 of the SimpleNPKL paper)."""

from ._colored_mvu import ColoredMVU
from ._mve import MinimumVolumeEmbedding
from ._spe import StructurePreservingEmbedding

__all__ = ["ColoredMVU", "MinimumVolumeEmbedding", "StructurePreservingEmbedding"]
