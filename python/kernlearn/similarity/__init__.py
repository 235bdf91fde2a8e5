"""Kernels learned from several indefinite similarity matrices (Kundu et al. 2010)."""

from ._classifiers import EMKL, ESKL, REKL

__all__ = ["EMKL", "ESKL", "REKL"]
