"""
Shared by every layer: the solver status and the thread cap.
"""

from __future__ import annotations

import typing

class SolverStatus:
    """
    How an iterative solver ended.

    Members:

      converged : the stopping certificate met tol

      max_iter : the iteration cap came first

      not_converged : stopped early without the certificate

      interrupted : the callback asked to stop
    """

    __members__: typing.ClassVar[dict[str, SolverStatus]]
    converged: typing.ClassVar[SolverStatus]
    interrupted: typing.ClassVar[SolverStatus]
    max_iter: typing.ClassVar[SolverStatus]
    not_converged: typing.ClassVar[SolverStatus]
    @typing.overload
    def __eq__(self, other: SolverStatus) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: SolverStatus) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

def idle_cores() -> int:
    """
    The usable cores minus the runnable tasks of other processes at this instant (Linux /proc), at least 1; all usable cores where that count does not describe them (a CPU subset, no /proc).
    """

def set_thread_limit(limit: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Caps every later parallel section at limit threads (>= 1); 0 removes the cap.
    """

def thread_cap() -> int:
    """
    The most threads a parallel section may use now: the usable cores, lowered by the process-wide limit (threadpoolctl's threadpool_limits sets it).
    """
