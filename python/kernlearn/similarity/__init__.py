"""Kernels learned from several indefinite similarity matrices (Kundu et al. 2010)."""

from ._emkl import EMKL
from ._eskl import ESKL
from ._rekl import REKL

__all__ = ["EMKL", "ESKL", "REKL"]
